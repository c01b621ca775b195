/*
 * copies.c - what the asynchronous forms (cp.async, bulk, tensor copies)
 * need of each copy of a loop's load phase, proven from the model and not
 * assumed (kp_copy_facts, analyze_int.h): that the source is global memory, that the copy's
 * width does not exceed the alignment its types prove, and that no other
 * copy of the load phase may write the same tile element (two async
 * copies into one element complete in no defined order).  Sets
 * kp_load.src_global and kp_load.async_why; refuses nothing itself.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_int.h"

/* ------------------------------------------------ provenance */

typedef struct {
	const kp_file *f;
	const kp_kernel *k;
	int depth;
} prov;

static int global_expr(prov *p, const kp_node *e);

/* A __device__ function's parameter i is global memory when every call
 * of the function the file shows passes global memory there, and it has
 * at least one: a direct call from a __global__ kernel of the file. */
typedef struct {
	prov *p;
	const kp_kernel *callee;
	const kp_kernel *caller;
	int arg;
	int calls, bad;
} call_check;

/* The same declaration seen from another model (a caller in another
 * project header): the same USR. */
static int same_usr(const kp_decl *a, const kp_decl *b)
{
	return a && b && a->usr && b->usr && *a->usr && !strcmp(a->usr, b->usr);
}

static int check_call(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	call_check *w = ud;
	const kp_decl *key = w->callee->call_decl; /* a function of a header */
	if (n->kind != KP_N_CALL || !n->decl || n->decl->kind != KP_D_FUNC || !n->name ||
	    (key ? n->decl != key && n->decl->tmpl != key && !same_usr(n->decl, key) &&
			     !same_usr(n->decl->tmpl, key)
		 : strcmp(n->name, w->callee->name) || n->decl->line != w->callee->line))
		return 1;
	w->calls++;
	prov q = {w->p->f, w->caller, w->p->depth + 1};
	if (w->caller->is_device || w->arg + 1 >= n->nkids || !global_expr(&q, n->kids[w->arg + 1]))
		w->bad++;
	return 1;
}

static int param_global(prov *p, const kp_decl *d)
{
	const kp_kernel *k = p->k;
	if (!k->is_device)
		return 1; /* a __global__ kernel's pointer parameter */
	int arg = -1;
	for (int i = 0; i < k->nparams; i++)
		if (k->params[i] == d)
			arg = i;
	/* a function of a project header: the calls of its callers in the .cu
	 * that includes it (those of a template's every instantiation) */
	const int hdr = k->call_decl != NULL;
	if (arg < 0 || (k->is_template && !hdr) || p->depth > 4)
		return 0;
	for (int i = 0; hdr && i < p->f->nkernels; i++)
		for (int j = 0; j < k->ncallers; j++)
			if (k->caller_k[j] == p->f->kernels[i])
				return 0; /* a caller in the header too: not followed */
	call_check w = {p, k, NULL, arg, 0, 0};
	int nk = hdr ? k->ncallers : p->f->nkernels;
	for (int i = 0; i < nk; i++) {
		const kp_kernel *c = hdr ? k->caller_k[i] : p->f->kernels[i];
		if (c == k)
			continue;
		w.caller = c;
		kp_node_walk(c->body, NULL, check_call, &w);
		/* handed to a template as its argument: calls kpipe cannot see */
		for (int j = 0; j < c->ninst; j++)
			if (c->inst_args[j] &&
			    kp_mentions_ident(c->inst_args[j], 0, strlen(c->inst_args[j]), k->name))
				w.bad++;
	}
	return w.calls > 0 && !w.bad;
}

/* Every store to the local d keeps it in global memory: its plain
 * assignments store a global address, nothing takes its address or binds
 * a reference to it (a reference or a pointer could store anything). */
typedef struct {
	prov *p;
	const kp_decl *d;
	int bad;
} store_check;

static int is_ref_to(const kp_node *n, const kp_decl *d)
{
	n = kp_node_strip(n);
	return n && n->kind == KP_N_DECLREF && n->decl == d;
}

static int check_store(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	store_check *w = ud;
	if (n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN && n->nkids == 2 &&
	    is_ref_to(n->kids[0], w->d)) {
		prov q = {w->p->f, w->p->k, w->p->depth + 1};
		if (!global_expr(&q, n->kids[1]))
			w->bad++;
	} else if (n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids &&
		   is_ref_to(n->kids[0], w->d))
		w->bad++;
	else if (n->kind == KP_N_VARDECL && n->decl != w->d && n->ty.is_ref && n->nkids &&
		 is_ref_to(n->kids[n->nkids - 1], w->d))
		w->bad++;
	else if (n->kind == KP_N_CALL && n->arg_conv)
		for (int i = 1; i < n->nkids; i++)
			if (is_ref_to(n->kids[i], w->d) && n->kids[i]->type &&
			    n->arg_conv[i - 1] != KP_ARG_SAME && n->arg_conv[i - 1] != KP_ARG_QUAL)
				w->bad++;
	return 1;
}

static int global_decl(prov *p, const kp_decl *d)
{
	if (!d || d->is_shared || p->depth > 8)
		return 0;
	if (d->is_device_var)
		return 1;
	if (d->kind == KP_D_PARM && d->is_pointer)
		return param_global(p, d);
	if (d->kind != KP_D_VAR || d->usr || !d->is_pointer || !p->k->body)
		return 0;
	/* a local pointer: its initialiser and every store to it */
	if (d->init) {
		prov q = {p->f, p->k, p->depth + 1};
		if (!global_expr(&q, d->init))
			return 0;
	}
	store_check w = {p, d, 0};
	kp_node_walk(p->k->body, NULL, check_store, &w);
	return !w.bad && (d->init || kp_assigned_in(p->k, d));
}

/* A local object initialised by a brace list (`const MatView a = {A, M,
 * K, K};`) every pointer of which is global memory: then so is each
 * pointer member of the object, while nothing changes it (a member the
 * list leaves out is null). */
static int init_list_global(prov *p, const kp_node *init)
{
	init = kp_node_strip(init);
	while (init && init->kind != KP_N_INITLIST && init->nkids == 1 &&
	       init->kids[0]->begin == init->begin && init->kids[0]->end == init->end)
		init = kp_node_strip(init->kids[0]);
	if (!init || init->kind != KP_N_INITLIST || p->depth > 8)
		return 0;
	for (int i = 0; i < init->nkids; i++) {
		const kp_node *v = kp_node_strip(init->kids[i]);
		if (!v || v->kind == KP_N_INITLIST)
			return 0; /* a nested object: not followed */
		prov q = {p->f, p->k, p->depth + 1};
		if (v->ty.kind == KP_TY_POINTER && !global_expr(&q, v))
			return 0;
		if (!v->type)
			return 0;
	}
	return 1;
}

/* Whether e is an address in global memory: a proven pointer, arithmetic
 * on one, the address of an element of one (or of a __device__ array),
 * a choice between two. */
static int global_expr(prov *p, const kp_node *e)
{
	e = kp_node_strip(e);
	if (!e || p->depth > 8)
		return 0;
	switch (e->kind) {
	case KP_N_DECLREF: return global_decl(p, e->decl) && e->decl->is_pointer;
	case KP_N_BINOP:
		if (e->nkids != 2 || !e->op || (e->opk != KP_OP_ADD && e->opk != KP_OP_SUB))
			return 0;
		/* the pointer operand: the one whose type is a pointer */
		for (int i = 0; i < 2; i++) {
			const kp_node *o = kp_node_strip(e->kids[i]);
			if (o && o->kind == KP_N_DECLREF && o->decl && o->decl->is_pointer)
				return (i == 0 || (e->opk == KP_OP_ADD || e->opk == KP_OP_PLUS)) &&
				       global_expr(p, o);
		}
		return global_expr(p, e->kids[0]) &&
		       !(e->kids[1]->type && strchr(e->kids[1]->type, '*'));
	case KP_N_CONDOP:
		return e->nkids == 3 && global_expr(p, e->kids[1]) && global_expr(p, e->kids[2]);
	case KP_N_MEMBER: {
		/* a pointer member of an object a __global__ kernel takes by
		 * value and never changes (a view or tensor handed to it): the
		 * host set it, as it sets a pointer parameter */
		const kp_node *m = kp_member_pointer((kp_node *)e);
		const kp_node *o = m ? kp_node_strip(m->kids[0]) : NULL;
		int param = 0;
		for (int i = 0; o && i < p->k->nparams; i++)
			param |= p->k->params[i] == o->decl;
		if (param)
			return !p->k->is_device && !kp_assigned_in(p->k, o->decl);
		return o && o->decl->kind == KP_D_VAR && !o->decl->usr &&
		       !kp_assigned_in(p->k, o->decl) && init_list_global(p, o->decl->init);
	}
	case KP_N_UNOP:
		if (e->op && e->opk == KP_OP_ADDR && e->nkids) {
			const kp_node *s = kp_node_strip(e->kids[0]);
			while (s && (s->kind == KP_N_SUBSCRIPT || s->kind == KP_N_MEMBER) &&
			       s->nkids)
				s = kp_node_strip(s->kids[0]);
			if (!s || s->kind != KP_N_DECLREF || !s->decl)
				return 0;
			if (s->decl->is_device_var)
				return 1;
			return s->decl->is_pointer && global_decl(p, s->decl);
		}
		if (e->op && (KP_OP_IS_INCDEC(e->opk)) && e->nkids)
			return global_expr(p, e->kids[0]);
		return 0;
	default: return 0;
	}
}

/* ------------------------------------------------ alignment */

static const char *strip_cv(const char *t, size_t *len)
{
	while (!strncmp(t, "const ", 6) || !strncmp(t, "volatile ", 9))
		t += t[0] == 'c' ? 6 : 9;
	size_t n = strlen(t);
	for (;;) {
		if (n > 6 && !strncmp(t + n - 6, " const", 6))
			n -= 6;
		else if (n > 9 && !strncmp(t + n - 9, " volatile", 9))
			n -= 9;
		else
			break;
	}
	*len = n;
	return t;
}

/* alignof the type spelled t: a template type parameter's argument under
 * the instantiation; -1 unknown. */
static long long targ_align(const kp_kernel *k, const kp_targ *targs, const char *type)
{
	if (!targs || !type || !k->tparam_names)
		return -1;
	size_t len;
	const char *t = strip_cv(type, &len);
	for (int i = 0; i < k->ntparams && i < KP_MAX_TARGS; i++)
		if (strlen(k->tparam_names[i]) == len && !strncmp(k->tparam_names[i], t, len))
			return targs[i].type && targs[i].align > 0 ? targs[i].align : -1;
	return -1;
}

/* alignof the type of n: clang's, else `fallback`, else a template type
 * parameter's argument under the instantiation; -1 unknown. */
static long long align_of(const kp_kernel *k, const kp_targ *targs, const kp_node *n,
			  long long fallback)
{
	if (!n)
		return -1;
	if (n->type_align > 0)
		return n->type_align;
	if (fallback > 0)
		return fallback;
	return targ_align(k, targs, n->type);
}

/* The stored value as read: the copy constructor `T(p[i])` around it
 * aside. */
static const kp_node *read_node(const kp_node *n)
{
	n = kp_node_strip(n);
	while (n && n->kind == KP_N_CALL && n->nkids == 1 && n->type)
		n = kp_node_strip(n->kids[0]);
	return n;
}

/* ------------------------------------------------ distinct targets */

#define LIN_MAX 8

/* An index expression as c + sum(coef * atom), atoms by their text. */
typedef struct {
	long long c;
	int n, ok;
	const char *atom[LIN_MAX];
	long long coef[LIN_MAX];
} lin;

static void lin_add_atom(lin *r, const char *a, long long coef)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->atom[i], a)) {
			r->coef[i] += coef;
			return;
		}
	if (r->n == LIN_MAX) {
		r->ok = 0;
		return;
	}
	r->atom[r->n] = a;
	r->coef[r->n++] = coef;
}

static const char *atom_text(kp_file *f, const kp_node *n)
{
	const char *t = kp_node_text(f, n);
	char *o = kp_arena_alloc(&f->arena, strlen(t) + 1), *q = o;
	for (; *t; t++)
		if (*t != ' ' && *t != '\t' && *t != '\n' && *t != '\r')
			*q++ = *t;
	*q = '\0';
	return o;
}

static void lin_of(kp_file *f, const kp_kernel *k, const long long *iv, const kp_node *n,
		   long long scale, lin *r, int depth)
{
	n = kp_node_strip(n);
	long long v;
	if (!n || depth > 32) {
		r->ok = 0;
		return;
	}
	if (!kp_eval(n, k, iv, &v)) {
		r->c += scale * v;
		return;
	}
	if (n->kind == KP_N_BINOP && n->nkids == 2 && n->op &&
	    (n->opk == KP_OP_ADD || n->opk == KP_OP_SUB)) {
		lin_of(f, k, iv, n->kids[0], scale, r, depth + 1);
		lin_of(f, k, iv, n->kids[1], n->op[0] == '-' ? -scale : scale, r, depth + 1);
		return;
	}
	if (n->kind == KP_N_BINOP && n->nkids == 2 && n->op && n->opk == KP_OP_MUL)
		for (int i = 0; i < 2; i++)
			if (!kp_eval(n->kids[i], k, iv, &v)) {
				lin_of(f, k, iv, n->kids[1 - i], scale * v, r, depth + 1);
				return;
			}
	if (n->kind == KP_N_UNOP && n->nkids == 1 && n->op && n->opk == KP_OP_MINUS &&
	    !n->postfix) {
		lin_of(f, k, iv, n->kids[0], -scale, r, depth + 1);
		return;
	}
	if (n->kind == KP_N_UNOP && n->nkids == 1 && n->op && n->opk == KP_OP_PLUS && !n->postfix) {
		lin_of(f, k, iv, n->kids[0], scale, r, depth + 1);
		return;
	}
	lin_add_atom(r, atom_text(f, n), scale);
}

/* The subscripts of the tile in a copy's target, outermost first:
 * `As[i][j]`, `FETCH(As[i][j])`; 0 when not found. */
static int tile_subscripts(const kp_node *n, const kp_decl *tile, const kp_node **idx, int max)
{
	if (!n)
		return 0;
	const kp_node *s = n;
	int k = 0;
	const kp_node *tmp[KP_MAX_DIMS + 1];
	while (s && s->kind == KP_N_SUBSCRIPT && s->nkids == 2 && k <= KP_MAX_DIMS) {
		tmp[k++] = s->kids[1];
		s = kp_node_strip(s->kids[0]);
	}
	if (k && s && s->kind == KP_N_DECLREF && s->decl == tile && k <= max) {
		for (int i = 0; i < k; i++)
			idx[i] = tmp[k - 1 - i];
		return k;
	}
	for (int i = 0; i < n->nkids; i++) {
		int r = tile_subscripts(n->kids[i], tile, idx, max);
		if (r)
			return r;
	}
	return 0;
}

/* Whether the copy's target names the variable v, or a local initialised
 * from it (`const int r = (tid + i * 64) / 8;`). */
static int names_decl(const kp_node *n, const kp_decl *v, int depth)
{
	if (!n || depth > 8)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl == v)
		return 1;
	if (n->kind == KP_N_DECLREF && n->decl && n->decl->kind == KP_D_VAR && !n->decl->usr &&
	    n->decl->init && names_decl(n->decl->init, v, depth + 1))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (names_decl(n->kids[i], v, depth))
			return 1;
	return 0;
}

/* The copies run under opposite branches of one if: never both. */
static int exclusive(const kp_load *a, const kp_load *b)
{
	for (int i = 0; i < a->nunder && i < 4; i++)
		for (int j = 0; j < b->nunder && j < 4; j++)
			if (a->under[i] == b->under[j] && a->under_else[i] != b->under_else[j])
				return 1;
	return 0;
}

/* A copy loop variable of a: 1 when any atom of r names one. */
static int lin_names_loop(kp_file *f, const kp_load *a, const lin *r)
{
	for (int d = 0; d < a->depth && d < 4; d++) {
		const kp_node *vd = a->ranges[d].var_decl;
		if (!vd || !vd->decl)
			return 1;
		for (int i = 0; i < r->n; i++)
			if (r->coef[i] &&
			    kp_mentions_ident(r->atom[i], 0, strlen(r->atom[i]), vd->decl->name))
				return 1;
	}
	(void)f;
	return 0;
}

/* The values copy ld's loop variable named `name` takes, as [lo, hi]
 * (compile-time first value, step and trip count): 1, or 0 when `name`
 * is none of its copy loops' variables or a bound is not known. */
static int loop_var_span(const kp_kernel *k, const long long *iv, const kp_load *ld,
			 const char *name, long long *lo, long long *hi)
{
	for (int d = 0; d < ld->depth && d < 4; d++) {
		const kp_range *r = &ld->ranges[d];
		if (!r->var_decl || !r->var_decl->decl || strcmp(r->var_decl->decl->name, name))
			continue;
		long long first, step = 1;
		if (!r->lo || kp_eval(r->lo, k, iv, &first) || !r->step_ok || ld->trips[d] < 1 ||
		    (!r->step_is_one && (!r->step || kp_eval(r->step, k, iv, &step) || step <= 0)))
			return 0;
		/* the header's count holds only if the body leaves the counter
		 * alone */
		kp_rw_set bs = {0};
		kp_rw_collect(kp_loop_body(r->loop), &bs);
		int written = kp_rw_has(bs.w, bs.nw, r->var_decl->decl);
		kp_rw_release(&bs);
		if (written)
			return 0;
		*lo = first;
		*hi = first + ((long long)ld->trips[d] - 1) * step;
		return 1;
	}
	return 0;
}

/* Whether text t names a variable of lw, the load phase's writes, other
 * than the counters of ld's copy loops (NULL: none): such a name may hold
 * another value at each copy (`idx -= 1` between two), so two copies
 * spelled alike need not write the same element, nor two spelled apart
 * different ones. */
static int names_load_write(const kp_rw_set *lw, const kp_load *ld, const char *t)
{
	for (int q = 0; q < lw->nw; q++) {
		const kp_decl *v = lw->w[q];
		int counter = 0;
		for (int d = 0; ld && d < ld->depth && d < 4; d++)
			counter |= ld->ranges[d].var_decl && ld->ranges[d].var_decl->decl == v;
		if (!counter && v->name && kp_mentions_ident(t, 0, strlen(t), v->name))
			return 1;
	}
	return 0;
}

/* Whether an atom of x names a variable of lw (names_load_write()). */
static int lin_names_write(const kp_rw_set *lw, const lin *x)
{
	for (int i = 0; i < x->n; i++)
		if (x->coef[i] && names_load_write(lw, NULL, x->atom[i]))
			return 1;
	return 0;
}

/* Whether index x of copy a and y of copy b (the same atoms with the
 * same coefficients) differ by at least w in every pair of their trips
 * within one thread: each atom that is a copy loop's variable ranges over
 * that loop's values, independently for a and b; an atom that names a
 * copy loop's variable otherwise is not bounded (0); any other atom has
 * one value in both.  (Overlaps between two threads' copies are the
 * original's own race, which cp.async does not change.) */
static int trips_apart(kp_file *f, const kp_kernel *k, const long long *iv, const kp_rw_set *lw,
		       const kp_load *a, const kp_load *b, const lin *x, const lin *y, long long w)
{
	long long lo = x->c - y->c, hi = x->c - y->c;
	int ok = 1;
	for (int i = 0; i < x->n && ok; i++) {
		long long c = x->coef[i], alo, ahi, blo, bhi;
		if (!c)
			continue;
		int ina = loop_var_span(k, iv, a, x->atom[i], &alo, &ahi);
		int inb = loop_var_span(k, iv, b, x->atom[i], &blo, &bhi);
		if (!ina && !inb) {
			lin one = {0, 1, 1, {x->atom[i]}, {1}};
			if (lin_names_loop(f, a, &one) || lin_names_loop(f, b, &one) ||
			    names_load_write(lw, NULL, x->atom[i]))
				ok = 0;
			continue; /* otherwise the same value in both copies */
		}
		if (!ina || !inb) {
			ok = 0;
			break;
		}
		/* c * (va - vb), va in [alo, ahi], vb in [blo, bhi] */
		long long dlo = alo - bhi, dhi = ahi - blo;
		lo += c > 0 ? c * dlo : c * dhi;
		hi += c > 0 ? c * dhi : c * dlo;
	}
	return ok && (lo >= w || hi <= -w);
}

/* Whether copies a and b provably write different elements of their
 * tile: in one dimension their indices differ by a constant at least as
 * large as the elements either writes (a float4 into a float tile writes
 * four), and, when either is in a copy loop, that index names no copy
 * loop variable (so no other trip meets it) or the loops' values keep
 * every trip of a apart from every trip of b (trips_apart(): h2o's
 * `ashare[ty + i][tx + j]` and `ashare[ty + i][tx + j + STEP]`, j below
 * STRIDE <= STEP). */
static int distinct_targets(kp_file *f, const kp_kernel *k, const long long *iv,
			    const kp_rw_set *lw, const kp_load *a, const kp_load *b)
{
	const kp_node *ia[KP_MAX_DIMS + 1], *ib[KP_MAX_DIMS + 1];
	int na = tile_subscripts(a->lhs, a->tile, ia, KP_MAX_DIMS + 1);
	int nb = tile_subscripts(b->lhs, b->tile, ib, KP_MAX_DIMS + 1);
	if (!na || na != nb)
		return 0;
	for (int d = 0; d < na; d++) {
		lin x = {0, 0, 1, {0}, {0}}, y = {0, 0, 1, {0}, {0}};
		lin_of(f, k, iv, ia[d], 1, &x, 0);
		lin_of(f, k, iv, ib[d], 1, &y, 0);
		if (!x.ok || !y.ok)
			continue;
		int same = 1;
		for (int i = 0; i < x.n && same; i++) {
			long long cy = 0;
			for (int j = 0; j < y.n; j++)
				if (!strcmp(x.atom[i], y.atom[j]))
					cy = y.coef[j];
			same = cy == x.coef[i];
		}
		for (int j = 0; j < y.n && same; j++) {
			int found = 0;
			for (int i = 0; i < x.n; i++)
				found |= !strcmp(x.atom[i], y.atom[j]);
			same = found || !y.coef[j];
		}
		if (!same)
			continue;
		long long diff = x.c > y.c ? x.c - y.c : y.c - x.c;
		long long w = 1;
		if (d == na - 1) {
			w = a->vector > b->vector ? a->vector : b->vector;
			if (w < 1)
				w = 1;
		}
		if (diff >= w &&
		    ((!a->depth && !b->depth) ||
		     (!lin_names_loop(f, a, &x) && !lin_names_loop(f, b, &y))) &&
		    !lin_names_write(lw, &x))
			return 1;
		if ((a->depth || b->depth) && trips_apart(f, k, iv, lw, a, b, &x, &y, w))
			return 1;
	}
	return 0;
}

/* Two copies of the same value from the same address into the same
 * place, under the same copy loops: whichever completes last writes the
 * same bytes. */
static int same_copy(kp_file *f, const kp_rw_set *lw, const kp_load *a, const kp_load *b)
{
	if (a->depth != b->depth || !a->rhs || !b->rhs || a->vector != b->vector)
		return 0;
	for (int d = 0; d < a->depth && d < 4; d++)
		if (a->loops[d] != b->loops[d])
			return 0;
	const char *lhs = atom_text(f, a->lhs), *rhs = atom_text(f, a->rhs);
	return !strcmp(lhs, atom_text(f, b->lhs)) && !strcmp(rhs, atom_text(f, b->rhs)) &&
	       !names_load_write(lw, a, lhs) && !names_load_write(lw, a, rhs);
}

/* Why two copies may write one element, or NULL. */
static const char *overlap_problem(kp_file *f, const kp_kernel *k, const long long *iv,
				   const kp_loop *l, const kp_rw_set *lw, int i)
{
	const kp_load *a = &l->loads[i];
	for (int j = 0; j < l->nloads; j++) {
		const kp_load *b = &l->loads[j];
		if (j == i || b->tile != a->tile || exclusive(a, b) ||
		    distinct_targets(f, k, iv, lw, a, b) || same_copy(f, lw, a, b))
			continue;
		return kp_arena_printf(
			&f->arena,
			"line %d: the copies into '%s' at lines %d and %d are not proven to write "
			"different elements; as asynchronous copies they would complete in no "
			"defined order",
			a->line, a->tile->name, a->line < b->line ? a->line : b->line,
			a->line < b->line ? b->line : a->line);
	}
	/* a copy loop whose variable the target does not name writes one
	 * element on every trip: the same copy each time (harmless) unless the
	 * source names it */
	for (int d = 0; d < a->depth && d < 4; d++) {
		const kp_node *vd = a->ranges[d].var_decl;
		if (a->trips[d] == 1 || a->trips[d] == 0)
			continue;
		/* a counter declared before the loop (`int l; ... for (l = 0;
		 * ...)`): the range read here has no declaration to look for
		 * in the target; say that, not that the target misses it (the
		 * rewrite's canon pass gives such loops their own counter) */
		if (!vd || !vd->decl)
			return kp_arena_printf(
				&f->arena,
				"line %d: the copy into '%s' is in a copy loop (line %d) whose counter "
				"is declared before it, not in its header: kpipe does not prove that "
				"its trips write different elements",
				a->line, a->tile->name, a->loops[d]->line);
		if (!names_decl(a->lhs, vd->decl, 0) && names_decl(a->rhs, vd->decl, 0))
			return kp_arena_printf(
				&f->arena,
				"line %d: the copy into '%s' is in a copy loop (line %d) whose counter "
				"its target does not name: each trip writes the same element, which "
				"asynchronous copies would do in no defined order",
				a->line, a->tile->name, a->loops[d]->line);
	}
	return NULL;
}

void kp_copy_facts(kp_file *f, const kp_kernel *k, kp_loop *l, const long long *iv,
		   const kp_targ *targs, const kp_rw_set *load_rw)
{
	for (int i = 0; i < l->nloads; i++) {
		kp_load *ld = &l->loads[i];
		prov p = {f, k, 0};
		ld->src_global = 0;
		ld->async_why = NULL;
		if (!ld->src)
			continue;
		const kp_node *base = ld->src_base;
		ld->src_global = base && global_expr(&p, base);
		if (!ld->src_global) {
			ld->async_why = kp_arena_printf(
				&f->arena,
				"line %d: '%s' is not proven to point to global memory (a __global__ "
				"kernel's pointer parameter, a __device__ variable, or a local set "
				"only from them); cp.async and bulk copies read global memory only",
				ld->line, ld->src->name);
			continue;
		}
		if (!ld->pure || ld->via || ld->bytes <= 0)
			continue;
		/* in a template the expressions' types are dependent: a copy of one
		 * element is aligned as the tile's element, the source as what
		 * its pointer points to */
		long long te = ld->tile->elem_align > 0 ? ld->tile->elem_align
							: targ_align(k, targs, ld->tile->elem_type);
		long long ad = align_of(k, targs, ld->lhs, ld->vector == 1 ? te : -1);
		long long as = align_of(k, targs, read_node(ld->rhs),
					read_node(ld->rhs) == kp_node_strip(ld->rhs) &&
							ld->src->pointee_align > 0 &&
							!ld->src->is_array
						? ld->src->pointee_align
						: -1);
		if (ad < ld->bytes || as < ld->bytes) {
			long long al = ad < as ? ad : as;
			const char *t = ad < as ? ld->lhs->type : read_node(ld->rhs)->type;
			ld->async_why =
				al > 0 ? kp_arena_printf(
						 &f->arena,
						 "line %d: the copy moves %lld B of '%s', whose "
						 "alignment is %lld B: a %lld-byte cp.async needs "
						 "addresses aligned to %lld B",
						 ld->line, ld->bytes, t ? t : "?", al, ld->bytes,
						 ld->bytes)
				       : kp_arena_printf(
						 &f->arena,
						 "line %d: the alignment of '%s' is not known: a "
						 "%lld-byte cp.async needs addresses aligned to "
						 "%lld B",
						 ld->line, t ? t : "?", ld->bytes, ld->bytes);
			continue;
		}
		ld->async_why = overlap_problem(f, k, iv, l, load_rw, i);
	}
}
