/*
 * validate_result.h - what `kpipe validate` records: the five steps with
 * their verdicts, the findings, and the per-kernel comparison, in one
 * kp_validate_result that validate.c (steps 1 and 2) and gpu_run.c (steps
 * 3 to 5) both fill, and the exit code it gives.  Below both of them, so
 * that neither includes the other: validate.c renders and releases the
 * whole result, gpu_run.c only adds to it.
 *
 * Ownership: a kp_validate_result owns everything reachable from it until
 * kp_validate_result_release() (validate.h).  Nothing here prints.
 */
#ifndef KPIPE_VALIDATE_RESULT_H
#define KPIPE_VALIDATE_RESULT_H

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

typedef struct kp_gpu_result kp_gpu_result; /* gpu_run.h */
typedef struct kp_validate_result kp_validate_result;

/* How the GPU steps' result is shown and freed: the GPU layer (gpu_run.c),
 * which sits above validate.c, attaches these with its result, so that
 * validate.c renders and releases the whole result without knowing it. */
typedef struct {
	void (*render_text)(kp_strbuf *sb, const kp_validate_result *r, int step);
	void *(*render_json)(const kp_validate_result *r); /* a cJSON object */
	void (*release)(kp_gpu_result *g);
} kp_gpu_hooks;

struct kp_validate_result {
	kp_arena arena;
	const char *original, *rewritten, *arch;
	const kp_arch *target; /* table entry for arch, or NULL */
	int threads;
	const char *disassembler; /* tool used for step 2, or NULL */
	const char *compile_log;  /* nvcc's output when a compile failed, or NULL */
	kp_step steps[5];         /* [0] resources, [1] sass, [2..4] the GPU steps */
	kp_gpu_result *gpu;       /* NULL until kp_validate_gpu() ran: steps 3-5 not attempted */
	const kp_gpu_hooks *gpu_hooks; /* set with gpu */
	kp_validate_kernel *kernels;
	int nkernels;
	kp_finding *findings;
	int nfindings, fcap;
};

/* Records a finding (errors fail their step when the step is judged), and
 * sets a step's status and one-line reason. */
void kp_validate_finding(kp_validate_result *r, kp_find_level level, int step, const char *kernel,
			 const char *fmt, ...) KP_PRINTF(5, 6);
void kp_validate_set_step(kp_step *s, kp_step_status st, const char *fmt, ...) KP_PRINTF(3, 4);

/* The first error finding of a step, or NULL. */
const kp_finding *kp_validate_first_error(const kp_validate_result *r, int step);

/* 0 every step passed, 4 a step failed, 6 a step was skipped (failure wins
 * over skip).  Steps skipped as not requested do not count, nor do steps
 * 3-5 when kp_validate_gpu() was not run on the result. */
int kp_validate_exit_code(const kp_validate_result *r);

#endif
