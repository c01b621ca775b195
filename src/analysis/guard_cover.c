/*
 * guard_cover.c - the range a guarded copy writes covers the range the
 * compute reads (guard_cover.h).  Both sides are read as linear upper
 * bounds: the guard's conjunct `a + x < b` bounds the copy's subscript x
 * by b - a, the compute loop's `j < min(T, b - a)` bounds the read's
 * subscript j by b - a; the two bounds are compared as sums of signed
 * terms, each term its source text.  The terms must have one value for
 * the whole block and the whole iteration (uniform()), so the same text
 * in the load phase and in the compute means the same number.  The thread
 * writing element e of that dimension is the one whose x is e, so for
 * every element read the changing conjunct holds: the elements the
 * compute reads are written in every iteration the way the conditions
 * fixed before the loop say, whatever the tile.
 */
#include "guard_cover.h"

#include <stdlib.h>
#include <string.h>

#include "liveness.h"
#include "scratch_def.h"
#include "tile_value.h"
#include "util.h"

#define MAX_TERMS 12

typedef struct {
	const char *text[MAX_TERMS];
	const kp_node *node[MAX_TERMS];
	int sign[MAX_TERMS];
	int n;
	int overflow;
} terms;

typedef struct {
	kp_file *f;
	const kp_kernel *k;
	const kp_loop *l;
} gctx;

/* The source text of n without white space. */
static const char *squeeze(kp_file *f, const kp_node *n)
{
	const char *t = kp_node_text(f, n);
	if (!t)
		return NULL;
	size_t len = strlen(t), o = 0;
	char *s = kp_arena_alloc(&f->arena, len + 1);
	for (size_t i = 0; i < len; i++)
		if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r')
			s[o++] = t[i];
	s[o] = 0;
	return s;
}

/* The terms of the sum n.  A scratch variable of the loop (`i` of `int i,
 * j;` before the loop) is read as the value its one reaching assignment
 * gives it at statement stmt of the body (scratch_def.h); stmt -1 reads
 * every variable as itself. */
static void collect_at(const gctx *g, const kp_node *n, int sign, terms *t, int stmt)
{
	n = kp_node_strip(n);
	if (n && n->kind == KP_N_BINOP && n->nkids == 2 &&
	    (n->opk == KP_OP_ADD || n->opk == KP_OP_SUB)) {
		collect_at(g, n->kids[0], sign, t, stmt);
		collect_at(g, n->kids[1], n->opk == KP_OP_SUB ? -sign : sign, t, stmt);
		return;
	}
	if (n && n->kind == KP_N_DECLREF && stmt >= 0) {
		const kp_node *v = kp_scratch_value(g->f, g->k, g->l, n->decl, stmt);
		if (v) {
			collect_at(g, v, sign, t, -1);
			return;
		}
	}
	const char *s = n ? squeeze(g->f, n) : NULL;
	if (!s || t->n >= MAX_TERMS) {
		t->overflow = 1;
		return;
	}
	t->text[t->n] = s;
	t->node[t->n] = n;
	t->sign[t->n++] = sign;
}

/* A sum of terms as one canonical string: "+b-a" sorted. */
static int term_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *canon(kp_file *f, const terms *t)
{
	const char *v[MAX_TERMS];
	kp_strbuf parts[MAX_TERMS];
	for (int i = 0; i < t->n; i++) {
		parts[i] = (kp_strbuf)KP_STRBUF_INIT;
		kp_strbuf_addf(&parts[i], "%c%s", t->sign[i] > 0 ? '+' : '-', t->text[i]);
		v[i] = kp_arena_strdup(&f->arena, kp_strbuf_str(&parts[i]));
		kp_strbuf_release(&parts[i]);
	}
	qsort(v, (size_t)t->n, sizeof(v[0]), term_cmp);
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < t->n; i++)
		kp_strbuf_addf(&sb, "%s\x1f", v[i]);
	const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return r;
}

static int header_ind(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nind; i++)
		if (l->ind[i].var == d)
			return l->ind[i].in_header;
	return -1;
}

/* One value for every thread of the block and the whole iteration. */
static int uniform(const gctx *g, const kp_node *n, int depth)
{
	if (!n)
		return 1;
	if (depth > 8)
		return 0;
	switch (n->kind) {
	case KP_N_INTLIT:
	case KP_N_FLOATLIT:
	case KP_N_SIZEOF: return 1;
	case KP_N_DECLREF: {
		const kp_decl *d = n->decl;
		const char *nm = n->name ? n->name : d ? d->name : NULL;
		if (!nm || !d)
			return 0;
		if (!strcmp(nm, "blockIdx") || !strcmp(nm, "blockDim") || !strcmp(nm, "gridDim"))
			return 1;
		if (d->kind == KP_D_PARM)
			return !d->ty.is_ref && !KP_TY_ANY_VOLATILE(d->ty);
		if (d->kind == KP_D_TPARAM || d->kind == KP_D_ENUM)
			return 1;
		if (d->kind != KP_D_VAR || d->is_shared || d->ty.is_ref || !d->in_main)
			return 0;
		int hi = header_ind(g->l, d);
		if (hi >= 0)
			return hi == 1;
		/* a tile value (tile_value.h): one value in the whole iteration,
		 * the load phase's and the compute's, as uniform as what it is
		 * computed from */
		const kp_node *tv = kp_tile_value_expr(g->l, d);
		if (tv)
			return uniform(g, tv, depth + 1);
		if (d->is_constexpr || (d->is_const && d->has_value))
			return 1;
		if (!g->k->body || d->begin < g->k->body->begin || d->end > g->l->node->begin)
			return 0;
		return !kp_var_may_change(g->k, d) && d->init && uniform(g, d->init, depth + 1);
	}
	case KP_N_CALL:
		if (!n->name || (strcmp(n->name, "min") && strcmp(n->name, "max")))
			return 0;
		for (int i = 1; i < n->nkids; i++)
			if (!uniform(g, n->kids[i], depth))
				return 0;
		return 1;
	case KP_N_BINOP:
		if (n->opk == KP_OP_ASSIGN || n->opk == KP_OP_COMMA)
			return 0;
		break;
	case KP_N_UNOP:
		if (n->opk == KP_OP_DEREF || n->opk == KP_OP_ADDR || KP_OP_IS_INCDEC(n->opk))
			return 0;
		break;
	case KP_N_MEMBER:
	case KP_N_PAREN:
	case KP_N_CAST:
	case KP_N_CONDOP: break;
	default: return 0;
	}
	for (int i = 0; i < n->nkids; i++)
		if (!uniform(g, n->kids[i], depth))
			return 0;
	return 1;
}

/* Drops the pairs of equal terms of opposite signs. */
static void cancel(terms *t)
{
	for (int i = 0; i < t->n; i++)
		for (int j = i + 1; j < t->n; j++)
			if (t->sign[i] == -t->sign[j] && !strcmp(t->text[i], t->text[j])) {
				for (int m = j; m + 1 < t->n; m++)
					t->text[m] = t->text[m + 1], t->node[m] = t->node[m + 1],
					t->sign[m] = t->sign[m + 1];
				t->n--;
				for (int m = i; m + 1 < t->n; m++)
					t->text[m] = t->text[m + 1], t->node[m] = t->node[m + 1],
					t->sign[m] = t->sign[m + 1];
				t->n--;
				i--;
				break;
			}
}

/* `L op R` read as x < bound (*strict) or x <= bound, where x is the sum
 * of terms xs (each term of x one of L, or of -R); the bound's canonical
 * string, or NULL when c is not such a conjunct or a term of the bound is
 * not uniform.  Variables are read at statement stmt (collect_at). */
static const char *upper_bound(const gctx *g, const kp_node *c, const terms *xs, int *strict,
			       int stmt)
{
	c = kp_node_strip(c);
	if (!c || c->kind != KP_N_BINOP || c->nkids != 2 || xs->n == 0 || xs->overflow)
		return NULL;
	const kp_node *L, *R;
	switch (c->opk) {
	case KP_OP_LT:
	case KP_OP_LE: L = c->kids[0], R = c->kids[1]; break;
	case KP_OP_GT:
	case KP_OP_GE: L = c->kids[1], R = c->kids[0]; break;
	default: return NULL;
	}
	*strict = c->opk == KP_OP_LT || c->opk == KP_OP_GT;
	/* L - R < 0, as one sum */
	terms d = {0};
	collect_at(g, L, 1, &d, stmt);
	collect_at(g, R, -1, &d, stmt);
	if (d.overflow)
		return NULL;
	cancel(&d);
	/* take x out: every term of x must be there with its sign */
	int used[MAX_TERMS] = {0};
	for (int i = 0; i < xs->n; i++) {
		int found = 0;
		for (int j = 0; j < d.n && !found; j++)
			if (!used[j] && d.sign[j] == xs->sign[i] && !strcmp(d.text[j], xs->text[i]))
				used[j] = found = 1;
		if (!found)
			return NULL;
	}
	terms b = {0};
	for (int j = 0; j < d.n; j++)
		if (!used[j])
			b.text[b.n] = d.text[j], b.node[b.n] = d.node[j],
			b.sign[b.n++] = -d.sign[j];
	if (b.n == 0)
		return NULL;
	for (int i = 0; i < b.n; i++)
		if (!uniform(g, b.node[i], 0))
			return NULL;
	return canon(g->f, &b);
}

/* Whether cond bounds the read subscript x (the sum xs) by the guard's
 * bound gb: a conjunct of cond, or an argument of min() on its right
 * (`x < min(T, b - a)`). */
static int bounds_by(const gctx *g, const kp_node *cond, const terms *xs, const char *gb,
		     int gstrict, int stmt)
{
	cond = kp_node_strip(cond);
	if (!cond)
		return 0;
	if (cond->kind == KP_N_BINOP && cond->opk == KP_OP_LAND && cond->nkids == 2)
		return bounds_by(g, cond->kids[0], xs, gb, gstrict, stmt) ||
		       bounds_by(g, cond->kids[1], xs, gb, gstrict, stmt);
	int strict;
	const char *b = upper_bound(g, cond, xs, &strict, stmt);
	if (b && !strcmp(b, gb) && (strict || !gstrict))
		return 1;
	/* x < min(T, b - a) */
	if (cond->kind != KP_N_BINOP || cond->nkids != 2 ||
	    (cond->opk != KP_OP_LT && cond->opk != KP_OP_LE))
		return 0;
	const kp_node *r = kp_node_strip(cond->kids[1]);
	if (!r || r->kind != KP_N_CALL || !r->name || strcmp(r->name, "min"))
		return 0;
	terms lt = {0};
	collect_at(g, cond->kids[0], 1, &lt, stmt);
	if (lt.overflow || strcmp(canon(g->f, &lt), canon(g->f, xs)))
		return 0;
	if (gstrict && cond->opk != KP_OP_LT)
		return 0;
	for (int i = 1; i < r->nkids; i++) {
		terms t = {0};
		collect_at(g, r->kids[i], 1, &t, stmt);
		if (t.overflow || !uniform(g, r->kids[i], 0))
			continue;
		cancel(&t);
		if (!strcmp(canon(g->f, &t), gb))
			return 1;
	}
	return 0;
}

static int writes_to(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	const kp_node *t = NULL;
	if (((n->kind == KP_N_BINOP && n->opk == KP_OP_ASSIGN) || n->kind == KP_N_ASSIGNOP ||
	     (n->kind == KP_N_UNOP && KP_OP_IS_INCDEC(n->opk))) &&
	    n->nkids >= 1)
		t = kp_node_strip(n->kids[0]);
	if (t && t->kind == KP_N_DECLREF && t->decl == d)
		return 1;
	if (n->kind == KP_N_UNOP && n->opk == KP_OP_ADDR && n->nkids == 1) {
		const kp_node *a = kp_node_strip(n->kids[0]);
		if (a && a->kind == KP_N_DECLREF && a->decl == d)
			return 1;
	}
	for (int i = 0; i < n->nkids; i++)
		if (writes_to(n->kids[i], d))
			return 1;
	return 0;
}

typedef struct {
	const gctx *g;
	const kp_decl *tile;
	int dim;        /* the guarded subscript, counted from the array's name */
	const char *gb; /* the guard's bound */
	int gstrict;
	int stmt; /* the statement of the loop body walked */
	/* the conditions around the walk: a for loop's while walking its
	 * body, an if's while walking its then branch */
	const kp_node *cond[16], *body[16];
	int nctx;
	int bad;
} rwalk;

static void reads(rwalk *w, const kp_node *n);

/* Whether body writes a variable named in n. */
static int writes_a_var_of(const kp_node *body, const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl && writes_to(body, n->decl))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (writes_a_var_of(body, n->kids[i]))
			return 1;
	return 0;
}

/* One access As[i0][i1]...: its subscript at w->dim, x, must be bounded
 * like the guard by the condition of an enclosing for loop or if (x <
 * bound on entry to its body), whose body writes no variable of x. */
static void access(rwalk *w, const kp_node *n)
{
	const kp_node *idx[KP_MAX_DIMS + 1];
	int ni = 0;
	const kp_node *p = n;
	while (p && p->kind == KP_N_SUBSCRIPT && p->nkids == 2 && ni <= KP_MAX_DIMS) {
		idx[ni++] = p->kids[1];
		p = kp_node_strip(p->kids[0]);
	}
	if (ni != w->tile->ndims || w->dim >= ni) {
		w->bad = 1;
		return;
	}
	const kp_node *x = idx[ni - 1 - w->dim];
	terms xs = {0};
	collect_at(w->g, x, 1, &xs, w->stmt);
	int ok = 0;
	for (int i = w->nctx - 1; i >= 0 && !ok && !xs.overflow; i--)
		ok = !writes_a_var_of(w->body[i], x) &&
		     bounds_by(w->g, w->cond[i], &xs, w->gb, w->gstrict, w->stmt);
	if (!ok)
		w->bad = 1;
	for (int i = 0; i < ni && !w->bad; i++)
		reads(w, idx[i]);
}

static void reads(rwalk *w, const kp_node *n)
{
	if (!n || w->bad)
		return;
	if (n->kind == KP_N_SUBSCRIPT) {
		const kp_node *p = n;
		while (p && p->kind == KP_N_SUBSCRIPT && p->nkids == 2)
			p = kp_node_strip(p->kids[0]);
		if (p && p->kind == KP_N_DECLREF && p->decl == w->tile) {
			access(w, n);
			return;
		}
	}
	if (n->kind == KP_N_DECLREF && n->decl == w->tile) {
		w->bad = 1; /* the tile named otherwise: a pointer, an argument */
		return;
	}
	/* the body of a for loop runs with its condition true; the then
	 * branch of an if with its condition true */
	const kp_node *body = NULL, *cond = NULL;
	if (n->kind == KP_N_FOR && n->for_cond && n->for_body)
		body = n->for_body, cond = n->for_cond;
	else if (n->kind == KP_N_IF && n->nkids >= 2)
		body = n->kids[1], cond = n->kids[0];
	if (body && w->nctx >= 16) {
		w->bad = 1;
		return;
	}
	for (int i = 0; i < n->nkids && !w->bad; i++) {
		int push = body && n->kids[i] == body;
		if (push) {
			w->cond[w->nctx] = cond, w->body[w->nctx] = body;
			w->nctx++;
		}
		reads(w, n->kids[i]);
		if (push)
			w->nctx--;
	}
}

static int conjuncts(const kp_node *c, const kp_node **out, int n, int max)
{
	c = kp_node_strip(c);
	if (!c || n < 0)
		return -1;
	if (c->kind == KP_N_BINOP && c->opk == KP_OP_LAND && c->nkids == 2)
		return conjuncts(c->kids[1], out, conjuncts(c->kids[0], out, n, max), max);
	if (n >= max)
		return -1;
	out[n] = c;
	return n + 1;
}

/* Whether conjunct cj, bounding one subscript of the copy's target, bounds
 * every read of the tile outside the load phase alike. */
static int conjunct_covers(const gctx *g, const kp_load *ld, const kp_node *cj, kp_varies_fn varies,
			   void *ctx)
{
	const kp_node *idx[KP_MAX_DIMS + 1];
	int ni = 0;
	const kp_node *p = kp_node_strip(ld->lhs);
	while (p && p->kind == KP_N_SUBSCRIPT && p->nkids == 2 && ni <= KP_MAX_DIMS) {
		idx[ni++] = p->kids[1];
		p = kp_node_strip(p->kids[0]);
	}
	if (!p || p->kind != KP_N_DECLREF || p->decl != ld->tile || ni != ld->tile->ndims)
		return 0;
	/* which thread writes which element must not change from tile to
	 * tile: every subscript of the target is fixed (copy-loop counters
	 * aside) */
	for (int d = 0; d < ni; d++)
		if (varies(ctx, idx[d]))
			return 0;
	const kp_loop *l = g->l;
	int at = kp_stmt_index_of(l, ld->stmt);
	if (at < l->load_b || at >= l->load_e)
		return 0;
	for (int d = 0; d < ni; d++) {
		int strict;
		terms xs = {0};
		collect_at(g, idx[ni - 1 - d], 1, &xs, at);
		const char *gb = xs.overflow ? NULL : upper_bound(g, cj, &xs, &strict, at);
		if (!gb)
			continue;
		rwalk w = {g, ld->tile, d, gb, strict, 0, {NULL}, {NULL}, 0, 0};
		for (int i = 0; i < l->nstmts && !w.bad; i++)
			if (i < l->load_b || i >= l->load_e) {
				w.stmt = i;
				reads(&w, l->stmts[i]);
			}
		if (!w.bad)
			return 1;
	}
	return 0;
}

int kp_guard_covers_reads(kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_load *ld,
			  const kp_node *cond, kp_varies_fn varies, void *ctx)
{
	const kp_node *cj[16];
	int n = conjuncts(cond, cj, 0, 16);
	if (n <= 0 || !ld->tile || !ld->lhs || ld->tile->ndims < 1)
		return 0;
	gctx g = {f, k, l};
	for (int i = 0; i < n; i++)
		if (varies(ctx, cj[i]) && !conjunct_covers(&g, ld, cj[i], varies, ctx))
			return 0;
	return 1;
}
