/*
 * own_launch.h - the launches kpipe makes itself for a kernel without a
 * launch description (docs/verify.md, "Launches"), written as one
 * (docs/launch-spec.md) so the verifier runs it as any other: the block
 * shape from the file's launches, __launch_bounds__ or --threads (banks.h,
 * kp_bk_block_of); a 2 x 2 grid; every integer parameter set to the same
 * value V, V in {0, 16, 48, 64, 112} (0 to 3.5 tiles of 32 and a ragged
 * edge, more tiles of 16 or 8); every pointer parameter a buffer of
 * 8 (V + 64)^2 elements (read-only when it points to const, else compared);
 * float parameters 1.5.  Pure: model in, text out.
 */
#ifndef KPIPE_VERIFY_OWN_LAUNCH_H
#define KPIPE_VERIFY_OWN_LAUNCH_H

#include "analyze.h"

/* The description for kernel k of f (a JSON text, caller frees), or NULL
 * with *why (caller frees) when kpipe cannot launch it: no block shape, a
 * parameter of a type it cannot fill, no pointer it writes through. */
char *kp_own_launch_spec(kp_file *f, const kp_kernel *k, const kp_analyze_opts *ao, char **why);

#endif
