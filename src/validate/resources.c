/*
 * resources.c - runs nvcc with ptxas's verbose report and turns the report
 * into per-kernel records (registers, shared memory, stack, spills); keeps
 * the warning lines so two compilations can be compared.
 *
 * The parser is pure (kp_resources_parse) and unit-tested on captured text;
 * kp_resources_compile and kp_resources_demangle are the only functions here
 * that start processes.  Occupancy arithmetic lives in arch.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "resources.h"
#include "build_cache.h"
#include "proc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of the record for name, created when new. */
static int add_kernel(kp_resources *r, const char *name, size_t n)
{
	for (int i = 0; i < r->nkernels; i++)
		if (strlen(r->kernels[i].name) == n && strncmp(r->kernels[i].name, name, n) == 0)
			return i;
	if (r->nkernels == r->kcap) {
		r->kcap = r->kcap ? r->kcap * 2 : 8;
		r->kernels = kp_xrealloc(r->kernels, (size_t)r->kcap * sizeof(*r->kernels));
	}
	kp_kernel_res *k = &r->kernels[r->nkernels];
	memset(k, 0, sizeof(*k));
	k->name = kp_arena_strndup(&r->arena, name, n);
	k->barriers = -1;
	return r->nkernels++;
}

/* nvcc, ptxas, cudafe and host compiler warnings: "warning :", "warning:"
 * or "warning #177-D:"; not "Remark: The warnings can be suppressed ...". */
static int is_warning_line(const char *l)
{
	for (const char *p = l; (p = strpbrk(p, "wW")); p++) {
		if (strncmp(p + 1, "arning", 6) != 0)
			continue;
		const char *q = p + 7;
		if (*q == ' ')
			q++;
		if (*q == ':' || *q == '#')
			return 1;
	}
	return 0;
}

static void add_warning(kp_resources *r, const char *line, size_t n)
{
	if (r->nwarnings == r->wcap) {
		r->wcap = r->wcap ? r->wcap * 2 : 8;
		r->warnings = kp_xrealloc(r->warnings, (size_t)r->wcap * sizeof(*r->warnings));
	}
	r->warnings[r->nwarnings++] = kp_arena_strndup(&r->arena, line, n);
}

/* The quoted name after `prefix` in line: "... entry function 'NAME' ...". */
static int quoted_after(const char *line, const char *prefix, const char **name, size_t *n)
{
	const char *p = strstr(line, prefix);
	if (!p)
		return 0;
	p += strlen(prefix);
	const char *q = strchr(p, '\'');
	if (!q)
		return 0;
	*name = p;
	*n = (size_t)(q - p);
	return 1;
}

/* "N <what>" anywhere in line -> N; returns 1 when found.  `what` follows
 * the number after one space ("bytes smem", "registers"). */
static int number_before(const char *line, const char *what, int *out)
{
	size_t wl = strlen(what);
	for (const char *p = strstr(line, what); p; p = strstr(p + 1, what)) {
		if (p - line < 2 || p[-1] != ' ' || !isdigit((unsigned char)p[-2]))
			continue;
		if (kp_is_ident_char(p[wl]))
			continue; /* "smem" must not match "smemx" */
		const char *s = p - 2;
		while (s > line && isdigit((unsigned char)s[-1]))
			s--;
		*out = atoi(s);
		return 1;
	}
	return 0;
}

/* "used N barriers": the number follows the word. */
static int number_after(const char *line, const char *what, int *out)
{
	const char *p = strstr(line, what);
	if (!p || !isdigit((unsigned char)p[strlen(what)]))
		return 0;
	*out = atoi(p + strlen(what));
	return 1;
}

/* One line of the report.  *entry is the entry function being compiled
 * ("Used N registers" belongs to it), *props the function whose "Function
 * properties" line came last (the stack/spill line belongs to it); -1 when
 * none. */
static void parse_line(kp_resources *r, const char *line, size_t len, int *entry, int *props)
{
	char *l = kp_xstrndup(line, len);
	const char *prop = "Function properties for ";
	const char *p, *name;
	size_t n;
	int v;

	if (is_warning_line(l)) {
		size_t e = len;
		while (e > 0 && isspace((unsigned char)l[e - 1]))
			e--;
		add_warning(r, l, e);
	}
	if (quoted_after(l, "Compiling entry function '", &name, &n)) {
		*entry = add_kernel(r, name, n);
		r->kernels[*entry].is_entry = 1;
		*props = -1;
	} else if ((p = strstr(l, prop))) {
		p += strlen(prop);
		*props = add_kernel(r, p, strcspn(p, " \t\r:"));
	} else if (*props >= 0 && strstr(l, "bytes stack frame")) {
		kp_kernel_res *k = &r->kernels[*props];
		number_before(l, "bytes stack frame", &k->stack_frame);
		number_before(l, "bytes spill stores", &k->spill_stores);
		number_before(l, "bytes spill loads", &k->spill_loads);
		*props = -1;
	} else if (*entry >= 0 && strstr(l, "Used ") && number_before(l, "registers", &v)) {
		kp_kernel_res *k = &r->kernels[*entry];
		k->registers = v;
		number_before(l, "bytes smem", &k->smem);
		number_before(l, "bytes cmem[0]", &k->cmem0);
		number_before(l, "bytes cumulative stack size", &k->cumulative_stack);
		number_after(l, "used ", &k->barriers);
		*entry = -1;
	}
	free(l);
}

int kp_resources_parse(kp_resources *out, const char *text)
{
	int before = out->nkernels;
	int entry = -1, props = -1;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		parse_line(out, p, len, &entry, &props);
		p += len;
		if (*p == '\n')
			p++;
	}
	return out->nkernels - before;
}

const kp_kernel_res *kp_resources_find(const kp_resources *r, const char *name)
{
	for (int i = 0; i < r->nkernels; i++)
		if (strcmp(r->kernels[i].name, name) == 0)
			return &r->kernels[i];
	return NULL;
}

void kp_resources_add_copy(kp_resources *r, const kp_kernel_res *k, const char *name)
{
	if (r->nkernels == r->kcap) {
		r->kcap = r->kcap ? r->kcap * 2 : 8;
		r->kernels = kp_xrealloc(r->kernels, (size_t)r->kcap * sizeof(*r->kernels));
	}
	kp_kernel_res *c = &r->kernels[r->nkernels++];
	*c = *k;
	c->name = kp_arena_strdup(&r->arena, name ? name : k->name);
	c->demangled = k->demangled && !name ? kp_arena_strdup(&r->arena, k->demangled) : NULL;
}

int kp_resources_name_matches(const kp_kernel_res *k, const char *name)
{
	if (!name || !*name)
		return 1;
	if (strcmp(k->name, name) == 0 || (k->demangled && strcmp(k->demangled, name) == 0))
		return 1;
	size_t n = strlen(name);
	if (k->demangled) {
		/* The identifier followed by its template or parameter list. */
		for (const char *p = strstr(k->demangled, name); p; p = strstr(p + 1, name)) {
			if (p > k->demangled && kp_is_ident_char(p[-1]))
				continue;
			if (p[n] == '(' || p[n] == '<')
				return 1;
		}
		return 0;
	}
	/* Itanium mangling holds the identifier as <length><name>. */
	char pat[300];
	if (n > 256)
		return 0;
	snprintf(pat, sizeof(pat), "%zu%s", n, name);
	for (const char *p = strstr(k->name, pat); p; p = strstr(p + 1, pat))
		if (p == k->name || !isdigit((unsigned char)p[-1]))
			return 1;
	return 0;
}

const char *kp_resources_warning_key(const char *w)
{
	/* "file.cu(12): warning #177-D: ..." -> "warning #177-D: ..." */
	const char *p = strstr(w, "): ");
	const char *warn = strstr(w, "warning");
	if (p && warn && p < warn)
		return p + 3;
	return w;
}

/* The first line saying "error" (or the last line) of a failed compile. */
static void first_error_line(char *dst, size_t dstsz, const char *log)
{
	const char *best = NULL, *last = NULL;
	size_t best_n = 0, last_n = 0;
	for (const char *p = log; *p;) {
		size_t len = strcspn(p, "\n");
		if (len) {
			last = p;
			last_n = len;
		}
		if (!best && len) {
			char *l = kp_xstrndup(p, len);
			if (strstr(l, "error") || strstr(l, "fatal")) {
				best = p;
				best_n = len;
			}
			free(l);
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	if (!best) {
		best = last;
		best_n = last_n;
	}
	if (!best) {
		snprintf(dst, dstsz, "no output");
		return;
	}
	if (best_n >= dstsz)
		best_n = dstsz - 1;
	memcpy(dst, best, best_n);
	dst[best_n] = '\0';
}

int kp_resources_compile(kp_resources *out, const kp_compile_opts *o, const char *source,
			 const char *cubin_path)
{
	memset(out, 0, sizeof(*out));
	out->status = -1;
	int argc = 0;
	const char **argv = kp_xcalloc((size_t)o->nargs + 12, sizeof(*argv));
	char *arch = kp_arena_printf(&out->arena, "-arch=%s", o->arch);
	argv[argc++] = o->nvcc;
	argv[argc++] = arch;
	argv[argc++] = "-cubin";
	argv[argc++] = "-O3";
	argv[argc++] = "-Xptxas";
	argv[argc++] = "-v";
	for (int i = 0; i < o->nargs; i++)
		argv[argc++] = o->args[i];
	argv[argc++] = "-o";
	argv[argc++] = cubin_path;
	argv[argc++] = source;
	argv[argc] = NULL;

	/* the key: the command without its output, and the source */
	char *key = o->cache_dir ? kp_build_key((const char *const *)argv, argc - 3,
						(const char *const *)&source, 1)
				 : NULL;
	char *log = key ? kp_build_cache_get_text(o->cache_dir, key, "log") : NULL;
	if (log && kp_build_cache_get(o->cache_dir, key, "cubin", cubin_path)) {
		free(argv);
		free(key);
		out->log = kp_arena_strdup(&out->arena, log);
		free(log);
		out->status = 0;
		kp_resources_parse(out, out->log);
		return KP_RES_OK;
	}
	free(log);
	log = NULL;
	int rc = kp_run_capture((char *const *)argv, &log);
	free(argv);
	if (key && rc == 0 && kp_build_cache_put(o->cache_dir, key, "cubin", cubin_path) == 0)
		kp_build_cache_put_text(o->cache_dir, key, "log", log ? log : "");
	free(key);
	out->log = kp_arena_strdup(&out->arena, log ? log : "");
	free(log);
	out->status = rc;
	if (rc < 0) {
		snprintf(out->error, sizeof(out->error), "cannot run '%s'", o->nvcc);
		return KP_RES_ENOTOOL;
	}
	kp_resources_parse(out, out->log);
	if (rc != 0) {
		char first[400];
		first_error_line(first, sizeof(first), out->log);
		snprintf(out->error, sizeof(out->error), "nvcc exited with %d: %s", rc, first);
		return KP_RES_ECOMPILE;
	}
	return KP_RES_OK;
}

int kp_resources_demangle(kp_resources *r, const char *filt)
{
	if (r->nkernels == 0)
		return 0;
	const char **argv = kp_xcalloc((size_t)r->nkernels + 2, sizeof(*argv));
	argv[0] = filt;
	for (int i = 0; i < r->nkernels; i++)
		argv[i + 1] = r->kernels[i].name;
	char *outp = NULL;
	int rc = kp_run_capture((char *const *)argv, &outp);
	free(argv);
	if (rc != 0 || !outp) {
		free(outp);
		return -1;
	}
	/* One line per argument, in order. */
	const char *p = outp;
	for (int i = 0; i < r->nkernels && *p; i++) {
		size_t len = strcspn(p, "\n");
		if (len && !(len == strlen(r->kernels[i].name) &&
			     strncmp(p, r->kernels[i].name, len) == 0))
			r->kernels[i].demangled = kp_arena_strndup(&r->arena, p, len);
		p += len;
		if (*p == '\n')
			p++;
	}
	free(outp);
	return 0;
}

int kp_resources_cliff(const kp_arch *a, int threads, const kp_kernel_res *before,
		       const kp_kernel_res *after, char *msg, size_t msgsz)
{
	if (msgsz)
		msg[0] = '\0';
	if (!a)
		return 0;
	kp_occupancy ob = kp_arch_occupancy(a, threads, before->registers, before->smem);
	kp_occupancy on = kp_arch_occupancy(a, threads, after->registers, after->smem);
	if (on.blocks_per_sm >= ob.blocks_per_sm)
		return 0;
	kp_strbuf why = KP_STRBUF_INIT;
	if (after->registers != before->registers)
		kp_strbuf_addf(&why, "registers %d -> %d", before->registers, after->registers);
	if (after->smem != before->smem)
		kp_strbuf_addf(&why, "%sstatic smem %d -> %d bytes", why.len ? ", " : "",
			       before->smem, after->smem);
	kp_strbuf_addf(&why, "%slimited by %s", why.len ? "; " : "", kp_limit_name(on.limiter));
	if (msgsz)
		snprintf(msg, msgsz, "occupancy cliff crossed: %d -> %d blocks/SM (%s)",
			 ob.blocks_per_sm, on.blocks_per_sm, kp_strbuf_str(&why));
	kp_strbuf_release(&why);
	return 1;
}

void kp_resources_release(kp_resources *r)
{
	free(r->kernels);
	free(r->warnings);
	kp_arena_release(&r->arena);
	memset(r, 0, sizeof(*r));
}
