/*
 * bulk_index.h - the index analysis of the bulk-copy transforms
 * (transforms/bulk.c: --variant bulk and tma): an integer expression read as
 * c0 + cx * threadIdx.x + cy * threadIdx.y + (uniform terms) (kp_lin), the
 * guards whose value on a whole tile its corners decide, and the copies
 * `TILE[ty][tx] = P[e]` that have a bulk form (kp_bulk_copy), each refusal a
 * sentence for kpipe-bulk-unavailable.
 *
 * Works on the model only; what it returns lives in the given arena.
 */
#ifndef KPIPE_BULK_INDEX_H
#define KPIPE_BULK_INDEX_H

#include "analyze.h"
#include "copy_box.h"

/* An integer expression as c0 + cx * threadIdx.x + (a uniform coefficient)
 * * threadIdx.y + (uniform terms): what a copy's addresses must be. */
typedef struct {
	const char *bad; /* why it is not of that form (static text), or NULL */
	long long cx;    /* constant coefficient of threadIdx.x */
	int cx_sym;      /* threadIdx.x has a coefficient that is not a constant */
	int ty;          /* threadIdx.y appears, with a uniform coefficient */
	long long cy;    /* ... which is this constant, unless cy_sym */
	int cy_sym;      /* threadIdx.y's coefficient is not a constant */
	long long c0;    /* constant term */
	int has_u;       /* uniform terms that are not constants */
	int ind;         /* holds a counter or pointer the loop advances */
	int ind_bad;     /* ... not as an affine term (k0 * k0, k0 / 2): each tile's
			  * addresses must then be checked on their own */
	int chg;         /* reads a variable that changes (the loop's or the kernel's) */
	/* threadIdx.y's coefficient as cyk * (the value of cyn) when cyn is
	 * set (the row stride of a tile read through P[e], which the tensor-map
	 * form needs on the host); cyn_bad: a coefficient of another form */
	const kp_node *cyn;
	long long cyk;
	int cyn_bad;
	const kp_node *node; /* the expression this describes */
} kp_lin;

typedef struct {
	const kp_file *f;
	const kp_loop *l;
	kp_arena *ar;
	int depth;
} kp_lin_ctx;

enum { KP_BULK_GUARD_TERMS = 16 };

/* One copy `TILE[ty][tx] = P[e]`, guarded or not, as the bulk form reads it. */
typedef struct {
	const kp_decl *tile;
	const kp_node *base;  /* P */
	const kp_node *index; /* e */
	const kp_node *guard; /* the guard's condition, NULL when unguarded */
	int affine;           /* P + e is affine in the loop's counters and pointers */
	kp_lin e;             /* e as kp_lin_of() reads it (the row stride: its ty terms) */
	const char *ld;       /* the tensor-map form: the row stride in elements, as text
			       * the kernel and its host launcher both evaluate */
	const kp_decl *ldd;   /* ... ldk times this integer parameter, or NULL: ldk */
	long long ldk;
	/* the tensor-map form of a copy in copy loops: the box its copies fill
	 * over the whole block (copy_box.h), else NULL */
	const kp_cbox *box;
} kp_bulk_copy;

/* Whether v reads a thread index (threadIdx.x or .y). */
int kp_lin_threads(const kp_lin *v);

/* The loop's counter or pointer d, or NULL. */
const kp_induct *kp_lin_induct_of(const kp_loop *l, const kp_decl *d);

/* kp_node_builtin() with the component as spelled in the main file:
 * 'x', 'y', 'z', or 0 (a macro's: nothing kpipe can edit). */
const char *kp_lin_builtin_of(const kp_file *f, const kp_node *n, char *c);

/* An integer type kpipe can carry a linear index through. */
int kp_lin_int_type(const kp_node *n);

/* n read as a kp_lin (its .bad says why not). */
kp_lin kp_lin_of(kp_lin_ctx *c, const kp_node *n);

/* The terms of a guard's && chain (parentheses looked through) into
 * out[k..]; the new count, or -1 past `max`. */
int kp_bulk_guard_terms(const kp_node *n, const kp_node **out, int max, int k);

/* Why one term of a guard cannot be decided for a whole tile from its
 * corners, or NULL; *mx / *my: the corners of each axis it must hold at
 * (1 the low one, 2 the high one, 3 both). */
const char *kp_bulk_term_problem(kp_lin_ctx *c, const kp_node *n, int *mx, int *my);

/* n with parentheses, implicit conversions and other one-child wrappers
 * stripped. */
const kp_node *kp_lin_strip_all(const kp_node *n);

/* Why the loop has no bulk form, or NULL; copies[] filled (l->nloads).
 * boxes: a copy in copy loops may fill its tile as one box (the
 * tensor-map form: kp_cb_prove), else it is refused. */
const char *kp_bulk_problem(const kp_file *f, const kp_loop *l, kp_arena *ar, kp_bulk_copy *copies,
			    int boxes);

/* Why the copies are not plain global loads stored unchanged into tiles
 * that are not volatile (what a bulk copy moves), or NULL. */
const char *kp_bulk_plain_copies_problem(const kp_loop *l, kp_arena *ar);

#endif
