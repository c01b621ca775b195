/*
 * gpu_run.c - steps 3 (gpu-run), 4 (benchmark) and 5 (sanitizer) of
 * `kpipe validate`.  Writes the harness sources (gpu_gen.c) into a build
 * directory, compiles the embedded host program and one shared library per
 * version with nvcc (in parallel), runs the harness once for every requested
 * size (checks, and timing at `target`), then compute-sanitizer on the
 * rewritten kernel at `small`, and turns the harness's JSON-lines events into
 * step verdicts and findings on the kp_validate_result.
 *
 * It looks for a device first (libcuda.so.1, cuInit, cuDeviceGetCount) and
 * builds nothing without one, unless a build directory was named.  Child
 * processes (proc.c) get a time limit and their own process group, so a
 * hung kernel (a deadlock in a broken pipeline) is killed with everything
 * it started.  Nothing here prints.
 *
 * The other parts: gpu_result.c (the result, filled from the events and
 * compute-sanitizer's output), gpu_judge.c (the step verdicts),
 * gpu_report.c (text and JSON); gpu_run_int.h is what they share.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_run.h"
#include "build_cache.h"
#include "events.h"
#include "proc.h"
#include "gpu_run_int.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h> /* macros only (isfinite, INFINITY): no libm */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kpipe_harness_src.h" /* generated: kp_harness_bytes[] */

const char *kp_gpu_harness_source(void) { return (const char *)kp_harness_bytes; }

static const char *const sanitizer_tools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};

/* ---- device probe ----------------------------------------------------- */

int kp_gpu_probe(char *why, size_t whysz)
{
	typedef int (*init_fn)(unsigned);
	typedef int (*count_fn)(int *);
	typedef int (*errstr_fn)(int, const char **);
	/* Kept open: a driver that was initialised is not unloaded. */
	static void *h;
	if (!h)
		h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, whysz, "no NVIDIA driver (libcuda.so.1 cannot be loaded)");
		return 0;
	}
	init_fn init = NULL;
	count_fn count = NULL;
	errstr_fn errstr = NULL;
	void *p = dlsym(h, "cuInit");
	memcpy(&init, &p, sizeof(p));
	p = dlsym(h, "cuDeviceGetCount");
	memcpy(&count, &p, sizeof(p));
	p = dlsym(h, "cuGetErrorString");
	memcpy(&errstr, &p, sizeof(p));
	if (!init || !count) {
		snprintf(why, whysz, "the NVIDIA driver (libcuda.so.1) has no cuInit");
		return 0;
	}
	int n = 0, rc = init(0);
	if (rc == 0)
		rc = count(&n);
	if (rc != 0) {
		const char *s = NULL;
		if (errstr)
			errstr(rc, &s);
		snprintf(why, whysz, "the CUDA driver reports error %d (%s)", rc,
			 s ? s : "no description");
		return 0;
	}
	if (n == 0) {
		snprintf(why, whysz, "the CUDA driver reports no device");
		return 0;
	}
	return 1;
}

/* ---- building and running --------------------------------------------- */

typedef struct {
	kp_gpu_result *g;
	const char *dir;
	int keep; /* the caller's directory (--gpu-dir): not removed */
} workdir;

static const char *wpath(workdir *w, const char *name)
{
	return kp_arena_printf(&w->g->arena, "%s/%s", w->dir, name);
}

static int write_text(workdir *w, const char *name, const char *text, const char **path)
{
	*path = wpath(w, name);
	return kp_write_file_atomic(*path, text, strlen(text));
}

static void workdir_release(workdir *w)
{
	if (!w->keep && w->dir)
		kp_remove_tree(w->dir);
}

/* Opens w in dir (created when missing, kept) or, without dir, in a new
 * temporary directory kpipe-PURPOSE-XXXXXX (removed by workdir_release).
 * Returns 0, -1 when dir cannot be created, -2 when no temporary directory
 * can be; why (whysz bytes) then says so. */
static int workdir_open(workdir *w, const char *dir, const char *purpose, char *why, size_t whysz)
{
	kp_gpu_result *g = w->g;
	if (dir) {
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			snprintf(why, whysz, "cannot create %s: %s", dir, strerror(errno));
			return -1;
		}
		w->dir = kp_arena_strdup(&g->arena, dir);
		w->keep = 1;
		return 0;
	}
	char *d = kp_tempdir(purpose);
	if (!d) {
		snprintf(why, whysz, "cannot create a temporary directory in %s",
			 kp_tempdir_base());
		return -2;
	}
	w->dir = kp_arena_strdup(&g->arena, d);
	free(d);
	return 0;
}

/* The toolkit root: o->cuda_root, else "/x" from nvcc's real path
 * "/x/bin/nvcc" (*buf holds it; the caller frees *buf). */
static const char *cuda_root_of(const kp_gpu_opts *o, char **buf)
{
	*buf = NULL;
	if (o->cuda_root)
		return o->cuda_root;
	*buf = realpath(o->nvcc, NULL);
	char *s = *buf ? strrchr(*buf, '/') : NULL;
	if (s) {
		*s = '\0';
		s = strrchr(*buf, '/');
		if (s)
			*s = '\0';
	}
	return *buf;
}

/* The first lines of a log that say "error", else its first lines. */
static const char *log_excerpt(kp_gpu_result *g, const char *path, int max_lines)
{
	char *text = NULL;
	if (kp_read_file(path, &text, NULL) != 0)
		return NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int pass = 0; pass < 2 && !sb.len; pass++) {
		int n = 0;
		for (const char *line = text; *line && n < max_lines;) {
			size_t len = strcspn(line, "\n");
			if (pass == 1 || memmem(line, len, "error", 5)) {
				kp_strbuf_add(&sb, line, len);
				kp_strbuf_addc(&sb, '\n');
				n++;
			}
			line += len + (line[len] == '\n');
		}
	}
	free(text);
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	const char *out = kp_arena_strdup(&g->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return out;
}

static const char *first_line(kp_arena *a, const char *text)
{
	return kp_arena_strndup(a, text, strcspn(text, "\n"));
}

/* argv under construction */
typedef struct {
	const char **v;
	int n, cap;
} args;

static void arg(args *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		a->v = kp_xrealloc(a->v, sizeof(char *) * (size_t)a->cap);
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static char *const *argv_of(args *a) { return (char *const *)a->v; }

static void rpath_args(args *a, kp_arena *ar, const char *root)
{
	static const char *const libdirs[] = {"lib64", "lib", "targets/x86_64-linux/lib",
					      "targets/sbsa-linux/lib"};
	if (!root)
		return;
	for (size_t i = 0; i < KP_ARRAY_LEN(libdirs); i++) {
		const char *d = kp_arena_printf(ar, "%s/%s", root, libdirs[i]);
		struct stat st;
		if (stat(d, &st) == 0 && S_ISDIR(st.st_mode)) {
			arg(a, "-Xlinker");
			arg(a, kp_arena_printf(ar, "-rpath,%s", d));
		}
	}
}

static const char *find_sanitizer(kp_arena *a, const kp_gpu_opts *o, const char *root)
{
	if (o->sanitizer)
		return kp_is_executable(o->sanitizer) ? o->sanitizer : NULL;
	const char *slash = strrchr(o->nvcc, '/');
	const char *cands[3] = {
		slash ? kp_arena_printf(a, "%.*s/compute-sanitizer", (int)(slash - o->nvcc),
					o->nvcc)
		      : NULL,
		root ? kp_arena_printf(a, "%s/compute-sanitizer/compute-sanitizer", root) : NULL,
		root ? kp_arena_printf(a, "%s/bin/compute-sanitizer", root) : NULL,
	};
	for (int i = 0; i < 3; i++)
		if (kp_is_executable(cands[i]))
			return cands[i];
	char *p = kp_find_on_path("compute-sanitizer");
	const char *found = p ? kp_arena_strdup(a, p) : NULL;
	free(p);
	return found;
}

/* Is the spec's kernel among the kernels step 1 kept (after --kernel)? */
static int spec_kernel_selected(const kp_validate_result *r, const kp_launch_spec *spec)
{
	const char *id = strrchr(spec->kernel, ':');
	id = id ? id + 1 : spec->kernel;
	for (int i = 0; i < r->nkernels; i++) {
		kp_kernel_res k = {.name = r->kernels[i].name,
				   .demangled = r->kernels[i].demangled};
		if (kp_resources_name_matches(&k, id))
			return 1;
	}
	return 0;
}

static const char *nvcc_arch(const kp_validate_result *r)
{
	if (!strncmp(r->arch, "sm_", 3) || !r->target)
		return r->arch;
	return r->target->name;
}

/* Writes the harness sources and builds the harness and one library per
 * version (names[i] from files[i]) side by side.  Returns NULL, or why the
 * build failed (in g's arena; g->build_log holds nvcc's lines). */
/* The cache key of build a (build_cache.h), NULL without a cache: its
 * arguments, those in the work directory taken relative to it (a second
 * tune harness run builds in another directory), and the contents of
 * files[0..nfiles). */
static char *build_key(const kp_gpu_opts *o, const workdir *w, const args *a,
		       const char *const *files, int nfiles)
{
	if (!o->cache_dir)
		return NULL;
	size_t dl = strlen(w->dir);
	const char **k = kp_xcalloc((size_t)a->n + 1, sizeof(char *));
	for (int i = 0; i < a->n; i++)
		k[i] = strncmp(a->v[i], w->dir, dl) ? a->v[i] : a->v[i] + dl;
	char *key = kp_build_key(k, a->n, files, nfiles);
	free(k);
	return key;
}

/* Starts the builds a[0..n) (a[0] the harness, a[v + 1] the library of
 * version v) but those whose output the cache holds (keys[i]: copied from
 * it, status 0), and waits for them. */
static void start_builds(const kp_gpu_opts *o, args *a, kp_proc *p, const char **logs, char **keys,
			 int n, const char *harness, const char *const *libs)
{
	for (int i = 0; i < n; i++) {
		const char *out = i ? libs[i - 1] : harness;
		if (keys[i] &&
		    kp_build_cache_get(o->cache_dir, keys[i], i ? "so" : "harness", out)) {
			p[i] = (kp_proc){.started = 1, .fd = -1};
			free(keys[i]); /* in the cache already */
			keys[i] = NULL;
			continue;
		}
		kp_proc_opts po = {.out_path = logs[i], .stdin_null = 1, .timeout_s = 900};
		kp_proc_start(&p[i], argv_of(&a[i]), &po);
	}
	kp_proc_wait(p, n);
}

static const char *build_versions(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w,
				  const char *root, const char *arch_name, const char *const *names,
				  const char *const *files, int n, const char **harness,
				  const char **libs)
{
	const kp_launch_spec *spec = o->spec;
	char err[512];
	const char *hdr_path = NULL, *main_path = NULL;
	const char **src = kp_xcalloc((size_t)n, sizeof(char *));
	const char *why = NULL;
	char *hdr = kp_gpu_gen_spec_header(spec);
	int rc = write_text(w, "kpipe_bench_spec.h", hdr, &hdr_path);
	free(hdr);
	if (rc == 0)
		rc = write_text(w, "bench_main.cu", kp_gpu_harness_source(), &main_path);
	if (rc)
		why = kp_arena_printf(&g->arena, "cannot write into %s: %s", w->dir, strerror(-rc));
	for (int v = 0; v < n && !why; v++) {
		char *abs = realpath(files[v], NULL);
		char *text = NULL, *smem = NULL;
		if (!abs || kp_read_file(abs, &text, NULL) != 0)
			why = kp_arena_printf(&g->arena, "cannot read %s", files[v]);
		else if (kp_gpu_launch_override(text, spec->kernel, &smem, err, sizeof(err)) < 0)
			why = kp_arena_printf(&g->arena, "%s: %s", files[v], err);
		char *launcher = NULL;
		if (!why) {
			char label[256];
			snprintf(label, sizeof(label), "%s / %s", spec->name, names[v]);
			char *via = kp_gpu_launch_via(text, spec->kernel);
			launcher =
				kp_gpu_gen_launcher(spec, abs, label, smem, via, err, sizeof(err));
			free(via);
			if (!launcher)
				why = kp_arena_strdup(&g->arena, err);
		}
		if (!why) {
			const char *name = kp_arena_printf(&g->arena, "%s.launch.cu", names[v]);
			if ((rc = write_text(w, name, launcher, &src[v])))
				why = kp_arena_printf(&g->arena, "cannot write into %s: %s", w->dir,
						      strerror(-rc));
		}
		free(abs);
		free(text);
		free(smem);
		free(launcher);
	}
	if (why) {
		free(src);
		return why;
	}

	/* nvcc n + 1 times, side by side */
	const char *arch = kp_arena_printf(&g->arena, "-arch=%s", arch_name);
	const char **logs = kp_xcalloc((size_t)n + 1, sizeof(char *));
	args *a = kp_xcalloc((size_t)n + 1, sizeof(args));
	kp_proc *p = kp_xcalloc((size_t)n + 1, sizeof(kp_proc));
	*harness = wpath(w, "harness");
	logs[0] = wpath(w, "harness.build.log");
	arg(&a[0], o->nvcc);
	arg(&a[0], "-O2");
	arg(&a[0], "-std=c++17");
	arg(&a[0], "-cudart");
	arg(&a[0], "shared");
	arg(&a[0], "-I");
	arg(&a[0], w->dir);
	rpath_args(&a[0], &g->arena, root);
	arg(&a[0], "-o");
	arg(&a[0], *harness);
	arg(&a[0], main_path);
	arg(&a[0], "-ldl");
	for (int v = 0; v < n; v++) {
		args *x = &a[v + 1];
		libs[v] = wpath(w, kp_arena_printf(&g->arena, "%s.so", names[v]));
		logs[v + 1] = wpath(w, kp_arena_printf(&g->arena, "%s.build.log", names[v]));
		arg(x, o->nvcc);
		arg(x, "-O3");
		arg(x, arch);
		arg(x, "-lineinfo");
		arg(x, "-shared");
		arg(x, "-Xcompiler");
		arg(x, "-fPIC,-fvisibility=hidden");
		arg(x, "-cudart");
		arg(x, "shared");
		rpath_args(x, &g->arena, root);
		for (int i = 0; i < o->nnvcc_args; i++)
			arg(x, o->nvcc_args[i]);
		arg(x, "-o");
		arg(x, libs[v]);
		arg(x, src[v]);
	}
	char **keys = kp_xcalloc((size_t)n + 1, sizeof(char *));
	keys[0] = build_key(o, w, &a[0], (const char *[]){main_path, hdr_path}, 2);
	for (int v = 0; v < n; v++)
		keys[v + 1] =
			build_key(o, w, &a[v + 1], (const char *[]){hdr_path, src[v], files[v]}, 3);
	start_builds(o, a, p, logs, keys, n + 1, *harness, libs);
	for (int i = 0; i <= n; i++) {
		free(a[i].v);
		if (keys[i] && p[i].status == 0)
			kp_build_cache_put(o->cache_dir, keys[i], i ? "so" : "harness",
					   i ? libs[i - 1] : *harness);
		free(keys[i]);
	}
	free(keys);
	for (int i = 0; i <= n && !why; i++) {
		if (p[i].status == 0)
			continue;
		g->build_log = log_excerpt(g, logs[i], 20);
		const char *what =
			i == 0 ? "the harness"
			       : kp_arena_printf(&g->arena, "the launcher of the %s%s",
						 names[i - 1],
						 i == 1 ? " (does the launch description match the "
							  "kernel's signature?)"
							: "");
		why = kp_arena_printf(&g->arena, "cannot build %s: %s", what,
				      p[i].timed_out    ? "nvcc timed out"
				      : p[i].status < 0 ? "nvcc could not be started"
				      : g->build_log && g->build_log[0]
					      ? first_line(&g->arena, g->build_log)
					      : "nvcc failed");
	}
	free(logs);
	free(a);
	free(p);
	free(src);
	return why;
}

/* Writes and builds everything; 0, or -1 with step 3 failed. */
static int build(kp_validate_result *r, const kp_gpu_opts *o, workdir *w, const char *root,
		 const char **harness, const char **libs)
{
	const char *files[2] = {o->original, o->rewritten};
	const char *names[2] = {KP_GPU_ORIGINAL, KP_GPU_REWRITTEN};
	const char *why =
		build_versions(r->gpu, o, w, root, nvcc_arch(r), names, files, 2, harness, libs);
	if (!why)
		return 0;
	kp_validate_set_step(&r->steps[KP_STEP_GPU_RUN - 1], KP_STEP_FAILED, "%s", why);
	return -1;
}

static void run_harness(kp_validate_result *r, const kp_gpu_opts *o, workdir *w,
			const char *harness, const char **libs)
{
	kp_gpu_result *g = r->gpu;
	args a = {0};
	char reps[16], warm[16];
	snprintf(reps, sizeof(reps), "%d", o->reps > 0 ? o->reps : 21);
	snprintf(warm, sizeof(warm), "%d", o->warmup > 0 ? o->warmup : 3);
	kp_strbuf sizes = KP_STRBUF_INIT;
	for (int i = 0; i < g->nsizes; i++)
		if (i == 0 || strcmp(g->sizes[i - 1].name, g->sizes[i].name)) /* once per size */
			kp_strbuf_addf(&sizes, "%s%s", i ? "," : "", g->sizes[i].name);
	arg(&a, harness);
	arg(&a, "--reps");
	arg(&a, reps);
	arg(&a, "--warmup");
	arg(&a, warm);
	arg(&a, "--sizes");
	arg(&a, kp_arena_strdup(&g->arena, kp_strbuf_str(&sizes)));
	arg(&a, "--lib");
	arg(&a, kp_arena_printf(&g->arena, "%s=%s", KP_GPU_ORIGINAL, libs[0]));
	arg(&a, "--lib");
	arg(&a, kp_arena_printf(&g->arena, "%s=%s", KP_GPU_REWRITTEN, libs[1]));
	if (g->timed_size) {
		arg(&a, "--time");
		arg(&a, g->timed_size);
	}
	if (o->profile)
		arg(&a, "--copy");
	kp_strbuf_release(&sizes);
	const char *out = wpath(w, "harness.events"), *err = wpath(w, "harness.stderr");
	kp_proc p;
	kp_proc_opts po = {
		.out_path = out, .err_path = err, .stdin_null = 1, .timeout_s = g->run_timeout_s};
	kp_proc_run(&p, argv_of(&a), &po);
	free(a.v);
	g->harness_ran = 1;
	g->harness_rc = p.status;
	g->timed_out = p.timed_out;
	char *text = NULL;
	if (kp_read_file(out, &text, NULL) == 0)
		kp_gpu_absorb_events(g, text);
	free(text);
	if (kp_read_file(err, &text, NULL) == 0 && text[0]) {
		/* the last 8 lines */
		const char *start = text + strlen(text);
		int n = 0;
		while (start > text && n < 9)
			if (*--start == '\n')
				n++;
		g->harness_err = kp_arena_strdup(&g->arena, start + (*start == '\n'));
	}
	free(text);
}

/* The harness launching `lib` (as `name`) once at `size`. */
static void single_argv(args *a, kp_arena *ar, const char *harness, const char *size,
			const char *name, const char *lib)
{
	arg(a, harness);
	arg(a, "--single");
	arg(a, "--sizes");
	arg(a, size);
	arg(a, "--lib");
	arg(a, kp_arena_printf(ar, "%s=%s", name, lib));
}

/* compute-sanitizer `tool` on one launch (--single) of the harness at
 * `size`, with the library `lib` under the harness name `name`. */
static void sanitizer_argv(args *a, kp_arena *ar, const char *san, const char *tool,
			   const char *harness, const char *size, const char *name, const char *lib)
{
	arg(a, san);
	arg(a, "--tool");
	arg(a, tool);
	arg(a, "--error-exitcode");
	arg(a, "86");
	arg(a, "--print-limit");
	arg(a, "20");
	single_argv(a, ar, harness, size, name, lib);
}

static void run_sanitizers(kp_validate_result *r, const kp_gpu_opts *o, workdir *w,
			   const char *root, const char *harness, const char *lib)
{
	kp_gpu_result *g = r->gpu;
	const char *san = find_sanitizer(&g->arena, o, root);
	if (!san) {
		g->san_skip = "compute-sanitizer not found (looked beside nvcc, in the toolkit's "
			      "compute-sanitizer/ and on $PATH)";
		return;
	}
	enum { N = KP_ARRAY_LEN(sanitizer_tools) };
	args a[N] = {{0}};
	kp_proc p[N];
	const char *outs[N];
	for (int i = 0; i < (int)N; i++) {
		outs[i] = wpath(w,
				kp_arena_printf(&g->arena, "sanitizer-%s.txt", sanitizer_tools[i]));
		sanitizer_argv(&a[i], &g->arena, san, sanitizer_tools[i], harness, g->sanitize_size,
			       KP_GPU_REWRITTEN, lib);
		kp_proc_opts po = {
			.out_path = outs[i], .stdin_null = 1, .timeout_s = g->sanitize_timeout_s};
		kp_proc_start(&p[i], argv_of(&a[i]), &po);
	}
	kp_proc_wait(p, N);
	for (int i = 0; i < (int)N; i++) {
		free(a[i].v);
		kp_gpu_sanitizer *s = &g->san[g->nsan++];
		s->tool = sanitizer_tools[i];
		s->seconds = p[i].seconds;
		char *text = NULL;
		if (kp_read_file(outs[i], &text, NULL) != 0)
			text = kp_xstrdup("");
		kp_gpu_parse_sanitizer(g, s, text, p[i].status, p[i].timed_out);
		free(text);
	}
}

/* ---- Nsight Compute (--profile) ---------------------------------------- */

static const char *find_ncu(kp_arena *a, const kp_gpu_opts *o, const char *root)
{
	if (o->ncu)
		return kp_is_executable(o->ncu) ? o->ncu : NULL;
	const char *slash = strrchr(o->nvcc, '/');
	const char *cands[3] = {
		slash ? kp_arena_printf(a, "%.*s/ncu", (int)(slash - o->nvcc), o->nvcc) : NULL,
		root ? kp_arena_printf(a, "%s/bin/ncu", root) : NULL,
		root ? kp_arena_printf(a, "%s/nsight-compute/ncu", root) : NULL,
	};
	for (int i = 0; i < 3; i++)
		if (kp_is_executable(cands[i]))
			return cands[i];
	char *p = kp_find_on_path("ncu");
	const char *found = p ? kp_arena_strdup(a, p) : NULL;
	free(p);
	return found;
}

/* ncu over one --single launch of the harness at `size` with the library
 * `lib` as `name`, kernels whose name contains `kernel` (the first one). */
static void ncu_argv(args *a, kp_arena *ar, const char *ncu, const char *metrics,
		     const char *kernel, const char *harness, const char *size, const char *name,
		     const char *lib)
{
	arg(a, ncu);
	arg(a, "--csv");
	arg(a, "--page");
	arg(a, "raw");
	arg(a, "--print-units");
	arg(a, "base");
	arg(a, "--metrics");
	arg(a, metrics);
	arg(a, "-k");
	arg(a, kp_arena_printf(ar, "regex:%s", kernel));
	arg(a, "-c");
	arg(a, "1");
	single_argv(a, ar, harness, size, name, lib);
}

/* Profiles version v; returns 0, or -1 when the counters are not
 * accessible (p->skip is then set). */
static int profile_one(kp_gpu_result *g, workdir *w, const char *ncu, const char *kernel,
		       const char *harness, const char *lib, int v, int use[KP_NCU_NMETRICS],
		       int timeout_s)
{
	kp_ncu_profile *p = &g->profile;
	for (;;) {
		char *metrics = kp_ncu_metric_list(use);
		args a = {0};
		const char *out = wpath(w, kp_arena_printf(&g->arena, "ncu-%s.csv", p->names[v]));
		ncu_argv(&a, &g->arena, ncu, metrics, kernel, harness, p->size, p->names[v], lib);
		kp_proc pr;
		kp_proc_opts po = {.out_path = out, .stdin_null = 1, .timeout_s = timeout_s};
		kp_proc_run(&pr, argv_of(&a), &po);
		free(a.v);
		free(metrics);
		char *text = NULL, msg[512];
		if (kp_read_file(out, &text, NULL) != 0)
			text = kp_xstrdup("");
		int bad;
		kp_ncu_status st = kp_ncu_parse(text, &p->v[v], &bad, &g->arena, msg, sizeof(msg));
		free(text);
		if (st == KP_NCU_BAD_METRIC && use[bad]) {
			use[bad] = 0;
			p->dropped =
				kp_arena_printf(&g->arena, "%s%s%s", p->dropped ? p->dropped : "",
						p->dropped ? ", " : "", kp_ncu_metrics[bad].metric);
			continue;
		}
		if (st == KP_NCU_NOPERM) {
			p->skip =
				"ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): "
				"run as root or load the driver with "
				"NVreg_RestrictProfilingToAdminUsers=0";
			return -1;
		}
		if (st == KP_NCU_OK)
			p->ran[v] = 1;
		else if (pr.timed_out)
			p->error[v] =
				kp_arena_printf(&g->arena, "ncu timed out after %d s", timeout_s);
		else
			p->error[v] = kp_arena_printf(&g->arena, "%s (exit %d)%s%s",
						      st == KP_NCU_NO_KERNEL
							      ? "ncu profiled no kernel"
							      : "ncu gave no report",
						      pr.status, msg[0] ? ": " : "", msg);
		return 0;
	}
}

/* --profile: ncu on one launch of both versions at the timed size, and the
 * copy comparison from the harness's "copy" event. */
static void run_profile(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w, const char *root,
			const char *harness, const char *const *names, const char *const *libs)
{
	kp_ncu_profile *p = &g->profile;
	p->names[0] = names[0];
	p->names[1] = names[1];
	p->size = g->timed_size ? g->timed_size
		  : g->nsizes   ? g->sizes[g->nsizes - 1].name
				: "small";
	p->ncu = find_ncu(&g->arena, o, root);
	if (!p->ncu) {
		p->skip = "ncu (Nsight Compute) not found (looked beside nvcc, in the toolkit's "
			  "bin/ and nsight-compute/, and on $PATH)";
		return;
	}
	p->skip = NULL;
	const char *kernel = strrchr(o->spec->kernel, ':');
	kernel = kernel ? kernel + 1 : o->spec->kernel;
	int use[KP_NCU_NMETRICS];
	for (int m = 0; m < KP_NCU_NMETRICS; m++)
		use[m] = 1;
	int timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300;
	for (int v = 0; v < 2; v++)
		if (profile_one(g, w, p->ncu, kernel, harness, libs[v], v, use, timeout_s) != 0)
			return;
	const char *kind = o->spec->work_kind;
	for (int v = 0; v < 2; v++)
		p->ms[v] = g->time[0][v].have ? g->time[0][v].median_ms : 0;
	if (!strcmp(kind, "flops"))
		p->copy_skip = "the launch description gives the work in flops (compute-bound): "
			       "not compared with a copy kernel";
	else if (!g->timed_size)
		p->copy_skip = "no size was timed ('target' not among --sizes)";
	else if (p->copy_ms <= 0)
		p->copy_skip = "the harness did not time the copy kernel";
}

/* Step 3 failed before the harness ran: steps 4 and 5 cannot run either. */
static void nothing_to_run(kp_validate_result *r, int sanitize)
{
	for (int s = 3; s < 5; s++)
		kp_validate_set_step(&r->steps[s], KP_STEP_SKIPPED, "no harness (see step 3)");
	if (!sanitize) {
		kp_validate_set_step(&r->steps[4], KP_STEP_SKIPPED,
				     "not requested (--no-sanitize)");
		r->steps[4].not_requested = 1;
	}
}

/* What the result keeps of the spec: its path, kernel, instantiations,
 * tolerance, work and size symbols. */
static void gpu_setup(kp_gpu_result *g, const kp_launch_spec *spec)
{
	g->spec_path = kp_arena_strdup(&g->arena, spec->path);
	if (spec->ninsts > 1) {
		g->kernel = kp_arena_strdup(&g->arena, spec->kernel);
		for (int i = 0; i < spec->ninsts && i < KP_LAUNCH_MAX_INSTS; i++)
			g->insts[i] = kp_arena_strdup(&g->arena, spec->insts[i]);
		g->ninsts = spec->ninsts < KP_LAUNCH_MAX_INSTS ? spec->ninsts : KP_LAUNCH_MAX_INSTS;
	} else
		g->kernel = kp_arena_printf(&g->arena, "%s%s", spec->kernel, spec->template_args);
	g->tol_abs = spec->tol_abs;
	g->tol_rel = spec->tol_rel;
	g->work_kind = spec->work_kind;
	g->nsymbols = spec->nsymbols;
	g->symbols = kp_arena_alloc(&g->arena, sizeof(char *) * (size_t)(spec->nsymbols + 1));
	for (int i = 0; i < spec->nsymbols; i++)
		g->symbols[i] = kp_arena_strdup(&g->arena, spec->symbols[i]);
}

/* The requested sizes in the spec's order, the timed one last, each once
 * per instantiation (the harness's order). */
static void gpu_sizes(kp_gpu_result *g, const kp_gpu_opts *o)
{
	const kp_launch_spec *spec = o->spec;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < spec->nsizes; i++) {
			const kp_launch_size *z = &spec->sizes[i];
			int wanted = !o->sizes;
			for (int k = 0; k < o->nsizes && !wanted; k++)
				wanted = !strcmp(o->sizes[k], z->name);
			if (!wanted || (pass == 0) == !strcmp(z->name, "target"))
				continue;
			long *vals = kp_arena_alloc(&g->arena,
						    sizeof(long) * (size_t)(spec->nsymbols + 1));
			memcpy(vals, z->vals, sizeof(long) * (size_t)spec->nsymbols);
			for (int k = 0; k < g->ninsts; k++) {
				kp_gpu_size *gz = kp_gpu_find_size(g, z->name, g->insts[k], 1);
				gz->vals = vals;
				if (pass == 1)
					g->timed_size = gz->name;
			}
		}
	g->sanitize_size = "small";
}

static const kp_gpu_hooks gpu_hooks = {kp_gpu_render_text, kp_gpu_render_json, kp_gpu_result_free};

kp_gpu_result *kp_gpu_attach(kp_validate_result *r)
{
	r->gpu = kp_gpu_result_new();
	r->gpu_hooks = &gpu_hooks;
	return r->gpu;
}

int kp_validate_gpu(kp_validate_result *r, const kp_gpu_opts *o)
{
	kp_gpu_result *g = kp_gpu_attach(r);
	const kp_launch_spec *spec = o->spec;
	g->profile.requested = o->profile;
	g->profile.skip = "the GPU steps did not run (see step 3)";
	g->run_timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300;
	g->sanitize_timeout_s = o->sanitize_timeout_s > 0 ? o->sanitize_timeout_s : 300;
	for (int s = 2; s < 5; s++)
		kp_validate_set_step(&r->steps[s], KP_STEP_SKIPPED, "not run");

	if (r->compile_log) {
		kp_gpu_skip_steps(r, o->sanitize, "not run", "the files do not compile (step 1)");
		return 0;
	}
	if (!spec) {
		kp_gpu_skip_steps(r, o->sanitize, "no launch description",
				  o->spec_missing ? o->spec_missing : "no launch description");
		return 0;
	}
	gpu_setup(g, spec);
	if (o->kernel && !spec_kernel_selected(r, spec)) {
		char *why = kp_arena_printf(&g->arena,
					    "the launch description %s is for kernel '%s', which "
					    "--kernel '%s' does not select",
					    spec->path, g->kernel, o->kernel);
		kp_gpu_skip_steps(r, o->sanitize, "not run", why);
		return 0;
	}
	gpu_sizes(g, o);

	char why[256];
	int dev = kp_gpu_probe(why, sizeof(why));
	if (!dev) {
		g->no_device = kp_arena_strdup(&g->arena, why);
		g->profile.skip = kp_arena_printf(&g->arena, "no CUDA device (%s)", why);
	}
	if (!dev && !o->dir) {
		kp_gpu_judge(r, o->sanitize);
		return 0;
	}

	workdir w = {.g = g};
	char wwhy[512];
	int wr = workdir_open(&w, o->dir, "gpu", wwhy, sizeof(wwhy));
	if (wr != 0) {
		kp_validate_set_step(&r->steps[2], KP_STEP_FAILED, "%s", wwhy);
		nothing_to_run(r, o->sanitize);
		return wr == -1 ? 0 : -1;
	}
	if (o->dir)
		g->dir = w.dir;
	char *root_buf;
	const char *root = cuda_root_of(o, &root_buf);
	const char *harness, *libs[2];
	if (build(r, o, &w, root, &harness, libs) == 0) {
		run_harness(r, o, &w, harness, libs);
		if (o->sanitize && g->have_device)
			run_sanitizers(r, o, &w, root, harness, libs[1]);
		static const char *const names[2] = {KP_GPU_ORIGINAL, KP_GPU_REWRITTEN};
		if (o->profile && g->have_device)
			run_profile(g, o, &w, root, harness, names, libs);
		kp_gpu_judge(r, o->sanitize);
	} else
		nothing_to_run(r, o->sanitize);
	free(root_buf);
	workdir_release(&w);
	return 0;
}

/* ---- several versions in one run (kpipe tune) ------------------------- */

/* Tools every tuned variant must pass: a variant that races can still
 * compute the original's numbers in a plain run. */
static const char *const tune_sanitizers[] = {"memcheck", "racecheck", "synccheck"};

const char *kp_gpu_not_a_candidate(const char *events, const char *name)
{
	const char *why = NULL;
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, events);
	while (!why && kp_event_next(&rd, &e)) {
		if (!e.version || strcmp(e.version, name) != 0)
			continue;
		if (e.kind == KP_EV_DROPPED)
			why = "not a candidate: stopped early as slower than the original";
		else if ((e.kind == KP_EV_CHECK && !e.ok) || e.kind == KP_EV_ERROR)
			why = "not a candidate: failed on the GPU";
	}
	kp_event_reader_release(&rd);
	return why;
}

/* compute-sanitizer on one launch of each variant (names[1..n-1]) that
 * could be chosen (kp_gpu_not_a_candidate()) at the `small` size; appends one
 * "sanitize" event line per variant and tool to *events
 * ({"event":"sanitize","version":...,"tool":...,"ok":...,"errors":N,
 * "msg":...}), one "sanitize-skip" line with the version for each variant
 * it leaves out, or one "sanitize-skip" line without a version when the
 * tool is not found. */
static void sanitize_versions(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w, const char *root,
			      const char *harness, const char *const *names,
			      const char *const *libs, int n, char **events)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, *events ? *events : "");
	if (sb.len && kp_strbuf_str(&sb)[sb.len - 1] != '\n')
		kp_strbuf_addc(&sb, '\n');
	const char *san = find_sanitizer(&g->arena, o, root);
	if (!san) {
		kp_strbuf_adds(&sb, "{\"event\":\"sanitize-skip\",\"msg\":\"compute-sanitizer not "
				    "found\"}\n");
		free(*events);
		*events = kp_strbuf_detach(&sb);
		return;
	}
	/* every candidate and tool side by side: one launch each, small size */
	enum { T = KP_ARRAY_LEN(tune_sanitizers) };
	int *cand = kp_xcalloc((size_t)(n > 0 ? n : 1), sizeof(int)), nc = 0;
	for (int v = 1; v < n; v++) {
		const char *why = kp_gpu_not_a_candidate(*events, names[v]);
		if (!why) {
			cand[nc++] = v;
			continue;
		}
		kp_strbuf_addf(&sb,
			       "{\"event\":\"sanitize-skip\",\"version\":\"%s\",\"msg\":\"%s\"}\n",
			       names[v], why);
	}
	int np = nc * (int)T;
	args *a = kp_xcalloc((size_t)(np > 0 ? np : 1), sizeof(*a));
	kp_proc *p = kp_xcalloc((size_t)(np > 0 ? np : 1), sizeof(*p));
	const char **outs = kp_xcalloc((size_t)(np > 0 ? np : 1), sizeof(*outs));
	for (int k = 0; k < np; k++) {
		int v = cand[k / (int)T], t = k % (int)T;
		outs[k] = wpath(w, kp_arena_printf(&g->arena, "sanitizer-%s-%s.txt", names[v],
						   tune_sanitizers[t]));
		sanitizer_argv(&a[k], &g->arena, san, tune_sanitizers[t], harness, "small",
			       names[v], libs[v]);
		kp_proc_opts po = {.out_path = outs[k],
				   .stdin_null = 1,
				   .timeout_s = o->sanitize_timeout_s > 0 ? o->sanitize_timeout_s
									  : 300};
		kp_proc_start(&p[k], argv_of(&a[k]), &po);
	}
	kp_proc_wait(p, np);
	for (int k = 0; k < np; k++) {
		int v = cand[k / (int)T], t = k % (int)T;
		free(a[k].v);
		kp_gpu_sanitizer s = {0};
		s.tool = tune_sanitizers[t];
		char *text = NULL;
		if (kp_read_file(outs[k], &text, NULL) != 0)
			text = kp_xstrdup("");
		kp_gpu_parse_sanitizer(g, &s, text, p[k].status, p[k].timed_out);
		free(text);
		int ok = s.status == KP_SAN_PASS || s.status == KP_SAN_UNSUPPORTED;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "event", "sanitize");
		cJSON_AddStringToObject(e, "version", names[v]);
		cJSON_AddStringToObject(e, "tool", s.tool);
		cJSON_AddBoolToObject(e, "ok", ok);
		cJSON_AddNumberToObject(e, "errors", s.errors);
		cJSON_AddNumberToObject(e, "seconds", p[k].seconds);
		if (!ok)
			cJSON_AddStringToObject(e, "msg",
						s.status == KP_SAN_TIMEOUT ? "timed out"
						: s.status == KP_SAN_ERROR
							? "the run did not finish normally"
							: "errors reported");
		char *line = cJSON_PrintUnformatted(e);
		kp_strbuf_addf(&sb, "%s\n", line);
		cJSON_free(line);
		cJSON_Delete(e);
	}
	free(a);
	free(p);
	free(outs);
	free(cand);
	free(*events);
	*events = kp_strbuf_detach(&sb);
}

/* Why tune's harness run failed: its first error event (else its first
 * fatal one), else the first line of its stderr.  Heap string. */
static char *harness_failure(const kp_proc *p, const char *events, const char *stderr_path)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "the harness %s", p->timed_out ? "timed out" : "failed");
	if (!p->timed_out)
		kp_strbuf_addf(&sb, " (exit %d)", p->status);
	char *stage = NULL, *msg = NULL;
	int found = 0; /* 1 a fatal event, 2 an error event */
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, events);
	while (found < 2 && kp_event_next(&rd, &e)) {
		int rank = e.kind == KP_EV_ERROR ? 2 : e.kind == KP_EV_FATAL ? 1 : 0;
		if (rank <= found)
			continue;
		found = rank;
		free(stage);
		free(msg);
		stage = e.stage ? kp_xstrdup(e.stage) : NULL;
		msg = e.msg ? kp_xstrdup(e.msg) : NULL;
	}
	kp_event_reader_release(&rd);
	char *etext = NULL;
	if (msg)
		kp_strbuf_addf(&sb, ": %s%s%s", stage ? stage : "", stage ? ": " : "", msg);
	else if (kp_read_file(stderr_path, &etext, NULL) == 0 && etext[0])
		kp_strbuf_addf(&sb, ": %.*s", (int)strcspn(etext, "\n"), etext);
	free(etext);
	free(stage);
	free(msg);
	return kp_strbuf_detach(&sb);
}

/* Runs tune's harness on the built libraries: every size checked, each of
 * o->time_sizes (NULL: 'target') timed `rounds` times.  Returns 0 with its events in *events, or -1
 * with *err too (heap strings). */
static int run_versions_harness(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w,
				const char *harness, const char *const *names,
				const char *const *libs, int n, int rounds, char **events,
				char **err)
{
	args a = {0};
	char reps[16], warm[16], rnd[16];
	snprintf(reps, sizeof(reps), "%d", o->reps > 0 ? o->reps : 21);
	snprintf(warm, sizeof(warm), "%d", o->warmup > 0 ? o->warmup : 3);
	snprintf(rnd, sizeof(rnd), "%d", rounds > 0 ? rounds : 1);
	arg(&a, harness);
	arg(&a, "--reps");
	arg(&a, reps);
	arg(&a, "--warmup");
	arg(&a, warm);
	arg(&a, "--rounds");
	arg(&a, rnd);
	if (o->drop_slower_pct > 0) {
		arg(&a, "--drop-slower");
		arg(&a, kp_arena_printf(&g->arena, "%g", o->drop_slower_pct));
	}
	if (o->round_ms > 0) {
		arg(&a, "--round-ms");
		arg(&a, kp_arena_printf(&g->arena, "%g", o->round_ms));
	}
	if (o->sizes && o->nsizes > 0) {
		kp_strbuf sz = KP_STRBUF_INIT;
		for (int i = 0; i < o->nsizes; i++)
			kp_strbuf_addf(&sz, "%s%s", i ? "," : "", o->sizes[i]);
		arg(&a, "--sizes");
		arg(&a, kp_arena_strdup(&g->arena, kp_strbuf_str(&sz)));
		kp_strbuf_release(&sz);
	}
	arg(&a, "--time");
	if (o->time_sizes && o->ntime_sizes > 0) {
		kp_strbuf tz = KP_STRBUF_INIT;
		for (int i = 0; i < o->ntime_sizes; i++)
			kp_strbuf_addf(&tz, "%s%s", i ? "," : "", o->time_sizes[i]);
		arg(&a, kp_arena_strdup(&g->arena, kp_strbuf_str(&tz)));
		kp_strbuf_release(&tz);
	} else
		arg(&a, "target");
	for (int i = 0; i < n; i++) {
		arg(&a, "--lib");
		arg(&a, kp_arena_printf(&g->arena, "%s=%s", names[i], libs[i]));
	}
	const char *out = wpath(w, "harness.events"), *er = wpath(w, "harness.stderr");
	kp_proc p;
	kp_proc_opts po = {.out_path = out,
			   .err_path = er,
			   .stdin_null = 1,
			   .timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300};
	kp_proc_run(&p, argv_of(&a), &po);
	free(a.v);
	if (kp_read_file(out, events, NULL) != 0)
		*events = kp_xstrdup("");
	if (!p.timed_out && p.status == 0)
		return 0;
	*err = harness_failure(&p, *events, er);
	return -1;
}

/* The "phase" events of kp_gpu_run_versions(): build t0..t1, run t1..t2,
 * sanitize t2..t3 (t3 0: not run). */
static void append_phases(char **events, double t0, double t1, double t2, double t3)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, *events ? *events : "");
	if (sb.len && kp_strbuf_str(&sb)[sb.len - 1] != '\n')
		kp_strbuf_addc(&sb, '\n');
	kp_strbuf_addf(&sb, "{\"event\":\"phase\",\"phase\":\"build\",\"seconds\":%.3f}\n",
		       t1 - t0);
	kp_strbuf_addf(&sb, "{\"event\":\"phase\",\"phase\":\"run\",\"seconds\":%.3f}\n", t2 - t1);
	if (t3 > 0)
		kp_strbuf_addf(&sb,
			       "{\"event\":\"phase\",\"phase\":\"sanitize\",\"seconds\":%.3f}\n",
			       t3 - t2);
	free(*events);
	*events = kp_strbuf_detach(&sb);
}

int kp_gpu_run_versions(const kp_gpu_opts *o, const kp_gpu_version *v, int n, int rounds,
			char **events, char **err)
{
	*events = NULL;
	*err = NULL;
	kp_gpu_result *g = kp_gpu_result_new();
	workdir w = {.g = g};
	char why[256];
	if ((!kp_gpu_probe(why, sizeof(why)) && !o->dir) ||
	    workdir_open(&w, o->dir, "tune", why, sizeof(why)) != 0) {
		*err = kp_xstrdup(why);
		kp_gpu_result_free(g);
		return -1;
	}
	char *root_buf;
	const char *root = cuda_root_of(o, &root_buf);
	const char **names = kp_xcalloc((size_t)n, sizeof(char *));
	const char **files = kp_xcalloc((size_t)n, sizeof(char *));
	const char **libs = kp_xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		names[i] = v[i].name;
		files[i] = v[i].path;
	}
	const char *harness = NULL;
	double t0 = kp_now(), t1 = 0, t2 = 0;
	const char *bw = build_versions(g, o, &w, root, o->arch, names, files, n, &harness, libs);
	int rc = -1;
	if (bw) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%s", bw);
		if (g->build_log && g->build_log[0])
			kp_strbuf_addf(&sb, "\n%s", g->build_log);
		*err = kp_strbuf_detach(&sb);
	} else {
		t1 = kp_now();
		rc = run_versions_harness(g, o, &w, harness, names, libs, n, rounds, events, err);
		t2 = kp_now();
		if (rc == 0 && o->sanitize)
			sanitize_versions(g, o, &w, root, harness, names, libs, n, events);
		append_phases(events, t0, t1, t2, rc == 0 && o->sanitize ? kp_now() : 0);
	}
	free(names);
	free(files);
	free(libs);
	free(root_buf);
	workdir_release(&w);
	kp_gpu_result_free(g);
	return rc;
}

/* `kpipe tune --profile`: the original and the chosen variant again, timed
 * at 'target' beside the copy kernel, then ncu on one launch of each. */
static void profile_pair_run(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w, const char *root,
			     const kp_gpu_version *v)
{
	static const char *const hnames[2] = {KP_GPU_ORIGINAL, KP_GPU_REWRITTEN};
	const char *files[2] = {v[0].path, v[1].path}, *libs[2], *harness = NULL;
	const char *bw = build_versions(g, o, w, root, o->arch, hnames, files, 2, &harness, libs);
	if (bw) {
		g->profile.skip = kp_arena_printf(&g->arena, "the profiling build failed: %s", bw);
		return;
	}
	const kp_gpu_opts one = {.spec = o->spec,
				 .reps = o->reps,
				 .warmup = o->warmup,
				 .run_timeout_s = o->run_timeout_s,
				 .profile = 1};
	g->timed_size = "target";
	kp_gpu_find_size(g, "target", NULL, 1);
	kp_validate_result r = {.gpu = g};
	run_harness(&r, &one, w, harness, libs);
	if (!g->time[0][0].have || !g->time[0][1].have) {
		g->profile.skip = kp_arena_printf(
			&g->arena,
			"the harness did not time both versions at 'target' (exit %d)%s%s",
			g->harness_rc, g->harness_err ? ": " : "",
			g->harness_err ? first_line(&g->arena, g->harness_err) : "");
		return;
	}
	const char *names[2] = {v[0].name, v[1].name};
	run_profile(g, o, w, root, harness, names, libs);
}

kp_gpu_result *kp_gpu_profile_pair(const kp_gpu_opts *o, const kp_gpu_version *v)
{
	kp_gpu_result *g = kp_gpu_result_new();
	g->profile.requested = 1;
	g->profile.names[0] = kp_arena_strdup(&g->arena, v[0].name);
	g->profile.names[1] = kp_arena_strdup(&g->arena, v[1].name);
	g->run_timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300;
	char why[256];
	if (!kp_gpu_probe(why, sizeof(why))) {
		g->profile.skip = kp_arena_printf(&g->arena, "no CUDA device (%s)", why);
		return g;
	}
	workdir w = {.g = g};
	if (workdir_open(&w, NULL, "profile", why, sizeof(why)) != 0) {
		g->profile.skip = kp_arena_strdup(&g->arena, why);
		return g;
	}
	char *root_buf;
	const char *root = cuda_root_of(o, &root_buf);
	profile_pair_run(g, o, &w, root, v);
	free(root_buf);
	workdir_release(&w);
	return g;
}
