/*
 * liveness.h - scratch variables private to each iteration of a K-loop
 * (C89 style: `int idx;` at the top of the kernel, assigned in the load
 * phase and perhaps again in the compute phase).  A variable that every
 * phase assigns before it reads, that the loop header never names and
 * whose value at the loop's exit nothing reads is dead at the loop's head:
 * each phase has its own copy of it, so the pipelined loop, which runs
 * the next tile's load phase before this tile's compute, keeps every value
 * it reads (liveness.c).
 */
#ifndef KPIPE_LIVENESS_H
#define KPIPE_LIVENESS_H

#include "loop.h"

/* Whether d, a variable of kernel k declared before loop l, is private to
 * each phase of each iteration of l: a plain local (no reference,
 * pointer, array, static) whose `=` replaces all of it (a scalar, or a
 * template type parameter whose every instantiation argument is
 * trivially copyable), its address never taken nor handed to
 * a reference parameter (unless of a call that writes nothing and returns
 * no address, its body read), a lambda or asm; the statements before the load
 * phase, the load phase and the statements after it each assign it
 * before any read on every path; the loop's init, condition and
 * increment do not name it; and after the loop every path assigns it
 * before reading it (or never reads it).  Needs the phases found
 * (l->load_b < l->load_e). */
int kp_var_phase_private(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d);

/* The part of kp_var_phase_private that does not look inside the body's
 * phases: d is a plain local declared before l, not static, not named by
 * l's init, condition or increment, never escaping, and dead when l ends
 * (nothing after the loop, or in a later round of an enclosing loop,
 * reads the value l leaves in it).  analysis/tile_value.c adds its own
 * conditions on the phases. */
int kp_var_loop_local(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d);

/* Whether anything in k's body may change d after its declaration: an
 * assignment, ++ or --, its address taken or bound to a reference, an
 * argument of a parameter that is not a plain value, asm or a lambda
 * naming it. */
int kp_var_may_change(const kp_kernel *k, const kp_decl *d);

/* Whether n assigns d, increments or decrements it, or names it in asm
 * or a lambda (d's address taken is kp_var_escapes). */
int kp_node_changes_var(const kp_node *n, const kp_decl *d);

/* Whether d's address is taken, d is bound to a reference or handed to a
 * parameter that is not a plain value, in k's body. */
int kp_var_escapes(const kp_kernel *k, const kp_decl *d);

#endif
