/*
 * tune.h - the decision half of `kpipe tune`: reads the events of one
 * harness run that checked and timed the original and every candidate
 * variant side by side (gpu_run.h, kp_gpu_run_versions), and picks the
 * variant to write: the fastest one that compiled, passed the SASS check
 * and computed the original's numbers at every size, provided it beats the
 * original beyond the noise: a paired comparison round by round, with a
 * bootstrap interval on the speedup (kp_tune_compare); with several timed
 * cells - sizes (`tune --sizes`), and instantiations when the launch
 * description names several - on the geometric mean of the per-cell
 * speedups.  Otherwise the original is kept.
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

#include "validate_result.h"

#define KP_TUNE_MAX_ROUNDS 64
/* The most timed cells: sizes (`tune --sizes a,b,...`) times
 * instantiations (a launch description's "template_args" list). */
#define KP_TUNE_MAX_SIZES 16

/* One version's timing in one timed cell (an instantiation at a size). */
typedef struct {
	int rounds; /* "time" events at this size */
	double round_median[KP_TUNE_MAX_ROUNDS];
	double *samples; /* every timed launch, ms */
	int nsamples;
	double median_ms; /* of all samples; 0 when not timed */
	double spread_ms; /* max - min of the round medians (of the samples with one round) */
	int dropped;      /* the harness stopped timing it here after this many rounds
			     (slower than the original in each by more than
			     KP_TUNE_DROP_SLOWER_PCT); 0: timed every round */
} kp_tune_timing;

/* A variant slower than the original by more than this percentage in
 * each of its first two rounds at a size is timed no more there (the
 * harness's --drop-slower): it cannot be chosen, and timing it three more
 * rounds would only cost time.  tune never chooses a dropped variant. */
#define KP_TUNE_DROP_SLOWER_PCT 5.0

/* A version's launches per round are capped so that they take about this
 * long (the harness's --round-ms; at least 5 launches): a 15 ms kernel is
 * timed 7 times a round, not 21.  Such kernels vary by hundredths of a
 * percent from launch to launch; the paired rounds give the interval. */
#define KP_TUNE_ROUND_MS 100.0

/* What one harness run said about one version (the original or a variant). */
typedef struct {
	char *name;
	int sizes_checked;       /* "check" events (variants only) */
	int sizes_failed;        /* ... that were not ok */
	char *first_failure;     /* "size 'small': 3 mismatches, first C[17] ..." or NULL */
	char *error;             /* the first "error" event for it, or NULL */
	int sanitized;           /* "sanitize" events (one per compute-sanitizer tool) */
	char *sanitizer_failure; /* "racecheck: 8 errors" for the first failing tool, or NULL */
	/* t[k]: the timing in the run's timed cell k (kp_tune_run.sizes[k],
	 * insts[k]) */
	kp_tune_timing t[KP_TUNE_MAX_SIZES];
} kp_tune_version;

typedef struct {
	kp_tune_version *v;
	int n;
	char *device; /* "NVIDIA H200", or NULL */
	/* the timed cells, in the order of their first "time" event: cell k
	 * is instantiation insts[k] ("<64>", NULL when the harness ran one) at
	 * size sizes[k] ("target"; with `--sizes small,target` both; with two
	 * instantiations each size twice); time events of more cells than
	 * KP_TUNE_MAX_SIZES are ignored */
	char *sizes[KP_TUNE_MAX_SIZES];
	char *insts[KP_TUNE_MAX_SIZES];
	int nsizes;
	double work[KP_TUNE_MAX_SIZES]; /* flops or bytes of one launch in cell k */
	char *work_kind;                /* "flops", "bytes" or NULL */
	int baseline_sizes, baseline_failed;
	char *baseline_why; /* the original's own problem (unwritten or unstable output) */
	int done;           /* the harness printed "done" */
	/* wall seconds of the GPU runs' parts ("phase" events, summed over
	 * runs): building the harness and libraries, the harness run (checks
	 * and timing), compute-sanitizer */
	double build_s, run_s, sanitize_s;
} kp_tune_run;

/* Whether the harness stopped timing v in some cell (kp_tune_timing.dropped). */
int kp_tune_dropped(const kp_tune_run *run, const kp_tune_version *v);

/* Reads the harness's JSON lines (unknown lines are ignored).  The first
 * "--lib" is the reference and must be named "original". */
void kp_tune_absorb(kp_tune_run *run, const char *events);
void kp_tune_run_release(kp_tune_run *run);

/* The version by name, or NULL. */
const kp_tune_version *kp_tune_find(const kp_tune_run *run, const char *name);

/* Cell k as messages name it: "size 'target'", or "size 'target' of
 * instantiation <64>"; in buf, returned. */
const char *kp_tune_cell(const kp_tune_run *run, int k, char *buf, size_t sz);

/* The instantiations among the run's cells (0 when the harness ran one)
 * and its distinct sizes. */
int kp_tune_ninsts(const kp_tune_run *run);
int kp_tune_nsizes(const kp_tune_run *run);

/* Whether a variant qualifies: checked at one size at least, every check
 * ok, no error, no compute-sanitizer tool failed, timed in every timed
 * cell of the run.  why (may be NULL) gets the reason when not. */
int kp_tune_qualifies(const kp_tune_run *run, const kp_tune_version *v, char *why, size_t whysz);

/* A variant against the original, round by round: the rounds time every
 * version in turn, so round r of both ran under the same clocks and
 * temperature.  In each timed cell the speedup is the geometric mean of
 * the per-round ratios (original / variant); over several cells
 * (instantiations and sizes) the speedup is the geometric mean of the
 * per-cell speedups.  Its 95% interval is a bootstrap: each resample draws
 * every cell's rounds anew (with replacement, the cells independently) and
 * takes the geometric mean over the cells of the resampled per-cell
 * means; 2000 resamples, a fixed seed: the same events give the same
 * interval.  When a cell has fewer than KP_TUNE_MIN_PAIRED rounds of both
 * versions: in every cell the ratio of the medians of all launches and an
 * interval from the larger launch spread, both combined over the cells by
 * geometric mean. */
#define KP_TUNE_MIN_PAIRED 3
typedef struct {
	double speedup;      /* point estimate (the geometric mean over cells) */
	double lo, hi;       /* 95% interval */
	int paired;          /* rounds compared (the fewest of any cell; 0: the launch-spread
				fallback) */
	double disagreement; /* the larger of the two versions' max/min round median - 1,
				in any cell */
	double size_speedup[KP_TUNE_MAX_SIZES]; /* per timed cell */
	int nsizes;
} kp_tune_cmp;

/* Compares variant v with the original o (both timed) over the run's
 * timed cells. */
void kp_tune_compare(const kp_tune_run *run, const kp_tune_version *o, const kp_tune_version *v,
		     kp_tune_cmp *out);

/* The geometric mean of the n values (each > 0), 0 when n is 0. */
double kp_tune_geomean(const double *x, int n);

/* A version's rounds disagree when its slowest round median is more than
 * this much above its fastest: tune then runs more rounds (cmd_tune.c). */
#define KP_TUNE_DISAGREE 0.02

typedef struct {
	int winner;          /* index into the candidate names, -1: keep the original */
	double speedup;      /* the winner's (or, when kept, the best's) estimated speedup */
	double ci_lo, ci_hi; /* its 95% interval */
	double spread_ms;    /* the larger round spread of the original and that variant
				(at the first timed size) */
	int best;            /* the qualifying candidate with the highest estimate, -1: none */
	int more_rounds;     /* the decision rests on rounds that disagree (KP_TUNE_DISAGREE)
				and an interval that includes 1: more rounds may settle it */
	char reason[512];    /* one line: why this choice */
} kp_tune_choice;

/* Whether a variant that the static steps of validate judged (res, steps
 * 1 resources and 2 sass) is run and timed: when it compiled.  Step 1's
 * failure (no build, new spills, a resource error) excludes it; the SASS
 * verdict is evidence to show next to its time, not a gate (ptxas may
 * move the loads after most of the math and the variant still be faster:
 * tune measures).  note gets "resources PASSED, SASS overlap: PASSED"
 * or the failure. */
int kp_tune_runs_variant(const kp_validate_result *res, int static_rc, char *note, size_t notesz);

/* What ptxas said about the pipelined kernel before and after, from the
 * static steps of validate: the facts a model can use without a GPU
 * (docs/tune.md, "What ptxas predicts"). */
typedef struct {
	int known;            /* ptxas reported the kernel on both sides */
	int regs_o, regs_v;   /* registers per thread */
	int warps_o, warps_v; /* resident warps per SM (0: arch not in the table) */
	int smem_o, smem_v;   /* static shared memory per block, bytes */
	int spills_v;         /* spill stores + loads of the variant, bytes */
} kp_tune_features;

/* The features of the kernel res judged (kernel: the --kernel name, or
 * NULL for the first kernel whose code changed). */
void kp_tune_features_of(const kp_validate_result *res, const char *kernel, kp_tune_features *out);

/* Picks among the candidates (names[i], of those that compiled:
 * eligible[i] non-zero) using run: among the qualifying variants whose
 * interval lies above 1, the one with the highest estimate; none: the
 * original is kept (a gain inside the noise is a tie).  Returns 0, or -1
 * when the original itself was not measured (reason says why; winner -1). */
int kp_tune_decide(const kp_tune_run *run, const char *const *names, const int *eligible, int n,
		   kp_tune_choice *out);

#endif
