/*
 * ncu.h - Nsight Compute for `kpipe validate --profile` and `kpipe tune
 * --profile`: the one table of metrics kpipe asks ncu for (shared-memory
 * bank conflicts, DRAM throughput, achieved occupancy, the main warp-stall
 * reasons, duration), the parser of ncu's `--csv --page raw` report of one
 * launch, and the profile record the reports render side by side for the
 * original and the rewritten (or chosen) kernel, with the bandwidth a
 * memory-bound kernel reaches against a copy kernel over the same bytes.
 *
 * Pure: nothing here runs ncu (gpu_run.c does) or prints; the parser is
 * unit-tested on captured text (tests/unit/test_ncu.c).
 *
 * Ownership: strings in a kp_ncu_profile live in the arena given to the
 * functions that fill it (the kp_gpu_result's).
 */
#ifndef KPIPE_NCU_H
#define KPIPE_NCU_H

#include <stddef.h>

#include "util.h"

typedef enum {
	KP_NCU_BANK_LD,
	KP_NCU_BANK_ST,
	KP_NCU_DRAM_PCT,
	KP_NCU_OCCUPANCY,
	KP_NCU_STALL_LONG_SB,
	KP_NCU_STALL_BARRIER,
	KP_NCU_STALL_MIO,
	KP_NCU_DURATION,
	KP_NCU_NMETRICS
} kp_ncu_metric_id;

typedef struct {
	const char *key;    /* the JSON report's name: "bank_conflicts_ld" */
	const char *metric; /* ncu's metric name */
	const char *label;  /* the text report's row */
	const char *unit;   /* what the value is after parsing: "", "%", "ns", "cycles" */
} kp_ncu_metric;

/* The metrics, indexed by kp_ncu_metric_id.  A name ncu does not know is
 * dropped from the run (and reported), so a wrong one costs one row. */
extern const kp_ncu_metric kp_ncu_metrics[KP_NCU_NMETRICS];

/* One launch's values. */
typedef struct {
	int have[KP_NCU_NMETRICS]; /* 0: not asked, unknown to ncu or "n/a" */
	double value[KP_NCU_NMETRICS];
	const char *kernel; /* ncu's "Kernel Name" column, or NULL */
} kp_ncu_values;

typedef enum {
	KP_NCU_OK,         /* a row was read (some values may be missing) */
	KP_NCU_NOPERM,     /* ERR_NVGPUCTRPERM: no access to the performance counters */
	KP_NCU_BAD_METRIC, /* ncu does not know a metric: *bad names it */
	KP_NCU_NO_KERNEL,  /* ncu ran but profiled no kernel */
	KP_NCU_NO_REPORT,  /* no CSV report in the text (msg: ncu's first error line) */
} kp_ncu_status;

/* Parses the text ncu printed (stdout and stderr together, the program's
 * own lines mixed in) for `--csv --page raw`: the header row of column
 * names (starting with "ID"), the units row, then one row per profiled
 * launch, of which the first is read.  Quoted fields, "" escapes, numbers
 * with thousands separators, "n/a" (absent) and time units (converted to
 * ns) are handled.  On KP_NCU_BAD_METRIC *bad is the index of the metric
 * ncu refused; msg (msgsz bytes) gets ncu's error line for the others. */
kp_ncu_status kp_ncu_parse(const char *text, kp_ncu_values *out, int *bad, kp_arena *a, char *msg,
			   size_t msgsz);

/* The --metrics argument for the metrics with use[i] set. */
char *kp_ncu_metric_list(const int use[KP_NCU_NMETRICS]);

/* The profile of two versions ([0] the original, [1] the rewritten or chosen
 * one) as the reports show it. */
typedef struct {
	int requested;        /* --profile was given */
	const char *skip;     /* why nothing was profiled, or NULL */
	const char *ncu;      /* the ncu that ran, or NULL */
	const char *size;     /* the size profiled (one launch each) */
	const char *names[2]; /* the versions' names */
	int ran[2];           /* a row was read for the version */
	const char *error[2]; /* why not, or NULL */
	kp_ncu_values v[2];   /* the values */
	const char *dropped;  /* metrics ncu does not know, comma-separated, or NULL */
	/* the copy yardstick (memory-bound kernels) */
	const char *copy_skip; /* why there is no comparison, or NULL */
	double copy_bytes, copy_ms;
	double ms[2]; /* the versions' median times at the size, 0 if unknown */
} kp_ncu_profile;

/* The fraction of the copy kernel's bandwidth version v reaches
 * (copy_ms / ms[v]), or a negative number when unknown. */
double kp_ncu_copy_fraction(const kp_ncu_profile *p, int v);

/* The text block (indented by two spaces) and the JSON object (a cJSON *
 * as void *, keeping cJSON out of this header). */
void kp_ncu_render_text(kp_strbuf *sb, const kp_ncu_profile *p);
void *kp_ncu_render_json(const kp_ncu_profile *p);

#endif
