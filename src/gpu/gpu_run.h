/*
 * gpu_run.h - steps 3 to 5 of `kpipe validate`, the ones that need a GPU:
 * build the harness (bench/harness/bench_main.cu, embedded in kpipe, plus
 * the sources gpu_gen.c writes from the launch description) and a shared
 * library per version with nvcc, run the original and the rewritten kernel
 * on the same inputs and compare every element (step 3, gpu-run), time both
 * at the `target` size (step 4, benchmark), and run compute-sanitizer on
 * the rewritten kernel at the `small` size (step 5, sanitizer).
 *
 * A launch description that names several instantiations has each one
 * run, checked, timed and sanitized; the results are kept per
 * (instantiation, size).
 *
 * Without a CUDA device the steps are SKIPPED with the reason.  The harness
 * speaks JSON lines (events: device, attrs, begin, baseline, check, time,
 * error, fatal, single, done; decoded by events.c);
 * kp_gpu_absorb_events() reads them and
 * kp_gpu_judge() turns them into step verdicts, both without running
 * anything, so they are unit-tested on captured text.
 *
 * Ownership: a kp_gpu_result belongs to the kp_validate_result it was
 * attached to (r->gpu) and is freed by kp_validate_result_release(); all of
 * its strings live in its arena.  Nothing here prints.
 */
#ifndef KPIPE_GPU_RUN_H
#define KPIPE_GPU_RUN_H

#include "gpu_gen.h"
#include "ncu.h"
#include "util.h"
#include "validate_result.h"

enum { KP_STEP_GPU_RUN = 3, KP_STEP_BENCHMARK = 4, KP_STEP_SANITIZER = 5 };

/* The harness's names for the two versions. */
#define KP_GPU_ORIGINAL "original"
#define KP_GPU_REWRITTEN "rewritten"

typedef enum {
	KP_SAN_NOT_RUN,
	KP_SAN_PASS,
	KP_SAN_FAIL,  /* the tool reported errors */
	KP_SAN_ERROR, /* the run did not finish normally */
	KP_SAN_TIMEOUT,
	KP_SAN_UNSUPPORTED, /* the tool does not support this device or kernel */
} kp_san_status;

typedef struct {
	const char *tool; /* memcheck, racecheck, synccheck, initcheck */
	kp_san_status status;
	int errors, warnings;
	int exit_status; /* of compute-sanitizer; -1 when it did not start */
	double seconds;
	const char *excerpt; /* the tool's report lines when not clean, or NULL */
} kp_gpu_sanitizer;

/* The original's two runs at one size (poisons 0xFF and 0x7F). */
typedef struct {
	int have, ok;
	long elements, unwritten, nondeterministic;
} kp_gpu_baseline;

/* The rewritten kernel against the original at one size. */
typedef struct {
	int have, ok;
	long elements, mismatches, unwritten, differ, clobbered;
	double max_abs, max_rel; /* INFINITY for NaN or never-written elements */
	const char *first;       /* "C[17] = 0.51, expected 0.52", or NULL */
} kp_gpu_check;

typedef struct {
	const char *name; /* the size's name in the spec */
	const char *inst; /* the instantiation ("<64>") when the spec names several, else NULL */
	const long *vals; /* the spec's values for its symbols, or NULL */
	kp_gpu_baseline base;
	kp_gpu_check check;
} kp_gpu_size;

typedef struct {
	int have, reps, warmup;
	double median_ms, min_ms, max_ms, mean_ms;
	double work; /* flops or bytes of one launch, 0 when the spec has none */
} kp_gpu_time;

typedef struct {
	int have, regs, smem_static, local_bytes, max_threads, blocks_per_sm, threads;
} kp_gpu_attrs;

typedef struct {
	const char *version, *size, *stage, *msg; /* an "error" or "fatal" event */
	const char *inst;                         /* its instantiation, or NULL */
	int fatal;
} kp_gpu_error;

typedef struct kp_gpu_result {
	kp_arena arena;
	const char *spec_path; /* launch description used, or NULL */
	const char *kernel;    /* "matmul_tiled<32, 32, 32>"; with several instantiations the
				  name alone ("matmul_ktile") */
	/* the instantiations run: ninsts > 1 when the spec names several
	 * (insts[i] "<64>"); else 1, insts[0] NULL */
	const char *insts[KP_LAUNCH_MAX_INSTS];
	int ninsts;
	const char *dir;       /* the build directory when kept (--gpu-dir), else NULL */
	const char *no_device; /* why no device was used, or NULL */
	const char *work_kind; /* "flops", "bytes" or "" */
	const char *timed_size;
	const char *sanitize_size;
	const char *build_log; /* the first lines of a failed nvcc, or NULL */
	double tol_abs, tol_rel;
	/* the device event */
	int have_device;
	const char *device_name, *device_cc;
	int device_sms, device_clock_mhz, driver, runtime;
	kp_gpu_size *sizes; /* requested, in run order (each size once per instantiation) */
	int nsizes, scap;
	const char **symbols; /* the spec's size symbols */
	int nsymbols;
	/* per instantiation i (0 with one): [i][0] original, [i][1] rewritten */
	kp_gpu_time time[KP_LAUNCH_MAX_INSTS][2];
	kp_gpu_attrs attrs[KP_LAUNCH_MAX_INSTS][2];
	kp_gpu_error *errors;
	int nerrors, ecap;
	const char *last_begin_version, *last_begin_size, *last_begin_inst;
	int harness_ran;         /* the harness was started */
	int harness_rc;          /* its exit status */
	int timed_out;           /* it was killed after the time limit */
	int run_timeout_s;       /* the limit */
	int done;                /* it printed "done" */
	const char *harness_err; /* the last lines of its stderr, or NULL */
	kp_gpu_sanitizer san[4];
	int nsan;
	const char *san_skip; /* why step 5 could not run, or NULL */
	int sanitize_timeout_s;
	kp_ncu_profile profile; /* --profile */
} kp_gpu_result;

typedef struct {
	const kp_launch_spec *spec; /* NULL: steps skipped with spec_missing */
	const char *spec_missing;   /* "no launch description (x.launch.json not found; ...)" */
	const char *original, *rewritten;
	const char *arch; /* "sm_90" */
	const char *const *nvcc_args;
	int nnvcc_args;
	const char *nvcc;         /* required */
	const char *cuda_root;    /* for -rpath and compute-sanitizer; may be NULL */
	const char *sanitizer;    /* compute-sanitizer; NULL: looked for beside nvcc, then $PATH */
	const char *const *sizes; /* requested sizes (names in the spec); NULL: all */
	int nsizes;
	const char *const *time_sizes; /* kp_gpu_run_versions: the sizes timed; NULL: target */
	int ntime_sizes;
	int sanitize;       /* run step 5 */
	const char *kernel; /* --kernel: steps are skipped when it is not the spec's kernel */
	const char *dir;    /* build here and keep it; also builds and runs without a device */
	int reps, warmup;   /* 0: 21 and 3 */
	int run_timeout_s, sanitize_timeout_s; /* 0: 300 each */
	int profile;            /* --profile: ncu on both versions, copy kernel timed */
	const char *ncu;        /* NULL: looked for beside nvcc, in the toolkit, then $PATH */
	const char *cache_dir;  /* kp_gpu_run_versions: NULL, or where the harness and
				   the libraries are kept by content (build_cache.h) */
	double drop_slower_pct; /* kp_gpu_run_versions: > 0: a variant slower than v[0]
				   by more than this percentage in each of the first
				   two rounds at a size is timed no more there (a
				   "dropped" event) */
	double round_ms;        /* kp_gpu_run_versions: > 0: fewer launches per round
				   (at least 5) where `reps` of v[0] take longer
				   than this (the harness's --round-ms) */
} kp_gpu_opts;

/* Runs steps 3-5 for a result of kp_validate_static() and records them in
 * r->steps[2..4], r->gpu and r->findings.  Returns 0, or -1 when no
 * temporary directory could be made (the steps say so). */
int kp_validate_gpu(kp_validate_result *r, const kp_gpu_opts *o);

/* Whether a CUDA device is usable: loads the driver (libcuda.so.1) and asks
 * for the device count.  Returns 1, or 0 with why set to a short reason. */
int kp_gpu_probe(char *why, size_t whysz);

/* Reads the harness's stdout into g (appends; unknown lines are ignored).
 * Sizes not in g->sizes are added. */
void kp_gpu_absorb_events(kp_gpu_result *g, const char *text);

/* Parses a compute-sanitizer report (stdout and stderr) of one --single run
 * of the harness: exit status rc, timed_out.  Fills status, errors,
 * warnings and the excerpt (in g's arena). */
void kp_gpu_parse_sanitizer(kp_gpu_result *g, kp_gpu_sanitizer *s, const char *text, int rc,
			    int timed_out);

/* Sets steps 3-5 of r from r->gpu (events absorbed, sanitizers parsed).
 * sanitize: step 5 was asked for. */
void kp_gpu_judge(kp_validate_result *r, int sanitize);

kp_gpu_result *kp_gpu_result_new(void);
void kp_gpu_result_free(kp_gpu_result *g);
/* A new, empty GPU result attached to r with the hooks that render and
 * free it (validate_result.h); returns it. */
kp_gpu_result *kp_gpu_attach(kp_validate_result *r);

/* Appended to the text report under the step's header line, and the
 * "gpu" object of the JSON report (a cJSON *, as void * to keep cJSON out
 * of this header). */
void kp_gpu_render_text(kp_strbuf *sb, const kp_validate_result *r, int step);
void *kp_gpu_render_json(const kp_validate_result *r);

/* One version of a kernel for kp_gpu_run_versions(). */
typedef struct {
	const char *name; /* the harness's name for it: "original", "cp-async-s3" */
	const char *path; /* its source file */
} kp_gpu_version;

/* `kpipe tune`'s run: builds the harness and one library per version
 * (v[0] is the reference the others are compared with) using o's spec,
 * arch, nvcc, nvcc_args, cuda_root, sizes (NULL: all), dir (NULL: a
 * temporary directory, removed), reps, warmup and run_timeout_s; runs
 * every size once and times at each of time_sizes (NULL: 'target')
 * `rounds` times in turn; with
 * o->sanitize, then runs compute-sanitizer memcheck, racecheck and
 * synccheck on one launch of every variant (v[1..n-1]) at 'small' and adds
 * a "sanitize" event per variant and tool to *events.  The events end with
 * {"event":"phase","phase":"build"|"run"|"sanitize","seconds":S} lines: the
 * wall time of each part.  Returns
 * 0 with the harness's JSON-lines events in *events, or -1 with *err
 * saying why (no device and no dir, a build failure with nvcc's lines, the
 * harness failing; *events may still hold what it printed).  Both are
 * heap strings the caller frees. */
/* Why tune needs no sanitizer run of variant `name`, from the harness's
 * events: it gave wrong results or failed at a size, or was stopped early
 * as clearly slower (tune never chooses either).  NULL: it could be chosen
 * and is sanitized.  The string is static. */
const char *kp_gpu_not_a_candidate(const char *events, const char *name);

int kp_gpu_run_versions(const kp_gpu_opts *o, const kp_gpu_version *v, int n, int rounds,
			char **events, char **err);

/* `kpipe tune --profile`: builds v[0] (the original) and v[1] (the chosen
 * variant) with o's spec, arch, nvcc, nvcc_args and cuda_root in a
 * temporary directory, times both at 'target' beside a copy kernel over the
 * same bytes, and runs ncu on one launch of each.  Returns a result whose
 * profile member holds the outcome (skip says why nothing was profiled:
 * no device, no ncu, no permission, a failed build); free it with
 * kp_gpu_result_free(). */
kp_gpu_result *kp_gpu_profile_pair(const kp_gpu_opts *o, const kp_gpu_version *v);

/* The host program, embedded at build time from bench/harness/bench_main.cu. */
const char *kp_gpu_harness_source(void);

#endif
