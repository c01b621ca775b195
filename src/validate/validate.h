/*
 * validate.h - the static half of `kpipe validate`: compile the original
 * and the rewritten file, compare what ptxas reports per kernel (registers,
 * shared memory, spills, occupancy, warnings), then read the SASS of both
 * and judge the rewritten main loop (loads overlap math, same math per
 * iteration, no new local-memory traffic).
 *
 * Step 1 is "resources", step 2 "sass"; the GPU steps (3 gpu-run,
 * 4 benchmark, 5 sanitizer) are run by gpu_run.c into the same result,
 * whose types are in validate_result.h (below both).
 * Tool paths come from the caller (cmd_validate.c fills them from
 * kp_cuda_env).
 *
 * Ownership: a kp_validate_result owns everything reachable from it until
 * kp_validate_result_release().  Nothing here prints or exits; the
 * renderers return heap strings the caller frees.
 */
#ifndef KPIPE_VALIDATE_H
#define KPIPE_VALIDATE_H

#include "validate_result.h"

typedef struct {
	const char *original, *rewritten; /* paths, as given */
	const char *arch;                 /* nvcc target, e.g. "sm_90" */
	int threads;                      /* threads per block for occupancy */
	const char *kernel;               /* name filter, NULL for every kernel */
	const char *const *nvcc_args;     /* -I, -D and anything after "--" */
	int nnvcc_args;
	const char *nvcc;      /* required */
	const char *cuobjdump; /* either may be NULL; cuobjdump first */
	const char *nvdisasm;
	const char *cxxfilt;   /* NULL: cu++filt beside nvcc, else c++filt */
	int excerpt_lines;     /* 0: 40 */
	const char *cache_dir; /* NULL, or where compilations are kept by content
				  (build_cache.h): tune's variants share one original */
} kp_validate_opts;

enum {
	KP_VALIDATE_OK = 0,
	KP_VALIDATE_ENOTOOL = -1, /* nvcc could not be run */
	KP_VALIDATE_ETEMP = -2,   /* no temporary directory */
};

/* Runs steps 1 and 2.  Returns KP_VALIDATE_OK when the steps ran (each may
 * have passed, failed or been skipped: see out->steps), or a negative
 * KP_VALIDATE_E* code with out->steps[0].reason saying why.  Always release
 * out afterwards. */
int kp_validate_static(kp_validate_result *out, const kp_validate_opts *o);

void kp_validate_result_release(kp_validate_result *r);

/* Compiles o->original into o->cache_dir as kp_validate_static() would, so
 * that the runs after it (tune's parallel checks of each variant) find it
 * there instead of compiling it once each.  Returns KP_VALIDATE_OK, or
 * KP_VALIDATE_ENOTOOL / KP_VALIDATE_ETEMP (nothing cached: each run then
 * compiles and reports for itself). */
int kp_validate_warm_cache(const kp_validate_opts *o);

/* The reason printed for steps 3-5 when only the static steps were run. */
#define KP_VALIDATE_GPU_SKIP "GPU steps not run (static steps only)"

/* Human-readable report and JSON (cJSON, pretty-printed); caller frees. */
char *kp_validate_render_text(const kp_validate_result *r);
char *kp_validate_render_json(const kp_validate_result *r);

#endif
