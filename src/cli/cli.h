/*
 * cli.h - the command layer's shared pieces: exit codes, the options the
 * commands have in common, their parser (the compiler arguments
 * translated by compdb.h), a file's compile setup (its
 * compile_commands.json entry and target), the launch-description lookup
 * and diagnostic printing.  Only the command layer (main.c, cmd_*.c,
 * batch.c, cli.c) prints or exits.
 */
#ifndef KPIPE_CLI_H
#define KPIPE_CLI_H

#include "analyze.h"
#include "batch.h"
#include "parse.h"

#include <stdio.h>

typedef struct {
	const char **files;
	int nfiles;
	const char *arch_name;
	const kp_arch *arch;
	int arch_given;     /* --arch, or a target among the compiler arguments:
			       a database's target does not replace it */
	kp_targets targets; /* --arch A,B,C or the compiler arguments' targets
			       (arch: the oldest); n < 2: arch alone */
	const char *kernel;
	const char *format; /* text, json; sarif for rewrite */
	const char *cuda_path;
	const char *build_dir;
	const char *output;  /* -o */
	const char *variant; /* "auto" or a registered transform's name (transform.h) */
	const char *assume_filename;
	const char *backup_suffix;
	const char *spec; /* launch description */
	int stages;
	int threads;
	int block[3];        /* --block X[,Y[,Z]] (bank analysis), 0: not given */
	int pad;             /* rewrite --pad 1 (pad, then pipeline), --pad-only 2 */
	int swizzle;         /* rewrite --swizzle (with --pad or --pad-only) */
	int no_pad;          /* rewrite --no-pad: --variant auto pads nothing */
	int keep_occupancy;  /* rewrite --keep-occupancy (occ_bound.c) */
	int raise_occupancy; /* rewrite --raise-occupancy */
	int block_swizzle;   /* rewrite --block-swizzle[=G]: G, 0 not given */
	int in_place;
	int diff;
	int dry_run;
	int werror; /* --Werror: exit 1 when a warning was printed (rewrite) */
	int verbose;
	const char **cargs; /* compiler arguments (-I, -D, -U, --extra-arg, after --),
			       translated: they point into cflags */
	int ncargs;
	kp_flags cflags; /* the translation (owned) */
	/* rewrite over many files (batch.h) and its reports */
	const char *out_dir;   /* --out-dir: mirrored tree of the rewritten files */
	int jobs;              /* -j N, 0 = one per core */
	int timeout;           /* --timeout SECONDS per file, -1 not given (600) */
	const char **excludes; /* --exclude GLOB (repeatable) */
	int nexcludes;
	int shard_i, shard_n;     /* --shard I/N; shard_n 0 = all files */
	const char *export_fixes; /* --export-fixes FILE.yaml */
	int no_pch;               /* --no-pch: parse every file from scratch */
	/* validation of what was written (rewrite --validate, tune) */
	int validate; /* --validate */
	int sanitize; /* 1 --sanitize, -1 --no-sanitize, 0 neither: validate's step 5 runs unless -1
		       */
	const char *sizes;   /* --sizes a,b: the launch description's sizes to run */
	const char *gpu_dir; /* --gpu-dir DIR: keep the GPU harness there */
	int profile;         /* tune --profile: Nsight Compute on the original and the choice */
	/* kernels in project headers (analyze, rewrite): --header-filter REGEX
	 * (POSIX extended, searched in each header's real path; "" none),
	 * NULL for the default, headers under the input's directory tree */
	const char *header_filter;
	int no_ptxas;             /* --no-ptxas: auto decides from the source alone (no nvcc run) */
	int no_comment;           /* rewrite --no-comment: no explanatory comments in the code */
	int no_verify;            /* rewrite --no-verify: no CPU verification (docs/verify.md) */
	int require_verify;       /* rewrite --require-verify: refuse what cannot be verified */
	const char *format_style; /* rewrite --format-style (rw_opts.h) */
	int sarif_all;            /* rewrite --sarif-all: pipelined loops as SARIF notes too */
} kp_cli;

/* Parses argv[1..] (argv[0] is the command); flags a command does not take
 * are rejected by `allowed` (a list of long option names). Returns 0, or
 * KP_EXIT_USAGE after printing the problem. */
int kp_cli_parse(kp_cli *o, int argc, char **argv, const char *cmd, const char *const *allowed);
/* For the shell completions (hidden options of main.c): the variant names
 * --variant takes, one a line; and the options of `allowed` (a command's
 * list, -I, -D and -U included where it takes them) as lines of NAME, ALIAS
 * (or -), VALUE and SUMMARY separated by tabs, then --help.  VALUE is -
 * for a flag, else file, dir, json (a .json file), text (nothing to
 * offer) or {a b c} (the choices), with "..." after it when the option
 * may be repeated.  Returns -1 when `allowed` names an unknown option. */
void kp_cli_list_variants(FILE *fp);
int kp_cli_list_options(FILE *fp, const char *cmd, const char *const *allowed);
void kp_cli_release(kp_cli *o);

/* A file's compile setup: its compile_commands.json entry and its target. */
typedef struct {
	kp_flags db;           /* the entry's flags, translated; empty without one */
	char *db_json;         /* the compile_commands.json used, NULL when none */
	const kp_arch *arch;   /* the target: --arch, else the database's, else o's default */
	const char *arch_name; /* as nvcc takes it ("sm_90a") */
	int arch_from_db;      /* the target is the database's */
	kp_targets targets;    /* every target: the database's, else o's */
} kp_file_setup;

/* Looks `path` up in o->build_dir's database or, with `search`, the first
 * found upward from it (kp_compdb_lookup), and picks the target; with -v
 * prints on stderr which database was used and the flags kept and
 * dropped.  Release with kp_file_setup_release(). */
void kp_cli_file_setup(const kp_cli *o, const char *path, int search, kp_file_setup *fs);
void kp_file_setup_release(kp_file_setup *fs);
/* The target for a file whose database flags are db: o's when --arch was
 * given or the database names none, else the lowest the database names
 * (a warning when kpipe's table lacks it).  Returns 1 when it is the
 * database's. */
int kp_cli_db_target(const kp_cli *o, const char *file, const kp_flags *db, const kp_arch **arch,
		     const char **name);
/* `kpipe: flags for FILE from DB: KEPT; dropped: DROPPED; targets: ...` on stderr. */
void kp_cli_print_flags(const kp_cli *o, const char *file, const char *db_json, const kp_flags *db);
/* The parser's arguments for a file: the database's, then o->cargs (a
 * heap array; the strings belong to fs and o). */
const char **kp_cli_file_args(const kp_cli *o, const kp_file_setup *fs, int *n);

/* The rewrite driver's options (rewrite.h) and a batch's (batch.h), from
 * the command line; the strings and arrays stay o's. */
void kp_cli_rw_opts(const kp_cli *o, kp_rw_opts *rw);
/* A fresh ptxas budget (probe.h) for the process's probe, if made: tune
 * asks it before each variant's rewrite. */
void kp_cli_probe_new_budget(void);
void kp_cli_batch_opts(const kp_cli *o, kp_batch_opts *b);

/* Parse options for a file, with its launch description if one sits
 * beside it (NAME.launch.json) or was given with --spec. */
void kp_cli_parse_opts(const kp_cli *o, kp_parse_opts *po);
void kp_cli_analyze_opts(const kp_cli *o, const char *file, kp_analyze_opts *ao,
			 char **spec_kernel);

/* The -I/-D/-U flags among the parser's arguments (o->cargs), for nvcc,
 * after `first` when it is not NULL.  Returns a heap array (the strings
 * are not copied: they belong to o and first); *n gets its length. */
const char **kp_cli_nvcc_flags(const kp_cli *o, const char *first, int *n);

/* Prints libclang's diagnostics for the file; returns the error count. */
int kp_cli_print_parse_diags(const kp_file *f, int warnings_too);
/* The errors kp_parse ignored because they lie outside every kernel
 * (f->outside_errors), as warnings on stderr; returns how many. */
int kp_cli_print_ignored_errors(const kp_file *f);

#endif
