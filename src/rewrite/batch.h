/*
 * batch.h - `kpipe rewrite` over many files (directories, several files,
 * or the files of a compilation database), with its own options
 * (kp_batch_opts, filled by the command layer), and the outputs of one
 * rewritten file (kp_rw_write), which single-file runs share.
 *
 * A batch walks and sorts the inputs, keeps one shard of them, then runs
 * each file in a child process (fork), at most -j at a time: a file that
 * crashes, hangs on an error or fails to parse never stops or corrupts the
 * others.  Children write their own outputs (atomically) and send their
 * result back as one JSON record; the parent prints the diagnostics in
 * file order and the summary at the end.
 */
#ifndef KPIPE_BATCH_H
#define KPIPE_BATCH_H

#include "compdb.h"
#include "rewrite.h"

#include <stddef.h>

/* Where a rewritten file goes (one of them, or none: --dry-run, reports). */
typedef struct {
	int diff;                  /* --diff: the unified diff into the result */
	int in_place;              /* -i */
	const char *backup_suffix; /* -i --backup-suffix */
	const char *out_dir;       /* --out-dir: the file's place under the root, mirrored */
} kp_rw_output;

/* A batch: its inputs, how each file is rewritten, where it goes, and what
 * is reported. */
typedef struct {
	kp_rw_opts rw;         /* how every file is rewritten (rw.arch: the target
				  unless a file's database entry names one) */
	const char *arch_name; /* the target as given */
	int arch_given;        /* --arch was given: it beats the database's */
	kp_rw_output out;
	int dry_run;
	int werror;         /* --Werror: exit 1 when a warning was printed */
	const char **files; /* files and directories; none with -p */
	int nfiles;
	const char **excludes; /* --exclude GLOB */
	int nexcludes;
	int shard_i, shard_n;     /* --shard I/N; shard_n 0: all */
	int jobs;                 /* -j N, 0: one per core */
	int timeout;              /* --timeout: seconds per file, 0 none */
	int no_pch;               /* parse every file from scratch */
	const char *format;       /* text, json or sarif */
	const char *export_fixes; /* --export-fixes FILE.yaml, or NULL */
	int verbose;
	int sarif_all; /* --sarif-all: notes and remarks in the SARIF log too */
} kp_batch_opts;

/* The outputs of one rewritten file, by the options: --diff into r->diff,
 * -i (and its backup), or --out-dir mirroring the file's place under
 * root.  path as printed, abs its real path, src/len the old text and
 * out/outlen the new.  A failed write becomes an error in r; returns 0 or
 * -1. */
int kp_rw_write(const kp_rw_output *o, kp_rw_result *r, const char *path, const char *abs,
		const char *src, size_t len, const char *out, size_t outlen, const char *root);

/* The outputs of a project header rewritten through a file (x->text, the
 * header's new text): its text on disk is read again for the diff and the
 * backup.  A read or write failure becomes an error in x; 0 or -1. */
int kp_rw_write_header(const kp_rw_output *o, kp_rw_result *x, const char *root);

/* The target of a file whose database flags are db: dflt when --arch was
 * given or the database names none, else the lowest real one it names (a
 * warning on stderr when kpipe's table lacks it).  Returns 1 when it is
 * the database's. */
int kp_db_target(const kp_arch *dflt, const char *dflt_name, int given, const char *file,
		 const kp_flags *db, const kp_arch **arch, const char **name);
/* Every target of the database's flags (sm_XX, compute_XX, lto_XX) that
 * kpipe's table knows, into t (emptied first); returns how many it did
 * not know (sm_35, or more than KP_MAX_TARGETS). */
int kp_db_targets(const kp_flags *db, kp_targets *t);
/* `kpipe: flags for FILE from DB: KEPT; dropped: DROPPED; targets: ...` on stderr. */
void kp_db_print_flags(const kp_arch *dflt, const char *dflt_name, int given, const char *file,
		       const char *db_json, const kp_flags *db);

/* The --format json report: {"files": [...], "summary": {...}}; seconds
 * and jobs are left out when jobs is 0. */
char *kp_batch_report_json(const kp_rw_result *const *r, int n, double seconds, int jobs);

/* Runs a batch: o->files are files and directories (or none, with
 * o->rw.build_dir).  Prints the diagnostics, the summary and the reports;
 * returns the exit code. */
int kp_batch_run(const kp_batch_opts *o);

/* The inputs a batch with o would run, as printed (directories walked,
 * the database's files with -p and no file, --exclude, sorted, each
 * once, --shard): *paths (n of them, caller frees each and the array),
 * and *root, the inputs' common directory (caller frees).  Returns
 * KP_EXIT_OK or KP_EXIT_INPUT (after printing why). */
int kp_batch_list(const kp_batch_opts *o, char ***paths, int *n, char **root);

#endif
