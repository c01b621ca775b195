/*
 * guard_cover.h - guarded copies without an else whose guard changes from
 * tile to tile, where the compute reads only what the guard wrote
 * (`if (tid < TILE && base + tid < N) xs[tid] = x[base + tid];` read by
 * `for (j = 0; j < min(TILE, N - base); ++j) acc += xs[j] * ...`).  The
 * elements the guard leaves out keep an older tile (the previous one in
 * the original, the one before it with two buffers), which is the same
 * result only where the compute never reads them: guard_cover.c proves
 * that the range read is inside the range written (docs/design.md,
 * "Guarded copies without else").
 */
#ifndef KPIPE_GUARD_COVER_H
#define KPIPE_GUARD_COVER_H

#include "loop.h"

/* Whether an expression of the guard may change from tile to tile: the
 * analysis's own test (rules/partial_tile_write.c), handed in with its
 * context. */
typedef int (*kp_varies_fn)(void *ctx, const kp_node *n);

/* Whether every element of ld's tile that loop l reads outside its load
 * phase satisfies each conjunct of cond (a condition ld runs under) that
 * `varies` finds changing: such a conjunct must be an upper bound on one
 * subscript x of the copy's target (`a + x < b`, `x <= b - a`, ...), its
 * other terms the same for every thread of the block (parameters, the
 * loop's counter, block indices, invariant locals computed from them);
 * and every read of the tile must index that dimension by the counter j
 * of an enclosing for loop of the compute whose condition bounds j by the
 * same expression (`j < b - a`, `j < min(T, b - a)`, a conjunct of
 * `&&`), counted from no less than the guard.  The subscripts of the
 * copy's target must not change from tile to tile (`varies`), so the
 * thread that writes an element is the same in every iteration.  The
 * tile must be named
 * only by subscripts there.  Conjuncts that do not change are left to the
 * caller's rules. */
int kp_guard_covers_reads(kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_load *ld,
			  const kp_node *cond, kp_varies_fn varies, void *ctx);

#endif
