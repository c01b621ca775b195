/*
 * launch_scan.h - the launches of the file's kernels that are no <<<>>>
 * (cudaLaunchKernel, cudaLaunchKernelEx, cooperative launches, any other
 * mention of a kernel: its address taken), the dynamic shared memory each
 * launch passes, and the cudaFuncSetAttribute calls that raise a kernel's
 * dynamic shared-memory limit (model.h: kp_launch.api, dyn_smem;
 * kp_file.raises).  Used by parse_kernel.c only, after its <<<>>> scan.
 */
#ifndef KPIPE_LAUNCH_SCAN_H
#define KPIPE_LAUNCH_SCAN_H

#include <clang-c/Index.h>

#include "model.h"

/* Completes f->launches (the <<<>>> launches parse_kernel.c found) with the
 * others, fills every launch's dyn_smem, dyn_text and usr, and f->raises. */
void kp_scan_runtime_launches(CXTranslationUnit tu, CXFile main, kp_file *f);

#endif
