/*
 * earlier_use.h - a loaded tile named before its K-loop (a first K-loop over
 * the same tiles, a refill between the two, the other branch of an `if`)
 * that is still safe to double-buffer for this loop.
 *
 * The pipelined loop writes stage 0 in its prologue, before the loop, and
 * the other stages during it.  That is the original's single buffer only
 * where (1) no earlier read of the tile is still pending when the prologue
 * writes: every path from a statement that names the tile to the loop
 * crosses a __syncthreads() (uses in the other branch of an `if` around
 * the loop are on no such path; the loop sits in no other loop), and (2)
 * no earlier store leaves in the tile an element the loop's compute could
 * read without the loop writing it first: every store into the tile on a
 * path to the loop is one of the loop's own copies, spelled the same (the
 * same target and the same copy loops, their other names fixed in the
 * kernel) or, for the block shape, writing only elements the loop's
 * copies write (elem_cover.h), so the elements it writes are among those
 * every iteration writes (the loop's copies write the same elements every
 * time, last_tile.h), and an element outside them is written on no path
 * to the loop, in either design.  Every earlier use is spelled in the source, so
 * the transforms can index it with the stage that holds the original's
 * buffer (docs/design.md, "A second K-loop over the same tiles").
 */
#ifndef KPIPE_EARLIER_USE_H
#define KPIPE_EARLIER_USE_H

#include "analyze.h"
#include "loop.h"

/* Whether tile t of loop l (of kernel k) is named before l: a DECLREF of
 * it earlier in the kernel, outside l. */
int kp_tile_named_before(const kp_kernel *k, const kp_loop *l, const kp_tile *t);

/* NULL when every use of t before l is safe as above; else why not, and
 * *at the use or store it is about.  A store spelled unlike the loop's
 * copies is safe when, for instantiation iv (NULL: symbolic) and the
 * block shape o and the file give (elem_cover.h), every element it may
 * write is one every iteration of l writes. */
const char *kp_tile_earlier_problem(kp_file *f, const kp_kernel *k, const kp_loop *l,
				    const kp_tile *t, const long long *iv, const kp_analyze_opts *o,
				    const kp_node **at);

#endif
