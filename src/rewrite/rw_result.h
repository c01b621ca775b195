/*
 * rw_result.h - the result of rewriting one file, which every output of
 * `kpipe rewrite` is made from: the diagnostics printed on stderr, the
 * counts of the summary, the replacements of --export-fixes (fixes.h) and
 * SARIF (sarif.h), the JSON report, and for a project header rewritten
 * through the file, a result of its own with the new text.
 *
 * Ownership: a kp_rw_result owns every string and array in it;
 * kp_rw_result_release() frees them.
 */
#ifndef KPIPE_RW_RESULT_H
#define KPIPE_RW_RESULT_H

#include "util.h"

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
	int suppressed; /* "// kpipe: ignore ID" in the source (kp_rw_ignored) */
} kp_rw_diag;

/* One replacement of the rewrite, in input bytes: the edit list after
 * merging edits that touch (fixes.h), owned by one diagnostic. */
typedef struct {
	unsigned off, len;
	char *text;
	int diag; /* index of the kpipe-pipelined diagnostic it belongs to */
} kp_rw_fix;

/* The verdict on one loop the pipeline pass saw (--format json's
 * "verdicts"): where it is (the input's line and column), the analysis's
 * eligibility, whether it was pipelined and with what, and the ids of its
 * refusals (the analysis's reasons, or the plan's refusal of an eligible
 * loop, or the file's refusal when a pipelined loop's rewrite was undone);
 * the same facts `analyze --format json` gives per loop, from the run that
 * writes the rewrite. */
typedef struct {
	char *kernel;
	int line, col;
	int eligible, pipelined;
	char *variant; /* NULL unless pipelined */
	char **ids;
	int nids;
} kp_rw_verdict;

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
	int left_alone; /* of the refused loops, those refused with remarks only
			 * (not K-loops, pipelined already): a batch counts them
			 * apart (not in the JSON report) */
	kp_counts by_variant, by_reason;
	kp_rw_diag *diags;
	int ndiags;
	kp_rw_fix *fixes;
	int nfixes;
	kp_rw_verdict *verdicts;
	int nverdicts;
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

/* Frees n fixes and their texts. */
void kp_fixes_free(kp_rw_fix *v, int n);
void kp_rw_result_release(kp_rw_result *r);
/* 1 when a comment "// kpipe: ignore" on the line of src that holds byte
 * `off`, or on the line before, suppresses diagnostic `id`: followed by no
 * id, it suppresses all; else by the ids it lists (separated by spaces or
 * commas; what follows the first word that is not a kpipe-* id is a
 * reason).  Reads those two lines only. */
int kp_rw_ignored(const char *src, size_t len, size_t off, const char *id);

/* Adds a diagnostic; `file` NULL means r->path.  Returns its index. */
int kp_rw_diag_add(kp_rw_result *r, const char *file, int line, int col, long off,
		   const char *level, const char *id, const char *message);

/* Adds the verdict on one loop, its ids those of diags[d0..ndiags) that
 * are refusals (an id, not a note).  Returns its index. */
int kp_rw_verdict_add(kp_rw_result *r, const char *kernel, int line, int col, int eligible,
		      const char *variant, int d0);
/* A verdict's refusal id, added once. */
void kp_rw_verdict_add_id(kp_rw_verdict *v, const char *id);
/* Every pipelined loop's verdict turned into a refusal `id` (the file's
 * rewrite was undone). */
void kp_rw_verdicts_undo(kp_rw_result *r, const char *id);

/* Prints the diagnostics as `file:line:col: level: message [id]`, the
 * kpipe-pipelined notes only when verbose (as `note: pipelined with ...`). */
void kp_rw_print_diags(const kp_rw_result *r, int verbose, void *fp);

/* realpath(), or the path made absolute when the file does not exist. */
char *kp_rw_abs_path(const char *path);
/* The absolute path with its existing part resolved (realpath) and the
 * rest read as it stands ("." dropped, ".." removing a component): the
 * path of a file or directory that may not exist yet. */
char *kp_rw_resolve_path(const char *path);
/* The path a diff names the file by, as `git diff` would: relative to the
 * root of the git work tree holding it, else to the working directory,
 * else the path as given less its leading "./" and "/". */
char *kp_rw_diff_path(const char *path);
/* The unified diff of one file, labelled a/P and b/P, P its
 * kp_rw_diff_path(). */
char *kp_rw_diff(const char *path, const char *a, size_t alen, const char *b, size_t blen);

/* The JSON object of one result (for --format json and the records the
 * children send back); kp_rw_result_from_json() reads it back. */
struct cJSON;
struct cJSON *kp_rw_result_to_json(const kp_rw_result *r, int internal);
/* {name: n, ...} of counts, in their order. */
struct cJSON *kp_counts_json(const kp_counts *c);
int kp_rw_result_from_json(kp_rw_result *r, const struct cJSON *j);

#endif
