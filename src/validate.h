/*
 * validate.h - the static half of `kpipe validate`: compile the original
 * and the rewritten file, compare what ptxas reports per kernel (registers,
 * shared memory, spills, occupancy, warnings), then read the SASS of both
 * and judge the rewritten main loop (loads overlap math, same math per
 * iteration, no new local-memory traffic).
 *
 * Step 1 is "resources", step 2 "sass"; the GPU steps (3 gpu-run,
 * 4 benchmark, 5 sanitizer) are run by gpu_run.c into the same result.
 * Tool paths come from the caller (cmd_validate.c fills them from
 * kp_cuda_env).
 *
 * Ownership: a kp_validate_result owns everything reachable from it until
 * kp_validate_result_release().  Nothing here prints or exits; the
 * renderers return heap strings the caller frees.
 */
#ifndef KPIPE_VALIDATE_H
#define KPIPE_VALIDATE_H

#include "arch.h"
#include "resources.h"
#include "sass.h"
#include "util.h"

typedef enum { KP_STEP_PASSED, KP_STEP_FAILED, KP_STEP_SKIPPED } kp_step_status;

/* "PASSED", "FAILED", "SKIPPED". */
const char *kp_step_status_name(kp_step_status s);

typedef struct {
	const char *name; /* "resources", "sass", "gpu-run", "benchmark", "sanitizer" */
	kp_step_status status;
	int not_requested; /* SKIPPED because the options left it out: not counted */
	char reason[512];  /* one line; the first failure, or why it was skipped */
} kp_step;

typedef enum { KP_FIND_NOTE, KP_FIND_WARNING, KP_FIND_ERROR } kp_find_level;

/* One observation; errors fail their step, warnings and notes do not. */
typedef struct {
	kp_find_level level;
	int step;           /* 1 resources, 2 sass, 3 gpu-run, 4 benchmark, 5 sanitizer */
	const char *kernel; /* the kernel's label, or NULL for the whole file */
	const char *message;
} kp_finding;

typedef struct {
	int present;       /* ptxas reported this kernel for the file */
	kp_kernel_res res; /* strings owned by the result's arena */
	kp_occupancy occ;  /* zero when the arch is not in the table */
	int has_sass;      /* the function was found in the disassembly */
	kp_sass_loop loop;
} kp_kernel_side;

typedef struct {
	const char *name;      /* mangled */
	const char *demangled; /* or NULL */
	const char *label;     /* short name for messages: "scale<128>" */
	kp_kernel_side orig, rew;
	int unchanged;       /* same SASS before and after: not judged */
	const char *excerpt; /* annotated main loop of the rewritten kernel */
	const char *verdict; /* "PASS", "FAIL", "unchanged", "not judged" */
} kp_validate_kernel;

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
	const char *cxxfilt; /* NULL: cu++filt beside nvcc, else c++filt */
	int excerpt_lines;   /* 0: 40 */
} kp_validate_opts;

typedef struct kp_gpu_result kp_gpu_result; /* gpu_run.h */

typedef struct {
	kp_arena arena;
	const char *original, *rewritten, *arch;
	const kp_arch *target; /* table entry for arch, or NULL */
	int threads;
	const char *disassembler; /* tool used for step 2, or NULL */
	const char *compile_log;  /* nvcc's output when a compile failed, or NULL */
	kp_step steps[5];         /* [0] resources, [1] sass, [2..4] the GPU steps */
	kp_gpu_result *gpu;       /* NULL until kp_validate_gpu() ran: steps 3-5 not attempted */
	kp_validate_kernel *kernels;
	int nkernels;
	kp_finding *findings;
	int nfindings, fcap;
} kp_validate_result;

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

/* 0 every step passed, 4 a step failed, 6 a step was skipped (failure wins
 * over skip).  Steps skipped as not requested do not count, nor do steps
 * 3-5 when kp_validate_gpu() was not run on the result. */
int kp_validate_exit_code(const kp_validate_result *r);

/* The reason printed for steps 3-5 when only the static steps were run. */
#define KP_VALIDATE_GPU_SKIP "GPU steps not run (static steps only)"

/* Records a finding (errors fail their step when the step is judged), and
 * sets a step's status and one-line reason. */
void kp_validate_finding(kp_validate_result *r, kp_find_level level, int step, const char *kernel,
			 const char *fmt, ...) KP_PRINTF(5, 6);
void kp_validate_set_step(kp_step *s, kp_step_status st, const char *fmt, ...) KP_PRINTF(3, 4);

/* Human-readable report and JSON (cJSON, pretty-printed); caller frees. */
char *kp_validate_render_text(const kp_validate_result *r);
char *kp_validate_render_json(const kp_validate_result *r);

/* The `kpipe validate` command (cmd_validate.c); argv[0] is "validate".
 * Returns the process exit code. */
int cmd_validate(int argc, char **argv);

/* Everything `kpipe validate` does after its option parsing, for another
 * command (`kpipe rewrite --validate`): finds the tools and the launch
 * description, runs steps 1-5, prints the report on stdout (problems on
 * stderr) and returns the exit code of docs/validate.md. */
typedef struct {
	const char *original, *rewritten; /* the two files compared */
	const char *original_name; /* shown in place of original, and whose NAME.launch.json is
				      the default spec; NULL: original */
	const char *spec;          /* --spec, or NULL */
	const char *kernel;        /* --kernel, or NULL */
	const char *arch;          /* NULL: sm_90 */
	const char *cuda_path;     /* --cuda-path, or NULL */
	const char *format;        /* "text" (NULL) or "json" */
	const char *sizes;         /* --sizes list, or NULL: every size of the spec */
	const char *gpu_dir;       /* --gpu-dir, or NULL */
	int threads;               /* 0: the spec's block, else 256 */
	int sanitize;              /* --sanitize */
	const char *const *nvcc_args; /* -I, -D, after "--" */
	int nnvcc_args;
} kp_validate_request;

int kp_validate_files(const kp_validate_request *rq);

#endif
