/*
 * gpu_run_int.h - what the parts of `kpipe validate`'s GPU steps share
 * inside src/gpu/ (gpu_run.c builds and runs, gpu_result.c fills the
 * result from the harness's events and compute-sanitizer's output,
 * gpu_judge.c turns it into step verdicts, gpu_report.c renders it): not
 * for other layers.  Include it after gpu_run.h; it includes no project
 * header itself, so the module graph keeps no cycle.
 */
#ifndef KPIPE_GPU_RUN_INT_H
#define KPIPE_GPU_RUN_INT_H

#ifndef KPIPE_GPU_RUN_H
#error "include gpu_run.h before gpu_run_int.h"
#endif

static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double dabs(double a) { return a < 0 ? -a : a; }

/* The (size, instantiation) cell, added when new and add is set; inst
 * NULL with one instantiation. */
kp_gpu_size *kp_gpu_find_size(kp_gpu_result *g, const char *name, const char *inst, int add);

/* "size 'small'", or with several instantiations "size 'small' of
 * instantiation <64>" (in g's arena). */
const char *kp_gpu_cell_label(kp_gpu_result *g, const char *size, const char *inst);

/* Step 3 gets the whole reason, steps 4 and 5 its head ("no CUDA device")
 * and a pointer to step 3. */
void kp_gpu_skip_steps(kp_validate_result *r, int sanitize, const char *head, const char *why);

/* A sanitizer status as the reports spell it ("pass", "FAIL", "not run" ...). */
const char *kp_gpu_san_status_name(kp_san_status s);

#endif
