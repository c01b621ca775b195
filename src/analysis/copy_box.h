/*
 * copy_box.h - the element-set proof that a copy loop fills one 2-D box:
 * the copies of a tile in copy loops (`for (i = tid; i < R*C/8; i += NT)`,
 * vector copies at their real width), over every thread of a known block
 * and every trip of their loops, write each element [r][c] of the tile's
 * first `width` columns exactly once and no other element, reading it from
 * the global element P[base + r * ld + c], with base and ld the same for
 * every thread (polynomials in the kernel's uniform values: its integer
 * parameters, blockIdx, gridDim and the K-loop's counters).  The
 * tensor-map form (transforms/bulk.c, --variant tma) then replaces the
 * whole copy loop by one tensor copy of that box.
 *
 * The proof enumerates: every thread of the block (kp_bk_block_of: the
 * launches, or __launch_bounds__ as 1-D; the rewrite checks blockDim
 * against it at run time and takes the plain copies otherwise), every
 * trip of the copy loops (their bounds must be constants there), each
 * subscript of the tile evaluated to a number, the global index to a
 * polynomial; a division, remainder, shift right or mask of a value that
 * is not a number there refuses.  A guarded copy's guard must be a
 * conjunction of comparisons of signed values whose difference is the same
 * polynomial at every element up to a number (`bm + r < M`, `k0 + c < K`):
 * the fill then tests each at its tightest element (kp_cb_term).  Works on
 * the model only.
 */
#ifndef KPIPE_COPY_BOX_H
#define KPIPE_COPY_BOX_H

#include "analyze.h"

enum { KP_CB_ATOMS = 12, KP_CB_MONOS = 16, KP_CB_DEG = 3, KP_CB_TERMS = 8 };

/* k times the product of atoms a[0..deg) (ids into kp_cbox.atom, sorted). */
typedef struct {
	long long k;
	int deg;
	unsigned char a[KP_CB_DEG];
} kp_cb_mono;

/* A sum of monomials, canonical: sorted, no two alike, none zero. */
typedef struct {
	int n;
	kp_cb_mono m[KP_CB_MONOS];
} kp_cb_poly;

/* One comparison of a guarded copy's guard (`g ? P[i] : 0`, `if (g) ...
 * else ... = 0`, a conjunction of such terms) read as u + k < 0 (<= 0 when
 * !strict), u the same polynomial at every element and k a number that
 * varies: the guard holds for the whole box exactly when u + kmax < 0. */
typedef struct {
	kp_cb_poly u;
	long long kmax;
	int strict;
} kp_cb_term;

/* What a proven copy loop fills. */
typedef struct {
	const kp_decl *tile;
	const kp_node *ptr; /* the pointer the copies read (a DECLREF) */
	long long rows, cols, elt;
	long long width; /* the columns the copies write: cols, or fewer (padding) */
	int block[3];    /* the block shape it is proven for */
	const char *block_from;
	int natoms;
	const kp_node *atom[KP_CB_ATOMS]; /* a node naming each uniform value */
	kp_cb_poly base;                  /* the global index of element [0][0] */
	/* the row stride in elements: ldk, times the integer parameter ldd
	 * when set */
	long long ldk;
	const kp_decl *ldd;
	/* base as bx + ldd * by (ldd set): bx free of ldd */
	kp_cb_poly bx, by;
	/* a guarded copy: the terms the fill tests (none: always true) */
	int nterms;
	kp_cb_term term[KP_CB_TERMS];
} kp_cbox;

/* Why copy ld of loop l (in copy loops) does not fill one box of its
 * tile as above, or NULL with *out filled.  Messages are arena-owned
 * sentences for kpipe-bulk-unavailable. */
const char *kp_cb_prove(kp_file *f, const kp_loop *l, const kp_load *ld, kp_cbox *out);

/* p as a C expression of type long long, each atom i written as
 * text(ud, box->atom[i]) (which the caller frees); caller frees. */
char *kp_cb_poly_text(const kp_cbox *b, const kp_cb_poly *p,
		      char *(*text)(void *ud, const kp_node *atom), void *ud);

#endif
