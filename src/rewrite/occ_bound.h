/*
 * occ_bound.h - `rewrite --keep-occupancy`: __launch_bounds__(THREADS,
 * MINBLOCKS) on the kernel of a pipelined loop whose rewrite loses
 * resident blocks per SM to registers (occ_bound.c, docs/tune.md).
 */
#ifndef KPIPE_OCC_BOUND_H
#define KPIPE_OCC_BOUND_H

#include "pass.h"

/* For loop l of c->f, pipelined with the edits `mine`: appends the bound's
 * edit to mine (named once per kernel) where it keeps the original's
 * blocks per SM without spilling, and a kpipe-keep-occupancy note at
 * (line, col) either way.  dyn: the bytes of dynamic shared memory the
 * rewrite moved the tiles to, 0 none.  c->o->keep_occupancy 1: MINBLOCKS
 * the original's blocks per SM (--keep-occupancy); 2: one more than the
 * rewrite reaches (--raise-occupancy).  Both capped by what the rewrite's
 * shared memory and threads allow.  Returns 1 when the bound was added. */
int kp_occ_bound(kp_pass_ctx *c, const struct kp_loop *l, kp_edits *mine, long long dyn, int line,
		 int col);

#endif
