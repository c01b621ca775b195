/*
 * compdb.h - compiler arguments for the parser: the translation of an nvcc
 * (or gcc/clang) command line into the clang flags kpipe parses with, and
 * the files of a compilation database with their translated flags, for
 * `kpipe rewrite -p DIR` over many files.
 *
 * kp_nvcc_translate() is the one place that decides which flags are kept:
 * parse_args.c calls it for a single file's entry (kp_compdb_lookup), this
 * file for every entry (kp_compdb_load), cli.c for kpipe's own arguments
 * after `--`.  It reads response files (@F, --options-file F, -optf F) but
 * calls no libclang; kp_compdb_load() does, through the
 * CXCompilationDatabase API.
 *
 * Ownership: a kp_flags owns its lists and strings until
 * kp_flags_release(); kp_compdb_load() fills a malloc'd array released
 * with kp_compdb_release().
 */
#ifndef KPIPE_COMPDB_H
#define KPIPE_COMPDB_H

/* What a command line comes to. */
typedef struct {
	char **keep; /* clang arguments, in order */
	int nkeep;
	char **dropped; /* what was left out, as written ("-x cu", "-o k.o",
			   "@a.rsp (cannot read: No such file or directory)") */
	int ndropped;
	char **archs; /* every target named (sm_80, compute_90, sm_90a), once, in order */
	int narchs;
	char *arch; /* the target to analyse for: the lowest real sm_XX named
		       (its shared-memory budget binds), suffix kept, else the
		       lowest virtual compute_XX as sm_XX; NULL when none */
} kp_flags;

/* Response files nest at most this deep. */
#define KP_RSP_DEPTH 8

/*
 * Translates argv[0..argc) (the arguments, without the compiler's name):
 * response files expanded (@F, --options-file F, --options-file=F,
 * -optf F, relative to `dir`, shell-like quoting); -I, -isystem, -iquote,
 * -idirafter, -include, -D, -U, -std= in clang's spelling whatever the
 * nvcc spelling (--include-path, --system-include, --pre-include,
 * --define-macro, --undefine-macro, --std, joined, separate or with =),
 * relative paths made absolute against `dir` (-include only when the file
 * is there); -rdc=true, -dc and their long forms as -fgpu-rdc; the target
 * architectures (-arch, -code, -gencode, --gpu-architecture,
 * --generate-code, --cuda-gpu-arch, --offload-arch) recorded, not kept;
 * every other option dropped with its separate argument when it takes one.
 *
 * `user`: kpipe's own arguments (after --): options that are not nvcc's
 * (-W..., -f..., -Xclang X) pass through instead of being dropped, and
 * `dir` may be NULL (paths stay as given).  A positional argument is
 * dropped in both modes.  Fills *out (zeroed first). */
void kp_nvcc_translate(const char *const *argv, int argc, const char *dir, int user, kp_flags *out);
void kp_flags_release(kp_flags *f);
/* The strings joined with single spaces, "(none)" when n is 0 (malloc'd). */
char *kp_flags_join(char *const *v, int n);

typedef struct {
	char *file;     /* absolute path */
	kp_flags flags; /* its command, translated */
} kp_compdb_entry;

/* Every entry of DIR/compile_commands.json whose file ends in .cu or
 * .cuh, first entry per file.  Returns 0, or -1 with *err set (malloc'd)
 * when the database cannot be read. */
int kp_compdb_load(const char *build_dir, kp_compdb_entry **out, int *n, char **err);
void kp_compdb_release(kp_compdb_entry *v, int n);

#endif
