/*
 * copy_box.c - the element-set proof that a copy loop fills one 2-D box
 * of its tile: copy_box.h.
 */
#include "copy_box.h"

#include "banks.h"
#include "changes.h"
#include "elem_cover.h"

#include <stdlib.h>
#include <string.h>

enum { CB_BIND = 8, CB_STEPS = 1 << 22 };

/* ------------------------------------------------ polynomials */

static int mono_cmp(const kp_cb_mono *a, const kp_cb_mono *b)
{
	if (a->deg != b->deg)
		return a->deg - b->deg;
	for (int i = 0; i < a->deg; i++)
		if (a->a[i] != b->a[i])
			return (int)a->a[i] - (int)b->a[i];
	return 0;
}

/* Adds s * m to p; -1 when p would hold too many monomials. */
static int poly_addm(kp_cb_poly *p, const kp_cb_mono *m, long long s)
{
	if (!m->k || !s)
		return 0;
	int i = 0;
	while (i < p->n && mono_cmp(&p->m[i], m) < 0)
		i++;
	if (i < p->n && !mono_cmp(&p->m[i], m)) {
		p->m[i].k += s * m->k;
		if (!p->m[i].k) {
			memmove(&p->m[i], &p->m[i + 1], (size_t)(p->n - i - 1) * sizeof(*m));
			p->n--;
		}
		return 0;
	}
	if (p->n == KP_CB_MONOS)
		return -1;
	memmove(&p->m[i + 1], &p->m[i], (size_t)(p->n - i) * sizeof(*m));
	p->m[i] = *m;
	p->m[i].k *= s;
	p->n++;
	return 0;
}

static kp_cb_poly poly_const(long long v)
{
	kp_cb_poly p = {0};
	kp_cb_mono m = {v, 0, {0}};
	poly_addm(&p, &m, 1);
	return p;
}

static int poly_is_const(const kp_cb_poly *p, long long *v)
{
	if (p->n > 1 || (p->n == 1 && p->m[0].deg))
		return 0;
	*v = p->n ? p->m[0].k : 0;
	return 1;
}

static int poly_add(kp_cb_poly *out, const kp_cb_poly *a, const kp_cb_poly *b, long long s)
{
	kp_cb_poly p = *a;
	for (int i = 0; i < b->n; i++)
		if (poly_addm(&p, &b->m[i], s))
			return -1;
	*out = p;
	return 0;
}

static int poly_mul(kp_cb_poly *out, const kp_cb_poly *a, const kp_cb_poly *b)
{
	kp_cb_poly p = {0};
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++) {
			const kp_cb_mono *x = &a->m[i], *y = &b->m[j];
			if (x->deg + y->deg > KP_CB_DEG)
				return -1;
			kp_cb_mono m = {x->k * y->k, x->deg + y->deg, {0}};
			/* merge the sorted atom lists */
			int u = 0, v = 0, w = 0;
			while (u < x->deg || v < y->deg)
				m.a[w++] = v >= y->deg || (u < x->deg && x->a[u] <= y->a[v])
						   ? x->a[u++]
						   : y->a[v++];
			if (poly_addm(&p, &m, 1))
				return -1;
		}
	*out = p;
	return 0;
}

static int poly_eq(const kp_cb_poly *a, const kp_cb_poly *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->m[i].k != b->m[i].k || mono_cmp(&a->m[i], &b->m[i]))
			return 0;
	return 1;
}

char *kp_cb_poly_text(const kp_cbox *b, const kp_cb_poly *p,
		      char *(*text)(void *ud, const kp_node *atom), void *ud)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, "(");
	if (!p->n)
		kp_strbuf_adds(&sb, "0LL");
	for (int i = 0; i < p->n; i++) {
		const kp_cb_mono *m = &p->m[i];
		if (i)
			kp_strbuf_adds(&sb, m->k < 0 ? " - " : " + ");
		else if (m->k < 0)
			kp_strbuf_adds(&sb, "-");
		long long k = m->k < 0 ? -m->k : m->k;
		if (k != 1 || !m->deg)
			kp_strbuf_addf(&sb, "%lldLL", k);
		for (int j = 0; j < m->deg; j++) {
			char *t = text(ud, b->atom[m->a[j]]);
			kp_strbuf_addf(&sb, "%s(long long)(%s)", j || k != 1 ? " * " : "", t);
			free(t);
		}
	}
	kp_strbuf_adds(&sb, ")");
	return kp_strbuf_detach(&sb);
}

/* ------------------------------------------------ evaluation */

typedef struct {
	kp_file *f;
	const kp_loop *l;
	kp_cbox *box;
	int tid[3];
	const kp_decl *bd[CB_BIND]; /* the copy loops' counters bound now */
	long long bv[CB_BIND];
	int nb, depth;
	long long steps;
	const char *why;
} cb;

static int fail(cb *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return -1;
}

static int sym(cb *c, const kp_node *n, kp_cb_poly *out);

/* The atom for the uniform value n names (decl d, or builtin b.comp). */
static int atom_of(cb *c, const kp_node *n, const kp_decl *d, const char *b, int comp,
		   kp_cb_poly *out)
{
	kp_cbox *x = c->box;
	int id = -1;
	for (int i = 0; i < x->natoms && id < 0; i++) {
		const kp_node *a = x->atom[i];
		if (d ? a->kind == KP_N_DECLREF && a->decl == d : a->kind == KP_N_MEMBER) {
			int ac;
			const char *ab = d ? NULL : kp_node_builtin(c->f, a, 1, &ac);
			if (d || (ab && !strcmp(ab, b) && ac == comp))
				id = i;
		}
	}
	if (id < 0) {
		if (x->natoms == KP_CB_ATOMS)
			return fail(c, "reads more uniform values than kpipe follows");
		id = x->natoms++;
		x->atom[id] = n;
	}
	*out = (kp_cb_poly){0};
	kp_cb_mono m = {1, 1, {(unsigned char)id}};
	poly_addm(out, &m, 1);
	return 0;
}

static int wide_int(const kp_node *n)
{
	return n->type_size >= 4 && (n->ty.kind == KP_TY_SINT || n->ty.kind == KP_TY_UINT);
}

static int sym_ref(cb *c, const kp_node *n, kp_cb_poly *out)
{
	const kp_decl *d = n->decl;
	long long v;
	for (int i = c->nb - 1; i >= 0; i--)
		if (c->bd[i] == d) {
			*out = poly_const(c->bv[i]);
			return 0;
		}
	if (!kp_eval(n, c->l->kernel, NULL, &v)) {
		*out = poly_const(v);
		return 0;
	}
	if (!d)
		return fail(c, "names something kpipe cannot see");
	if (d->kind == KP_D_PARM && !d->is_pointer && wide_int(n) &&
	    !kp_assigned_in(c->l->kernel, d))
		return atom_of(c, n, d, NULL, 0, out);
	for (int i = 0; i < c->l->nind; i++)
		if (c->l->ind[i].var == d && !c->l->ind[i].is_pointer && wide_int(n) &&
		    n->begin >= c->l->body->begin && n->end <= c->l->body->end)
			return atom_of(c, n, d, NULL, 0, out);
	/* a local of the kernel (a __device__ variable may change from the
	 * host or another kernel) */
	if (d->kind == KP_D_VAR && !d->is_shared && !d->is_device_var && !d->is_array &&
	    !d->is_pointer && !d->ty.is_ref && d->init && !kp_changed_in(c->f, c->l->kernel, d) &&
	    c->depth < 24) {
		c->depth++;
		int r = sym(c, d->init, out);
		c->depth--;
		return r;
	}
	return fail(c,
		    kp_arena_printf(&c->f->arena,
				    "reads '%s', which kpipe does not follow (an integer parameter "
				    "the kernel never changes, the K-loop's counter, or a local "
				    "nothing changes after its initialiser)",
				    d->name ? d->name : "?"));
}

static int sym_binop(cb *c, const kp_node *n, kp_cb_poly *out)
{
	kp_cb_poly a, b;
	long long x, y;
	if (n->nkids != 2 || sym(c, n->kids[0], &a) || sym(c, n->kids[1], &b))
		return -1;
	switch (n->opk) {
	case KP_OP_ADD:
	case KP_OP_PLUS:
	case KP_OP_SUB:
	case KP_OP_MINUS:
		if (poly_add(out, &a, &b, n->op && n->op[0] == '-' ? -1 : 1))
			return fail(c, "has an index with too many terms");
		return 0;
	case KP_OP_MUL:
	case KP_OP_DEREF:
		if (poly_mul(out, &a, &b))
			return fail(c, "has an index with too many terms");
		return 0;
	default: break;
	}
	if (!poly_is_const(&a, &x) || !poly_is_const(&b, &y))
		return fail(c, kp_arena_printf(&c->f->arena,
					       "computes '%s' from a value that is not known for "
					       "each thread and trip (only + - * are followed on "
					       "those)",
					       kp_node_text(c->f, n)));
	long long v;
	switch (n->opk) {
	case KP_OP_DIV:
	case KP_OP_REM:
		if (!y)
			return fail(c, "divides by zero");
		v = n->opk == KP_OP_DIV ? x / y : x % y;
		break;
	case KP_OP_SHL:
	case KP_OP_SHR:
		if (y < 0 || y > 62)
			return fail(c, "shifts by more than the width");
		v = n->opk == KP_OP_SHL ? (long long)((unsigned long long)x << y) : x >> y;
		break;
	case KP_OP_AND:
	case KP_OP_ADDR: v = x & y; break;
	case KP_OP_OR: v = x | y; break;
	case KP_OP_XOR: v = x ^ y; break;
	case KP_OP_LT: v = x < y; break;
	case KP_OP_GT: v = x > y; break;
	case KP_OP_LE: v = x <= y; break;
	case KP_OP_GE: v = x >= y; break;
	case KP_OP_EQ: v = x == y; break;
	case KP_OP_NE: v = x != y; break;
	case KP_OP_LAND: v = x && y; break;
	case KP_OP_LOR: v = x || y; break;
	default: return fail(c, "uses an operator kpipe does not evaluate here");
	}
	*out = poly_const(v);
	return 0;
}

static int sym(cb *c, const kp_node *n, kp_cb_poly *out)
{
	if (!n)
		return fail(c, "has a part kpipe cannot see");
	long long v;
	int comp;
	switch (n->kind) {
	case KP_N_PAREN:
		if (n->nkids == 1)
			return sym(c, n->kids[0], out);
		break;
	case KP_N_CAST:
		if (n->nkids != 1)
			break;
		if (!wide_int(n))
			return fail(c, "converts an index to a type that is not a wide integer");
		return sym(c, n->kids[0], out);
	case KP_N_OTHER:
		if (n->nkids == 1)
			return sym(c, n->kids[0], out);
		break;
	case KP_N_INTLIT:
		if (n->has_value) {
			*out = poly_const(n->ivalue);
			return 0;
		}
		break;
	case KP_N_DECLREF: return sym_ref(c, n, out);
	case KP_N_MEMBER: {
		const char *b = kp_node_builtin(c->f, n, 1, &comp);
		if (!b || comp < 0)
			break;
		if (!strcmp(b, "threadIdx")) {
			*out = poly_const(c->tid[comp]);
			return 0;
		}
		if (!strcmp(b, "blockDim")) {
			*out = poly_const(c->box->block[comp]);
			return 0;
		}
		return atom_of(c, n, NULL, b, comp, out);
	}
	case KP_N_BINOP: return sym_binop(c, n, out);
	case KP_N_UNOP:
		if (n->nkids != 1)
			break;
		if (n->opk == KP_OP_PLUS || n->opk == KP_OP_ADD)
			return sym(c, n->kids[0], out);
		if (n->opk == KP_OP_MINUS || n->opk == KP_OP_SUB) {
			kp_cb_poly a, z = {0};
			if (sym(c, n->kids[0], &a))
				return -1;
			return poly_add(out, &z, &a, -1);
		}
		break;
	case KP_N_CONDOP: {
		kp_cb_poly a;
		if (n->nkids != 3 || sym(c, n->kids[0], &a))
			return -1;
		if (!poly_is_const(&a, &v))
			return fail(c, "chooses by a condition that is not known for each thread");
		return sym(c, n->kids[v ? 1 : 2], out);
	}
	default: break;
	}
	if (!kp_eval(n, c->l->kernel, NULL, &v)) {
		*out = poly_const(v);
		return 0;
	}
	return fail(c, kp_arena_printf(&c->f->arena, "holds '%s', which kpipe does not evaluate",
				       kp_node_text(c->f, n)));
}

/* n evaluated to a number at this point, or -1. */
static int num(cb *c, const kp_node *n, long long *v, const char *what)
{
	kp_cb_poly p;
	if (sym(c, n, &p))
		return -1;
	if (!poly_is_const(&p, v))
		return fail(c, kp_arena_printf(&c->f->arena,
					       "%s '%s' is not a number for each thread and trip",
					       what, kp_node_text(c->f, n)));
	return 0;
}

/* ------------------------------------------------ the copy loops */

static int next_value(cb *c, const kp_node *inc, const kp_decl *ctr, long long *v)
{
	inc = kp_node_strip(inc);
	long long s;
	if (!inc || !inc->nkids || !kp_ec_refers_to(inc->kids[0], ctr))
		return fail(c, "has a copy loop whose increment is not of its counter");
	if (inc->kind == KP_N_UNOP && KP_OP_IS_INCDEC(inc->opk)) {
		*v += inc->opk == KP_OP_PRE_INC || inc->opk == KP_OP_POST_INC ? 1 : -1;
		return 0;
	}
	if (inc->nkids != 2 || num(c, inc->kids[1], &s, "the copy loop's step"))
		return -1;
	if (inc->kind == KP_N_ASSIGNOP && inc->opk == KP_OP_ADD_ASSIGN)
		*v += s;
	else if (inc->kind == KP_N_ASSIGNOP && inc->opk == KP_OP_SUB_ASSIGN)
		*v -= s;
	else if (inc->kind == KP_N_BINOP && inc->opk == KP_OP_ASSIGN)
		*v = s;
	else
		return fail(c, "has a copy loop whose increment kpipe does not evaluate");
	return 0;
}

/* What the enumeration records: per element of the tile, how many
 * copies write it, the first writer and the global index it reads. */
typedef struct {
	cb *c;
	const kp_load *ld;
	const kp_node *tidx[2]; /* the tile's subscripts, row first */
	const kp_node *gidx;    /* the global index */
	long long w;            /* elements per copy */
	unsigned char *count;
	int *writer; /* the linear thread index of the first writer */
	kp_cb_poly *g;
	/* the guard's terms: a OP b read as sign * (a - b) < 0 (<= 0) */
	const kp_node *term[KP_CB_TERMS];
	int nterms, sign[KP_CB_TERMS], seen;
} rec;

static int visit(rec *r)
{
	cb *c = r->c;
	kp_cbox *b = c->box;
	long long row, col;
	kp_cb_poly g;
	if (num(c, r->tidx[0], &row, "the tile's row index") ||
	    num(c, r->tidx[1], &col, "the tile's column index") || sym(c, r->gidx, &g))
		return -1;
	int t = c->tid[0] + b->block[0] * (c->tid[1] + b->block[1] * c->tid[2]);
	for (int i = 0; i < r->nterms; i++) {
		const kp_node *n = r->term[i];
		kp_cb_poly x, y, d;
		if (sym(c, n->kids[0], &x) || sym(c, n->kids[1], &y))
			return -1;
		if (poly_add(&d, &x, &y, -1))
			return fail(c, "has a guard with too many terms");
		/* d's number apart: k; the rest must be the same everywhere */
		long long k = 0;
		kp_cb_poly u = {0};
		for (int j = 0; j < d.n; j++) {
			if (!d.m[j].deg)
				k = d.m[j].k * r->sign[i];
			else
				poly_addm(&u, &d.m[j], r->sign[i]);
		}
		kp_cb_term *bt = &b->term[i];
		if (!r->seen) {
			bt->u = u;
			bt->kmax = k;
		} else if (!poly_eq(&u, &bt->u))
			return fail(
				c, kp_arena_printf(&c->f->arena,
						   "the guard's term '%s' differs between the "
						   "elements by more than a number (not decided by "
						   "one test per tile)",
						   kp_node_text(c->f, n)));
		else if (k > bt->kmax)
			bt->kmax = k;
	}
	r->seen = 1;
	if (row < 0 || row >= b->rows || col < 0 || col + r->w > b->cols)
		return fail(c, kp_arena_printf(&c->f->arena,
					       "thread %d writes '%s[%lld][%lld]'%s, outside the "
					       "tile's %lld x %lld",
					       t, b->tile->name, row, col,
					       r->w > 1 ? " and the elements after it" : "",
					       b->rows, b->cols));
	for (long long j = 0; j < r->w; j++) {
		long long e = row * b->cols + col + j;
		if (r->count[e]++) {
			return fail(c,
				    kp_arena_printf(&c->f->arena,
						    "'%s[%lld][%lld]' is written twice (by thread "
						    "%d and by thread %d): the copies do not write "
						    "each element once",
						    b->tile->name, row, col + j, r->writer[e], t));
		}
		r->writer[e] = t;
		kp_cb_poly one = poly_const(j);
		if (poly_add(&r->g[e], &g, &one, 1))
			return fail(c, "has an index with too many terms");
	}
	return 0;
}

static int walk_loops(rec *r, int k)
{
	cb *c = r->c;
	const kp_load *ld = r->ld;
	if (k == ld->depth)
		return visit(r);
	const kp_node *lp = ld->loops[k], *first = NULL;
	const kp_decl *ctr = lp->kind == KP_N_FOR ? kp_ec_counter_of(lp, &first) : NULL;
	if (!ctr || !lp->for_cond || !lp->for_inc || !lp->for_body || c->nb >= CB_BIND)
		return fail(c, "is in a copy loop that is no counted for loop");
	if (kp_ec_body_changes(lp->for_body, ctr))
		return fail(c, "is in a copy loop whose body changes its counter");
	long long v;
	if (num(c, first, &v, "the copy loop's first value"))
		return -1;
	int slot = c->nb++, rc = 0;
	c->bd[slot] = ctr;
	for (;;) {
		long long go;
		c->bv[slot] = v;
		if ((rc = num(c, lp->for_cond, &go, "the copy loop's condition")) || !go)
			break;
		if (++c->steps > CB_STEPS) {
			rc = fail(c, "is in copy loops too long to enumerate");
			break;
		}
		if ((rc = walk_loops(r, k + 1)) || (rc = next_value(c, lp->for_inc, ctr, &v)))
			break;
	}
	c->nb--;
	return rc;
}

/* n with casts, parentheses, `*&`, `&x` and `(...)[0]` of a vector
 * reinterpretation looked through: the element access it starts at. */
static const kp_node *elem_access(const kp_kernel *k, const kp_node *n)
{
	for (int guard = 0; n && guard < 16; guard++) {
		n = kp_node_strip(n);
		while (n && n->kind == KP_N_OTHER && n->nkids == 1)
			n = kp_node_strip(n->kids[0]);
		if (!n)
			return NULL;
		if (n->kind == KP_N_UNOP && n->nkids == 1 &&
		    (n->opk == KP_OP_DEREF || n->opk == KP_OP_ADDR)) {
			n = n->kids[0];
			continue;
		}
		if (n->kind == KP_N_SUBSCRIPT && n->nkids == 2) {
			const kp_node *base = kp_node_strip(n->kids[0]);
			long long z;
			if (base && base->kind == KP_N_UNOP && base->opk == KP_OP_ADDR &&
			    !kp_eval(n->kids[1], k, NULL, &z) && z == 0) {
				n = base;
				continue;
			}
		}
		return n;
	}
	return NULL;
}

/* A subscript chain of a DECLREF: its root, the subscripts outermost
 * first in idx[0..*nidx). */
static const kp_decl *chain_of(const kp_node *n, const kp_node **idx, int max, int *nidx,
			       const kp_node **root)
{
	const kp_node *rev[8];
	int k = 0;
	while (n && n->kind == KP_N_SUBSCRIPT && n->nkids == 2 && k < 8) {
		rev[k++] = n->kids[1];
		n = kp_node_strip(n->kids[0]);
	}
	if (!n || n->kind != KP_N_DECLREF || !n->decl || k > max)
		return NULL;
	for (int i = 0; i < k; i++)
		idx[i] = rev[k - 1 - i];
	*nidx = k;
	*root = n;
	return n->decl;
}

/* ------------------------------------------------ the proof */

/* A jump (break, continue, return, goto) in a copy loop: the copies it
 * skips are not the enumeration's. */
static int find_jump(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	const kp_node **hit = ud;
	if (!*hit && (n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE || n->kind == KP_N_RETURN ||
		      n->kind == KP_N_GOTO))
		*hit = n;
	return !*hit;
}

/* A store to the tile, or a call or asm statement naming it, outside the
 * loop's copies of it: the padding columns a tensor copy fills might be
 * written or read there. */
typedef struct {
	const kp_loop *l;
	const kp_decl *tile;
	int line;
} other_walk;

static int inside_copy(const other_walk *w, const kp_node *n)
{
	for (int i = 0; i < w->l->nloads; i++) {
		const kp_node *s = w->l->loads[i].stmt;
		if (w->l->loads[i].tile == w->tile && s && n->begin >= s->begin && n->end <= s->end)
			return 1;
	}
	return 0;
}

static int find_other(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	other_walk *w = ud;
	if (w->line || inside_copy(w, n))
		return !w->line;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	kp_node *r = t ? kp_lvalue_root(t) : NULL;
	int hit = r && r->decl == w->tile;
	if (!hit && (n->kind == KP_N_ASM ||
		     (n->kind == KP_N_CALL && !strstr(kp_call_name(n), "load_matrix_sync"))))
		hit = kp_node_names_decl(n, w->tile);
	if (hit)
		w->line = n->line > 0 ? n->line : 1;
	return !w->line;
}

/* The row stride ld (a polynomial) as ldk or ldk * an integer parameter. */
static const char *stride_form(cb *c, const kp_cb_poly *ld)
{
	kp_cbox *b = c->box;
	long long v;
	b->ldd = NULL;
	if (poly_is_const(ld, &v)) {
		b->ldk = v;
		return v > 0 ? NULL : "the rows of the box are not in increasing order in memory";
	}
	if (ld->n == 1 && ld->m[0].deg == 1 && ld->m[0].k > 0) {
		const kp_node *a = b->atom[ld->m[0].a[0]];
		if (a->kind == KP_N_DECLREF && a->decl && a->decl->kind == KP_D_PARM) {
			b->ldk = ld->m[0].k;
			b->ldd = a->decl;
			return NULL;
		}
	}
	return "its row stride is neither a positive constant nor a constant times an integer "
	       "parameter of the kernel (the launcher makes the tensor map from it)";
}

/* base split as bx + ldd * by (b->ldd set), or -1. */
static int split_base(kp_cbox *b)
{
	int id = -1;
	for (int i = 0; i < b->natoms; i++)
		if (b->atom[i]->kind == KP_N_DECLREF && b->atom[i]->decl == b->ldd)
			id = i;
	memset(&b->bx, 0, sizeof(b->bx));
	memset(&b->by, 0, sizeof(b->by));
	for (int i = 0; i < b->base.n; i++) {
		kp_cb_mono m = b->base.m[i];
		int at = -1, again = 0;
		for (int j = 0; j < m.deg; j++)
			if (m.a[j] == id)
				again += at >= 0, at = at < 0 ? j : at;
		if (at < 0) {
			poly_addm(&b->bx, &m, 1);
			continue;
		}
		if (again || m.k % b->ldk)
			return -1;
		memmove(&m.a[at], &m.a[at + 1], (size_t)(m.deg - at - 1));
		m.deg--;
		m.k /= b->ldk;
		poly_addm(&b->by, &m, 1);
	}
	return 0;
}

/* p as a message shows it: "K + k0 + 64 * blockIdx.x * K". */
static const char *poly_src(cb *c, const kp_cb_poly *p)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (!p->n)
		kp_strbuf_adds(&sb, "0");
	for (int i = 0; i < p->n; i++) {
		const kp_cb_mono *m = &p->m[i];
		long long k = m->k < 0 ? -m->k : m->k;
		kp_strbuf_adds(&sb, i ? (m->k < 0 ? " - " : " + ") : (m->k < 0 ? "-" : ""));
		if (k != 1 || !m->deg)
			kp_strbuf_addf(&sb, "%lld", k);
		for (int j = 0; j < m->deg; j++) {
			const char *t = kp_node_text(c->f, c->box->atom[m->a[j]]);
			kp_strbuf_addf(&sb, "%s%s", j || k != 1 ? " * " : "", t ? t : "?");
		}
	}
	const char *r = kp_arena_strdup(&c->f->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return r;
}

/* Every element of the first `width` columns once, none after, each read
 * from base + r * ld + c. */
static const char *check_box(cb *c, rec *r)
{
	kp_cbox *b = c->box;
	kp_arena *ar = &c->f->arena;
	long long w = 0;
	while (w < b->cols && r->count[w])
		w++;
	if (!w)
		return kp_arena_printf(ar, "'%s[0][0]' is written by no copy", b->tile->name);
	for (long long i = 0; i < b->rows; i++)
		for (long long j = 0; j < b->cols; j++)
			if ((j < w) != (r->count[i * b->cols + j] != 0))
				return j < w ? kp_arena_printf(ar,
							       "'%s[%lld][%lld]' is written by no "
							       "copy: the copies do not fill the "
							       "tile's first %lld columns",
							       b->tile->name, i, j, w)
					     : kp_arena_printf(
						       ar,
						       "'%s[%lld][%lld]' is written but "
						       "'%s[0][%lld]' is not: the copies do "
						       "not fill a box of whole rows",
						       b->tile->name, i, j, b->tile->name, j);
	if (w * b->elt % 16)
		return kp_arena_printf(ar,
				       "the copies fill %lld columns of '%s' (%lld bytes; a tensor "
				       "copy's box rows are multiples of 16 bytes)",
				       w, b->tile->name, w * b->elt);
	if (b->rows < 2)
		return kp_arena_printf(ar, "'%s' has one row (not done for the tensor-map form)",
				       b->tile->name);
	b->width = w;
	b->base = r->g[0];
	kp_cb_poly ld;
	if (poly_add(&ld, &r->g[b->cols], &b->base, -1))
		return "the row stride has too many terms";
	for (long long i = 0; i < b->rows; i++)
		for (long long j = 0; j < w; j++) {
			kp_cb_poly want, ri = poly_const(i), cj = poly_const(j), t;
			if (poly_mul(&t, &ld, &ri) || poly_add(&want, &b->base, &t, 1) ||
			    poly_add(&want, &want, &cj, 1))
				return "the global indices have too many terms";
			const kp_cb_poly *got = &r->g[i * b->cols + j];
			if (!poly_eq(got, &want))
				return kp_arena_printf(
					ar,
					"'%s[%lld][%lld]' reads the global index %s where one box "
					"would read %s (the index of '%s[0][0]' plus %lld rows of "
					"%s and %lld columns): the copies are transposed or "
					"scattered",
					b->tile->name, i, j, poly_src(c, got), poly_src(c, &want),
					b->tile->name, i, poly_src(c, &ld), j);
		}
	const char *why = stride_form(c, &ld);
	if (why)
		return why;
	if (b->ldd && split_base(b))
		return kp_arena_printf(ar,
				       "the global index of '%s[0][0]' (%s) is not a column plus "
				       "a multiple of the row stride kpipe can split",
				       b->tile->name, poly_src(c, &b->base));
	if (w < b->cols) {
		other_walk ow = {c->l, b->tile, 0};
		kp_node_walk(c->l->kernel->body, NULL, find_other, &ow);
		if (ow.line)
			return kp_arena_printf(
				ar,
				"the copies fill %lld of the %lld columns of '%s' and "
				"line %d writes it or hands it to a call: the tensor "
				"copy also fills the padding columns",
				w, b->cols, b->tile->name, ow.line);
	}
	return NULL;
}

/* n and its one-child wrappers have a signed integer type (an unsigned
 * comparison may wrap around inside the box). */
static int signed_int(const kp_node *n)
{
	for (; n; n = n->nkids == 1 ? n->kids[0] : NULL) {
		if (n->ty.kind != KP_TY_SINT)
			return 0;
		if (n->kind != KP_N_PAREN && n->kind != KP_N_OTHER)
			break;
	}
	return 1;
}

/* The terms of guard n (an && chain of <, <=, >, >= on signed values)
 * into r, or why not. */
static const char *guard_terms(kp_file *f, const kp_node *n, rec *r, kp_cbox *b)
{
	while (n && (n->kind == KP_N_PAREN || (n->kind == KP_N_OTHER && n->nkids == 1)))
		n = n->kids[0];
	if (n && n->kind == KP_N_BINOP && n->opk == KP_OP_LAND && n->nkids == 2) {
		const char *why = guard_terms(f, n->kids[0], r, b);
		return why ? why : guard_terms(f, n->kids[1], r, b);
	}
	int rel = n && n->kind == KP_N_BINOP && n->nkids == 2 &&
		  (n->opk == KP_OP_LT || n->opk == KP_OP_LE || n->opk == KP_OP_GT ||
		   n->opk == KP_OP_GE);
	const char *t = n ? kp_node_text(f, n) : "?";
	if (!rel)
		return kp_arena_printf(&f->arena,
				       "the guard's term '%s' is not a comparison (<, <=, >, >=); "
				       "the tensor-map form tests a copy loop's guard as a "
				       "conjunction of those",
				       t);
	if (!signed_int(n->kids[0]) || !signed_int(n->kids[1]))
		return kp_arena_printf(&f->arena,
				       "the guard's term '%s' compares values that are not signed "
				       "integers (they may wrap around inside the box)",
				       t);
	if (r->nterms == KP_CB_TERMS)
		return "the guard has too many terms";
	r->sign[r->nterms] = n->opk == KP_OP_LT || n->opk == KP_OP_LE ? 1 : -1;
	b->term[r->nterms].strict = n->opk == KP_OP_LT || n->opk == KP_OP_GT;
	r->term[r->nterms++] = n;
	return NULL;
}

/* The terms the fill must test: a term without uniform values is true at
 * every element (dropped) or refuses. */
static const char *decide_terms(cb *c, rec *r)
{
	kp_cbox *b = c->box;
	int n = 0;
	for (int i = 0; i < r->nterms; i++) {
		kp_cb_term *t = &b->term[i];
		if (t->u.n) {
			b->term[n++] = *t;
			continue;
		}
		if (t->strict ? t->kmax >= 0 : t->kmax > 0)
			return kp_arena_printf(&c->f->arena,
					       "the guard's term '%s' is false for some element in "
					       "every tile (the copies store zeros there)",
					       kp_node_text(c->f, r->term[i]));
	}
	b->nterms = n;
	return NULL;
}

const char *kp_cb_prove(kp_file *f, const kp_loop *l, const kp_load *ld, kp_cbox *out)
{
	kp_arena *ar = &f->arena;
	memset(out, 0, sizeof(*out));
	const kp_decl *t = ld->tile;
	if (ld->nunder)
		return "the copy in the copy loop is under a condition (not done for the "
		       "tensor-map form)";
	if (ld->guard != KP_G_NONE && !ld->cond)
		return "the copy's guard is not visible to kpipe";
	if (ld->guard_inverted)
		return "the copy loads in its guard's else branch (not done for the tensor-map "
		       "form)";
	if (ld->tmp_decl)
		return "the copy goes through a temporary";
	if (ld->depth > 4)
		return "the copy is in more than 4 copy loops";
	const kp_node *jump = NULL;
	if (ld->depth)
		kp_node_walk(ld->loops[0], NULL, find_jump, &jump);
	if (jump)
		return kp_arena_printf(
			ar,
			"line %d: the copy loop holds a break, continue, return or "
			"goto (line %d): which copies run is not its counters' alone",
			ld->line, jump->line);
	if (t->ndims != 2 || t->dims[0] <= 0 || t->dims[1] <= 0 || t->elem_size <= 0)
		return kp_arena_printf(ar, "'%s' is not a two-dimensional array of constant bounds",
				       t->name);
	if (t->dims[0] > 256 || t->dims[1] > 256)
		return kp_arena_printf(ar,
				       "'%s' is over 256 elements on a side (a tensor copy's box "
				       "is at most 256 x 256)",
				       t->name);
	if (t->dims[1] * t->elem_size % 16)
		return kp_arena_printf(ar,
				       "a row of '%s' is %lld bytes; a tensor copy's box rows are "
				       "multiples of 16 bytes",
				       t->name, t->dims[1] * t->elem_size);
	if (ld->bytes <= 0 || ld->bytes % t->elem_size)
		return kp_arena_printf(ar, "the copy moves %lld bytes, not whole elements of '%s'",
				       ld->bytes, t->name);
	out->tile = t;
	out->rows = t->dims[0];
	out->cols = t->dims[1];
	out->elt = t->elem_size;
	kp_analyze_opts o;
	kp_bk_block bb;
	memset(&o, 0, sizeof(o));
	kp_bk_block_of(f, l->kernel, &o, &bb);
	if (bb.x <= 0 || (long long)bb.x * (bb.y > 0 ? bb.y : 1) * (bb.z > 0 ? bb.z : 1) > 1024)
		return "no block shape is known for the kernel (a launch with a constant block, "
		       "or __launch_bounds__): the copies are proven for one";
	if (bb.z > 1)
		return "the block is three-dimensional (not done for the tensor-map form)";
	out->block[0] = bb.x;
	out->block[1] = bb.y > 0 ? bb.y : 1;
	out->block[2] = bb.z > 0 ? bb.z : 1;
	out->block_from = bb.from;

	const kp_node *lidx[2], *gidx[2], *lroot, *groot;
	int nl = 0, ng = 0;
	const kp_decl *ldecl = chain_of(elem_access(l->kernel, ld->lhs), lidx, 2, &nl, &lroot);
	const kp_node *gacc = elem_access(l->kernel, ld->rhs);
	const kp_decl *gdecl = chain_of(gacc, gidx, 1, &ng, &groot);
	if (ldecl != t || nl != 2)
		return kp_arena_printf(ar, "the copy does not store an element '%s[r][c]'",
				       t->name);
	if (!gdecl || ng != 1 || !gdecl->is_pointer || gacc->type_size != t->elem_size)
		return kp_arena_printf(ar,
				       "the copy does not read an element 'P[i]' of %lld bytes "
				       "through a pointer",
				       t->elem_size);
	out->ptr = groot;

	long long total = out->rows * out->cols;
	rec r;
	memset(&r, 0, sizeof(r));
	r.ld = ld;
	r.tidx[0] = lidx[0];
	r.tidx[1] = lidx[1];
	r.gidx = gidx[0];
	r.w = ld->bytes / t->elem_size;
	if (ld->guard != KP_G_NONE) {
		const char *why = guard_terms(f, ld->cond, &r, out);
		if (why)
			return kp_arena_printf(ar, "line %d: %s", ld->line, why);
	}
	r.count = calloc((size_t)total, 1);
	r.writer = calloc((size_t)total, sizeof(int));
	r.g = calloc((size_t)total, sizeof(kp_cb_poly));
	cb c;
	memset(&c, 0, sizeof(c));
	c.f = f, c.l = l, c.box = out;
	r.c = &c;
	const char *why = NULL;
	if (!r.count || !r.writer || !r.g)
		why = "the tile has too many elements to enumerate";
	for (int z = 0; z < out->block[2] && !why; z++)
		for (int y = 0; y < out->block[1] && !why; y++)
			for (int x = 0; x < out->block[0] && !why; x++) {
				c.tid[0] = x, c.tid[1] = y, c.tid[2] = z;
				if (walk_loops(&r, 0))
					why = c.why ? c.why : "is not evaluated";
			}
	if (!why)
		why = check_box(&c, &r);
	if (!why)
		why = decide_terms(&c, &r);
	free(r.count);
	free(r.writer);
	free(r.g);
	if (why)
		return kp_arena_printf(ar, "line %d: over a block of %d x %d x %d threads (%s): %s",
				       ld->line, out->block[0], out->block[1], out->block[2],
				       out->block_from ? out->block_from : "?", why);
	return NULL;
}
