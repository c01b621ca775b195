/*
 * scratch_def.h - the value a C89 scratch variable holds at a statement of
 * a K-loop's body (`int i, j;` before the loop, `i = ibx + tx + tile*NX;`
 * at the top of a phase, `if (i < m)` below it): the expression of its one
 * reaching assignment, so that a condition written with the variable can
 * be read as the expression it stands for (guard_cover.c).
 */
#ifndef KPIPE_SCRATCH_DEF_H
#define KPIPE_SCRATCH_DEF_H

#include "loop.h"

/* The right-hand side of the assignment `d = e;` that reaches statement
 * stmt of l's body (an index into l->stmts), or NULL.  d must be private
 * to each phase (kp_var_phase_private); the assignment must be a statement
 * of the body in the same phase as stmt (the statements before the load
 * phase, the load phase, or those after it), before it, with no statement
 * between them and stmt itself writing d; and e must keep its value for
 * the whole iteration: thread and block indices, parameters, constants,
 * the loop's counters, locals nothing writes from the loop on, no call and
 * no side effect (kp_fixed_from). */
const kp_node *kp_scratch_value(const kp_file *f, const kp_kernel *k, const kp_loop *l,
				const kp_decl *d, int stmt);

/* The index in l->stmts of the statement of l's body that holds n, or -1. */
int kp_stmt_index_of(const kp_loop *l, const kp_node *n);

#endif
