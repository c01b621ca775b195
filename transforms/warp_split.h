/*
 * warp_split.h - whether every thread of a warp reaches a K-loop together
 * (warp_split.c): what a warp barrier the rewrite adds (register
 * staging's __syncwarp()) needs and the original did not.
 */
#ifndef KPIPE_WARP_SPLIT_H
#define KPIPE_WARP_SPLIT_H

#include "loop.h"

/* Why some threads of a warp may not reach loop l while others do (the
 * loop is under a condition kpipe does not prove block-uniform, after a
 * return, break, continue or goto, in a __device__ function whose callers
 * it cannot see, or its own condition may differ between threads), as
 * arena text; NULL when every thread reaches it.  The original's block
 * barriers rely only on exited threads not counting; a full-mask warp
 * barrier also needs every thread of the warp that has not exited. */
const char *kp_warp_may_split(kp_file *f, const kp_loop *l);

#endif
