/*
 * refill.h - a tile refilled after its K-loop (remainder blocks: after the
 * loop over whole tiles, the kernel copies one last, partial tile into the
 * same __shared__ array, waits at a barrier and computes once more).  With
 * several buffers the code after the loop uses stage 0 of the array
 * (transforms/render.c re-indexes it); that is the same result when it
 * reads nothing it did not write itself (refill.c, docs/design.md, "A tile
 * refilled after the loop").
 */
#ifndef KPIPE_REFILL_H
#define KPIPE_REFILL_H

#include "loop.h"

/* Whether every use of tile t after loop l of kernel k (none in a loop
 * around l) is a refill: in one block after the loop, outside any loop,
 * the first statements naming t store into it through the very subscripts
 * of each of the loop's copies into t (`As[ty][tx] = ...;`, statements of
 * that block, no condition of their own, the subscripts fixed from the
 * loop on), then a block barrier, then only reads of t by subscript.
 * Every element the loop writes is written again before any read, so the
 * stage the code after the loop sees does not matter.  l must end with its
 * closing barrier (KP_FORM_BOTTOM), its copies into t unconditional and
 * outside copy loops. */
int kp_tile_refilled_after(kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_tile *t);

/* Whether every variable of n keeps its value from loop l on (thread and
 * block indices, parameters, constants, locals no statement from the loop
 * on writes), the nlocal variables of local[] counted as fixed. */
int kp_fixed_from(const kp_kernel *k, const kp_loop *l, const kp_node *n,
		  const kp_decl *const *local, int nlocal);

/* Whether something in root writes d at or after source offset `from`
 * (an assignment, ++/--, or its address taken). */
int kp_writes_decl_from(kp_node *root, const kp_decl *d, unsigned from);

#endif
