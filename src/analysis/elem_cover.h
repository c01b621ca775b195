/*
 * elem_cover.h - the elements of a tile that a store before a K-loop may
 * write, against those every iteration of the loop writes through its
 * copies, enumerated thread by thread for a known block shape.
 *
 * A second K-loop over the tiles of a first one (earlier_use.h) is
 * double-buffered safely only when no store before it leaves an element
 * the loop does not write: that element would be in one buffer only.
 * When the earlier store is spelled like one of the loop's copies, the
 * sets are equal by construction.  When it is not (MAGMA's zlanhe: the
 * first loop stores `la[tx][ty+j]`, the second `la[ty+j][tx]`, and its
 * 32 x 4 block covers the 32 x 32 tile either way; a mirrored diagonal
 * block), the sets are compared here: every thread of the block, every
 * iteration of the copy loops around the store (the conditions around it
 * ignored: a superset), each subscript evaluated (constants, template
 * arguments of the instantiation, threadIdx, blockDim, the copy loops'
 * counters, locals that nothing changes after their initialiser), as a
 * flat offset into the array; and every element must be one the loop's
 * unconditional copies write for some thread in every iteration.  Any
 * name kpipe cannot evaluate, an index outside the array's bounds or an
 * unknown block shape refuses.
 */
#ifndef KPIPE_ELEM_COVER_H
#define KPIPE_ELEM_COVER_H

#include "analyze.h"
#include "loop.h"

/* The block shape element sets are proven for, kernel k's: --block, the
 * launch description, or every <<<>>> launch of k in the file with the
 * same constant block and no launch whose block kpipe does not read (a
 * runtime API launch, the address taken); for a __device__ function,
 * each calling kernel's (its launches in the .cu and its header models),
 * all the same, where a launch's block may also name the kernel's
 * template parameter that the kernel passes on to k's (`dim3
 * threads(DIM, DIM)` with `kern<T, DIM><<<grid, threads>>>` and
 * `k<T, DIM>(...)` in kern: DIM x DIM of instantiation iv).  Never a 1-D
 * shape guessed from a thread count.  0 with xyz and *from set, else -1. */
int kp_ec_block(kp_file *f, const kp_kernel *k, const kp_analyze_opts *o, const long long *iv,
		int xyz[3], const char **from);

/* NULL when every element the store whose target is `lhs` (a full
 * subscript chain of t) may write, inside the for loops loops[0..nloops)
 * (outermost first), for every thread of block xyz and instantiation iv,
 * is one that every iteration of l writes through its copies into t;
 * else why not (arena-owned). */
const char *kp_ec_store_covered(kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_tile *t,
				const long long *iv, const int xyz[3], const kp_node *lhs,
				const kp_node *const *loops, int nloops);

/* The copy loops' counters, shared with copy_box.c: for loop n's counter
 * (declared in its init, or assigned there) and its first value's
 * expression in *first, else NULL; whether n (stripped) names d; whether
 * body assigns, steps or takes the address of ctr. */
const kp_decl *kp_ec_counter_of(const kp_node *n, const kp_node **first);
int kp_ec_refers_to(const kp_node *n, const kp_decl *d);
int kp_ec_body_changes(kp_node *body, const kp_decl *ctr);

#endif
