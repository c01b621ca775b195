/*
 * analyze.h - finds the candidate K-loops of each kernel and checks them:
 * the load / barrier / compute partition, induction variables and pointer
 * bumps, each global->shared copy, the compute phase's math, the shared
 * memory per buffer and the budget rows for the target, and every
 * legality condition of docs/diagnostics.md with its stable id (the
 * static limit, which depends on the transform's buffers, is the plan's).
 *
 * Works on the model (model.h) only; allocations come from the file's
 * arena and live as long as the kp_file.
 */
#ifndef KPIPE_ANALYZE_H
#define KPIPE_ANALYZE_H

#include "arch.h"
#include "changes.h"
#include "loop.h"
#include "model.h"

typedef struct kp_analyze_opts {
	const kp_arch *arch;
	int threads;        /* --threads, 0 = find out */
	const char *kernel; /* --kernel filter, NULL all */
	int spec_threads;   /* threads from the launch description, 0 none */
	const char *spec_kernel;
	int block[3];      /* --block X,Y,Z (banks.h), 0 0 0: not given */
	int spec_block[3]; /* the launch description's block when all three are numbers */
} kp_analyze_opts;

typedef struct {
	kp_loop **loops;
	int nloops;
	int nkernels; /* kernels considered (after --kernel) */
} kp_analysis;

int kp_analyze(kp_analysis *out, kp_file *f, const kp_analyze_opts *o);

/* The instantiations of a merged template loop in the order their
 * findings are reported: the one whose sizes are shown first, then the
 * others in per_inst order.  Returns the per_inst index of the s-th. */
int kp_loop_inst_seq(const kp_loop *l, int s);

/* Integer constant evaluation of an expression, with template arguments
 * of `inst_values` bound to the kernel's template parameters. */
int kp_eval(const kp_node *n, const kp_kernel *k, const long long *inst_values, long long *out);

/* Whether n is an integer constant expression once k's template
 * parameters are given values (kp_eval would evaluate it under any
 * instantiation): literals, k's value parameters, sizeof of k's type
 * parameters, constants and unchanged locals whose initialisers are such
 * expressions, and arithmetic, comparisons and ?: of them. */
int kp_eval_symbolic(const kp_node *n, const kp_kernel *k);

/* Budget row for S stages. */
typedef struct {
	int stages;
	long long bytes; /* per block */
	int fits_static;
	int fits_optin;
	kp_occupancy occ;
} kp_budget;
void kp_loop_budget(const kp_loop *l, const kp_arch *a, int stages, kp_budget *out);

/* Whether d is a scratch register of l's load phase: a plain local of
 * kernel k declared before the loop and named only in the load phase
 * (the source's own staging array, `float ldg_a[4];`). */
int kp_is_scratch(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d);

/* Whether n is a value a guarded copy may store where its guard fails
 * (docs/design.md, "Guarded copies"): a zero literal, possibly cast or
 * parenthesised, make_T(0, ...), __float2half(0) and the like, or an
 * all-zero initializer list. */
int kp_is_zero_value(const kp_node *n);

/* The variable a write to target t changes: the declaration t is rooted
 * at or, for a store through a pointer into a variable of the thread (a
 * pointer of one level, never changed, initialised with the variable's
 * address: `vp[3 - i] = 0.f`), that variable (*through set);
 * NULL when t has no root. */
const kp_decl *kp_written_var(const kp_file *f, const kp_kernel *k, kp_node *t, int *through);

/* The first argument of a call (kids[1..]) that is a __shared__ array, or
 * an element or row of one: its declaration, or NULL. */
const kp_decl *kp_call_shared_arg(const kp_node *call);

#endif
