/*
 * shared_table.h - a __shared__ table the load phase reads but the K-loop
 * never writes (cuda-convnet2's `pxIdxes`: pixel offsets the block computes
 * before the loop, between barriers, and the tile copies index through).
 * Its elements are the same in every iteration, so the next tile's loads
 * may read it early (shared_table.c).
 */
#ifndef KPIPE_SHARED_TABLE_H
#define KPIPE_SHARED_TABLE_H

#include "loop.h"

/* Whether d is a static __shared__ array declared in k's body (not
 * extern, not a carve-out, not a tile the loop loads) that nothing in
 * loop l writes: every use of d in the kernel is a whole element
 * `d[i]..[j]` (as many subscripts as dimensions), never its address, a
 * pointer to it or a reference, never an argument of a call, never asm;
 * and no such element is a store's target, a ++/--'s operand or an
 * argument inside l. */
int kp_shared_table_fixed(const kp_kernel *k, const kp_loop *l, const kp_decl *d);

#endif
