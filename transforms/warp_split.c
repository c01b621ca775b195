/*
 * warp_split.c - whether all threads of a warp reach a K-loop together
 * (warp_split.h).  Course code wraps the whole K-loop in
 * `if (row < M && col < N) { ... }`: the threads outside run on to the
 * end of the kernel and exit, and the loop's __syncthreads() still works
 * because exited threads do not count at a block barrier (sm_70 on).  A
 * full-mask __syncwarp() inside that loop names them too: "all non-exited
 * threads named in mask must execute a corresponding __syncwarp()", or
 * the behaviour is undefined (the CUDA programming guide); on the H200 a
 * register-staging rewrite of such a kernel gave wrong results at a size
 * that splits a warp.  So a warp barrier is only added where every
 * enclosing condition is proven block-uniform and no jump comes first.
 *
 * Before Volta (sm_50 to sm_62, a build's older targets: docs/design.md,
 * "Several targets") a warp has no independent thread scheduling, and
 * bar.warp.sync needs every lane of its mask active and converged: the
 * same proof (every enclosing condition block-uniform, no jump first)
 * is what makes the barrier valid there too, so the rule needs no change
 * per target.
 *
 * Uniform here: built from kernel parameters, template parameters,
 * constants and enumerators, blockIdx/blockDim/gridDim, const locals
 * initialised with such values (or locals assigned such a value once,
 * before the loop, and never written again: assigned_once()), and the
 * counters of enclosing loops whose initialisers and steps are such
 * values.  Anything else (threadIdx, a
 * call, a local changed elsewhere) may differ between threads.
 */
#include "warp_split.h"

#include "effects.h"
#include "pure.h"

#include <string.h>

typedef struct {
	kp_file *f;
	const kp_loop *l;
	const kp_kernel *k;       /* the function whose body is walked */
	const kp_node *target;    /* the loop, or a call of the loop's function */
	const kp_node *path[256]; /* the statements from the body to the loop */
	int depth, found;
	/* the jumps before the loop: a return or goto, or a break/continue
	 * with the loop or switch it leaves (which matters only when it
	 * encloses the K-loop) */
	const kp_node *jump[64], *leaves[64];
	int njumps;
	int in_cond; /* checking the K-loop's own condition (enclosing_counter()) */
} finder;

/* The innermost statement of the current path a break (or continue)
 * leaves, NULL when none. */
static const kp_node *jump_target(const finder *w, const kp_node *n)
{
	for (int i = w->depth - 1; i >= 0; i--) {
		kp_node_kind k = w->path[i]->kind;
		if (k == KP_N_FOR || k == KP_N_WHILE || k == KP_N_DO ||
		    (k == KP_N_SWITCH && n->kind == KP_N_BREAK))
			return w->path[i];
	}
	return NULL;
}

static int find_path(finder *w, const kp_node *n)
{
	if (!n || w->found)
		return w->found;
	if (n == w->target) {
		w->found = 1;
		return 1;
	}
	if (n->begin > w->target->begin && n->in_main)
		return 0;
	if ((n->kind == KP_N_RETURN || n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE ||
	     n->kind == KP_N_GOTO) &&
	    w->njumps < 64) {
		w->leaves[w->njumps] = n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE
					       ? jump_target(w, n)
					       : NULL;
		w->jump[w->njumps++] = n;
	}
	if (w->depth >= 256)
		return 0;
	w->path[w->depth++] = n;
	for (int i = 0; i < n->nkids; i++)
		if (find_path(w, n->kids[i]))
			return 1;
	w->depth--;
	return 0;
}

static int uniform(const finder *w, const kp_node *e, int budget);

/* A loop's step that changes only the counter d, by uniform amounts
 * (`k += T`, `++k`, `k = k + T`; several joined by commas). */
static int uniform_step(const finder *w, const kp_node *e, const kp_decl *d, int budget)
{
	e = e ? kp_node_strip(e) : NULL;
	if (!e)
		return 1;
	if (e->kind == KP_N_BINOP && e->op && e->opk == KP_OP_COMMA && e->nkids == 2)
		return uniform_step(w, e->kids[0], d, budget) &&
		       uniform_step(w, e->kids[1], d, budget);
	int assign = e->kind == KP_N_ASSIGNOP ||
		     (e->kind == KP_N_BINOP && e->op && e->opk == KP_OP_ASSIGN);
	int incdec = e->kind == KP_N_UNOP && e->op && (KP_OP_IS_INCDEC(e->opk));
	if (!assign && !incdec)
		return uniform(w, e, budget);
	const kp_node *t = e->nkids > 0 ? kp_node_strip(e->kids[0]) : NULL;
	/* d, or another counter (checked where it is read), changed by a
	 * uniform amount */
	if (!t || t->kind != KP_N_DECLREF)
		return 0;
	return incdec || (e->nkids == 2 && uniform(w, e->kids[1], budget));
}

/* Whether statement or expression n of the kernel writes d (an
 * assignment, a step, its address taken, through a reference or a call:
 * the effect sets). */
static int node_writes(const finder *w, const kp_node *n, const kp_decl *d)
{
	kp_effect_set rd = {0}, wr = {0};
	kp_effects_of_node(w->f, w->k, n, &rd, &wr);
	return kp_effects_write_to(&wr, d) != NULL;
}

/* Whether the K-loop's body writes d. */
static int body_writes(const finder *w, const kp_decl *d)
{
	const kp_node *body = w->target->kind == KP_N_FOR ? w->target->for_body : NULL;
	return !body || node_writes(w, body, d);
}

/* The value a for-init assigns d (`d = E`, or one of `a = E1, d = E2`),
 * or NULL. */
static const kp_node *init_value(const kp_node *in, const kp_decl *d)
{
	in = in ? kp_node_strip(in) : NULL;
	if (!in || in->kind != KP_N_BINOP || !in->op || in->nkids != 2)
		return NULL;
	if (in->opk == KP_OP_COMMA) {
		const kp_node *v = init_value(in->kids[0], d);
		return v ? v : init_value(in->kids[1], d);
	}
	const kp_node *t = in->opk == KP_OP_ASSIGN ? kp_node_strip(in->kids[0]) : NULL;
	return t && t->kind == KP_N_DECLREF && t->decl == d ? in->kids[1] : NULL;
}

/* A local declared in the for-init of an enclosing loop whose init and
 * step are uniform (the local itself assumed so); or, in the K-loop's own
 * condition, a counter the K-loop's init assigns (C89 style: `for (t = 0;
 * t < K / TILE; t++)`, `t` declared at the top) a uniform value and its
 * step changes by a uniform amount, which its body never writes: the
 * condition reads it only inside the loop, where it is that value plus
 * whole steps. */
static int enclosing_counter(const finder *w, const kp_decl *d, int budget)
{
	const kp_node *tg = w->target;
	const kp_node *in = w->in_cond && tg->kind == KP_N_FOR ? init_value(tg->for_init, d) : NULL;
	if (in)
		return uniform(w, in, budget - 1) && uniform_step(w, tg->for_inc, d, budget - 1) &&
		       !body_writes(w, d);
	for (int i = 0; i <= w->depth; i++) {
		const kp_node *s = i < w->depth ? w->path[i] : w->target;
		if (s->kind != KP_N_FOR || !s->for_init)
			continue;
		const kp_node *init = s->for_init;
		int declares = 0;
		for (int k = 0; k < init->nkids; k++)
			if (init->kids[k]->kind == KP_N_VARDECL && init->kids[k]->decl == d)
				declares = 1;
		if (declares)
			return (!d->init || uniform(w, d->init, budget - 1)) &&
			       uniform_step(w, s->for_inc, d, budget - 1);
	}
	return 0;
}

/* The calls of device function d in kernel k's body. */
typedef struct {
	const kp_kernel *d;
	const kp_node *v[16];
	int n, more;
} call_sites;

static int find_calls(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	call_sites *c = ud;
	if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC && n->name &&
	    !strcmp(n->name, c->d->name) && n->decl->line == c->d->line) {
		if (c->n < 16)
			c->v[c->n++] = n;
		else
			c->more = 1;
	}
	return 1;
}

static int find_path(finder *w, const kp_node *n);

/* A parameter of the __device__ function w->k: uniform when every call
 * of it in its calling kernels passes a uniform argument. */
static int param_uniform(const finder *w, const kp_decl *d, int budget)
{
	const kp_kernel *k = w->k;
	int idx = -1;
	for (int i = 0; i < k->nparams; i++)
		if (k->params[i] == d)
			idx = i;
	if (idx < 0 || !k->ncallers || budget <= 1)
		return 0;
	for (int c = 0; c < k->ncallers; c++) {
		const kp_kernel *ck = k->caller_k[c];
		call_sites cs = {k, {0}, 0, 0};
		kp_node_walk(ck->body, NULL, find_calls, &cs);
		if (!cs.n || cs.more)
			return 0;
		for (int j = 0; j < cs.n; j++) {
			const kp_node *call = cs.v[j];
			if (call->nkids <= idx + 1)
				return 0;
			finder cw;
			memset(&cw, 0, sizeof(cw));
			cw.f = w->f;
			cw.l = w->l;
			cw.k = ck;
			cw.target = call;
			if (!find_path(&cw, ck->body) ||
			    !uniform(&cw, call->kids[idx + 1], budget - 1))
				return 0;
		}
	}
	return 1;
}

/* Whether d is changed (assigned, stepped, its address taken) anywhere
 * in k's body after its declaration. */
typedef struct {
	const kp_decl *d;
	int hit;
} write_walk;

static int writes_d(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	write_walk *w = ud;
	int target = n->kind == KP_N_ASSIGNOP ||
		     (n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN) ||
		     (n->kind == KP_N_UNOP && n->op &&
		      (KP_OP_IS_INCDEC(n->opk) || (n->opk == KP_OP_AND || n->opk == KP_OP_ADDR)));
	const kp_node *t = target && n->nkids > 0 ? kp_node_strip(n->kids[0]) : NULL;
	if (t && t->kind == KP_N_DECLREF && t->decl == w->d)
		w->hit = 1;
	return !w->hit;
}

static int written(const kp_kernel *k, const kp_decl *d)
{
	write_walk w = {d, 0};
	kp_node_walk(k->body, NULL, writes_d, &w);
	return w.hit;
}

/* A local without initialiser that C89-style code assigns once, before the
 * K-loop (`int begin_A; ... begin_A = BLOCK_DIM * blockIdx.y;`): the right
 * side of its one assignment, a top-level statement of the kernel's body
 * ahead of the one that holds the loop, where no other statement of the
 * body writes it (an assignment, a step, its address taken, a reference or
 * a call: the effect sets); NULL otherwise.  No jump comes before the loop
 * (path_problem()), so the assignment runs before the loop in every
 * thread.  A `__shared__` scalar counts too (kNN-CUDA's `__shared__ int
 * begin_A;`): every thread writes it the same value before it reads it, so
 * whichever thread's write a read sees, the value is that one. */
static const kp_node *assigned_once(const finder *w, const kp_decl *d)
{
	const kp_node *body = w->k->body;
	/* the statement of the body on the path to the loop */
	const kp_node *top = w->target;
	for (int i = 0; i + 1 < w->depth; i++)
		if (w->path[i] == body)
			top = w->path[i + 1];
	if (!body || body->kind != KP_N_COMPOUND || d->init || (d->is_shared && d->is_array))
		return NULL;
	/* a variable of the kernel's own (of the block, for __shared__): a
	 * __device__ variable is written by every block, each its own value */
	if (d->begin < body->begin || d->end > body->end || d->is_device_var || d->is_extern ||
	    (d->is_static && !d->is_shared))
		return NULL;
	const kp_node *rhs = NULL;
	int before = 1;
	for (int i = 0; i < body->nkids; i++) {
		const kp_node *st = body->kids[i];
		if (st == top)
			before = 0;
		const kp_node *t = st->kind == KP_N_BINOP && st->op && st->opk == KP_OP_ASSIGN &&
						   st->nkids == 2
					   ? kp_node_strip(st->kids[0])
					   : NULL;
		/* the assignment itself: its right side must not write d */
		int def = before && !rhs && t && t->kind == KP_N_DECLREF && t->decl == d;
		if (def)
			rhs = st->kids[1];
		if (node_writes(w, def ? rhs : st, d))
			return NULL;
	}
	return before ? NULL : rhs;
}

static int uniform_ref(const finder *w, const kp_node *e, int budget)
{
	const kp_decl *d = e->decl;
	if (!d)
		return 0;
	switch (d->kind) {
	case KP_D_PARM: return w->k->is_device ? param_uniform(w, d, budget) : 1;
	case KP_D_TPARAM:
	case KP_D_ENUM:
	case KP_D_FUNC: return 1;
	case KP_D_VAR:
		if (d->has_value || d->is_constexpr)
			return 1;
		if (d->init && (d->is_const || !written(w->k, d)) && !d->is_shared)
			return uniform(w, d->init, budget - 1);
		if (enclosing_counter(w, d, budget))
			return 1;
		const kp_node *rhs = assigned_once(w, d);
		return rhs && uniform(w, rhs, budget - 1);
	default: return 0;
	}
}

static int uniform(const finder *w, const kp_node *e, int budget)
{
	if (!e)
		return 1;
	if (budget <= 0)
		return 0;
	int comp;
	const char *b = kp_node_builtin(w->f, e, 0, &comp);
	if (b)
		return strcmp(b, "threadIdx") != 0;
	switch (e->kind) {
	case KP_N_CALL:
		/* min(), max(), a math function of the toolkit (pure.h): a value
		 * of its uniform arguments */
		if (kp_call_pure(e) != KP_PURE_VALUE)
			return 0;
		break;
	case KP_N_ASM:
	case KP_N_LAMBDA:
	case KP_N_ASSIGNOP: return 0;
	case KP_N_UNOP:
		if (e->op && (KP_OP_IS_INCDEC(e->opk)))
			return 0;
		break;
	case KP_N_BINOP:
		if (e->op && e->opk == KP_OP_ASSIGN)
			return 0;
		break;
	case KP_N_DECLREF: return uniform_ref(w, e, budget);
	case KP_N_MEMBER:
		/* a member of a uniform struct value: its base decides */
		break;
	default: break;
	}
	for (int i = 0; i < e->nkids; i++)
		if (!uniform(w, e->kids[i], budget))
			return 0;
	return 1;
}

/* The condition of enclosing statement s, or NULL when s has none. */
static const char *enclosing_problem(finder *w, const kp_node *s, const kp_node *next)
{
	kp_file *f = w->f;
	const kp_node *cond = NULL;
	int k = 0;
	switch (s->kind) {
	case KP_N_COMPOUND:
	case KP_N_OTHER:
	case KP_N_DECLSTMT: return NULL;
	case KP_N_IF:
	case KP_N_WHILE:
	case KP_N_SWITCH:
		cond = s->nkids > 0 ? s->kids[0] : NULL;
		if (cond == next)
			cond = NULL;
		k = 1;
		break;
	case KP_N_DO:
		cond = s->nkids > 1 ? s->kids[s->nkids - 1] : NULL;
		k = 1;
		break;
	case KP_N_FOR:
		if (!uniform(w, s->for_init, 8))
			return kp_arena_printf(
				&f->arena,
				"the loop at line %d around it steps in a way kpipe does "
				"not prove the same for every thread",
				s->line);
		cond = s->for_cond;
		k = 1;
		break;
	default: return kp_arena_printf(&f->arena, "it is inside a construct at line %d", s->line);
	}
	if (!k || !cond || cond->kind == KP_N_DECLSTMT || cond->kind == KP_N_VARDECL ||
	    !uniform(w, cond, 8))
		return kp_arena_printf(&f->arena,
				       "it is under the condition at line %d, which kpipe does not "
				       "prove the same for every thread ('%s')",
				       s->line, cond ? kp_node_text(f, cond) : "?");
	return NULL;
}

/* Why some threads of a warp may not reach `target` in k's body. */
static const char *path_problem(finder *w, kp_file *f, const kp_loop *l, const kp_kernel *k,
				const kp_node *target)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->l = l;
	w->k = k;
	w->target = target;
	if (!find_path(w, k->body))
		return "kpipe did not find the loop in its function";
	for (int j = 0; j < w->njumps; j++) {
		int encloses = !w->leaves[j];
		for (int i = 0; i < w->depth && !encloses; i++)
			encloses = w->path[i] == w->leaves[j];
		if (encloses)
			return kp_arena_printf(&f->arena,
					       "a return, break, continue or goto at line %d comes "
					       "before it, so some threads may have left",
					       w->jump[j]->line);
	}
	for (int i = 0; i < w->depth; i++) {
		const char *why = enclosing_problem(w, w->path[i],
						    i + 1 < w->depth ? w->path[i + 1] : target);
		if (why)
			return why;
	}
	return NULL;
}

const char *kp_warp_may_split(kp_file *f, const kp_loop *l)
{
	const kp_kernel *k = l->kernel;
	finder w;
	const char *why = path_problem(&w, f, l, k, l->node);
	if (why)
		return why;
	w.in_cond = 1;
	int cond_uniform = !l->cond || uniform(&w, l->cond, 8);
	w.in_cond = 0;
	if (!cond_uniform)
		return kp_arena_printf(
			&f->arena, "its condition ('%s') is not proven the same for every thread",
			kp_node_text(f, l->cond));
	if (!k->is_device)
		return NULL;
	if (!k->ncallers)
		return "the loop is in a __device__ function no kernel of the file calls directly";
	for (int i = 0; i < k->ncallers; i++) {
		const kp_kernel *ck = k->caller_k[i];
		call_sites cs = {k, {0}, 0, 0};
		kp_node_walk(ck->body, NULL, find_calls, &cs);
		if (!cs.n || cs.more)
			return kp_arena_printf(
				&f->arena,
				"the loop is in the __device__ function '%s', which '%s' "
				"calls in a way kpipe does not follow",
				k->name, ck->name);
		for (int j = 0; j < cs.n; j++) {
			const char *cw = path_problem(&w, f, l, ck, cs.v[j]);
			if (cw)
				return kp_arena_printf(
					&f->arena,
					"the loop is in the __device__ function '%s', "
					"called at line %d of '%s', where %s",
					k->name, cs.v[j]->line, ck->name, cw);
		}
	}
	return NULL;
}
