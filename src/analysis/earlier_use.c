/*
 * earlier_use.c - a loaded tile named before its K-loop, safe to
 * double-buffer for this loop all the same: earlier_use.h.
 */
#include "earlier_use.h"

#include "analyze.h"
#include "analyze_int.h"
#include "effects.h"
#include "elem_cover.h"
#include "last_tile.h"
#include "liveness.h"

#include <string.h>

typedef struct {
	kp_file *f;
	const kp_kernel *k;
	const kp_loop *l;
	const kp_tile *t;
	const long long *iv; /* the instantiation analysed, or NULL */
	int block[3];        /* the block shape (elem_cover.h), x 0: not known */
	const char *block_from;
	const kp_node *at;
	const char *why;
} eu;

enum { EU_FAIL, EU_SAFE, EU_ON }; /* paths: a use unseparated, all cross a barrier, some go on */

static int fail(eu *c, const kp_node *at, const char *why)
{
	if (!c->why) {
		c->at = at;
		c->why = why;
	}
	return EU_FAIL;
}

static int is_stmt(const kp_node *n)
{
	return n && (n->kind == KP_N_COMPOUND || n->kind == KP_N_FOR || n->kind == KP_N_WHILE ||
		     n->kind == KP_N_DO || n->kind == KP_N_IF);
}

static int jumps(const kp_node *n)
{
	if (!n || n->kind == KP_N_LAMBDA)
		return 0;
	if (n->kind == KP_N_RETURN || n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE ||
	    n->kind == KP_N_GOTO || n->kind == KP_N_SWITCH)
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (jumps(n->kids[i]))
			return 1;
	return 0;
}

/* ------------------------------------------------ stores on the path */

/* The text of n with its white space dropped. */
static char *squeeze(eu *c, unsigned b, unsigned e)
{
	char *s = kp_arena_alloc(&c->f->arena, (size_t)(e - b) + 1);
	size_t k = 0;
	for (unsigned i = b; i < e && i < c->f->len; i++)
		if (c->f->src[i] != ' ' && c->f->src[i] != '\t' && c->f->src[i] != '\n' &&
		    c->f->src[i] != '\r')
			s[k++] = c->f->src[i];
	s[k] = 0;
	return s;
}

/* The header of for loop n, `for (...)`, without white space. */
static char *header(eu *c, const kp_node *n)
{
	return n->for_body ? squeeze(c, n->begin, n->for_body->begin) : NULL;
}

/* Every name in n other than the counters declared in hdr[] is fixed in
 * the kernel: a constant, a template parameter, a built-in index, or a
 * variable nothing in the kernel changes. */
static int names_fixed(eu *c, const kp_node *n, const kp_node *const *hdr, int nh)
{
	if (!n)
		return 1;
	if (n->kind == KP_N_DECLREF && n->decl && n->decl != c->t->arr) {
		const kp_decl *d = n->decl;
		int ctr = 0;
		for (int i = 0; i < nh && !ctr; i++)
			ctr = hdr[i]->for_init && d->begin >= hdr[i]->for_init->begin &&
			      d->end <= hdr[i]->for_init->end;
		int builtin = !d->in_main && d->name &&
			      (!strcmp(d->name, "threadIdx") || !strcmp(d->name, "blockIdx") ||
			       !strcmp(d->name, "blockDim") || !strcmp(d->name, "gridDim"));
		if (!ctr && !builtin && d->kind != KP_D_TPARAM && d->kind != KP_D_ENUM &&
		    !(d->is_const && !d->ty.is_ref) &&
		    !((d->kind == KP_D_VAR || d->kind == KP_D_PARM) && !d->is_array &&
		      !kp_var_may_change(c->k, d)))
			return 0;
	}
	if (n->kind == KP_N_CALL || n->kind == KP_N_LAMBDA || n->kind == KP_N_ASM)
		return 0;
	for (int i = 0; i < n->nkids; i++)
		if (!names_fixed(c, n->kids[i], hdr, nh))
			return 0;
	return 1;
}

/* The copy loops around a store, innermost first, from the stack of its
 * ancestors: for loops (through braces and attributes) up to the first
 * other statement or a loop with a barrier. */
static int nest_of(const kp_node *const *stk, int ns, const kp_node **out, int max)
{
	int n = 0;
	for (int i = ns - 1; i >= 0; i--) {
		const kp_node *p = stk[i];
		if (p->kind == KP_N_COMPOUND || (p->kind == KP_N_OTHER && p->nkids == 1))
			continue;
		if (p->kind != KP_N_FOR || n >= max || kp_contains_barrier(p))
			break;
		out[n++] = p;
	}
	return n;
}

/* Whether the store `lhs = ...` (its copy loops nest[0..nn), innermost
 * first) is one of l's copies into the tile spelled the same. */
static int same_as_copy(eu *c, const kp_node *lhs, const kp_node *const *nest, int nn)
{
	const char *ls = squeeze(c, lhs->begin, lhs->end);
	for (int i = 0; i < c->l->nloads; i++) {
		const kp_load *ld = &c->l->loads[i];
		if (ld->tile != c->t->arr || ld->nunder || ld->depth != nn || ld->tmp_decl ||
		    !ld->lhs || !ld->lhs->in_main ||
		    strcmp(ls, squeeze(c, ld->lhs->begin, ld->lhs->end)))
			continue;
		int ok = 1;
		/* ld->loops[] is outermost first, nest[] innermost first */
		for (int j = 0; j < nn && ok; j++) {
			const char *a = header(c, nest[j]), *b = header(c, ld->loops[nn - 1 - j]);
			ok = a && b && !strcmp(a, b);
		}
		if (ok && names_fixed(c, lhs, nest, nn))
			return 1;
	}
	return 0;
}

typedef struct {
	eu *c;
	const kp_node *stk[64];
	int ns;
	int bad;
} store_walk;

/* The top of the subscript chain over ref (through casts and parens),
 * with *depth its subscripts. */
static const kp_node *skip_casts_up(const store_walk *w, int *i, const kp_node *cur, int *depth)
{
	*depth = 0;
	while (*i >= 0 && (w->stk[*i]->kind == KP_N_CAST || w->stk[*i]->kind == KP_N_PAREN ||
			   (w->stk[*i]->kind == KP_N_SUBSCRIPT && w->stk[*i]->nkids &&
			    w->stk[*i]->kids[0] == cur))) {
		*depth += w->stk[*i]->kind == KP_N_SUBSCRIPT;
		cur = w->stk[*i];
		(*i)--;
	}
	return cur;
}

/* A store into the tile spelled unlike the loop's copies (the store
 * `top = ...`, stk[i] its assignment): the elements it may write, for the
 * block shape, are among those the loop's copies write every iteration
 * (elem_cover.h), its copy loops the for loops around it up to the first
 * loop with a barrier or another loop. */
static void covered_store(store_walk *w, const kp_node *ref, const kp_node *top, int i)
{
	eu *c = w->c;
	const char *why;
	if (!c->block[0]) {
		why = "is stored into before the loop through other subscripts or copy loops "
		      "than this loop's copies, and no block shape is known (a launch, a launch "
		      "description, --block) to compare the elements each writes: an element "
		      "that store leaves and the loop does not write would be in one buffer only";
	} else {
		const kp_node *loops[8];
		int n = 0;
		for (int j = i - 1; j >= 0 && n < 8; j--) {
			const kp_node *p = w->stk[j];
			if (p->kind == KP_N_WHILE || p->kind == KP_N_DO)
				break;
			if (p->kind != KP_N_FOR)
				continue;
			if (kp_contains_barrier(p))
				break;
			loops[n++] = p;
		}
		for (int a = 0, b = n - 1; a < b; a++, b--) { /* outermost first */
			const kp_node *x = loops[a];
			loops[a] = loops[b];
			loops[b] = x;
		}
		const char *e =
			kp_ec_store_covered(c->f, c->k, c->l, c->t, c->iv, c->block, top, loops, n);
		if (!e)
			return;
		why = kp_arena_printf(
			&c->f->arena,
			"is stored into before the loop through other subscripts or "
			"copy loops than this loop's copies, and with the block %dx%dx%d "
			"(%s) the store %s: an element that store leaves and the loop "
			"does not write would be in one buffer only",
			c->block[0], c->block[1], c->block[2], c->block_from, e);
	}
	w->bad = fail(c, ref, why) == EU_FAIL;
}

/* Whether call p is the copy of a class value `top` (the element passed
 * by value to a function: `cuCabs(la[i][j])`): a constructor (its name the
 * declaration's) of one argument, a const reference, building a value of
 * class type from one of class type.  It reads the element. */
static int copy_ctor(const kp_node *p, const kp_node *top)
{
	const kp_decl *fn = p->decl;
	return fn && fn->name && !strcmp(kp_call_name(p), fn->name) && p->nkids == 1 &&
	       kp_call_first_arg(p) == 0 && fn->nparam_ty == 1 && fn->param_ty[0].is_ref == 1 &&
	       fn->param_ty[0].is_const && p->ty.kind == KP_TY_RECORD && !p->ty.is_ref &&
	       top->ty.kind == KP_TY_RECORD;
}

/* The index in w->stk of the parent of stk[i] through parens and casts
 * (-1: none), and in *m the child of it that holds stk[i]. */
static int parent_of(const store_walk *w, int i, const kp_node **m)
{
	*m = w->stk[i];
	int j = i - 1;
	while (j >= 0 && (w->stk[j]->kind == KP_N_PAREN || w->stk[j]->kind == KP_N_CAST))
		*m = w->stk[j--];
	return j;
}

/* Whether the value of stk[i] is only read: its parent (through parens
 * and casts) an operator that is no assignment, increment, address-of or
 * comma, or the right side of an assignment. */
static int value_only(const store_walk *w, int i)
{
	const kp_node *m;
	int j = parent_of(w, i, &m);
	const kp_node *q = j >= 0 ? w->stk[j] : NULL;
	if (!q || q->nkids < 2)
		return 0;
	if ((q->kind == KP_N_BINOP && KP_OP_IS_ASSIGN(q->opk)) || q->kind == KP_N_ASSIGNOP)
		return q->kids[1] == m;
	if (q->kind == KP_N_CALL && q->decl && q->decl->param_ty) {
		/* an argument copied into a parameter taken by value
		 * (`make_cuDoubleComplex(real(x), 0.0)`) */
		int a0 = kp_call_first_arg(q);
		for (int a = a0; a < q->nkids; a++)
			if (q->kids[a] == m)
				return a - a0 < q->decl->nparam_ty &&
				       !q->decl->param_ty[a - a0].is_ref &&
				       q->decl->param_ty[a - a0].kind != KP_TY_POINTER &&
				       q->decl->param_ty[a - a0].kind != KP_TY_UNKNOWN &&
				       q->decl->param_ty[a - a0].kind != KP_TY_DEPENDENT;
		return 0;
	}
	return q->kind == KP_N_BINOP && q->opk != KP_OP_COMMA;
}

/* Whether function type ft ("T (T &)") returns a reference or a pointer,
 * or is not known. */
static int returns_address(const char *ft)
{
	const char *open = ft ? strchr(ft, '(') : NULL;
	return !open || memchr(ft, '&', (size_t)(open - ft)) ||
	       memchr(ft, '*', (size_t)(open - ft));
}

/* Whether the call stk[i] only reads its argument `top`: passed by value
 * (or copied by a constructor, copy_ctor), or to a call that writes
 * nothing at all (its effects, the callee's body followed: `twice(float
 * &x) { return 2 * x; }`), declared to return no reference or pointer,
 * whose value is only read (value_only), so it neither writes the element
 * nor keeps or hands back its address. */
static int call_reads(store_walk *w, int i, const kp_node *top)
{
	const kp_node *p = w->stk[i];
	int arg = -1, a0 = kp_call_first_arg(p);
	for (int j = a0; j < p->nkids; j++)
		if (p->kids[j] == top)
			arg = j - a0;
	const kp_decl *fn = p->decl;
	if (!(arg < 0 || !fn || !fn->param_ty || arg >= fn->nparam_ty ||
	      (fn->param_ty[arg].is_ref && !copy_ctor(p, top)) ||
	      fn->param_ty[arg].kind == KP_TY_POINTER || fn->param_ty[arg].kind == KP_TY_UNKNOWN ||
	      fn->param_ty[arg].kind == KP_TY_DEPENDENT))
		return 1;
	/* a call unresolved in a template: each function its name can find
	 * (kp_node.lookup_decls), none returning an address */
	int ret_addr = fn ? returns_address(fn->type) : !p->nlookup;
	for (int j = 0; !fn && j < p->nlookup; j++)
		ret_addr |= !p->lookup_decls[j] || returns_address(p->lookup_decls[j]->type);
	if (arg < 0 || ret_addr || p->ty.kind == KP_TY_POINTER || !value_only(w, i))
		return 0; /* what it returns may be the element */
	kp_effect_set rd = {0}, wr = {0};
	kp_effects_of_node(w->c->f, w->c->k, p, &rd, &wr);
	return wr.n == 0;
}

/* Whether the member access stk[i] of an element (`la[i][j].x`) is read
 * as a value: its parent (through parens and casts) is an operator or
 * statement that neither assigns it, takes its address, calls through it,
 * passes it on nor binds it. */
static int member_read(store_walk *w, int i)
{
	const kp_node *m;
	int j = parent_of(w, i, &m);
	const kp_node *q = j >= 0 ? w->stk[j] : NULL;
	if (q && q->kind == KP_N_CALL)
		return call_reads(w, j, m);
	if (!q || q->kind == KP_N_MEMBER || q->kind == KP_N_VARDECL || q->kind == KP_N_OTHER ||
	    q->kind == KP_N_INITLIST || q->kind == KP_N_LAMBDA || q->kind == KP_N_ASM)
		return 0;
	if ((q->kind == KP_N_BINOP && KP_OP_IS_ASSIGN(q->opk) && q->nkids && q->kids[0] == m) ||
	    (q->kind == KP_N_ASSIGNOP && q->nkids && q->kids[0] == m) ||
	    (q->kind == KP_N_UNOP && (KP_OP_IS_INCDEC(q->opk) || q->opk == KP_OP_ADDR)))
		return 0;
	return 1;
}

/* A use of the tile in a store on the path to the loop: a read of an
 * element (an operand, or an argument passed by value), or the target of
 * a plain `=` that is one of the loop's copies. */
static void check_ref(store_walk *w, const kp_node *ref)
{
	eu *c = w->c;
	int i = w->ns - 1;
	int depth;
	const kp_node *top = skip_casts_up(w, &i, ref, &depth);
	const kp_node *p = i >= 0 ? w->stk[i] : NULL;
	if (p && p->kind == KP_N_SIZEOF)
		return; /* indexed, the size of one buffer: what it was */
	if (p && depth < c->t->arr->ndims) {
		w->bad = fail(c, ref,
			      "is named before the loop with fewer subscripts than it has "
			      "dimensions (a pointer into it), which kpipe does not follow") ==
			 EU_FAIL;
		return;
	}
	if (!p) {
		w->bad =
			fail(c, ref,
			     "is named before the loop without a subscript, which kpipe does not follow") ==
			EU_FAIL;
		return;
	}
	if (kp_is_assign(p) && p->nkids == 2 && p->kids[0] == top) {
		const kp_node *nest[4];
		int nn = nest_of(w->stk, i, nest, 4);
		if (!same_as_copy(c, top, nest, nn))
			covered_store(w, ref, top, i);
		return;
	}
	int lvalue = (p->kind == KP_N_ASSIGNOP && p->kids[0] == top) ||
		     (p->kind == KP_N_UNOP && (KP_OP_IS_INCDEC(p->opk) || p->opk == KP_OP_ADDR)) ||
		     p->kind == KP_N_VARDECL || (p->kind == KP_N_MEMBER && !member_read(w, i));
	if (p->kind == KP_N_CALL)
		lvalue = !call_reads(w, i, top);
	if (lvalue)
		w->bad = fail(c, ref,
			      "is written, passed on or aliased before the loop in a way "
			      "kpipe does not follow") == EU_FAIL;
}

static void walk_stores(store_walk *w, const kp_node *n)
{
	if (!n || w->bad)
		return;
	if (n->kind == KP_N_DECLREF && n->decl == w->c->t->arr) {
		check_ref(w, n);
		return;
	}
	if (w->ns >= 64) {
		w->bad =
			fail(w->c, n,
			     "is used before the loop in code nested too deeply for kpipe's walk") ==
			EU_FAIL;
		return;
	}
	w->stk[w->ns++] = n;
	for (int i = 0; i < n->nkids; i++)
		walk_stores(w, n->kids[i]);
	w->ns--;
}

/* Every store into the tile in s is one of the loop's copies. */
static int stores_ok(eu *c, const kp_node *s)
{
	store_walk w = {c, {0}, 0, 0};
	walk_stores(&w, s);
	return !w.bad;
}

/* ------------------------------------------------ barriers on the path */

static int back_stmt(eu *c, const kp_node *s);

/* Paths into the end of kids[0..n) from before them. */
static int back_seq(eu *c, kp_node *const *kids, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		int r = back_stmt(c, kids[i]);
		if (r != EU_ON)
			return r;
	}
	return EU_ON;
}

/* Paths that leave statement s towards the loop: all cross a barrier
 * after s's last use of the tile (EU_SAFE), some go through s without
 * naming the tile (EU_ON), or a use in s reaches the end unseparated. */
static int back_stmt(eu *c, const kp_node *s)
{
	if (!s || kp_is_barrier(s))
		return s ? EU_SAFE : EU_ON;
	if (!kp_node_names_decl(s, c->t->arr))
		return EU_ON;
	const kp_node *u = s;
	while (u->kind == KP_N_OTHER && u->nkids == 1 && is_stmt(u->kids[0]))
		u = u->kids[0];
	if (u->kind == KP_N_COMPOUND)
		return back_seq(c, u->kids, u->nkids);
	if (u->kind == KP_N_IF && (u->nkids == 2 || u->nkids == 3)) {
		if (kp_node_names_decl(u->kids[0], c->t->arr))
			return fail(c, u->kids[0], "is read in a condition on the way to the loop");
		int a = back_stmt(c, u->kids[1]);
		int b = u->nkids == 3 ? back_stmt(c, u->kids[2]) : EU_ON;
		if (a == EU_FAIL || b == EU_FAIL)
			return EU_FAIL;
		return a == EU_SAFE && b == EU_SAFE ? EU_SAFE : EU_ON;
	}
	const kp_node *body = u->kind == KP_N_FOR     ? u->for_body
			      : u->kind == KP_N_WHILE ? (u->nkids == 2 ? u->kids[1] : NULL)
			      : u->kind == KP_N_DO    ? (u->nkids == 2 ? u->kids[0] : NULL)
						      : NULL;
	if (body) {
		if (jumps(body))
			return fail(c, body,
				    "is used before the loop in a loop that may leave its body "
				    "early (break, continue, return, goto)");
		for (int i = 0; i < u->nkids; i++)
			if (u->kids[i] != body && kp_node_names_decl(u->kids[i], c->t->arr))
				return fail(c, u->kids[i],
					    "is used in the header of a loop before this one");
		if (back_stmt(c, body) != EU_SAFE)
			return fail(c, body,
				    "is used in an earlier loop whose body does not end with "
				    "__syncthreads()");
		/* a loop that ran once crossed its last barrier; none ran: go on */
		return u->kind == KP_N_DO ? EU_SAFE : EU_ON;
	}
	return fail(c, s,
		    "is used before the loop with no __syncthreads() between that "
		    "use and the loop: the pipelined loop's prologue would write the "
		    "tile while that use may still read it");
}

typedef struct {
	const kp_decl *d;
	unsigned b, e;
	const kp_node *bad;
	int any;
} before_walk;

static int find_before(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	before_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d && n->in_main && n->begin < w->b &&
	    !kp_node_in(n, w->b, w->e)) {
		w->any = 1;
		if (!n->name_editable && !w->bad)
			w->bad = n;
	}
	return 1;
}

int kp_tile_named_before(const kp_kernel *k, const kp_loop *l, const kp_tile *t)
{
	before_walk w = {t->arr, l->node->begin, l->node->end, NULL, 0};
	if (k->body)
		kp_node_walk(k->body, NULL, find_before, &w);
	return w.any;
}

const char *kp_tile_earlier_problem(kp_file *f, const kp_kernel *k, const kp_loop *l,
				    const kp_tile *t, const long long *iv, const kp_analyze_opts *o,
				    const kp_node **at)
{
	eu c = {f, k, l, t, iv, {0, 0, 0}, NULL, NULL, NULL};
	if (!o || kp_ec_block(f, k, o, iv, c.block, &c.block_from))
		c.block[0] = 0;
	*at = l->node;
	before_walk bw = {t->arr, l->node->begin, l->node->end, NULL, 0};
	kp_node_walk(k->body, NULL, find_before, &bw);
	if (bw.bad) {
		*at = bw.bad;
		return "is named before the loop inside a macro body, which no edit can index";
	}
	if (!l->node->in_main || t->naliases || t->in_loop || kp_decl_is_dynamic_smem(t->arr) ||
	    kp_decl_is_static_carve(t->arr) || l->loads_in_helper || l->loads_carve_out)
		return "is used before the loop, and the tile has pointers into it, is "
		       "dynamic or carved shared memory, or is loaded in a helper";
	const kp_node *path[64];
	int np = 0;
	if (!kp_node_path(k->body, l->node, path, &np, 64))
		return "is used before the loop, which kpipe cannot place in the kernel";
	/* every statement before the loop on a path to it (whether or not a
	 * barrier follows): its stores into the tile are the loop's copies,
	 * and nothing else writes it or lets it escape */
	int stores = 0;
	for (int j = np - 2; j >= 0 && !c.why; j--) {
		const kp_node *p = path[j], *child = path[j + 1];
		if (p->kind == KP_N_IF && p->nkids && p->kids[0] != child)
			stores_ok(&c, p->kids[0]);
		for (int i = 0;
		     p->kind == KP_N_COMPOUND && i < p->nkids && p->kids[i] != child && !c.why; i++)
			if (kp_node_names_decl(p->kids[i], t->arr)) {
				stores = 1;
				stores_ok(&c, p->kids[i]);
			}
	}
	if (c.why) {
		*at = c.at;
		return c.why;
	}
	int r = EU_ON;
	for (int j = np - 2; j >= 0 && r == EU_ON; j--) {
		const kp_node *p = path[j], *child = path[j + 1];
		if (p->kind == KP_N_COMPOUND) {
			int i = 0;
			while (i < p->nkids && p->kids[i] != child)
				i++;
			r = back_seq(&c, p->kids, i);
		} else if (p->kind == KP_N_IF) {
			if (p->nkids && p->kids[0] != child &&
			    kp_node_names_decl(p->kids[0], t->arr))
				r = fail(&c, p->kids[0],
					 "is read in a condition on the way to the loop");
		} else if (p->kind == KP_N_OTHER && p->nkids == 1) {
			continue;
		} else if (kp_node_names_decl(p, t->arr)) {
			r = fail(&c, p,
				 "is also used in a statement around the loop (a loop around "
				 "it comes back to it)");
		}
	}
	if (r == EU_FAIL) {
		*at = c.at;
		return c.why;
	}
	/* the loop writes the same elements every time (last_tile.h) */
	if (stores && !kp_tile_last_after(k, l, t))
		return "is used before the loop, and this loop's copies may not write the "
		       "same elements of it every time (last_tile.h's test), so an element an "
		       "earlier store left could be read from the other buffer";
	return NULL;
}
