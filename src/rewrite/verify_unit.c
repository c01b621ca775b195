/*
 * verify_unit.c - project headers verified through the file that includes
 * them (verify_unit.h).
 */
#define _GNU_SOURCE
#include "verify_unit.h"

#include "rw_result.h"

#include <stdlib.h>
#include <string.h>

#define KP_UNIT_MAX_DEPTH 32

typedef struct {
	const char *const *args;
	int nargs;
	const char *const *repl_abs;
	const char *const *repl;
	const size_t *replen;
	int nrepl;
	char **seen; /* headers pasted once already */
	int nseen;
	kp_strbuf out;
} unit;

/* The real path of `name` included from the folder dir: beside it, then in
 * the -I/-iquote folders; NULL when not found there (a system header or
 * one of another -isystem folder: left as an #include). */
static char *find_header(const unit *u, const char *dir, const char *name, int quoted)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	char *r = NULL;
	if (quoted) {
		kp_strbuf_addf(&sb, "%s/%s", dir, name);
		r = realpath(kp_strbuf_str(&sb), NULL);
	}
	for (int i = 0; !r && i < u->nargs; i++) {
		const char *a = u->args[i], *d = NULL;
		if (!strncmp(a, "-I", 2))
			d = a[2] ? a + 2 : (i + 1 < u->nargs ? u->args[++i] : NULL);
		else if (!strcmp(a, "-iquote"))
			d = i + 1 < u->nargs ? u->args[++i] : NULL;
		if (!d)
			continue;
		sb.len = 0;
		kp_strbuf_addf(&sb, "%s/%s", d, name);
		r = realpath(kp_strbuf_str(&sb), NULL);
	}
	kp_strbuf_release(&sb);
	return r;
}

static void paste(unit *u, const char *abs, const char *text, size_t len, int depth);

/* The line [b, e) of a file in folder dir: an #include of a project header
 * pasted (with #line directives around it), else the line as it is.
 * `shown` names the file, `line` the next line's number. */
static void one_line(unit *u, const char *dir, const char *shown, const char *t, size_t b, size_t e,
		     int line, int depth)
{
	size_t q = b;
	while (q < e && (t[q] == ' ' || t[q] == '\t'))
		q++;
	int hash = q < e && t[q] == '#';
	for (q += hash; hash && q < e && (t[q] == ' ' || t[q] == '\t');)
		q++;
	if (hash && e - q > 6 && !strncmp(t + q, "pragma", 6) && memmem(t + q, e - q, "once", 4)) {
		kp_strbuf_adds(&u->out, "\n");
		return;
	}
	char close = 0;
	if (hash && e - q > 7 && !strncmp(t + q, "include", 7)) {
		for (q += 7; q < e && (t[q] == ' ' || t[q] == '\t');)
			q++;
		close = q < e && t[q] == '"' ? '"' : q < e && t[q] == '<' ? '>' : 0;
	}
	const char *c = close ? memchr(t + q + 1, close, e - q - 1) : NULL;
	char *name = c ? kp_xstrndup(t + q + 1, (size_t)(c - t - q - 1)) : NULL;
	char *abs = name ? find_header(u, dir, name, close == '"') : NULL;
	free(name);
	int once = 0;
	for (int i = 0; abs && i < u->nseen; i++)
		once |= !strcmp(u->seen[i], abs);
	if (!abs || depth >= KP_UNIT_MAX_DEPTH || once) {
		if (abs) /* already pasted: include guards and #pragma once say once */
			kp_strbuf_adds(&u->out, "\n");
		else {
			kp_strbuf_add(&u->out, t + b, e - b);
			kp_strbuf_adds(&u->out, "\n");
		}
		free(abs);
		return;
	}
	u->seen = kp_xrealloc(u->seen, sizeof(char *) * (size_t)(u->nseen + 1));
	u->seen[u->nseen++] = abs;
	const char *text = NULL;
	size_t len = 0;
	char *own = NULL;
	for (int i = 0; i < u->nrepl && !text; i++)
		if (u->repl[i] && !strcmp(u->repl_abs[i], abs)) {
			text = u->repl[i];
			len = u->replen[i];
		}
	if (!text && kp_read_file(abs, &own, &len)) {
		kp_strbuf_add(&u->out, t + b, e - b);
		kp_strbuf_adds(&u->out, "\n");
		return;
	}
	kp_strbuf_addf(&u->out, "#line 1 \"%s\"\n", abs);
	paste(u, abs, text ? text : own, len, depth + 1);
	kp_strbuf_addf(&u->out, "#line %d \"%s\"\n", line, shown);
	free(own);
}

/* text (of the file abs) into u->out, its project includes pasted. */
static void paste(unit *u, const char *abs, const char *text, size_t len, int depth)
{
	char *dir = kp_xstrdup(abs);
	char *s = strrchr(dir, '/');
	if (s)
		*s = '\0';
	int line = 1;
	for (size_t p = 0; p < len;) {
		size_t e = p;
		while (e < len && text[e] != '\n')
			e++;
		one_line(u, dir, abs, text, p, e, line + 1, depth);
		line++;
		p = e + 1;
	}
	free(dir);
}

char *kp_unit_text(const char *path, const char *text, size_t tlen, const char *const *args,
		   int nargs, const char *const *repl_abs, const char *const *repl,
		   const size_t *replen, int nrepl, size_t *len)
{
	unit u = {args, nargs, repl_abs, repl, replen, nrepl, NULL, 0, KP_STRBUF_INIT};
	char *abs = kp_rw_abs_path(path);
	paste(&u, abs ? abs : path, text, tlen, 0);
	free(abs);
	for (int i = 0; i < u.nseen; i++)
		free(u.seen[i]);
	free(u.seen);
	*len = u.out.len;
	return kp_strbuf_detach(&u.out);
}

/* Whether kernel k is one of f's own (the main file's). */
static int in_main(const kp_file *f, const kp_kernel *k)
{
	for (int i = 0; i < f->nkernels; i++)
		if (f->kernels[i] == k)
			return 1;
	return 0;
}

void kp_verify_headers(const kp_rw_opts *o, const kp_analyze_opts *ao, const char *path, kp_file *f,
		       const char *rew, size_t rewlen, char *const *htext, const size_t *hlen,
		       const char *const *args, int nargs, const long *pipelined, int n,
		       kp_verify_result *r)
{
	memset(r, 0, sizeof(*r));
	long *offs = kp_xcalloc((size_t)n + (size_t)f->nkernels + 1, sizeof(long));
	int no = 0;
	for (int i = 0; i < n; i++)
		offs[no++] = pipelined[i];
	const char **rabs = kp_xcalloc((size_t)f->nheaders + 1, sizeof(char *));
	const char *why = NULL;
	for (int h = 0; h < f->nheaders && !why; h++) {
		const kp_file *m = f->headers[h];
		rabs[h] = m->abs_path;
		if (!htext[h])
			continue;
		for (int k = 0; k < m->nkernels && !why; k++) {
			const kp_kernel *d = m->kernels[k];
			if (!d->is_device)
				why = "kernels rewritten in project headers are not verified";
			for (int c = 0; d->call_decl && c < d->ncallers; c++)
				if (in_main(f, d->caller_k[c]) && no < n + f->nkernels)
					offs[no++] = (long)d->caller_k[c]->begin;
		}
	}
	if (!why && no == n)
		why = "no kernel of the file calls the __device__ functions rewritten in its "
		      "project headers";
	if (why) {
		r->status = KP_VERIFY_UNAVAILABLE;
		r->detail = kp_xstrdup(why);
	} else {
		size_t ol = 0, rl = 0;
		char *ou =
			kp_unit_text(path, f->src, f->len, args, nargs, NULL, NULL, NULL, 0, &ol);
		char *ru = kp_unit_text(path, rew ? rew : f->src, rew ? rewlen : f->len, args,
					nargs, rabs, (const char *const *)htext, hlen, f->nheaders,
					&rl);
		kp_verify_texts(o, ao, path, f, ou, ol, ru, rl, offs, no, r);
		free(ou);
		free(ru);
	}
	free(rabs);
	free(offs);
}
