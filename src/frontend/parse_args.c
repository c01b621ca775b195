/*
 * parse_args.c - the clang command line of every parse: the target
 * (kp_parse_arch), the arguments every parse and precompiled header share
 * (kp_clang_base_args: CUDA device side, C++17, the toolkit's version and
 * include/cccl, clang's CUDA wrappers, the CUDA 13 stand-in header), the
 * force-included declarations of the cache-hint intrinsics, and a single
 * file's entry in a compilation database (kp_compdb_lookup; compdb.c
 * translates the flags).  It owns kpipe's stand-in headers in
 * $TMPDIR/kpipe-stub-UID/ and where the toolkit is (kp_parse_cuda_root).
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include "recover.h"

#include <clang-c/CXCompilationDatabase.h>
#include <dlfcn.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the real path abs lies under dir (a path, resolved here). */
int kp_parse_path_under(const char *abs, const char *dir)
{
	char *r = dir ? realpath(dir, NULL) : NULL;
	size_t n = r ? strlen(r) : 0;
	int under = r && !strncmp(abs, r, n) && (abs[n] == '/' || (n == 1 && r[0] == '/'));
	free(r);
	return under;
}

static int exists_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* kpipe's own stand-in headers live in $TMPDIR/kpipe-stub-UID/.  Writes
 * NAME there (atomically) unless it exists, and puts its path into path.
 * Returns 0, or -1 when it cannot be written. */
static int stub_file(const char *name, const char *text, char *path, size_t pathsz)
{
	const char *tmp = getenv("TMPDIR");
	char dir[3800];
	snprintf(dir, sizeof(dir), "%s/kpipe-stub-%d", tmp && *tmp ? tmp : "/tmp", (int)getuid());
	mkdir(dir, 0700);
	if (snprintf(path, pathsz, "%s/%s", dir, name) >= (int)pathsz)
		return -1;
	if (!exists_file(path) && kp_write_file_atomic(path, text, strlen(text)) != 0)
		return -1;
	return 0;
}

/* The toolkit root kpipe parses against: --cuda-path, $CUDA_HOME,
 * $CUDA_PATH, /usr/local/cuda. */
const char *kp_parse_cuda_root(const char *cuda_path)
{
	const char *cp = cuda_path;
	if (!cp || !*cp)
		cp = getenv("CUDA_HOME");
	if (!cp || !*cp)
		cp = getenv("CUDA_PATH");
	if (!cp || !*cp)
		cp = "/usr/local/cuda";
	return cp;
}

/* CUDA 13 removed texture_fetch_functions.h, which clang <= 20's wrapper
 * still includes: point -isystem at an empty stand-in when it is missing. */
const char *kp_parse_stub_dir(const char *cuda_path)
{
	static char dir[4096];
	static int done;
	if (done)
		return dir[0] ? dir : NULL;
	done = 1;
	char probe[4096];
	snprintf(probe, sizeof(probe), "%s/include/texture_fetch_functions.h",
		 kp_parse_cuda_root(cuda_path));
	if (exists_file(probe))
		return NULL;
	if (stub_file("texture_fetch_functions.h",
		      "/* kpipe: empty stand-in for a header CUDA 13 no longer ships */\n", dir,
		      sizeof(dir)) != 0) {
		dir[0] = '\0';
		return NULL;
	}
	*strrchr(dir, '/') = '\0'; /* the directory */
	return dir;
}

/* The cuda_wrappers directory of the resource directory of the libclang
 * kpipe runs with (found from the library's own path), or NULL. */
static const char *cuda_wrappers_dir(void)
{
	static char dir[4096];
	static int done;
	if (done)
		return dir[0] ? dir : NULL;
	done = 1;
	Dl_info di;
	char lib[4096] = "";
	if (dladdr((void *)clang_getClangVersion, &di) && di.dli_fname) {
		char *real = realpath(di.dli_fname, NULL);
		snprintf(lib, sizeof(lib), "%s", real ? real : di.dli_fname);
		free(real);
	}
	char *slash = strrchr(lib, '/');
	if (slash)
		*slash = '\0';
	char probe[2][4200];
	snprintf(probe[0], sizeof(probe[0]), "%s/clang/%d/include/cuda_wrappers", lib,
		 KPIPE_LIBCLANG_MAJOR);
	snprintf(probe[1], sizeof(probe[1]), "/usr/lib/llvm-%d/lib/clang/%d/include/cuda_wrappers",
		 KPIPE_LIBCLANG_MAJOR, KPIPE_LIBCLANG_MAJOR);
	for (int i = lib[0] ? 0 : 1; i < 2; i++) {
		char nw[4300];
		snprintf(nw, sizeof(nw), "%s/new", probe[i]);
		if (exists_file(nw)) {
			snprintf(dir, sizeof(dir), "%s", probe[i]);
			return dir;
		}
	}
	return NULL;
}

const char *kp_parse_arch(const char *arch)
{
	const char *d = arch ? arch : "sm_90";
	while (*d && (*d < '0' || *d > '9'))
		d++;
	int n = atoi(d);
#if KPIPE_LIBCLANG_MAJOR >= 20
	if (n > 120)
		return "sm_120";
#else
	if (n > 90)
		return "sm_90";
#endif
	if (n > 0 && n < 50) /* Kepler: clang refuses it with CUDA 12 and later */
		return "sm_50";
	return arch ? arch : "sm_90";
}

void kp_clang_arg(kp_strbuf *store, int *nstore, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_strbuf_vaddf(store, fmt, ap);
	va_end(ap);
	kp_strbuf_addc(store, '\0');
	(*nstore)++;
}

void kp_clang_base_args(const char *arch, const char *cuda_path, kp_strbuf *store, int *nstore)
{
#define ADD_ARG(...) kp_clang_arg(store, nstore, __VA_ARGS__)
	ADD_ARG("-x");
	ADD_ARG("cuda");
	ADD_ARG("--cuda-device-only");
	ADD_ARG("--cuda-gpu-arch=%s", kp_parse_arch(arch));
	if (cuda_path)
		ADD_ARG("--cuda-path=%s", cuda_path);
	ADD_ARG("-std=c++17");
	ADD_ARG("-Wno-unknown-cuda-version");
	ADD_ARG("-ferror-limit=0"); /* every error is placed: kernel or not */
	const char *sd = kp_parse_stub_dir(cuda_path);
	if (sd) {
		ADD_ARG("-isystem");
		ADD_ARG("%s", sd);
	}
	/* clang's CUDA wrappers of <new>, <cmath>, <algorithm>, <complex>,
	 * which its driver adds from a resource directory libclang does not
	 * find: without them placement new in device code (CUB's BlockLoad)
	 * is an error */
	const char *cw = cuda_wrappers_dir();
	if (cw) {
		ADD_ARG("-isystem");
		ADD_ARG("%s", cw);
	}
	/* what nvcc defines and clang does not: the toolkit's version
	 * (__NVCC__ stays undefined: clang is not nvcc, and headers that test
	 * it take nvcc-only paths) */
	int vmaj, vmin, vbuild;
	if (!kp_toolkit_version(kp_parse_cuda_root(cuda_path), &vmaj, &vmin, &vbuild)) {
		ADD_ARG("-D__CUDACC_VER_MAJOR__=%d", vmaj);
		ADD_ARG("-D__CUDACC_VER_MINOR__=%d", vmin);
		ADD_ARG("-D__CUDACC_VER_BUILD__=%d", vbuild);
	}
	/* CUDA 13 keeps libcu++, CUB and Thrust (and what cooperative groups
	 * include from them) under include/cccl, which nvcc adds through its
	 * profile; clang's CUDA driver does not */
	char cccl[4096];
	snprintf(cccl, sizeof(cccl), "%s/include/cccl", kp_parse_cuda_root(cuda_path));
	struct stat st;
	if (stat(cccl, &st) == 0 && S_ISDIR(st.st_mode)) {
		ADD_ARG("-isystem");
		ADD_ARG("%s", cccl);
	}
#undef ADD_ARG
}

/* The compile_commands.json that holds `abs` (an absolute path): in
 * build_dir, or with `search` the first found upward from the file, in a
 * directory or its build/ subdirectory.  Returns the directory
 * (malloc'd), or NULL. */
static char *find_compdb(const char *abs, const char *build_dir, int search)
{
	if (build_dir)
		return kp_xstrdup(build_dir);
	if (!search)
		return NULL;
	char dirbuf[4096];
	snprintf(dirbuf, sizeof(dirbuf), "%s", abs);
	char *d = dirname(dirbuf);
	char probe[4200];
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/compile_commands.json", d);
		if (exists_file(probe))
			return kp_xstrdup(d);
		snprintf(probe, sizeof(probe), "%s/build/compile_commands.json", d);
		if (exists_file(probe)) {
			snprintf(probe, sizeof(probe), "%s/build", d);
			return kp_xstrdup(probe);
		}
		if (!strcmp(d, "/") || !*d)
			return NULL;
		d = dirname(d);
	}
}

int kp_compdb_lookup(const char *path, const char *build_dir, int search, kp_flags *out,
		     char **db_json)
{
	memset(out, 0, sizeof(*out));
	*db_json = NULL;
	char *abs = realpath(path, NULL);
	if (!abs)
		return -1;
	char *dir = find_compdb(abs, build_dir, search);
	if (!dir) {
		free(abs);
		return -1;
	}
	CXCompilationDatabase_Error err;
	CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &err);
	if (err != CXCompilationDatabase_NoError || !db) {
		free(abs);
		free(dir);
		return -1;
	}
	char *rdir = realpath(dir, NULL);
	kp_strbuf js = KP_STRBUF_INIT;
	kp_strbuf_addf(&js, "%s/compile_commands.json", rdir ? rdir : dir);
	*db_json = kp_strbuf_detach(&js);
	free(rdir);
	int rc = 0;
	CXCompileCommands cmds = clang_CompilationDatabase_getCompileCommands(db, abs);
	if (cmds && clang_CompileCommands_getSize(cmds) > 0) {
		CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, 0);
		CXString wd = clang_CompileCommand_getDirectory(cmd);
		unsigned n = clang_CompileCommand_getNumArgs(cmd);
		char **argv = kp_xcalloc((size_t)n + 1, sizeof(char *));
		int argc = 0;
		for (unsigned i = 1; i < n; i++) { /* argv[0] is the compiler */
			CXString a = clang_CompileCommand_getArg(cmd, i);
			const char *s = clang_getCString(a);
			argv[argc++] = kp_xstrdup(s ? s : "");
			clang_disposeString(a);
		}
		kp_nvcc_translate((const char *const *)argv, argc, clang_getCString(wd), 0, out);
		for (int i = 0; i < argc; i++)
			free(argv[i]);
		free(argv);
		clang_disposeString(wd);
		rc = 1;
	}
	if (cmds)
		clang_CompileCommands_dispose(cmds);
	clang_CompilationDatabase_dispose(db);
	free(dir);
	free(abs);
	return rc;
}

/* The flags of the file's database entry, for a caller that did not look
 * them up itself (kp_parse_opts.no_compdb unset). */
void kp_parse_compdb_args(const char *path, const char *build_dir, int search, kp_strbuf *store,
			  int *nstore)
{
	kp_flags fl;
	char *db = NULL;
	if (kp_compdb_lookup(path, build_dir, search, &fl, &db) > 0)
		for (int i = 0; i < fl.nkeep; i++) {
			kp_strbuf_adds(store, fl.keep[i]);
			kp_strbuf_addc(store, '\0');
			(*nstore)++;
		}
	kp_flags_release(&fl);
	free(db);
}

const char *kp_libclang_version(void)
{
	static char buf[256];
	if (!buf[0]) {
		CXString v = clang_getClangVersion();
		snprintf(buf, sizeof(buf), "%s", clang_getCString(v));
		clang_disposeString(v);
	}
	return buf;
}

/* clang's CUDA wrapper leaves out sm_32_intrinsics.h, so its cache-hint
 * loads and stores (__ldca, which kpipe's register-ca rewrites call, and
 * __ldcg, __ldcs, __ldlu, __ldcv, __stcg, __stcs, __stwb, __stwt, which
 * real kernels and their headers use) are undeclared when clang parses
 * such a file: a false "does not compile".  Declarations for parsing
 * only, force-included in every parse; nvcc uses CUDA's own.  Returns the
 * header's path (a static buffer), or NULL when it cannot be written. */
const char *kp_parse_hints_shim(void)
{
	static char path[4096];
	static int done;
	if (done)
		return path[0] ? path : NULL;
	done = 1;
	if (stub_file("kpipe_cache_hints_v2.h",
		      "/* kpipe: declares CUDA's cache-hint loads and stores for clang, whose\n"
		      " * CUDA wrapper does not include sm_32_intrinsics.h; used only when\n"
		      " * kpipe parses a file (nvcc has its own). */\n"
		      "#pragma once\n"
		      "#if defined(__clang__) && defined(__CUDA__) && !defined(__NVCC__)\n"
		      "template <typename T> __device__ T __ldca(const T *ptr);\n"
		      "template <typename T> __device__ T __ldcg(const T *ptr);\n"
		      "template <typename T> __device__ T __ldcs(const T *ptr);\n"
		      "template <typename T> __device__ T __ldlu(const T *ptr);\n"
		      "template <typename T> __device__ T __ldcv(const T *ptr);\n"
		      "template <typename T> __device__ void __stcg(T *ptr, T value);\n"
		      "template <typename T> __device__ void __stcs(T *ptr, T value);\n"
		      "template <typename T> __device__ void __stwb(T *ptr, T value);\n"
		      "template <typename T> __device__ void __stwt(T *ptr, T value);\n"
		      "#endif\n",
		      path, sizeof(path)) != 0)
		path[0] = '\0';
	return path[0] ? path : NULL;
}
