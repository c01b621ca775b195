/*
 * tune.h - the decision half of `kpipe tune`: reads the events of one
 * harness run that checked and timed the original and every candidate
 * variant side by side (gpu_run.h, kp_gpu_run_versions), and picks the
 * variant to write: the fastest one that compiled, passed the SASS check
 * and computed the original's numbers at every size, provided it beats the
 * original by more than the measured run-to-run spread.  Otherwise the
 * original is kept.
 *
 * Pure: no files, no processes, nothing printed; the command (cmd_tune.c)
 * builds the candidates, runs the tools and prints.  So the rules are
 * unit-tested on captured event text (tests/unit/test_tune.c).
 *
 * Ownership: a kp_tune_run owns its versions and every string in them until
 * kp_tune_run_release().
 */
#ifndef KPIPE_TUNE_H
#define KPIPE_TUNE_H

#include <stddef.h>

#define KP_TUNE_MAX_ROUNDS 64

/* What one harness run said about one version (the original or a variant). */
typedef struct {
	char *name;
	int sizes_checked;       /* "check" events (variants only) */
	int sizes_failed;        /* ... that were not ok */
	char *first_failure;     /* "size 'small': 3 mismatches, first C[17] ..." or NULL */
	char *error;             /* the first "error" event for it, or NULL */
	int sanitized;           /* "sanitize" events (one per compute-sanitizer tool) */
	char *sanitizer_failure; /* "racecheck: 8 errors" for the first failing tool, or NULL */
	int rounds;              /* "time" events at the timed size */
	double round_median[KP_TUNE_MAX_ROUNDS];
	double *samples; /* every timed launch, ms */
	int nsamples;
	double median_ms; /* of all samples; 0 when not timed */
	double spread_ms; /* max - min of the round medians (of the samples with one round) */
} kp_tune_version;

typedef struct {
	kp_tune_version *v;
	int n;
	char *device;     /* "NVIDIA H200", or NULL */
	char *timed_size; /* "target" */
	double work;      /* flops or bytes of one launch at the timed size */
	char *work_kind;  /* "flops", "bytes" or NULL */
	int baseline_sizes, baseline_failed;
	char *baseline_why; /* the original's own problem (unwritten or unstable output) */
	int done;           /* the harness printed "done" */
} kp_tune_run;

/* Reads the harness's JSON lines (unknown lines are ignored).  The first
 * "--lib" is the reference and must be named "original". */
void kp_tune_absorb(kp_tune_run *run, const char *events);
void kp_tune_run_release(kp_tune_run *run);

/* The version by name, or NULL. */
const kp_tune_version *kp_tune_find(const kp_tune_run *run, const char *name);

/* Whether a variant qualifies: checked at one size at least, every check
 * ok, no error, no compute-sanitizer tool failed, timed.  why (may be
 * NULL) gets the reason when not. */
int kp_tune_qualifies(const kp_tune_version *v, char *why, size_t whysz);

typedef struct {
	int winner;       /* index into the candidate names, -1: keep the original */
	double speedup;   /* original median / winner median (or best's, when kept) */
	double spread_ms; /* the spread the gain was compared with */
	int best;         /* fastest qualifying candidate, -1 when none */
	char reason[512]; /* one line: why this choice */
} kp_tune_choice;

/* Picks among the candidates (names[i], of those that passed the static
 * steps: eligible[i] non-zero) using run.  Returns 0, or -1 when the
 * original itself was not measured (reason says why; winner -1). */
int kp_tune_decide(const kp_tune_run *run, const char *const *names, const int *eligible, int n,
		   kp_tune_choice *out);

#endif
