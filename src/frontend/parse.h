/*
 * parse.h - the parsing layer: turns a CUDA source file into a kp_file
 * (model.h) using the libclang C API (parse.c and the parse_*.c files it
 * is split into; parse_int.h says which holds what).  With the rest of
 * src/frontend/ it is the only code that calls clang_*; it also owns the
 * compilation-database lookup for a single file (the flags are translated
 * by compdb.c) and the CUDA 13 / libclang header workaround.
 */
#ifndef KPIPE_PARSE_H
#define KPIPE_PARSE_H

#include "compdb.h"
#include "model.h"

/* One file's text in place of the file on disk (a path that exists). */
typedef struct {
	const char *path;
	const char *text;
	size_t len;
} kp_unsaved;

typedef struct {
	const char *arch;        /* "sm_90" */
	const char *cuda_path;   /* --cuda-path, or NULL to let clang find it */
	const char *const *args; /* extra compiler arguments (after --, -I, -D) */
	int nargs;
	const char *build_dir; /* -p: directory holding compile_commands.json */
	int no_compdb;         /* do not search compile_commands.json upward
				  (callers that looked the flags up with
				  kp_compdb_lookup pass them in args) */
	const char *contents;  /* unsaved contents (stdin), or NULL */
	size_t contents_len;
	int diags_only; /* fill only f->src and the diagnostics (a check
			   that some text compiles): no kernels,
			   declarations or names */
	/* kernels in project headers (f->headers): with headers set, every
	 * header that defines a kernel and is not a system header gets a model
	 * when header_filter (a POSIX extended regex, searched in the header's
	 * real path) matches it, or, header_filter NULL, when it lies under
	 * header_root (a real path); header_filter "" means none */
	int headers;
	const char *header_filter;
	const char *header_root;
	/* files whose text is given instead of read from disk (the re-parse
	 * of rewritten headers), each matched to a header by its real path */
	const kp_unsaved *unsaved;
	int nunsaved;
	/* handed to every kp_file made (kp_file.auto_probe), not used here */
	const struct kp_auto_probe *auto_probe;
} kp_parse_opts;

enum { KP_PARSE_OK = 0, KP_PARSE_IO = -1, KP_PARSE_FAILED = -2, KP_PARSE_ERRORS = -3 };

/* Parses `path`; on KP_PARSE_ERRORS the file is filled and f->diags hold
 * the compiler's errors.  Always call kp_file_release() afterwards. */
int kp_parse(kp_file *f, const char *path, const kp_parse_opts *o, char **errmsg);

/* A key of what a parse of `path` with o reads, FNV-1a (kp_fnv1a64) on
 * from h: the libclang version and every argument as kp_parse() passes
 * them (kp_pch_args_key), diags_only,
 * and each text given or read (the file's, from o->contents or disk, and
 * o->unsaved's), with its path.  The files the text includes are not in
 * it: the caller adds them (kp_file.deps_hash).  0 when the file cannot
 * be read.  The re-parse guard's cache key (rewrite.c). */
unsigned long long kp_parse_key(const char *path, const kp_parse_opts *o, unsigned long long h);

/* The clang arguments every parse shares (the file's and the batch's
 * precompiled header must match): CUDA device side for the target as
 * kp_parse_arch() maps it, --cuda-path, C++17, the CUDA 13 header stand-in
 * and the toolkit's include/cccl.  Appended NUL-separated to store, *nstore
 * counting them. */
void kp_clang_base_args(const char *arch, const char *cuda_path, kp_strbuf *store, int *nstore);
/* Appends one argument (printf-style) to such a store. */
void kp_clang_arg(kp_strbuf *store, int *nstore, const char *fmt, ...) KP_PRINTF(3, 4);

/* Writes the precompiled CUDA header `pch_path` (pch.h) for parses with
 * these settings: kp_clang_base_args(), then args.  `main_path` is an
 * empty .cu file to build it from; it must stay until the header is no
 * longer used.  Returns 0, or -1 with *err set (malloc'd). */
int kp_parse_build_pch(const char *arch, const char *cuda_path, const char *const *args, int nargs,
		       const char *main_path, const char *pch_path, char **err);

/* The target libclang parses for: `arch` itself, or for a target newer
 * than this libclang knows (sm_100, sm_120 with libclang 19), the newest
 * it does; device code parses the same, only __CUDA_ARCH__ differs.  The
 * budget and the rest of the analysis keep the requested target. */
const char *kp_parse_arch(const char *arch);

/* The flags of `path`'s entry in a compilation database, translated by
 * kp_nvcc_translate(): build_dir's compile_commands.json, or with `search`
 * the first found upward from the file (DIR/ or DIR/build/).  Returns 1
 * with *out filled, 0 when the database has no entry for the file (*out
 * empty), -1 when there is none or it cannot be read.  *db_json gets the
 * database's path (malloc'd) unless -1.  Release *out either way. */
int kp_compdb_lookup(const char *path, const char *build_dir, int search, kp_flags *out,
		     char **db_json);

/* "Debian clang version 19.1.7 ..." (static storage). */
const char *kp_libclang_version(void);

#endif
