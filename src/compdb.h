/*
 * compdb.h - the files of a compilation database and the flags kpipe keeps
 * for each (-I, -D, -U, -std=, -isystem, -include; relative -I made
 * absolute against the entry's directory), for `kpipe rewrite -p DIR`
 * over many files.  parse.c reads the same flags for a single file; this
 * lists every entry at once, through libclang's CXCompilationDatabase API.
 *
 * Ownership: kp_compdb_load() fills a malloc'd array released with
 * kp_compdb_release().
 */
#ifndef KPIPE_COMPDB_H
#define KPIPE_COMPDB_H

typedef struct {
	char *file;  /* absolute path */
	char **args; /* the flags kpipe keeps, in order */
	int nargs;
} kp_compdb_entry;

/* Every entry of DIR/compile_commands.json whose file ends in .cu or
 * .cuh, first entry per file.  Returns 0, or -1 with *err set (malloc'd)
 * when the database cannot be read. */
int kp_compdb_load(const char *build_dir, kp_compdb_entry **out, int *n, char **err);
void kp_compdb_release(kp_compdb_entry *v, int n);

#endif
