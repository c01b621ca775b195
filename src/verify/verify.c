/*
 * verify.c - a rewrite run against its original on the CPU emulator
 * (verify.h): the launch description, the cache, the settings, the runs
 * and the judgement.  The builds are vbuild.c's.
 */
#define _GNU_SOURCE
#include "verify.h"

#include "compare.h"
#include "emu_files.h"
#include "launch_spec.h"
#include "pch.h"
#include "proc.h"
#include "vbuild.h"
#include "vharness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the largest setting run: threads in the grid, elements in the buffers */
#define KP_VERIFY_MAX_THREADS (1L << 16)
#define KP_VERIFY_MAX_ELEMS (1L << 22)
/* processes run side by side */
#define KP_VERIFY_PARALLEL 4
/* the largest file verified: g++ takes minutes over a file of megabytes */
#define KP_VERIFY_MAX_BYTES (1L << 20)
/* bump when what a cached result means changes */
#define KP_VERIFY_FORMAT "kpipe-verify 1"

void kp_verify_result_release(kp_verify_result *r)
{
	free(r->kernel);
	free(r->launch);
	free(r->detail);
	memset(r, 0, sizeof(*r));
}

static kp_verify_status unavailable(kp_verify_result *r, const char *fmt, ...) KP_PRINTF(2, 3);
static kp_verify_status unavailable(kp_verify_result *r, const char *fmt, ...)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	kp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(r->detail);
	r->detail = kp_strbuf_detach(&sb);
	r->status = KP_VERIFY_UNAVAILABLE;
	return r->status;
}

/* ---- the cache -------------------------------------------------------- */

/* The verifier's folder in the cache, or NULL when there is none:
 * KPIPE_VERIFY_CACHE names it outright (`off`: none), so that runs with
 * different header caches share the emulator's precompiled header and
 * the results (the test suite points both of its builds at one). */
static char *cache_base(const kp_verify_input *in)
{
	const char *env = in->cache_dir ? NULL : getenv("KPIPE_VERIFY_CACHE");
	if (env && *env) {
		if (!strcmp(env, "off"))
			return NULL;
		kp_strbuf e = KP_STRBUF_INIT;
		kp_strbuf_addf(&e, "%s/.keep", env);
		int ok = !kp_make_parents(kp_strbuf_str(&e));
		kp_strbuf_release(&e);
		return ok ? kp_xstrdup(env) : NULL;
	}
	char *c = in->cache_dir ? (*in->cache_dir && strcmp(in->cache_dir, "off")
					   ? kp_xstrdup(in->cache_dir)
					   : NULL)
				: kp_pch_cache_dir();
	if (!c)
		return NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/verify/.keep", c);
	free(c);
	int ok = !kp_make_parents(kp_strbuf_str(&sb));
	char *d = ok ? kp_xstrndup(kp_strbuf_str(&sb), sb.len - 6) : NULL;
	kp_strbuf_release(&sb);
	return d;
}

/* "status\nruns\nkernel\nlaunch\ndetail" */
static int cache_read(const char *path, kp_verify_result *r)
{
	char *t;
	size_t len;
	if (kp_read_file(path, &t, &len))
		return -1;
	char *f[5] = {0};
	char *p = t;
	for (int i = 0; i < 5 && p; i++) {
		f[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	int ok = f[4] != NULL;
	if (ok) {
		r->status = (kp_verify_status)atoi(f[0]);
		r->runs = atoi(f[1]);
		/* the kernel's name is already set (kp_verify): replaced */
		free(r->kernel);
		free(r->launch);
		free(r->detail);
		r->kernel = *f[2] ? kp_xstrdup(f[2]) : NULL;
		r->launch = *f[3] ? kp_xstrdup(f[3]) : NULL;
		r->detail = *f[4] ? kp_xstrdup(f[4]) : NULL;
		r->cached = 1;
	}
	free(t);
	return ok ? 0 : -1;
}

static void one_line(kp_strbuf *sb, const char *s)
{
	for (; s && *s; s++)
		kp_strbuf_addc(sb, *s == '\n' ? ' ' : *s);
	kp_strbuf_addc(sb, '\n');
}

static void cache_write(const char *path, const kp_verify_result *r)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%d\n%d\n", (int)r->status, r->runs);
	one_line(&sb, r->kernel);
	one_line(&sb, r->launch);
	one_line(&sb, r->detail);
	kp_write_file_atomic(path, sb.buf, sb.len);
	kp_strbuf_release(&sb);
}

/* ---- settings --------------------------------------------------------- */

typedef struct {
	char *name; /* the launcher's name of it */
	int size, inst;
	long threads, blocks;
	int dropped; /* the original fails or is schedule-dependent there */
	const char *why_dropped;
} setting;

/* The settings worth running, from the launcher's --info.  Returns how
 * many (in *out), or -1 with r unavailable. */
static int choose_settings(const char *exe, const kp_launch_spec *s, setting **out,
			   kp_verify_result *r)
{
	char *argv[] = {(char *)exe, "--info", NULL};
	kp_proc p;
	kp_proc_opts o = {0};
	o.stdin_null = 1;
	o.timeout_s = 60;
	kp_proc_run(&p, argv, &o);
	int ni = s->ninsts > 0 ? s->ninsts : 1, n = 0;
	setting *v = kp_xcalloc((size_t)(ni * s->nsizes + 1), sizeof(*v));
	for (int i = 0; p.status == 0 && i < ni; i++)
		for (int z = 0; z < s->nsizes; z++) {
			if (!strcmp(s->sizes[z].name, "target"))
				continue;
			char *name = kp_vharness_setting(s, i, z);
			kp_strbuf key = KP_STRBUF_INIT;
			kp_strbuf_addf(&key, "%s ok ", name);
			const char *l = p.output ? strstr(p.output, kp_strbuf_str(&key)) : NULL;
			long th = 0, bl = 0, el = 0;
			if (l &&
			    sscanf(l + key.len, "threads=%ld blocks=%ld elems=%ld", &th, &bl,
				   &el) == 3 &&
			    th > 0 && th <= KP_VERIFY_MAX_THREADS && el <= KP_VERIFY_MAX_ELEMS)
				v[n++] = (setting){name, z, i, th, bl, 0, NULL};
			else
				free(name);
			kp_strbuf_release(&key);
		}
	if (p.status != 0)
		unavailable(r, "the original's launcher fails: %s",
			    p.output && *p.output ? p.output : "no output");
	else if (!n)
		unavailable(r,
			    "no size of the launch description is small enough for the CPU "
			    "(at most %ld threads and %ld elements)",
			    KP_VERIFY_MAX_THREADS, KP_VERIFY_MAX_ELEMS);
	free(p.output);
	if (p.status != 0 || !n) {
		free(v);
		return -1;
	}
	*out = v;
	return n;
}

/* "size small (M=96 N=64 K=160): 6 blocks, 6144 threads" */
static char *setting_text(const kp_launch_spec *s, const setting *st)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "size %s (", s->sizes[st->size].name);
	for (int k = 0; k < s->nsymbols; k++)
		kp_strbuf_addf(&sb, "%s%s=%ld", k ? " " : "", s->symbols[k],
			       s->sizes[st->size].vals[k]);
	kp_strbuf_addf(&sb, "): %ld blocks, %ld threads", st->blocks, st->threads);
	return kp_strbuf_detach(&sb);
}

/* ---- runs ------------------------------------------------------------- */

enum { WHO_REF, WHO_ORIG, WHO_REW };

typedef struct {
	int who, setting;
	const char *sched;
	int seed;
	const char *mode;
	char *out;  /* the dump */
	int status; /* 0 ok, 1 error, 77 skip */
	char *msg;  /* the error or skip line */
	kp_proc p;
} run;

static void add_run(run **v, int *n, int who, int st, const char *sched, int seed, const char *mode)
{
	*v = kp_xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
	(*v)[(*n)++] = (run){who, st, sched, seed, mode, NULL, 0, NULL, {0}};
}

/* The line of out that starts with `prefix`, else the first non-empty
 * one.  Caller frees. */
static char *line_with(const char *out, const char *prefix)
{
	const char *first = NULL;
	size_t flen = 0;
	for (const char *l = out ? out : ""; *l;) {
		size_t len = strcspn(l, "\n");
		if (len && !strncmp(l, prefix, strlen(prefix)))
			return kp_xstrndup(l, len);
		if (len && !first) {
			first = l;
			flen = len;
		}
		l += len + (l[len] == '\n');
	}
	return first ? kp_xstrndup(first, flen) : NULL;
}

static void start_run(run *x, const char *exe, const char *setting_name, const char *work, int i)
{
	kp_strbuf o = KP_STRBUF_INIT;
	kp_strbuf_addf(&o, "%s/run-%d.bin", work, i);
	x->out = kp_strbuf_detach(&o);
	char seed[16];
	snprintf(seed, sizeof(seed), "%d", x->seed);
	char *argv[] = {(char *)exe, "--size",         (char *)setting_name,
			"--sched",   (char *)x->sched, "--seed",
			seed,        "--cp",           (char *)x->mode,
			"--out",     x->out,           NULL};
	kp_proc_opts po = {0};
	po.stdin_null = 1;
	po.timeout_s = 90;
	kp_proc_start(&x->p, argv, &po);
}

static void finish_run(run *x)
{
	if (x->p.status == 0 && !access(x->out, R_OK))
		x->status = 0;
	else if (x->p.status == 77) {
		x->status = 77;
		x->msg = line_with(x->p.output, "SKIP");
	} else {
		x->status = 1;
		x->msg = x->p.timed_out ? kp_xstrdup("ERROR: timeout: the kernel did not finish")
					: line_with(x->p.output, "ERROR");
		if (!x->msg) {
			kp_strbuf m = KP_STRBUF_INIT;
			kp_strbuf_addf(&m, "exit status %d", x->p.status);
			x->msg = kp_strbuf_detach(&m);
		}
	}
	free(x->p.output);
	x->p.output = NULL;
}

/* Runs every run, KP_VERIFY_PARALLEL at a time. */
static void run_all(run *v, int n, const char *orig_exe, const char *rew_exe, setting *st,
		    const char *work)
{
	for (int b = 0; b < n; b += KP_VERIFY_PARALLEL) {
		int e = b + KP_VERIFY_PARALLEL < n ? b + KP_VERIFY_PARALLEL : n;
		kp_proc ps[KP_VERIFY_PARALLEL];
		for (int i = b; i < e; i++) {
			start_run(&v[i], v[i].who == WHO_REW ? rew_exe : orig_exe,
				  st[v[i].setting].name, work, i);
			ps[i - b] = v[i].p;
		}
		kp_proc_wait(ps, e - b);
		for (int i = b; i < e; i++) {
			v[i].p = ps[i - b];
			finish_run(&v[i]);
		}
	}
}

static int read_dump(const char *path, char **buf, size_t *len)
{
	return kp_read_file(path, buf, len);
}

/* 0 when run x's dump matches ref's, else 1 with *text (caller frees). */
static int compare_run(const run *ref, const run *x, const kp_launch_spec *s, char **text)
{
	char *a = NULL, *b = NULL;
	size_t al = 0, bl = 0;
	*text = NULL;
	if (read_dump(ref->out, &a, &al) || read_dump(x->out, &b, &bl)) {
		free(a);
		free(b);
		*text = kp_xstrdup("a run's results cannot be read");
		return 1;
	}
	kp_mismatch m;
	int rc = kp_dump_compare((unsigned char *)a, al, (unsigned char *)b, bl, s->tol_abs,
				 s->tol_rel, &m);
	if (rc > 0)
		*text = kp_mismatch_text(&m);
	else if (rc < 0) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "the results differ in shape %s", m.buffer);
		*text = kp_strbuf_detach(&sb);
	}
	free(a);
	free(b);
	return rc != 0;
}

static const char *order_name(const char *sched)
{
	return !strcmp(sched, "fwd")   ? "threads in order"
	       : !strcmp(sched, "rev") ? "threads in reverse order"
				       : "threads in a random order (seed 1)";
}

/* The runs of every setting: the original's reference and its checks
 * against itself, the rewrite's orders and cp.async timings. */
static int plan_runs(run **v, int nst, int orig_cp, int rew_cp)
{
	int n = 0;
	static const char *const scheds[] = {"fwd", "rev", "rand"};
	for (int i = 0; i < nst; i++) {
		add_run(v, &n, WHO_REF, i, "fwd", 0, "wait");
		add_run(v, &n, WHO_ORIG, i, "rev", 0, "wait");
		add_run(v, &n, WHO_ORIG, i, "rand", 1, orig_cp ? "issue" : "wait");
		if (orig_cp)
			add_run(v, &n, WHO_ORIG, i, "fwd", 0, "issue");
		for (int k = 0; k < 3; k++) {
			add_run(v, &n, WHO_REW, i, scheds[k], k == 2, "wait");
			if (rew_cp)
				add_run(v, &n, WHO_REW, i, scheds[k], k == 2, "issue");
		}
	}
	return n;
}

/* Drops the settings where the original fails or differs from itself. */
static void drop_settings(run *v, int n, setting *st, const kp_launch_spec *s)
{
	for (int i = 0; i < n; i++) {
		setting *t = &st[v[i].setting];
		if (v[i].who == WHO_REW || t->dropped)
			continue;
		const run *ref = &v[i];
		while (ref->who != WHO_REF)
			ref--;
		char *diff = NULL;
		if (v[i].status == 1) {
			t->dropped = 1;
			t->why_dropped = v[i].who == WHO_REF
						 ? "the original fails"
						 : "the original fails in another order";
		} else if (v[i].who == WHO_ORIG && !v[i].status &&
			   compare_run(ref, &v[i], s, &diff)) {
			t->dropped = 1;
			t->why_dropped = "the original's results depend on the thread order or the "
					 "cp.async timing";
		}
		free(diff);
	}
}

static void judge(run *v, int n, setting *st, int nst, const kp_launch_spec *s, int rew_cp,
		  kp_verify_result *r)
{
	for (int i = 0; i < n; i++)
		if (v[i].status == 77) {
			unavailable(r, "%s", v[i].msg ? v[i].msg : "SKIP: unsupported");
			return;
		}
	drop_settings(v, n, st, s);
	r->runs = 0;
	for (int i = 0; i < n && r->status != KP_VERIFY_FAILED; i++) {
		setting *t = &st[v[i].setting];
		if (v[i].who != WHO_REW || t->dropped)
			continue;
		const run *ref = &v[i];
		while (ref->who != WHO_REF)
			ref--;
		char *diff = NULL;
		r->runs++;
		if (v[i].status == 1)
			diff = kp_xstrdup(v[i].msg);
		else
			compare_run(ref, &v[i], s, &diff);
		if (!diff)
			continue;
		char *where = setting_text(s, t);
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%s, %s", where, order_name(v[i].sched));
		if (rew_cp)
			kp_strbuf_addf(&sb, ", cp.async copies landing %s",
				       !strcmp(v[i].mode, "issue") ? "at issue" : "at the wait");
		free(where);
		r->launch = kp_strbuf_detach(&sb);
		r->detail = diff;
		r->status = KP_VERIFY_FAILED;
	}
	if (r->status == KP_VERIFY_FAILED)
		return;
	const char *why = NULL;
	int kept = 0;
	for (int i = 0; i < nst; i++) {
		kept += !st[i].dropped;
		if (st[i].dropped && !why)
			why = st[i].why_dropped;
	}
	if (!kept)
		unavailable(r, "%s at every size of the launch description", why);
	else
		r->status = KP_VERIFY_PASSED;
}

/* The launch description for in: loaded into s, 0; else r unavailable. */
static int load_spec(const kp_verify_input *in, kp_launch_spec *s, char **text, kp_verify_result *r)
{
	char *path = in->spec_text ? kp_xstrdup("kpipe's own launches")
		     : in->spec    ? kp_xstrdup(in->spec)
				   : kp_launch_spec_default_path(in->path);
	size_t len;
	*text = in->spec_text ? kp_xstrdup(in->spec_text) : NULL;
	if (!*text && kp_read_file(path, text, &len)) {
		unavailable(r,
			    "no launch description (%s not found; --spec names one, "
			    "docs/launch-spec.md)",
			    path);
		free(path);
		return -1;
	}
	char err[512];
	int rc = kp_launch_spec_parse(s, *text, path, err, sizeof(err));
	free(path);
	if (rc) {
		unavailable(r, "the launch description cannot be used: %s", err);
		return -1;
	}
	const char *k = strrchr(s->kernel, ':');
	k = k ? k + 1 : s->kernel;
	int found = 0;
	for (const char *p = strstr(in->orig, k); p && !found; p = strstr(p + 1, k))
		found = (p == in->orig || !kp_is_ident_char(p[-1])) &&
			!kp_is_ident_char(p[strlen(k)]);
	if (!found) {
		unavailable(r, "the launch description's kernel %s is not in this file", s->kernel);
		kp_launch_spec_release(s);
		return -1;
	}
	return 0;
}

/* The folder the kernel file's quoted includes are found in. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? kp_xstrndup(path, (size_t)(slash - path) + (slash == path))
		     : kp_xstrdup(".");
}

/* Builds, runs and judges (after the cache missed). */
static void verify_fresh(const kp_verify_input *in, const kp_launch_spec *s, const char *base,
			 const char *work, unsigned long long key, const char *src_dir,
			 kp_verify_result *r)
{
	char *pch = NULL, *rt = NULL, *err = NULL;
	int static_libs = 0;
	/* without a cache the precompiled header would be built for one
	 * file's two builds: it costs more than it saves them */
	char *emu = kp_emu_install(base, kp_vbuild_cxx(), kp_vbuild_flags, strcmp(base, work) != 0,
				   &pch, &rt, &static_libs, &err);
	if (!emu) {
		unavailable(r, "%s", err);
		free(err);
		return;
	}
	kp_vbuild_env env = {emu, pch, rt, static_libs, work, base, src_dir, key};
	kp_vbuild b[2] = {{"original", in->path, in->orig, in->orig_len, NULL, NULL, 0, 0},
			  {"rewrite", in->path, in->rew, in->rew_len, NULL, NULL, 0, 0}};
	kp_vbuild_run(&env, s, b, 2);
	setting *st = NULL;
	int nst = 0;
	if (b[0].status)
		unavailable(r, "%s%s",
			    b[0].status == 1 ? "the kernel uses what the emulator cannot run: "
					     : "the original does not build for the CPU emulator: ",
			    b[0].why);
	else if (b[1].status == 1 || b[1].status == -1)
		unavailable(r, "the rewrite uses what the emulator cannot run: %s", b[1].why);
	else if (b[1].status == 2) {
		r->status = KP_VERIFY_FAILED;
		r->launch = kp_xstrdup("the build for the CPU emulator");
		kp_strbuf m = KP_STRBUF_INIT;
		kp_strbuf_addf(&m, "the rewrite does not compile for the CPU emulator: %s",
			       b[1].why);
		r->detail = kp_strbuf_detach(&m);
	} else if ((nst = choose_settings(b[0].exe, s, &st, r)) > 0) {
		run *v = NULL;
		int n = plan_runs(&v, nst, b[0].cp_async, b[1].cp_async);
		run_all(v, n, b[0].exe, b[1].exe, st, work);
		judge(v, n, st, nst, s, b[1].cp_async, r);
		for (int i = 0; i < n; i++) {
			free(v[i].out);
			free(v[i].msg);
		}
		free(v);
	}
	for (int i = 0; i < nst; i++)
		free(st[i].name);
	free(st);
	kp_vbuild_release(&b[0]);
	kp_vbuild_release(&b[1]);
	free(emu);
	free(pch);
	free(rt);
}

kp_verify_status kp_verify(const kp_verify_input *in, kp_verify_result *r)
{
	memset(r, 0, sizeof(*r));
	double t0 = kp_now();
	if (in->orig_len > KP_VERIFY_MAX_BYTES || in->rew_len > KP_VERIFY_MAX_BYTES) {
		unavailable(r, "the file is larger than %ld KiB: g++ would take too long",
			    KP_VERIFY_MAX_BYTES / 1024);
		return r->status;
	}
	kp_launch_spec s;
	char *spec_text = NULL;
	if (load_spec(in, &s, &spec_text, r)) {
		free(spec_text);
		r->seconds = kp_now() - t0;
		return r->status;
	}
	kp_strbuf kn = KP_STRBUF_INIT;
	kp_strbuf_addf(&kn, "%s%s", s.kernel,
		       s.ninsts == 1 && s.template_args ? s.template_args : "");
	r->kernel = kp_strbuf_detach(&kn);
	char *src_dir = dir_of(in->path);
	char *hdrs = kp_vbuild_local_headers(in->orig, src_dir);
	char *hdrs2 = kp_vbuild_local_headers(in->rew, src_dir);
	unsigned long long key =
		kp_fnv1a64(KP_VERIFY_FORMAT, sizeof(KP_VERIFY_FORMAT), kp_emu_hash());
	for (int i = 0; kp_vbuild_flags[i]; i++)
		key = kp_fnv1a64(kp_vbuild_flags[i], strlen(kp_vbuild_flags[i]) + 1, key);
	key = kp_fnv1a64(kp_vbuild_cxx(), strlen(kp_vbuild_cxx()), key);
	key = kp_fnv1a64(hdrs, strlen(hdrs), key);
	key = kp_fnv1a64(hdrs2, strlen(hdrs2), key);
	unsigned long long rkey = kp_fnv1a64(spec_text, strlen(spec_text), key);
	rkey = kp_fnv1a64(in->orig, in->orig_len, rkey);
	rkey = kp_fnv1a64("\0", 1, rkey);
	rkey = kp_fnv1a64(in->rew, in->rew_len, rkey);
	rkey = kp_fnv1a64(in->path, strlen(in->path), rkey);
	char *base = cache_base(in);
	kp_strbuf cpath = KP_STRBUF_INIT;
	if (base)
		kp_strbuf_addf(&cpath, "%s/r-%016llx", base, rkey);
	if (!base || cache_read(kp_strbuf_str(&cpath), r)) {
		char *work = kp_tempdir("verify");
		if (!work)
			unavailable(r, "no temporary folder could be made");
		else /* without a cache, the emulator and the builds go in the work folder */
			verify_fresh(in, &s, base ? base : work, work, key, src_dir, r);
		if (work)
			kp_remove_tree(work);
		free(work);
		/* an unavailable result may come from the tools: not kept */
		if (base && r->status != KP_VERIFY_UNAVAILABLE)
			cache_write(kp_strbuf_str(&cpath), r);
	}
	kp_strbuf_release(&cpath);
	free(base);
	free(src_dir);
	free(hdrs);
	free(hdrs2);
	free(spec_text);
	kp_launch_spec_release(&s);
	r->seconds = kp_now() - t0;
	return r->status;
}
