/*
 * batch.h - `kpipe rewrite` over many files (directories, several files,
 * or the files of a compilation database), and the per-file result that
 * every output is made from: the diagnostics printed on stderr, the JSON
 * report, the clang-tidy fixes (fixes.h) and SARIF (sarif.h).
 *
 * A batch walks and sorts the inputs, keeps one shard of them, then runs
 * each file in a child process (fork), at most -j at a time: a file that
 * crashes, hangs on an error or fails to parse never stops or corrupts the
 * others.  Children write their own outputs (atomically) and send their
 * result back as one JSON record; the parent prints the diagnostics in
 * file order and the summary at the end.
 *
 * Ownership: a kp_rw_result owns every string and array in it;
 * kp_rw_result_release() frees them.
 */
#ifndef KPIPE_BATCH_H
#define KPIPE_BATCH_H

#include "cli.h"
#include "edit.h"

#include <stddef.h>

/* One diagnostic about a file: a refusal (kpipe-*), a pipelined loop
 * (kpipe-pipelined, with fixes), a compiler error (id NULL) or a failure
 * without a position (line 0). */
typedef struct {
	char *file;    /* the file it points into */
	int line, col; /* 1-based; 0 when there is no position */
	long off;      /* byte offset in the main file, -1 when unknown */
	char *level;   /* "error", "warning", "remark" or "note" */
	char *id;      /* "kpipe-smem-carried"; NULL for the compiler's own */
	char *message;
} kp_rw_diag;

/* One replacement of the rewrite, in input bytes: the edit list after
 * merging edits that touch (fixes.h), owned by one diagnostic. */
typedef struct {
	unsigned off, len;
	char *text;
	int diag; /* index of the kpipe-pipelined diagnostic it belongs to */
} kp_rw_fix;

/* Counts by name (variant, reason id), in first-seen order. */
typedef struct {
	char *name;
	int n;
} kp_count;
typedef struct {
	kp_count *v;
	int n;
} kp_counts;

void kp_counts_add(kp_counts *c, const char *name, int n);
void kp_counts_release(kp_counts *c);

typedef struct kp_rw_result {
	char *path;     /* as printed (the input, or --assume-filename) */
	char *abs_path; /* absolute path for fixes; NULL when unknown */
	char *output;   /* the file written, NULL when none */
	int status;     /* KP_EXIT_OK (pipelined), KP_EXIT_NOTHING, KP_EXIT_INPUT */
	int kernels, loops, pipelined, refused;
	kp_counts by_variant, by_reason;
	kp_rw_diag *diags;
	int ndiags;
	kp_rw_fix *fixes;
	int nfixes;
	char *diff;     /* --diff in a batch */
	double seconds; /* time spent on the file */
	/* Kernels in project headers (--header-filter): one result per header
	 * whose kernels this file's translation unit analysed.  A header's
	 * result names the file it was reached through, and holds its
	 * rewritten text when something was pipelined: whoever runs the
	 * file (cmd_rewrite.c, or the batch's parent, which lets the first
	 * file to reach a header own it) writes it. */
	struct kp_rw_result *headers;
	int nheaders;
	char *included_from;
	char *text;
	size_t textlen;
} kp_rw_result;

void kp_rw_result_release(kp_rw_result *r);
/* Adds a diagnostic; `file` NULL means r->path.  Returns its index. */
int kp_rw_diag_add(kp_rw_result *r, const char *file, int line, int col, long off,
		   const char *level, const char *id, const char *message);

/* Prints the diagnostics as `file:line:col: level: message [id]`, the
 * kpipe-pipelined notes only when verbose (as `note: pipelined with ...`). */
void kp_rw_print_diags(const kp_rw_result *r, int verbose, void *fp);

/* What kp_rewrite_buffer() rewrites: one file's text with the flags of its
 * batch (a compilation database's, a precompiled header), and where the
 * project headers whose kernels it rewrites too may lie. */
typedef struct {
	const char *path;     /* as printed and parsed */
	const char *contents; /* its text */
	size_t len;
	const char *const *extra_args; /* flags before the user's (the database's) */
	int nextra;
	int no_compdb;           /* do not look for compile_commands.json */
	const char *pch;         /* a precompiled header of the CUDA headers, or NULL */
	int headers;             /* rewrite kernels in project headers too (r->headers) */
	const char *header_root; /* without --header-filter: headers under this real
				    directory; NULL for the input's own */
} kp_rw_input;

/* cmd_rewrite.c: rewrites one buffer.  Fills r (diagnostics, counts,
 * fixes, and a result per project header with kernels) and *out (NULL when
 * nothing changed in the file itself).  Returns the file's exit code:
 * KP_EXIT_OK when a loop was pipelined in it or in one of its headers. */
int kp_rewrite_buffer(const kp_cli *o, const kp_rw_input *in, kp_rw_result *r, char **out,
		      size_t *outlen);

/* The outputs of one rewritten file, by the options: --diff into r->diff,
 * -i (and its backup), or --out-dir mirroring the file's place under
 * root.  path as printed, abs its real path, src/len the old text and
 * out/outlen the new.  A failed write becomes an error in r; returns 0 or
 * -1. */
int kp_rw_write(const kp_cli *o, kp_rw_result *r, const char *path, const char *abs,
		const char *src, size_t len, const char *out, size_t outlen, const char *root);

/* realpath(), or the path made absolute when the file does not exist. */
char *kp_batch_abs_path(const char *path);
/* The unified diff of one file, labelled a/PATH and b/PATH. */
char *kp_batch_diff(const char *path, const char *a, size_t alen, const char *b, size_t blen);
/* The --format json report: {"files": [...], "summary": {...}}; seconds
 * and jobs are left out when jobs is 0. */
char *kp_batch_report_json(const kp_rw_result *const *r, int n, double seconds, int jobs);

/* Runs a batch: o->files are files and directories (or none, with -p).
 * Returns the exit code. */
int kp_batch_run(const kp_cli *o);

/* The JSON object of one result (for --format json and the records the
 * children send back); kp_rw_result_from_json() reads it back. */
struct cJSON;
struct cJSON *kp_rw_result_to_json(const kp_rw_result *r, int internal);
int kp_rw_result_from_json(kp_rw_result *r, const struct cJSON *j);

#endif
