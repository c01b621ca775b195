/*
 * last_tile.h - a tile read after its K-loop without a refill refill.h
 * proves: under a condition (`if (rem > 0) { refill; sync; use; }`), by a
 * second loop over the same tiles, through other subscripts (a transposed
 * refill), or not at all (the last tile read as the loop left it).
 *
 * The pipelined loop leaves the last tile in the stage its last iteration
 * computed on, not in stage 0.  When every iteration's copies write the
 * same elements of the tile and nothing else in the loop writes it, that
 * stage holds, element for element, what the original's single buffer
 * holds after the loop (an element the loop never writes is never written
 * before it either: a use before the loop is kpipe-tile-escapes).  The
 * transforms then index every use of the tile after the loop with that
 * stage (`As[kp_last1][ty][tx]`, a variable of the kernel set to the
 * stage each iteration computes on and 0 before the loop), so all code
 * after the loop, refills and second loops included, sees what it saw
 * before, whatever path it takes (docs/design.md, "A tile read after the
 * loop").
 */
#ifndef KPIPE_LAST_TILE_H
#define KPIPE_LAST_TILE_H

#include "loop.h"

/* Whether tile t of loop l of kernel k may be read after the loop as the
 * last tile: l ends with its closing barrier (KP_FORM_BOTTOM) and nothing
 * after that barrier in the body names t; t is declared outside the loop,
 * static, without pointers into it; each of the loop's copies into t runs
 * under conditions fixed from the loop on (if any: an element outside them
 * is never written, in any stage), its target a full subscript chain whose subscripts are fixed
 * from the loop on (the counters of its copy loops aside), and each copy loop a for loop of its own
 * counter with a fixed first value, bound and step, a body that neither writes the counter nor
 * jumps out; every use of t after the loop is spelled in the source (not in a macro body). */
int kp_tile_last_after(const kp_kernel *k, const kp_loop *l, const kp_tile *t);

#endif
