/*
 * banks.c - bank conflicts of shared-memory accesses and sectors of
 * global ones, per warp (banks.h): the accesses of a kernel, each index
 * evaluated per lane, and the two memory models.  The block shape
 * (kp_bk_block_of) is banks_block.c's.
 */
#include "banks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the models */

int kp_bk_degree(const long long *addr, int nlanes, int width, int *bank, unsigned *lanes)
{
	int per = width <= 4 ? 32 : width >= 16 ? 8 : 128 / width;
	int worst = 0;
	*bank = 0;
	*lanes = 0;
	for (int p0 = 0; p0 < nlanes; p0 += per) {
		long long words[32][128];
		int nw[32] = {0};
		unsigned who[32] = {0};
		for (int L = p0; L < nlanes && L < p0 + per; L++) {
			long long w0 = addr[L] / 4,
				  w1 = (addr[L] + (width > 4 ? width : 1) - 1) / 4;
			for (long long w = w0; w <= w1; w++) {
				int b = (int)(((w % 32) + 32) % 32), seen = 0;
				who[b] |= 1u << L;
				for (int i = 0; i < nw[b]; i++)
					seen |= words[b][i] == w;
				if (!seen && nw[b] < 128)
					words[b][nw[b]++] = w;
			}
		}
		for (int b = 0; b < 32; b++)
			if (nw[b] > worst) {
				worst = nw[b];
				*bank = b;
				*lanes = who[b];
			}
	}
	return worst;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

int kp_bk_sectors(const long long *addr, int nlanes, int width, int *ideal)
{
	long long s[32];
	int n = nlanes > 32 ? 32 : nlanes;
	memcpy(s, addr, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_ll);
	long long bytes = 0, end = 0, last_sector = 0;
	int sectors = 0;
	for (int i = 0; i < n; i++) {
		long long b = s[i], e = s[i] + width;
		if (!i || b >= end)
			bytes += e - b;
		else if (e > end)
			bytes += e - end;
		if (!i || e > end)
			end = e;
		for (long long q = b / 32; q <= (e - 1) / 32; q++)
			if (!sectors || q > last_sector) {
				sectors++;
				last_sector = q;
			}
	}
	*ideal = (int)((bytes + 31) / 32);
	return sectors;
}

const char *kp_bk_lanes_text(kp_file *f, unsigned lanes)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int L = 0; L < 32; L++)
		if (lanes & (1u << L))
			kp_strbuf_addf(&sb, "%s%d", sb.len ? "," : "", L);
	const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return r;
}

/* ------------------------------------------------------- lane evaluation */

/* A for-loop counter with a constant start and step (induction()). */
typedef struct {
	const kp_decl *d;
	const long long *iv;
	int ok;
	long long c0, step;
} ind_entry;

typedef struct {
	ind_entry v[32];
	int n;
} ind_cache;

typedef struct {
	const kp_file *f;
	const kp_kernel *k;
	const long long *iv;
	int tid[3], bdim[3];
	long long u; /* the value of every warp-uniform unknown (a loop counter's
			index, below) */
	const char *why;
	int depth;
	ind_cache *ind; /* may be NULL */
} lane_ev;

static int indep(const kp_file *f, const kp_kernel *k, const kp_node *n, int depth);

typedef struct {
	const kp_file *f;
	const kp_kernel *k;
	const kp_decl *d;
	int depth, ok;
} upd_walk;

static int is_ref_to(const kp_node *n, const kp_decl *d)
{
	n = kp_node_strip(n);
	return n && n->kind == KP_N_DECLREF && n->decl == d;
}

static int walk_upd(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	upd_walk *w = ud;
	if (!w->ok)
		return 0;
	if ((n->kind == KP_N_ASSIGNOP ||
	     (n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN)) &&
	    n->nkids == 2 && is_ref_to(n->kids[0], w->d))
		w->ok = indep(w->f, w->k, n->kids[1], w->depth + 1);
	else if (n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids &&
		 is_ref_to(n->kids[0], w->d))
		w->ok = 0;
	return 1;
}

/* Whether every thread of a warp sees the same value of n. */
static int indep(const kp_file *f, const kp_kernel *k, const kp_node *n, int depth)
{
	if (!n || depth > 24)
		return 0;
	int c;
	switch (n->kind) {
	case KP_N_INTLIT:
	case KP_N_FLOATLIT:
	case KP_N_SIZEOF: return 1;
	case KP_N_SUBSCRIPT:
	case KP_N_CALL:
	case KP_N_ASM:
	case KP_N_LAMBDA: return 0;
	case KP_N_MEMBER: {
		const char *b = kp_node_builtin(f, n, 1, &c);
		return b && strcmp(b, "threadIdx");
	}
	case KP_N_UNOP:
		if (n->opk == KP_OP_DEREF)
			return 0;
		break;
	case KP_N_DECLREF: {
		const kp_decl *d = n->decl;
		if (!d)
			return 0;
		if (d->kind == KP_D_TPARAM || d->kind == KP_D_ENUM || d->has_value ||
		    d->kind == KP_D_PARM)
			return 1;
		if (d->kind != KP_D_VAR || d->is_shared)
			return 0;
		if (!kp_assigned_in(k, d))
			return d->init ? indep(f, k, d->init, depth + 1) : 0;
		upd_walk w = {f, k, d, depth, 1};
		if (d->init && !indep(f, k, d->init, depth + 1))
			return 0;
		kp_node_walk(k->body, NULL, walk_upd, &w);
		return w.ok;
	}
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		if (!indep(f, k, n->kids[i], depth + 1))
			return 0;
	return 1;
}

static int lane_eval(lane_ev *e, const kp_node *n, long long *out);

typedef struct {
	const kp_kernel *k;
	const long long *iv;
	ind_entry *x;
} ind_walk;

/* The step of inc when it moves d by a constant (d++, ++d, d--, d += c,
 * d -= c), 0 otherwise. */
static long long step_of(const ind_walk *w, const kp_node *inc)
{
	long long v;
	inc = kp_node_strip(inc);
	if (!inc || !inc->op || !inc->nkids || !is_ref_to(inc->kids[0], w->x->d))
		return 0;
	if (inc->kind == KP_N_UNOP)
		return inc->opk == KP_OP_PRE_INC || inc->opk == KP_OP_POST_INC   ? 1
		       : inc->opk == KP_OP_PRE_DEC || inc->opk == KP_OP_POST_DEC ? -1
										 : 0;
	if (inc->kind != KP_N_ASSIGNOP || inc->nkids != 2 || kp_eval(inc->kids[1], w->k, w->iv, &v))
		return 0;
	return inc->opk == KP_OP_ADD_ASSIGN ? v : inc->opk == KP_OP_SUB_ASSIGN ? -v : 0;
}

static int walk_ind(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	ind_walk *w = ud;
	if (n->kind != KP_N_FOR || !n->for_init || !n->for_inc || w->x->ok)
		return 1;
	const kp_node *init = n->for_init;
	if (init->kind == KP_N_DECLSTMT && init->nkids == 1)
		init = init->kids[0];
	long long c0, step = step_of(w, n->for_inc);
	if (init->kind == KP_N_VARDECL && init->decl == w->x->d && w->x->d->init && step &&
	    !kp_eval(w->x->d->init, w->k, w->iv, &c0)) {
		w->x->ok = 1;
		w->x->c0 = c0;
		w->x->step = step;
	}
	return 1;
}

/* Whether d is the counter of a for loop declared in its header with a
 * constant start (*c0) and step (*step). */
static int induction(lane_ev *e, const kp_decl *d, long long *c0, long long *step)
{
	ind_entry *x = NULL, tmp;
	for (int i = 0; e->ind && i < e->ind->n && !x; i++)
		if (e->ind->v[i].d == d && e->ind->v[i].iv == e->iv)
			x = &e->ind->v[i];
	if (!x) {
		x = e->ind && e->ind->n < 32 ? &e->ind->v[e->ind->n++] : &tmp;
		*x = (ind_entry){d, e->iv, 0, 0, 0};
		ind_walk w = {e->k, e->iv, x};
		kp_node_walk(e->k->body, NULL, walk_ind, &w);
	}
	*c0 = x->c0;
	*step = x->step;
	return x->ok;
}

static int lane_binop(lane_ev *e, const kp_node *n, long long *out)
{
	long long a, b;
	if (n->nkids != 2 || lane_eval(e, n->kids[0], &a) || lane_eval(e, n->kids[1], &b))
		return -1;
	switch (n->opk) {
	case KP_OP_ADD: *out = a + b; break;
	case KP_OP_SUB: *out = a - b; break;
	case KP_OP_MUL: *out = a * b; break;
	case KP_OP_DIV:
	case KP_OP_REM:
		if (!b)
			goto unknown;
		*out = n->opk == KP_OP_DIV ? a / b : a % b;
		break;
	case KP_OP_SHL:
	case KP_OP_SHR:
		*out = b < 0 || b > 62       ? 0
		       : n->opk == KP_OP_SHL ? (long long)((unsigned long long)a << b)
					     : a >> b;
		break;
	case KP_OP_AND: *out = a & b; break;
	case KP_OP_OR: *out = a | b; break;
	case KP_OP_XOR: *out = a ^ b; break;
	case KP_OP_LT: *out = a < b; break;
	case KP_OP_GT: *out = a > b; break;
	case KP_OP_LE: *out = a <= b; break;
	case KP_OP_GE: *out = a >= b; break;
	case KP_OP_EQ: *out = a == b; break;
	case KP_OP_NE: *out = a != b; break;
	default:
unknown:
		e->why = "uses an operator kpipe does not evaluate";
		return -1;
	}
	return 0;
}

static int lane_ref(lane_ev *e, const kp_node *n, long long *out)
{
	const kp_decl *d = n->decl;
	if (d && d->kind == KP_D_VAR && !d->is_shared && !d->is_array && !d->is_pointer &&
	    d->init && !kp_changed_in(e->f, e->k, d)) {
		if (e->depth > 24)
			return -1;
		e->depth++;
		int r = lane_eval(e, d->init, out);
		e->depth--;
		return r;
	}
	if (d && !d->is_pointer && !d->is_array && indep(e->f, e->k, n, 0)) {
		long long c0, step;
		*out = induction(e, d, &c0, &step) ? c0 + e->u * step : e->u;
		return 0;
	}
	e->why = kp_arena_printf((kp_arena *)&e->f->arena, "depends on `%s`, not known per lane",
				 n->name ? n->name : "?");
	return -1;
}

/* The value of n for the lane of e. */
static int lane_eval(lane_ev *e, const kp_node *n, long long *out)
{
	if (!n)
		return -1;
	if (!kp_eval(n, e->k, e->iv, out))
		return 0;
	int c;
	switch (n->kind) {
	case KP_N_PAREN:
	case KP_N_CAST: return n->nkids ? lane_eval(e, n->kids[0], out) : -1;
	case KP_N_OTHER: return n->nkids == 1 ? lane_eval(e, n->kids[0], out) : -1;
	case KP_N_MEMBER: {
		const char *b = kp_node_builtin(e->f, n, 1, &c);
		if (!b || c < 0) {
			e->why = "reads a member kpipe does not evaluate";
			return -1;
		}
		if (!strcmp(b, "blockDim") && !e->bdim[c]) {
			e->why = "reads blockDim, and no block shape is known";
			return -1;
		}
		*out = !strcmp(b, "threadIdx")  ? e->tid[c]
		       : !strcmp(b, "blockDim") ? e->bdim[c]
						: e->u;
		return 0;
	}
	case KP_N_DECLREF: return lane_ref(e, n, out);
	case KP_N_UNOP: {
		long long a;
		if (!n->nkids || !n->op || lane_eval(e, n->kids[0], &a))
			return -1;
		if (n->opk == KP_OP_MINUS || n->opk == KP_OP_PLUS || n->opk == KP_OP_NOT) {
			*out = n->opk == KP_OP_MINUS ? -a : n->opk == KP_OP_PLUS ? a : ~a;
			return 0;
		}
		break;
	}
	case KP_N_BINOP: return lane_binop(e, n, out);
	case KP_N_CONDOP: {
		long long a;
		if (n->nkids != 3 || lane_eval(e, n->kids[0], &a))
			return -1;
		return lane_eval(e, n->kids[a ? 1 : 2], out);
	}
	default: break;
	}
	if (!e->why)
		e->why = "holds an expression kpipe does not evaluate per lane";
	return -1;
}

/* ------------------------------------------------------------ the accesses */

typedef struct {
	kp_file *f;
	const kp_kernel *k;
	const kp_bk_block *b;
	const kp_decl *pad_arr; /* the array of the layout evaluated, or NULL */
	long long pad;
	kp_bk_swizzle swz;
	kp_bk_access *acc;
	int n, cap;
	const kp_node *anc[256]; /* the ancestors of the node visited */
	int nanc;
	ind_cache ind;
	/* no block shape known: only wmma fragment loads and stores, whose
	 * bank pattern is the row stride's, evaluated at thread (0, 0, 0)
	 * (lane 0 of warp 0 in every block shape); blockDim is not known */
	int frag_only;
} acc_walk;

/* The element access's context: the vector dereference of its address
 * (*w set), a call it is handed to (*call set), or neither. */
static const kp_node *access_context(acc_walk *w, const kp_node *n, int *width,
				     const kp_node **call, int *escapes)
{
	*call = NULL;
	*escapes = 0;
	int i = w->nanc - 1;
	while (i >= 0 && (w->anc[i]->kind == KP_N_PAREN || w->anc[i]->kind == KP_N_CAST))
		i--;
	if (i < 0 || w->anc[i]->kind != KP_N_UNOP || !w->anc[i]->op || w->anc[i]->opk != KP_OP_ADDR)
		return n;
	for (i--; i >= 0; i--) {
		const kp_node *p = w->anc[i];
		if (p->kind == KP_N_PAREN || p->kind == KP_N_CAST ||
		    (p->kind == KP_N_OTHER && p->nkids == 1))
			continue;
		if (p->type_size > 0 &&
		    kp_bk_deref_of(p, i + 1 < w->nanc ? w->anc[i + 1] : NULL, w->k)) {
			*width = (int)p->type_size;
			return p;
		}
		if (p->kind == KP_N_CALL) {
			*call = p;
			return n;
		}
		break;
	}
	*escapes = 1;
	return n;
}

/* Whether x (the element access, or the vector dereference of its address
 * among its ancestors) is written. */
static int is_store(acc_walk *w, const kp_node *x)
{
	int i = w->nanc - 1;
	for (int j = w->nanc - 1; j >= 0; j--)
		if (w->anc[j] == x) { /* a dereference: its parent decides */
			i = j - 1;
			break;
		}
	const kp_node *c = x;
	while (i >= 0 && w->anc[i]->kind == KP_N_PAREN)
		c = w->anc[i--];
	if (i < 0)
		return 0;
	const kp_node *p = w->anc[i];
	if ((p->kind == KP_N_ASSIGNOP ||
	     (p->kind == KP_N_BINOP && p->op && p->opk == KP_OP_ASSIGN)) &&
	    p->nkids && p->kids[0] == c)
		return 1;
	return p->kind == KP_N_UNOP && p->op &&
	       ((p->opk == KP_OP_PRE_INC || p->opk == KP_OP_POST_INC) ||
		(p->opk == KP_OP_PRE_DEC || p->opk == KP_OP_POST_DEC));
}

int kp_bk_deref_of(const kp_node *q, const kp_node *below, const kp_kernel *k)
{
	if (q->kind == KP_N_UNOP && q->op && q->opk == KP_OP_DEREF)
		return 1;
	long long z;
	return q->kind == KP_N_SUBSCRIPT && q->nkids == 2 && q->type_size > 0 && below &&
	       kp_node_strip(q->kids[0]) == kp_node_strip(below) &&
	       !kp_eval(q->kids[1], k, NULL, &z) && z == 0;
}

/* The bound of dimension i of d for instantiation iv, -1 unknown. */
static long long dim_of(const kp_kernel *k, const kp_decl *d, int i, const long long *iv)
{
	long long v;
	if (d->dims[i] > 0)
		return d->dims[i];
	const kp_node *e = kp_bk_dim_expr(d, i);
	if (e && !kp_eval(e, k, iv, &v) && v > 0)
		return v;
	return -1;
}

static const long long *const uniforms_shared = (const long long[]){0, 1, 5};

/* The strides in elements of the dimensions of shared array d for
 * instantiation iv, the innermost bound widened by w->pad when d is
 * w->pad_arr; -1 when a bound (but the outermost) or the element size is
 * not known. */
static int array_strides(const acc_walk *w, const kp_decl *d, const long long *iv,
			 long long *stride)
{
	long long s = 1;
	if (d->elem_size <= 0 || d->ndims < 1 || d->ndims > KP_MAX_DIMS)
		return -1;
	for (int i = d->ndims - 1; i >= 0; i--) {
		stride[i] = s;
		long long dv = i ? dim_of(w->k, d, i, iv) : 1;
		if (dv < 0)
			return -1;
		s *= dv + (i == d->ndims - 1 && d == w->pad_arr ? w->pad : 0);
	}
	return 0;
}

/* Moves the column *col of row `row` of d by w's swizzle (u: the value
 * of the warp-uniform unknowns).  Returns 1 when an access of `elems`
 * elements from it would leave its unit of the swizzle, 2 when it would
 * leave its row of `len` elements (judged where every uniform unknown
 * takes its first value: later ones may be past a loop's end), else 0. */
static int swizzle_col(const acc_walk *w, const kp_decl *d, long long row, long long *col,
		       long long elems, long long len, long long u)
{
	const kp_bk_swizzle *z = &w->swz;
	if (d != w->pad_arr || !z->mask || z->unit <= 0 || d->ndims < 2)
		return 0;
	long long c = *col, un = z->unit;
	*col = c ^ (((row >> z->shift) & z->mask) * un);
	if (!u && (c < 0 || c + elems > len))
		return 2;
	return ((c % un) + un) % un + elems > un;
}

/* The lane evaluator of lane L of warp 0 for instantiation iv. */
static lane_ev lane_at(acc_walk *w, const long long *iv, int L, long long u)
{
	const kp_bk_block *b = w->b;
	lane_ev e = {w->f,
		     w->k,
		     iv,
		     {L % b->x, (L / b->x) % b->y, L / (b->x * b->y)},
		     {w->frag_only ? 0 : b->x, w->frag_only ? 0 : b->y, w->frag_only ? 0 : b->z},
		     u,
		     NULL,
		     0,
		     &w->ind};
	return e;
}

/* Evaluates the lanes of one access (idx: its subscripts, outermost
 * first) for instantiation iv into x. */
static void eval_access(acc_walk *w, kp_bk_access *x, const kp_node *const *idx, int nidx,
			const long long *iv)
{
	const kp_bk_block *b = w->b;
	int nl = b->x * b->y * b->z;
	if (nl > 32)
		nl = 32;
	long long stride[KP_MAX_DIMS], esz = x->arr->elem_size;
	if (x->space == KP_BK_SHARED) {
		if (nidx != x->arr->ndims || array_strides(w, x->arr, iv, stride)) {
			x->not_analysed = "its bounds or element size are not known";
			return;
		}
	} else {
		stride[0] = 1;
		esz = x->elem > 0 ? x->elem : x->width;
	}
	int nu = x->space == KP_BK_SHARED ? 3 : 1;
	for (int ui = 0; ui < nu; ui++) {
		long long addr[32];
		for (int L = 0; L < nl; L++) {
			lane_ev e = lane_at(w, iv, L,
					    x->space == KP_BK_SHARED ? uniforms_shared[ui] : 1024);
			long long off = 0, v[KP_MAX_DIMS + 1];
			for (int i = 0; i < nidx; i++)
				if (lane_eval(&e, idx[i], &v[i])) {
					x->not_analysed = kp_arena_printf(
						&w->f->arena, "its index `%s` %s",
						kp_node_text(w->f, idx[i]),
						e.why ? e.why : "is not known per lane");
					return;
				}
			long long len = nidx >= 2 ? stride[nidx - 2] : 0;
			if (x->arr == w->pad_arr)
				len -= w->pad;
			if (x->space == KP_BK_SHARED && nidx >= 2 && !e.u &&
			    (v[nidx - 1] < 0 || v[nidx - 1] + (x->width + esz - 1) / esz > len))
				x->out_of_row = 1;
			int sp = x->space == KP_BK_SHARED && nidx >= 2
					 ? swizzle_col(w, x->arr, v[nidx - 2], &v[nidx - 1],
						       (x->width + esz - 1) / esz, stride[nidx - 2],
						       e.u)
					 : 0;
			if (sp && !x->swz_split)
				x->swz_split = sp;
			for (int i = 0; i < nidx; i++)
				off += v[i] * stride[i];
			addr[L] = off * esz;
		}
		if (x->space == KP_BK_SHARED) {
			int bank, ideal, s = kp_bk_sectors(addr, nl, x->width, &ideal);
			unsigned lanes;
			int d = kp_bk_degree(addr, nl, x->width, &bank, &lanes);
			if (d > x->degree) {
				x->degree = d;
				x->bank = bank;
				x->lanes = lanes;
			}
			if (s - ideal >= x->sectors - x->ideal) {
				x->sectors = s;
				x->ideal = ideal;
			}
		} else {
			int ideal, s = kp_bk_sectors(addr, nl, x->width, &ideal);
			if (s - ideal >= x->sectors - x->ideal) {
				x->sectors = s;
				x->ideal = ideal;
			}
		}
	}
}

static kp_bk_access *new_access(acc_walk *w, const kp_node *n, const kp_decl *d, kp_bk_space sp)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->acc = kp_xrealloc(w->acc, sizeof(*w->acc) * (size_t)w->cap);
	}
	kp_bk_access *x = &w->acc[w->n++];
	memset(x, 0, sizeof(*x));
	x->node = n;
	x->arr = d;
	x->space = sp;
	x->line = n->line;
	x->col = n->col;
	return x;
}

static void eval_all(acc_walk *w, kp_bk_access *x, const kp_node *const *idx, int nidx)
{
	if (!w->k->ninst || w->k->is_device) {
		eval_access(w, x, idx, nidx, NULL);
		return;
	}
	for (int i = 0; i < w->k->ninst && !x->not_analysed; i++)
		eval_access(w, x, idx, nidx, w->k->inst_values[i]);
}

/* ------------------------------------------------------- fragment loads */

/* The instantiation values of evaluation i (of ninst_of()); NULL for a
 * kernel evaluated once. */
static int ninst_of(const acc_walk *w) { return !w->k->ninst || w->k->is_device ? 1 : w->k->ninst; }

static const long long *inst_iv(const acc_walk *w, int i)
{
	return !w->k->ninst || w->k->is_device ? NULL : w->k->inst_values[i];
}

/* A pointer into a shared array: its element offset from the array's
 * start, what +1 adds to it (elements), the array and its strides, the
 * element access whose address it is (NULL: none), and whether bytes were
 * added by hand to its conversion to a shared address. */
typedef struct {
	const kp_decl *arr;
	const kp_node *elem;
	long long off, unit, st[KP_MAX_DIMS];
	int nidx; /* subscripts applied */
	int hand;
	int split; /* the layout's swizzle would split the 16 bytes read from it
		      (swizzle_col: 1 its unit, 2 its row) */
} ptr_val;

/* t without qualifiers, spaces and leading underscores of its words
 * ("const __half" -> "half"). */
static void norm_type(const char *t, char *buf, size_t n)
{
	size_t k = 0;
	while (*t && k + 1 < n) {
		while (*t == ' ' || *t == '\t')
			t++;
		const char *w = t;
		while (*t && *t != ' ' && *t != '\t')
			t++;
		size_t len = (size_t)(t - w);
		if ((len == 5 && !strncmp(w, "const", 5)) ||
		    (len == 8 && !strncmp(w, "volatile", 8)) ||
		    (len >= 8 && !strncmp(w, "__restrict", 10 < len ? 10 : len)))
			continue;
		while (len && *w == '_')
			w++, len--;
		for (size_t i = 0; i < len && k + 1 < n; i++)
			buf[k++] = w[i];
	}
	buf[k] = 0;
}

static int same_elem(const kp_decl *d, const char *pointee)
{
	char a[128], b[128];
	norm_type(d->elem_type ? d->elem_type : "", a, sizeof(a));
	norm_type(pointee, b, sizeof(b));
	return *a && !strcmp(a, b);
}

static int ptr_eval(acc_walk *w, lane_ev *e, const kp_node *n, int depth, ptr_val *p);

/* A subscript chain of a shared array, or part of one (T[r] of T[][]). */
static int ptr_subscript(acc_walk *w, lane_ev *e, const kp_node *n, ptr_val *p)
{
	const kp_node *idx[KP_MAX_DIMS + 1], *base = n;
	int nidx = 0;
	while (base && base->kind == KP_N_SUBSCRIPT && base->nkids == 2 && nidx <= KP_MAX_DIMS) {
		idx[nidx++] = base->kids[1];
		base = kp_node_strip(base->kids[0]);
	}
	const kp_decl *d = base && base->kind == KP_N_DECLREF ? base->decl : NULL;
	if (!d || !d->is_shared || !d->is_array || nidx > d->ndims) {
		e->why = "is not an element of a shared array";
		return -1;
	}
	if (array_strides(w, d, e->iv, p->st)) {
		e->why = "indexes an array whose bounds or element size are not known";
		return -1;
	}
	p->arr = d;
	p->off = 0;
	long long v[KP_MAX_DIMS + 1];
	for (int i = 0; i < nidx; i++) /* idx[] is innermost first */
		if (lane_eval(e, idx[nidx - 1 - i], &v[i]))
			return -1;
	int sp = nidx == d->ndims && nidx >= 2 /* wmma and ldmatrix read 16 bytes */
			 ? swizzle_col(w, d, v[nidx - 2], &v[nidx - 1],
				       d->elem_size < 16 ? 16 / d->elem_size : 1, p->st[nidx - 2],
				       e->u)
			 : 0;
	if (sp && !p->split)
		p->split = sp;
	for (int i = 0; i < nidx; i++)
		p->off += v[i] * p->st[i];
	p->nidx = nidx;
	p->elem = nidx == d->ndims ? n : NULL;
	p->unit = nidx < d->ndims ? p->st[nidx] : 1;
	return 0;
}

/* p + v or v + p, p - v (a pointer and an integer). */
static int ptr_arith(acc_walk *w, lane_ev *e, const kp_node *n, int depth, ptr_val *p)
{
	long long v;
	int minus = n->opk == KP_OP_SUB; /* a BINOP (ptr_eval) */
	for (int side = 0; side < (minus ? 1 : 2); side++) {
		const char *why = e->why;
		if (ptr_eval(w, e, n->kids[side], depth + 1, p)) {
			e->why = why;
			continue;
		}
		if (lane_eval(e, n->kids[1 - side], &v))
			return -1;
		p->off += (minus ? -v : v) * p->unit;
		return 0;
	}
	if (!e->why)
		e->why = "is arithmetic kpipe does not follow";
	return -1;
}

/* The pointer n for the lane of e (ptr_val). */
static int ptr_eval(acc_walk *w, lane_ev *e, const kp_node *n, int depth, ptr_val *p)
{
	if (!n || depth > 16)
		return -1;
	if (n->kind == KP_N_PAREN || (n->kind == KP_N_OTHER && n->nkids == 1))
		return n->nkids ? ptr_eval(w, e, n->kids[0], depth + 1, p) : -1;
	if (n->kind == KP_N_CAST && n->nkids) {
		if (ptr_eval(w, e, n->kids[0], depth + 1, p))
			return -1;
		const char *t = n->type ? n->type : "";
		size_t tl = strlen(t);
		while (tl && t[tl - 1] == ' ')
			tl--;
		const char *pointee =
			kp_arena_printf(&w->f->arena, "%.*s", (int)(tl ? tl - 1 : 0), t);
		if (!tl || t[tl - 1] != '*' || !same_elem(p->arr, pointee)) {
			e->why = kp_arena_printf(&w->f->arena, "is cast to `%s`", t);
			return -1;
		}
		p->unit = 1;
		return 0;
	}
	if (n->kind == KP_N_DECLREF && n->decl) {
		const kp_decl *d = n->decl;
		if (d->is_shared && d->is_array) {
			if (array_strides(w, d, e->iv, p->st)) {
				e->why = "is an array whose bounds or element size are not known";
				return -1;
			}
			p->arr = d;
			p->elem = NULL;
			p->off = 0;
			p->unit = p->st[0];
			p->nidx = 0;
			return 0;
		}
		if (d->kind == KP_D_VAR && d->is_pointer && d->init &&
		    !kp_changed_in(w->f, e->k, d))
			return ptr_eval(w, e, d->init, depth + 1, p);
	} else if (n->kind == KP_N_SUBSCRIPT)
		return ptr_subscript(w, e, n, p);
	else if (n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids) {
		const kp_node *s = kp_node_strip(n->kids[0]);
		if (!s || s->kind != KP_N_SUBSCRIPT || ptr_subscript(w, e, s, p))
			return -1;
		p->unit = p->nidx == p->arr->ndims ? 1 : p->st[p->nidx - 1];
		return 0;
	} else if (n->kind == KP_N_BINOP && n->op && n->nkids == 2 &&
		   (n->opk == KP_OP_ADD || n->opk == KP_OP_SUB))
		return ptr_arith(w, e, n, depth, p);
	if (!e->why)
		e->why = kp_arena_printf(&w->f->arena,
					 "goes through `%s`, which kpipe does not follow",
					 kp_node_text(w->f, n));
	return -1;
}

/* The shared address (bytes from the array's start) of an inline-asm
 * operand n: __cvta_generic_to_shared() of a pointer into a shared array,
 * through integer variables and casts, plus or minus bytes. */
static int u32_eval(acc_walk *w, lane_ev *e, const kp_node *n, int depth, ptr_val *p,
		    long long *bytes)
{
	while (n && (n->kind == KP_N_PAREN || n->kind == KP_N_CAST ||
		     (n->kind == KP_N_OTHER && n->nkids == 1)))
		n = n->nkids ? n->kids[0] : NULL;
	if (!n || depth > 16)
		return -1;
	const kp_decl *d = n->kind == KP_N_DECLREF ? n->decl : NULL;
	if (d && d->kind == KP_D_VAR && !d->is_pointer && !d->is_array && d->init &&
	    !kp_changed_in(w->f, e->k, d))
		return u32_eval(w, e, d->init, depth + 1, p, bytes);
	if (n->kind == KP_N_CALL && n->name && strstr(n->name, "cvta_generic_to_shared") &&
	    n->nkids >= 2) {
		if (ptr_eval(w, e, n->kids[n->nkids - 1], depth + 1, p))
			return -1;
		*bytes = p->off * p->arr->elem_size;
		return 0;
	}
	if (n->kind == KP_N_BINOP && n->nkids == 2 &&
	    (n->opk == KP_OP_ADD || n->opk == KP_OP_SUB)) {
		int minus = n->opk == KP_OP_SUB;
		long long v;
		for (int side = 0; side < (minus ? 1 : 2); side++) {
			const char *why = e->why;
			if (u32_eval(w, e, n->kids[side], depth + 1, p, bytes)) {
				e->why = why;
				continue;
			}
			if (lane_eval(e, n->kids[1 - side], &v))
				return -1;
			*bytes += minus ? -v : v;
			p->hand = 1;
			return 0;
		}
	}
	if (!e->why)
		e->why = "is not a __cvta_generic_to_shared() of a shared array kpipe follows";
	return -1;
}

/* The shared array a pointer or address expression n points into, found
 * by its spelling (through the initialisers of the variables it names),
 * and in *elem its element access when n takes one's address. */
static const kp_decl *shared_base(const kp_node *n, const kp_node **elem, int depth)
{
	if (!n || depth > 16)
		return NULL;
	if (n->kind == KP_N_SUBSCRIPT) {
		const kp_node *b = n;
		int nidx = 0;
		while (b && b->kind == KP_N_SUBSCRIPT && b->nkids == 2) {
			nidx++;
			b = kp_node_strip(b->kids[0]);
		}
		const kp_decl *d = b && b->kind == KP_N_DECLREF ? b->decl : NULL;
		if (d && d->is_shared && d->is_array) {
			if (nidx == d->ndims)
				*elem = n;
			return d;
		}
	}
	if (n->kind == KP_N_DECLREF && n->decl) {
		const kp_decl *d = n->decl;
		if (d->is_shared && d->is_array)
			return d;
		return d->kind == KP_D_VAR && !d->is_array && d->init
			       ? shared_base(d->init, elem, depth + 1)
			       : NULL;
	}
	for (int i = 0; i < n->nkids; i++) {
		const kp_decl *d = shared_base(n->kids[i], elem, depth + 1);
		if (d)
			return d;
	}
	return NULL;
}

/* One of a fragment's sizes (kp_type.frag_dim): a number, or a template
 * parameter of kernel k with its value in instantiation iv. */
static int frag_dim(const kp_kernel *k, const long long *iv, int dim, int *out)
{
	long long v = dim;
	if (dim < 0) {
		int i = -1 - dim;
		v = iv && i < k->ntparams && i < KP_MAX_TARGS ? iv[i] : -1;
	}
	if (v <= 0 || v > 64)
		return -1;
	*out = (int)v;
	return 0;
}

/* The rows and the elements of a row in memory of a wmma matrix_a or
 * matrix_b fragment of type ty (clang's facts: its use, layout and sizes,
 * numbers or template parameters of the kernel for instantiation iv); -1
 * for another (an accumulator: *acc set) or sizes kpipe does not read. */
static int frag_shape(const kp_kernel *k, const long long *iv, const kp_type *ty, int *rows,
		      int *cols, int *acc)
{
	int d[3];
	*acc = ty && ty->frag == KP_FRAG_ACC;
	if (!ty || (ty->frag != KP_FRAG_A && ty->frag != KP_FRAG_B))
		return -1;
	for (int i = 0; i < 3; i++)
		if (frag_dim(k, iv, ty->frag_dim[i], &d[i]))
			return -1;
	int m = d[0], n = d[1], kk = d[2];
	int col = ty->frag_col;
	if (ty->frag == KP_FRAG_A) {
		*rows = col ? kk : m;
		*cols = col ? m : kk;
	} else {
		*rows = col ? n : kk;
		*cols = col ? kk : n;
	}
	return 0;
}

/* A fragment argument's type: its variable's when it names one (an array
 * of fragments subscripted: the declaration knows which template
 * parameters give a dependent fragment's sizes), else its own; its
 * spelling, for messages, in *t. */
static const kp_type *frag_type(const kp_node *n, const char **t)
{
	*t = NULL;
	const kp_node *v = n;
	while (v && (v->kind == KP_N_SUBSCRIPT || v->kind == KP_N_PAREN) && v->nkids)
		v = v->kids[0];
	if (v && v->kind == KP_N_DECLREF && v->decl && (v->decl->ty.frag || !n->ty.frag)) {
		*t = v->decl->type;
		return &v->decl->ty;
	}
	if (n && n->ty.frag) {
		*t = n->type;
		return &n->ty;
	}
	return NULL;
}

/* A wmma load (rows > 0: its rows x cols elements in memory read as
 * ldmatrix phases; 0: only the alignment of its pointer) through pointer
 * ptr with leading dimension ld, for instantiation iv. */
static void eval_fragment(acc_walk *w, kp_bk_access *x, const kp_node *ptr, const kp_node *ldn,
			  int rows, int cols, const long long *iv)
{
	long long esz = x->arr->elem_size;
	/* a fragment's rows are read `ld` apart from one pointer: no swizzle
	 * of the column index reaches them */
	if (x->arr == w->pad_arr && w->swz.mask)
		x->swz_split = 1;
	for (int ui = 0; ui < 3 && !x->not_analysed; ui++) {
		lane_ev e = lane_at(w, iv, 0, uniforms_shared[ui]);
		ptr_val p = {0};
		long long ld;
		if (ptr_eval(w, &e, ptr, 0, &p) || p.arr != x->arr) {
			x->not_analysed = kp_arena_printf(&w->f->arena, "its pointer `%s` %s",
							  kp_node_text(w->f, ptr),
							  e.why ? e.why : "is not known");
		} else if (lane_eval(&e, ldn, &ld) || ld <= 0)
			x->not_analysed = kp_arena_printf(&w->f->arena,
							  "its leading dimension `%s` is not known",
							  kp_node_text(w->f, ldn));
		if (x->not_analysed) {
			x->misaligned = -1;
			return;
		}
		/* a leading dimension that is the row's length follows the padding */
		if (x->arr == w->pad_arr && ld == dim_of(w->k, x->arr, x->arr->ndims - 1, iv))
			ld += w->pad;
		x->row_stride = ld * esz;
		if (x->misaligned >= 0 && (((p.off * esz) % 32) || ((ld * esz) % 16)))
			x->misaligned = 1;
		int chunks = (int)((cols * esz + 15) / 16), groups = (rows + 7) / 8;
		for (int c = 0; c < chunks; c++)
			for (int g = 0; g < groups; g++) {
				long long addr[8];
				int n8 = 0, bank;
				unsigned lanes;
				for (; n8 < 8 && g * 8 + n8 < rows; n8++)
					addr[n8] = (p.off + (g * 8 + n8) * ld) * esz + 16 * c;
				int d = kp_bk_degree(addr, n8, 16, &bank, &lanes);
				if (d > x->degree) { /* lanes 8m..8m+7 give matrix m's rows */
					x->degree = d;
					x->bank = bank;
					x->lanes = lanes << (8 * ((c * groups + g) % 4));
				}
			}
	}
}

/* A wmma::load_matrix_sync or store_matrix_sync call of a shared array. */
static void fragment_call(acc_walk *w, const kp_node *call)
{
	const char *name = kp_call_name(call);
	int load = strstr(name, "load_matrix_sync") != NULL;
	if ((!load && !strstr(name, "store_matrix_sync")) || call->nkids < 4)
		return;
	const kp_node *ptr = call->kids[load ? 2 : 1], *frag = call->kids[load ? 1 : 2],
		      *ld = call->kids[3], *elem = NULL;
	const kp_decl *d = shared_base(ptr, &elem, 0);
	if (!d)
		return;
	kp_bk_access *x = new_access(w, elem ? elem : ptr, d, KP_BK_SHARED);
	x->wmma = 1;
	x->store = !load;
	x->width = 16;
	x->align = 32;
	const char *t, *why = NULL;
	const kp_type *ty = frag_type(frag, &t);
	for (int i = 0; i < ninst_of(w) && !x->not_analysed; i++) {
		const long long *iv = inst_iv(w, i);
		int rows = 0, cols = 0, acc;
		if (frag_shape(w->k, iv, ty, &rows, &cols, &acc) || !load) {
			rows = 0;
			why = acc || !load ? "a wmma accumulator load or store (not an "
					     "ldmatrix: not analysed)"
					   : kp_arena_printf(&w->f->arena,
							     "a wmma load of a fragment whose "
							     "shape kpipe does not read (`%s`)",
							     t ? t : "?");
		} else if (!x->frag)
			x->frag = kp_arena_printf(&w->f->arena, "%s %dx%d",
						  ty->frag == KP_FRAG_A ? "matrix_a" : "matrix_b",
						  rows, cols);
		/* the pointer's alignment is checked all the same */
		eval_fragment(w, x, ptr, ld, rows, cols, iv);
	}
	if (why && !x->not_analysed)
		x->not_analysed = why;
	if (x->not_analysed)
		x->degree = 0;
}

/* An inline-asm ldmatrix whose row addresses are in a shared array: lane
 * L gives row L % 8 of matrix L / 8; each matrix is one phase. */
static void eval_ldmatrix(acc_walk *w, kp_bk_access *x, const kp_node *opnd, const long long *iv)
{
	const kp_bk_block *b = w->b;
	int nl = b->x * b->y * b->z;
	if (nl > 8 * x->ldmatrix)
		nl = 8 * x->ldmatrix;
	for (int ui = 0; ui < 3; ui++) {
		long long addr[32];
		for (int L = 0; L < nl; L++) {
			lane_ev e = lane_at(w, iv, L, uniforms_shared[ui]);
			ptr_val p = {0};
			if (u32_eval(w, &e, opnd, 0, &p, &addr[L]) || p.arr != x->arr) {
				x->not_analysed = kp_arena_printf(&w->f->arena,
								  "its row address `%s` %s",
								  kp_node_text(w->f, opnd),
								  e.why ? e.why : "is not known");
				x->misaligned = -1;
				return;
			}
			x->hand_offset |= p.hand;
			if (p.split && !x->swz_split)
				x->swz_split = p.split;
			if (addr[L] % 16 && x->misaligned >= 0)
				x->misaligned = 1;
		}
		int bank;
		unsigned lanes;
		int d = kp_bk_degree(addr, nl, 16, &bank, &lanes);
		if (d > x->degree) {
			x->degree = d;
			x->bank = bank;
			x->lanes = lanes;
		}
	}
}

/* An asm statement: an ldmatrix of a shared array's rows. */
static void ldmatrix_asm(acc_walk *w, const kp_node *n)
{
	const char *t = kp_node_text(w->f, n), *lm = t ? strstr(t, "ldmatrix") : NULL;
	const char *op = lm ? strstr(lm, "[%") : NULL;
	char *end = NULL;
	long k = op ? strtol(op + 2, &end, 10) : -1;
	if (!op || end == op + 2 || *end != ']' || k < 0 || k >= n->nkids)
		return;
	const kp_node *elem = NULL;
	const kp_decl *d = shared_base(n->kids[k], &elem, 0);
	if (!d)
		return;
	for (int i = 0; elem && i < w->n; i++) /* its address converted before, as a call */
		if (w->acc[i].node == elem && !w->acc[i].ldmatrix && !w->acc[i].wmma) {
			memmove(&w->acc[i], &w->acc[i + 1],
				sizeof(*w->acc) * (size_t)(w->n - i - 1));
			w->n--;
			i--;
		}
	kp_bk_access *x = new_access(w, n, d, KP_BK_SHARED);
	x->ldmatrix = strstr(lm, ".x4") ? 4 : strstr(lm, ".x2") ? 2 : 1;
	x->addr = elem;
	x->width = 16;
	x->align = 16;
	for (int i = 0; i < ninst_of(w) && !x->not_analysed; i++)
		eval_ldmatrix(w, x, n->kids[k], inst_iv(w, i));
}

/* An element access n (a subscript chain) of a shared array or a pointer
 * parameter. */
static void subscript(acc_walk *w, const kp_node *n)
{
	const kp_node *idx[KP_MAX_DIMS + 1], *base = n;
	int nidx = 0;
	while (base && base->kind == KP_N_SUBSCRIPT && base->nkids == 2 && nidx <= KP_MAX_DIMS) {
		idx[nidx++] = base->kids[1];
		base = kp_node_strip(base->kids[0]);
	}
	if (!base || base->kind != KP_N_DECLREF || !base->decl)
		return;
	const kp_decl *d = base->decl;
	for (int i = 0; i < nidx / 2; i++) { /* outermost first */
		const kp_node *t = idx[i];
		idx[i] = idx[nidx - 1 - i];
		idx[nidx - 1 - i] = t;
	}
	int width = 0, escapes;
	const kp_node *call;
	if (d->is_shared && d->is_array && nidx == d->ndims && nidx) {
		width = (int)d->elem_size;
		const kp_node *at = access_context(w, n, &width, &call, &escapes);
		for (int i = 0; i < w->n; i++)
			if (w->acc[i].node == at || w->acc[i].addr == n)
				return; /* a wmma or ldmatrix access, seen first */
		kp_bk_access *x = new_access(w, at, d, KP_BK_SHARED);
		x->width = width;
		x->store = is_store(w, at);
		long long cw;
		if (call && strstr(kp_call_name(call), "memcpy_async") && call->nkids > 3 &&
		    !kp_eval(call->kids[3], w->k, NULL, &cw) && cw > 0 && cw <= 16) {
			/* cp.async: a store of the copy's width */
			x->width = (int)cw;
			x->store = 1;
			eval_all(w, x, idx, nidx);
		} else if (call && strstr(kp_call_name(call), "_matrix_sync")) {
			x->wmma = 1;
			x->not_analysed = "a wmma fragment load or store (not analysed)";
		} else if (call)
			x->not_analysed = "its address is handed to a function";
		else if (escapes)
			x->not_analysed = "its address is taken";
		else
			eval_all(w, x, idx, nidx);
	} else if (d->kind == KP_D_PARM && d->is_pointer && nidx == 1 && n->type_size > 0) {
		/* an element, or a vector read or written through its address */
		width = (int)n->type_size;
		const kp_node *at = access_context(w, n, &width, &call, &escapes);
		if (call || escapes)
			return;
		kp_bk_access *x = new_access(w, at, d, KP_BK_GLOBAL);
		x->width = width;
		x->elem = (int)n->type_size;
		x->store = is_store(w, at);
		eval_all(w, x, idx, nidx);
	}
}

static void walk(acc_walk *w, const kp_node *n)
{
	if (!n || w->nanc >= 256)
		return;
	int chain = n->kind == KP_N_SUBSCRIPT;
	if (chain && !w->frag_only)
		subscript(w, n);
	else if (n->kind == KP_N_CALL && strstr(kp_call_name(n), "_matrix_sync"))
		fragment_call(w, n);
	else if (n->kind == KP_N_ASM && !w->frag_only)
		ldmatrix_asm(w, n);
	w->anc[w->nanc++] = n;
	if (chain) { /* the indexes of the chain, not its inner subscripts */
		const kp_node *b = n;
		while (b && b->kind == KP_N_SUBSCRIPT && b->nkids == 2) {
			walk(w, b->kids[1]);
			b = kp_node_strip(b->kids[0]);
		}
		if (b && b->kind != KP_N_DECLREF)
			walk(w, b);
	} else
		for (int i = 0; i < n->nkids; i++)
			walk(w, n->kids[i]);
	w->nanc--;
}

void kp_bk_analyze_layout(kp_file *f, const kp_kernel *k, const kp_bk_block *b,
			  const kp_bk_layout *lay, kp_bk_result *out)
{
	static const kp_bk_block lane0 = {1, 1, 1, "thread (0, 0, 0)"};
	memset(out, 0, sizeof(*out));
	if (!k->body)
		return;
	acc_walk w = {.f = f, .k = k, .b = b->x ? b : &lane0, .frag_only = !b->x};
	if (lay && lay->arr) {
		w.pad_arr = lay->arr;
		w.pad = lay->pad;
		w.swz = lay->swz;
	}
	walk(&w, k->body);
	out->n = w.n;
	out->acc = kp_arena_alloc(&f->arena, sizeof(*out->acc) * (size_t)(w.n ? w.n : 1));
	if (w.n)
		memcpy(out->acc, w.acc, sizeof(*w.acc) * (size_t)w.n);
	free(w.acc);
}

void kp_bk_analyze(kp_file *f, const kp_kernel *k, const kp_bk_block *b, const kp_decl *pad_arr,
		   long long pad, kp_bk_result *out)
{
	kp_bk_layout lay = {pad_arr, pad, {0, 0, 0}};
	kp_bk_analyze_layout(f, k, b, &lay, out);
}

int kp_bk_worst(const kp_bk_result *r, const kp_decl *d, int *sum)
{
	int worst = 0, s = 0;
	for (int i = 0; i < r->n; i++) {
		const kp_bk_access *x = &r->acc[i];
		if (x->arr != d || x->not_analysed)
			continue;
		s += x->degree;
		if (x->degree > worst)
			worst = x->degree;
	}
	if (sum)
		*sum = s;
	return worst;
}

/* ------------------------------------------------------------- swizzles */

/* The units of d's rows in every instantiation of k: the fewest elements
 * a row has (*len, and its greatest power-of-two divisor in *pow2); -1
 * with *why when a row's length is not known or not a multiple of unit. */
static int row_units(kp_file *f, const kp_kernel *k, const kp_decl *d, long long unit,
		     long long *len, long long *pow2, const char **why)
{
	int ni = !k->ninst || k->is_device ? 1 : k->ninst;
	*len = *pow2 = 0;
	for (int i = 0; i < ni; i++) {
		const long long *iv = !k->ninst || k->is_device ? NULL : k->inst_values[i];
		long long n = dim_of(k, d, d->ndims - 1, iv);
		if (n <= 0) {
			*why = "the length of its rows is not known";
			return -1;
		}
		if (n % unit) {
			*why = kp_arena_printf(
				&f->arena, "its rows of %lld element%s are not whole units of %lld",
				n, n == 1 ? "" : "s", unit);
			return -1;
		}
		long long p = n & -n;
		if (!*len || n < *len)
			*len = n;
		if (!*pow2 || p < *pow2)
			*pow2 = p;
	}
	return 0;
}

int kp_bk_swizzle_choose(kp_file *f, const kp_kernel *k, const kp_bk_block *b, const kp_decl *d,
			 long long unit, kp_bk_swizzle *best, int *worst, int *sum,
			 const char **why, int *line)
{
	long long esz = d->elem_size, len, pow2;
	*why = NULL;
	*line = 0;
	memset(best, 0, sizeof(*best));
	*worst = *sum = 0;
	if (d->ndims < 2 || esz <= 0 || unit <= 0 || (unit & (unit - 1))) {
		*why = d->ndims < 2 ? "it has no rows" : "its element size is not known";
		return -1;
	}
	if (row_units(f, k, d, unit, &len, &pow2, why))
		return -1;
	if (pow2 < 2 * unit) {
		*why = kp_arena_printf(&f->arena,
				       "its rows of %lld elements hold no power-of-two block of at "
				       "least two %lld-element units for the XOR to permute",
				       len, unit);
		return -1;
	}
	const kp_bk_access *split = NULL;
	int found = 0, nacc = 0;
	for (int bits = 1; bits <= 5; bits++)
		for (long long u = unit; (u << bits) <= pow2 && (u << bits) * esz <= 128; u *= 2)
			for (int sh = 0; sh <= 3; sh++) {
				kp_bk_layout lay = {d, 0, {u, (1 << bits) - 1, sh}};
				kp_bk_result r;
				kp_bk_analyze_layout(f, k, b, &lay, &r);
				const kp_bk_access *sp = NULL;
				nacc = 0;
				for (int i = 0; i < r.n && !sp; i++)
					if (r.acc[i].arr == d) {
						sp = r.acc[i].swz_split ? &r.acc[i] : NULL;
						nacc += !r.acc[i].not_analysed;
					}
				if (sp) {
					split = split ? split : sp;
					continue;
				}
				int s, wst = kp_bk_worst(&r, d, &s);
				if (!found || wst < *worst || (wst == *worst && s < *sum)) {
					*best = lay.swz;
					*worst = wst;
					*sum = s;
					found = 1;
				}
				if (*worst <= 1 && *sum <= nacc)
					return 0; /* every access conflict-free: nothing beats it */
			}
	if (found)
		return 0;
	if (split) {
		*line = split->line;
		if (split->wmma)
			*why = kp_arena_printf(&f->arena,
					       "a wmma %s takes a pointer and a leading dimension, "
					       "whose rows no swizzle of the column index reaches",
					       split->store ? "store" : "load");
		else if (split->swz_split == 2)
			*why = "an index reaches past the end of its row (or before its start)";
		else
			*why = kp_arena_printf(&f->arena,
					       "an access of %d bytes per lane would leave its "
					       "%lld-element unit",
					       split->width, unit);
		return -1;
	}
	*why = "its rows are too short to swizzle";
	return -1;
}

/* ------------------------------------------------------------ findings */

const char *kp_bk_finding(kp_file *f, const kp_bk_access *x, const char **id)
{
	if (x->not_analysed)
		return NULL;
	const kp_node *wn = x->ldmatrix ? x->addr : x->node;
	const char *what = wn && wn->in_main ? kp_node_text(f, wn) : NULL;
	if (!what || !*what || !wn || wn->from_macro)
		what = kp_arena_printf(&f->arena, "%s[...]", x->arr->name);
	if (x->space == KP_BK_SHARED && x->degree > 1) {
		*id = "kpipe-bank-conflict";
		kp_strbuf sb = KP_STRBUF_INIT;
		int n = 0;
		for (int L = 0; L < 32; L++)
			if (x->lanes & (1u << L)) {
				if (n++ == 8) {
					kp_strbuf_adds(&sb, ",...");
					break;
				}
				kp_strbuf_addf(&sb, "%s%d", n > 1 ? "," : "", L);
			}
		const char *how =
			x->ldmatrix ? kp_arena_printf(&f->arena,
						      "ldmatrix.x%d of shared `%s`, 8 rows of 16 "
						      "bytes per phase",
						      x->ldmatrix, x->arr->name)
			: x->wmma   ? kp_arena_printf(&f->arena,
						      "wmma load of a %s fragment from shared `%s`, "
							"rows %lld bytes apart read as 8 rows of 16 "
							"bytes per phase",
						      x->frag, x->arr->name, x->row_stride)
				  : kp_arena_printf(&f->arena, "%s shared `%s`, %d bytes per lane",
						    x->store ? "store to" : "load of", x->arr->name,
						    x->width);
		const char *r = kp_arena_printf(
			&f->arena, "`%s` (%s): lanes %s hit bank %d: %d-way bank conflict", what,
			how, kp_strbuf_str(&sb), x->bank, x->degree);
		kp_strbuf_release(&sb);
		return r;
	}
	if (x->space == KP_BK_GLOBAL && x->sectors > x->ideal) {
		*id = "kpipe-uncoalesced";
		return kp_arena_printf(&f->arena,
				       "`%s` (%s `%s`, %d bytes per lane): %d sectors of 32 bytes "
				       "per warp request, %d would do",
				       what, x->store ? "store through" : "load through",
				       x->arr->name, x->width, x->sectors, x->ideal);
	}
	return NULL;
}
