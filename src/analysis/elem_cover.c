/*
 * elem_cover.c - a store's elements against a K-loop's copies, thread by
 * thread for a known block shape: elem_cover.h.  Part of the analysis's
 * core (analyze_int.h): earlier_use.c calls it, and it evaluates with
 * kp_eval.
 */
#include "elem_cover.h"

#include "analyze_int.h"
#include "banks.h"
#include "changes.h"

#include <stdlib.h>
#include <string.h>

enum { EC_MAX_BIND = 8, EC_MAX_ELEMS = 1 << 22, EC_MAX_STEPS = 1 << 24 };

typedef struct {
	kp_file *f;
	const kp_kernel *k;
	const long long *iv;
	int tid[3], bdim[3];
	const kp_decl *bd[EC_MAX_BIND]; /* the copy loops' counters bound now */
	long long bv[EC_MAX_BIND];
	int nb, depth;
	long long steps;
	const char *why;
	/* the element set: its array, its bounds, one byte per element */
	const kp_decl *arr;
	long long dim[KP_MAX_DIMS];
	int nd;
	unsigned char *set;
	int marking; /* 1: add the elements; 0: check each is in the set */
	const kp_node *idx[KP_MAX_DIMS];
} ec;

static int fail(ec *e, const char *why)
{
	if (!e->why)
		e->why = why;
	return -1;
}

static int eval(ec *e, const kp_node *n, long long *out);

static int eval_binop(ec *e, const kp_node *n, long long *out)
{
	long long a, b;
	if (n->nkids != 2 || eval(e, n->kids[0], &a) || eval(e, n->kids[1], &b))
		return -1;
	switch (n->opk) {
	case KP_OP_ADD: *out = a + b; return 0;
	case KP_OP_SUB: *out = a - b; return 0;
	case KP_OP_MUL: *out = a * b; return 0;
	case KP_OP_DIV:
	case KP_OP_REM:
		if (!b)
			return fail(e, "divides by zero");
		*out = n->opk == KP_OP_DIV ? a / b : a % b;
		return 0;
	case KP_OP_SHL:
	case KP_OP_SHR:
		if (b < 0 || b > 62)
			return fail(e, "shifts by more than the width");
		*out = n->opk == KP_OP_SHL ? (long long)((unsigned long long)a << b) : a >> b;
		return 0;
	case KP_OP_AND: *out = a & b; return 0;
	case KP_OP_OR: *out = a | b; return 0;
	case KP_OP_XOR: *out = a ^ b; return 0;
	case KP_OP_LT: *out = a < b; return 0;
	case KP_OP_GT: *out = a > b; return 0;
	case KP_OP_LE: *out = a <= b; return 0;
	case KP_OP_GE: *out = a >= b; return 0;
	case KP_OP_EQ: *out = a == b; return 0;
	case KP_OP_NE: *out = a != b; return 0;
	case KP_OP_LAND: *out = a && b; return 0;
	case KP_OP_LOR: *out = a || b; return 0;
	default: return fail(e, "uses an operator kpipe does not evaluate here");
	}
}

/* A name: a bound counter, else a local nothing changes after its
 * initialiser (evaluated where it is read: its initialiser's names are
 * bound or unchanged too). */
static int eval_ref(ec *e, const kp_node *n, long long *out)
{
	const kp_decl *d = n->decl;
	for (int i = e->nb - 1; i >= 0; i--)
		if (e->bd[i] == d) {
			*out = e->bv[i];
			return 0;
		}
	if (!kp_eval(n, e->k, e->iv, out))
		return 0;
	/* a local of the kernel (a __device__ variable may change from the
	 * host or another kernel), as copy_box.c's sym_ref */
	if (d && d->kind == KP_D_VAR && !d->is_shared && !d->is_device_var && !d->is_array &&
	    !d->is_pointer && !d->ty.is_ref && d->init && !kp_changed_in(e->f, e->k, d) &&
	    e->depth < 24) {
		e->depth++;
		int r = eval(e, d->init, out);
		e->depth--;
		return r;
	}
	e->why = kp_arena_printf(&e->f->arena, "depends on '%s', whose value kpipe does not know",
				 n->name ? n->name : "?");
	return -1;
}

static int eval(ec *e, const kp_node *n, long long *out)
{
	if (!n)
		return fail(e, "holds an expression kpipe does not evaluate");
	int c;
	long long a;
	switch (n->kind) {
	case KP_N_PAREN:
	case KP_N_CAST: return n->nkids == 1 ? eval(e, n->kids[0], out) : fail(e, "a cast");
	case KP_N_OTHER:
		if (n->nkids == 1)
			return eval(e, n->kids[0], out);
		break;
	case KP_N_DECLREF: return eval_ref(e, n, out);
	case KP_N_MEMBER: {
		const char *b = kp_node_builtin(e->f, n, 1, &c);
		if (!b || c < 0 || (strcmp(b, "threadIdx") && strcmp(b, "blockDim")))
			break;
		*out = !strcmp(b, "threadIdx") ? e->tid[c] : e->bdim[c];
		return 0;
	}
	case KP_N_BINOP: return eval_binop(e, n, out);
	case KP_N_UNOP:
		if (n->nkids != 1 || eval(e, n->kids[0], &a))
			return -1;
		if (n->opk == KP_OP_MINUS || n->opk == KP_OP_PLUS || n->opk == KP_OP_NOT ||
		    n->opk == KP_OP_LNOT) {
			*out = n->opk == KP_OP_MINUS  ? -a
			       : n->opk == KP_OP_PLUS ? a
			       : n->opk == KP_OP_NOT  ? ~a
						      : !a;
			return 0;
		}
		break;
	case KP_N_CONDOP:
		if (n->nkids != 3 || eval(e, n->kids[0], &a))
			return -1;
		return eval(e, n->kids[a ? 1 : 2], out);
	default: break;
	}
	if (!kp_eval(n, e->k, e->iv, out))
		return 0;
	return fail(e, "holds an expression kpipe does not evaluate");
}

/* ------------------------------------------------ the copy loops */

typedef struct {
	const kp_decl *ctr;
	int bad;
} ctr_walk;

static int ref_to(const kp_node *n, const kp_decl *d)
{
	n = kp_node_strip(n);
	return n && n->kind == KP_N_DECLREF && n->decl == d;
}

static int find_ctr_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	ctr_walk *w = ud;
	if (((n->kind == KP_N_BINOP && KP_OP_IS_ASSIGN(n->opk)) || n->kind == KP_N_ASSIGNOP ||
	     (n->kind == KP_N_UNOP && (KP_OP_IS_INCDEC(n->opk) || n->opk == KP_OP_ADDR))) &&
	    n->nkids && ref_to(n->kids[0], w->ctr))
		w->bad = 1;
	return !w->bad;
}

int kp_ec_refers_to(const kp_node *n, const kp_decl *d) { return ref_to(n, d); }

int kp_ec_body_changes(kp_node *body, const kp_decl *ctr)
{
	ctr_walk cw = {ctr, 0};
	kp_node_walk(body, NULL, find_ctr_write, &cw);
	return cw.bad;
}

const kp_decl *kp_ec_counter_of(const kp_node *n, const kp_node **first)
{
	const kp_node *init = n->for_init;
	if (init && init->kind == KP_N_DECLSTMT && init->nkids == 1)
		init = init->kids[0];
	if (init && init->kind == KP_N_VARDECL && init->decl && init->decl->init) {
		*first = init->decl->init;
		return init->decl;
	}
	init = kp_node_strip(init);
	if (init && init->kind == KP_N_BINOP && init->opk == KP_OP_ASSIGN && init->nkids == 2) {
		const kp_node *t = kp_node_strip(init->kids[0]);
		if (t && t->kind == KP_N_DECLREF && t->decl) {
			*first = init->kids[1];
			return t->decl;
		}
	}
	return NULL;
}

/* The counter's next value after the increment n. */
static int next_value(ec *e, const kp_node *inc, const kp_decl *ctr, long long *v)
{
	inc = kp_node_strip(inc);
	long long s;
	if (!inc || !inc->nkids || !ref_to(inc->kids[0], ctr))
		return fail(e, "has a copy loop whose increment is not of its counter");
	if (inc->kind == KP_N_UNOP && KP_OP_IS_INCDEC(inc->opk)) {
		*v += inc->opk == KP_OP_PRE_INC || inc->opk == KP_OP_POST_INC ? 1 : -1;
		return 0;
	}
	if (inc->nkids != 2 || eval(e, inc->kids[1], &s))
		return -1;
	if (inc->kind == KP_N_ASSIGNOP && inc->opk == KP_OP_ADD_ASSIGN)
		*v += s;
	else if (inc->kind == KP_N_ASSIGNOP && inc->opk == KP_OP_SUB_ASSIGN)
		*v -= s;
	else if (inc->kind == KP_N_BINOP && inc->opk == KP_OP_ASSIGN)
		*v = s; /* `c = c + s`: s read with the counter bound */
	else
		return fail(e, "has a copy loop whose increment kpipe does not evaluate");
	return 0;
}

static int visit_point(ec *e);

/* Every iteration of loops[0..n), then the element at each. */
static int walk_loops(ec *e, const kp_node *const *loops, int n)
{
	if (!n)
		return visit_point(e);
	const kp_node *lp = loops[0];
	const kp_node *first = NULL;
	const kp_decl *ctr = lp->kind == KP_N_FOR ? kp_ec_counter_of(lp, &first) : NULL;
	if (!ctr || !lp->for_cond || !lp->for_inc || !lp->for_body || e->nb >= EC_MAX_BIND)
		return fail(e, "is written in a loop that is no counted for loop");
	if (kp_ec_body_changes(lp->for_body, ctr))
		return fail(e, "is written in a copy loop whose body changes its counter");
	long long v;
	if (eval(e, first, &v))
		return -1;
	int slot = e->nb++;
	e->bd[slot] = ctr;
	int r = 0;
	for (long long trips = 0;; trips++) {
		long long go;
		e->bv[slot] = v;
		if ((r = eval(e, lp->for_cond, &go)) || !go)
			break;
		if (trips > 65536 || ++e->steps > EC_MAX_STEPS) {
			r = fail(e, "is written in copy loops too long to enumerate");
			break;
		}
		if ((r = walk_loops(e, loops + 1, n - 1)) ||
		    (r = next_value(e, lp->for_inc, ctr, &v)))
			break;
	}
	e->nb--;
	return r;
}

/* The element the target names at this point: marked, or looked up. */
static int visit_point(ec *e)
{
	long long off = 0;
	for (int i = 0; i < e->nd; i++) {
		long long x;
		if (eval(e, e->idx[i], &x))
			return -1;
		if (x < 0 || x >= e->dim[i])
			return fail(e,
				    "is indexed outside its bounds for some thread of the block");
		off = off * e->dim[i] + x;
	}
	if (e->marking)
		e->set[off] = 1;
	else if (!e->set[off])
		return fail(e, "");
	return 0;
}

/* The subscripts of target lhs, a full chain of e->arr, outermost
 * dimension first. */
static int subscripts_of(ec *e, const kp_node *lhs)
{
	const kp_node *r = kp_node_strip(lhs);
	int n = 0;
	const kp_node *rev[KP_MAX_DIMS];
	while (r && r->kind == KP_N_SUBSCRIPT && r->nkids == 2 && n < KP_MAX_DIMS) {
		rev[n++] = r->kids[1];
		r = kp_node_strip(r->kids[0]);
	}
	if (!r || r->kind != KP_N_DECLREF || r->decl != e->arr || n != e->nd)
		return fail(e, "is stored through a target that is not a full subscript chain");
	for (int i = 0; i < n; i++)
		e->idx[i] = rev[n - 1 - i];
	return 0;
}

/* Every thread of the block at every point of the loops around target lhs. */
static int walk_block(ec *e, const kp_node *lhs, const kp_node *const *loops, int nloops)
{
	if (subscripts_of(e, lhs))
		return -1;
	for (int z = 0; z < e->bdim[2]; z++)
		for (int y = 0; y < e->bdim[1]; y++)
			for (int x = 0; x < e->bdim[0]; x++) {
				e->tid[0] = x, e->tid[1] = y, e->tid[2] = z;
				if (walk_loops(e, loops, nloops))
					return -1;
			}
	return 0;
}

/* ------------------------------------------------ the public parts */

/* The block the user gives kernel k: --block, or the launch description's. */
static int given_block(const kp_kernel *k, const kp_analyze_opts *o)
{
	return o->block[0] > 0 ||
	       (o->spec_block[0] > 0 && (!o->spec_kernel || !strcmp(o->spec_kernel, k->name)));
}

/* Whether f launches k in a way whose block kpipe does not read (a
 * runtime API launch, the kernel's address taken). */
static int unread_launch(const kp_file *f, const kp_kernel *k)
{
	for (int i = 0; i < f->nlaunches; i++)
		if (f->launches[i].kernel == k &&
		    (f->launches[i].api || f->launches[i].nconfig < 2))
			return 1;
	return 0;
}

/* Kernel k's block in model f: the one the user gives, or the same
 * constant block at every <<<>>> launch of k in f, no launch of k in f
 * unread. */
static int from_launches(kp_file *f, const kp_kernel *k, const kp_analyze_opts *o, int xyz[3],
			 const char **from)
{
	if (!given_block(k, o) && unread_launch(f, k))
		return -1;
	kp_bk_block b;
	kp_bk_block_of(f, k, o, &b);
	if (b.x <= 0 || !b.from || strstr(b.from, "(1-D)"))
		return -1;
	xyz[0] = b.x, xyz[1] = b.y > 0 ? b.y : 1, xyz[2] = b.z > 0 ? b.z : 1;
	*from = b.from;
	return 0;
}

/* The items of the template argument list starting at s (its '<'),
 * white space dropped, into out[0..max): their count, -1 when unreadable. */
static int split_targs(kp_file *f, const char *s, const char **out, int max)
{
	if (!s || *s != '<')
		return -1;
	int n = 0, depth = 0;
	const char *p = s + 1;
	for (const char *q = p; *q; q++) {
		if (*q == '<' || *q == '(' || *q == '[')
			depth++;
		else if ((*q == ')' || *q == ']') && depth)
			depth--;
		else if (*q == '>' && depth)
			depth--;
		else if ((*q == ',' && !depth) || *q == '>') {
			if (n == max)
				return -1;
			kp_strbuf sb = KP_STRBUF_INIT;
			for (const char *r = p; r < q; r++)
				if (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r')
					kp_strbuf_addc(&sb, *r);
			out[n++] = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
			if (*q == '>')
				return n;
			p = q + 1;
		}
	}
	return -1;
}

/* The first '<' of text t before its first '(' or the end, or NULL. */
static const char *targs_of(const char *t)
{
	for (; t && *t && *t != '('; t++)
		if (*t == '<')
			return t;
	return NULL;
}

typedef struct {
	const char *name;
	const kp_node *call[4];
	int n, more;
} dcall_walk;

static int find_dcall(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	dcall_walk *w = ud;
	if (n->kind == KP_N_CALL && !strcmp(kp_call_name(n), w->name)) {
		if (w->n < 4)
			w->call[w->n++] = n;
		else
			w->more = 1;
	}
	return 1;
}

/* The position of device function d's template parameter that kernel
 * ck's parameter j is passed to by every call of d in ck (the same name
 * at one position of each call's template argument list), -1 if none. */
static int passed_to(kp_file *cf, const kp_kernel *ck, int j, const kp_kernel *d)
{
	dcall_walk w = {d->name, {0}, 0, 0};
	if (!ck->body || j < 0 || j >= ck->ntparams || !ck->tparam_names || !ck->tparam_names[j])
		return -1;
	kp_node_walk(ck->body, NULL, find_dcall, &w);
	int pos = -1;
	for (int i = 0; i < w.n && !w.more; i++) {
		const char *a[KP_MAX_TARGS];
		int na = split_targs(cf, targs_of(kp_node_text(cf, w.call[i])), a, KP_MAX_TARGS);
		int at = -1;
		for (int x = 0; x < na; x++)
			if (!strcmp(a[x], ck->tparam_names[j]))
				at = at < 0 ? x : -2;
		if (at < 0 || (pos >= 0 && pos != at))
			return -1;
		pos = at;
	}
	return w.more ? -1 : pos;
}

/* The block of launch x of caller ck of device function d, for d's
 * instantiation iv: each component a number, or a name the launch passes
 * as ck's template argument that ck passes on to d (`dim3 threads(DIM,
 * DIM)`, `k<T, DIM><<<grid, threads>>>`, `d<T, DIM>(...)` in k). */
static int through_targs(kp_file *lf, const kp_launch *x, const kp_kernel *ck, kp_file *cf,
			 const kp_kernel *d, const long long *iv, int xyz[3])
{
	const char *comp[3], *a[KP_MAX_TARGS];
	if (!iv || kp_bk_block_texts(lf, x, comp))
		return -1;
	int na = split_targs(lf, targs_of(kp_range_text(lf, x->begin, x->open)), a, KP_MAX_TARGS);
	for (int c = 0; c < 3; c++) {
		char *end;
		long v = strtol(comp[c], &end, 10);
		if (end != comp[c] && !*end) {
			xyz[c] = (int)v;
			continue;
		}
		int j = -1;
		for (int i = 0; i < na; i++)
			if (!strcmp(a[i], comp[c]))
				j = j < 0 ? i : -2;
		int p = j >= 0 ? passed_to(cf, ck, j, d) : -1;
		if (p < 0 || p >= KP_MAX_TARGS || p >= d->ntparams || (d->tparam_type >> p & 1u) ||
		    iv[p] <= 0 || iv[p] > 1024)
			return -1;
		xyz[c] = (int)iv[p];
	}
	return xyz[0] * xyz[1] * xyz[2] <= 1024 ? 0 : -1;
}

/* The models that may hold launches of ck: f, the .cu that includes it,
 * and that .cu's other header models. */
static int models_of(kp_file *f, kp_file **out, int max)
{
	int n = 0;
	out[n++] = f;
	kp_file *top = f->includer ? f->includer : f;
	if (top != f)
		out[n++] = top;
	for (int i = 0; i < top->nheaders && n < max; i++)
		if (top->headers[i] != f)
			out[n++] = top->headers[i];
	return n;
}

/* The block every launch of caller ck gives device function d, over the
 * models that may launch it: in each, its constant block
 * (from_launches), or, launch by launch, one through template arguments;
 * all the same, and at least one launch. */
static int caller_block(kp_file *f, const kp_kernel *ck, const kp_kernel *d,
			const kp_analyze_opts *o, const long long *iv, int xyz[3],
			const char **from)
{
	if (given_block(ck, o))
		return from_launches(f, ck, o, xyz, from);
	kp_file *m[16];
	int nm = models_of(f, m, 16), seen = 0;
	kp_file *cf = NULL; /* the model that holds ck */
	for (int j = 0; j < nm && !cf; j++)
		for (int q = 0; q < m[j]->nkernels && !cf; q++)
			if (m[j]->kernels[q] == ck)
				cf = m[j];
	for (int i = 0; i < nm; i++) {
		int c[3];
		const char *fr = NULL;
		if (unread_launch(m[i], ck))
			return -1;
		if (!from_launches(m[i], ck, o, c, &fr)) {
			if (seen && memcmp(c, xyz, sizeof(c)))
				return -1;
			memcpy(xyz, c, sizeof(c));
			*from = fr;
			seen = 1;
			continue;
		}
		for (int j = 0; j < m[i]->nlaunches; j++) {
			const kp_launch *x = &m[i]->launches[j];
			if (x->kernel != ck)
				continue;
			if (!cf || through_targs(m[i], x, ck, cf, d, iv, c) ||
			    (seen && memcmp(c, xyz, sizeof(c))))
				return -1;
			memcpy(xyz, c, sizeof(c));
			*from = kp_arena_printf(&f->arena, "launch at line %d of %s", x->line,
						m[i]->path ? m[i]->path : "?");
			seen = 1;
		}
	}
	return seen ? 0 : -1;
}

int kp_ec_block(kp_file *f, const kp_kernel *k, const kp_analyze_opts *o, const long long *iv,
		int xyz[3], const char **from)
{
	if (!k->is_device)
		return from_launches(f, k, o, xyz, from);
	if (k->ncallers < 1)
		return -1;
	for (int i = 0; i < k->ncallers; i++) {
		int c[3];
		const char *fr;
		if (caller_block(f, k->caller_k[i], k, o, iv, c, &fr))
			return -1;
		if (i && memcmp(c, xyz, sizeof(c)))
			return -1;
		memcpy(xyz, c, sizeof(c));
		*from = fr;
	}
	return 0;
}

const char *kp_ec_store_covered(kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_tile *t,
				const long long *iv, const int xyz[3], const kp_node *lhs,
				const kp_node *const *loops, int nloops)
{
	ec e;
	memset(&e, 0, sizeof(e));
	e.f = f, e.k = k, e.iv = iv, e.arr = t->arr, e.nd = t->arr->ndims;
	memcpy(e.bdim, xyz, sizeof(e.bdim));
	long long total = 1;
	for (int i = 0; i < e.nd; i++) {
		const kp_node *de = kp_bk_dim_expr(t->arr, i);
		e.dim[i] = t->arr->dims[i];
		if (e.dim[i] <= 0 && (!de || kp_eval(de, k, iv, &e.dim[i])))
			e.dim[i] = -1;
		if (e.dim[i] <= 0 || (total *= e.dim[i]) > EC_MAX_ELEMS)
			return "has bounds kpipe does not know or too many elements to enumerate";
	}
	if (e.nd < 1)
		return "has no bounds kpipe knows";
	e.set = calloc((size_t)total, 1);
	if (!e.set)
		return "has too many elements to enumerate";
	/* the loop's unconditional copies: every iteration writes these */
	e.marking = 1;
	for (int i = 0; i < l->nloads && !e.why; i++) {
		const kp_load *ld = &l->loads[i];
		if (ld->tile != t->arr || ld->nunder || ld->depth > 4 || !ld->lhs)
			continue;
		walk_block(&e, ld->lhs, (const kp_node *const *)ld->loops, ld->depth);
	}
	const char *why = e.why;
	if (!why) {
		e.marking = 0;
		e.nb = 0;
		if (walk_block(&e, lhs, loops, nloops))
			why = e.why && *e.why ? e.why
					      : "writes an element that no thread's copies in the "
						"loop write";
	}
	free(e.set);
	return why;
}
