/*
 * candidates.c - the candidate loops of a kernel (loops whose body holds
 * a barrier or a copy into shared memory, K-loops nested in others apart)
 * and the loops a hand or kpipe already pipelined.
 */
#include "analyze.h"
#include "analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* The body of a loop statement: a for-statement's body slot (model.h), a
 * do-statement's first child (libclang gives the body, then the
 * condition), else the last child. */
kp_node *kp_loop_body(const kp_node *n)
{
	if (n->kind == KP_N_FOR)
		return n->for_body;
	if (n->kind == KP_N_DO)
		return n->nkids ? n->kids[0] : NULL;
	return n->nkids ? n->kids[n->nkids - 1] : NULL;
}

/* kp_stage, or kp_stage_N: the names kp_fresh_name() gives the stage
 * index of a rewritten loop (transforms/, render.c). */
static int is_stage_name(const char *name)
{
	static const char base[] = "kp_stage";
	if (strncmp(name, base, sizeof(base) - 1))
		return 0;
	name += sizeof(base) - 1;
	if (!*name)
		return 1;
	if (*name++ != '_' || !*name)
		return 0;
	for (; *name; name++)
		if (*name < '0' || *name > '9')
			return 0;
	return 1;
}

static int stage_ref(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	if (n->kind == KP_N_DECLREF && n->name && is_stage_name(n->name))
		*(int *)ud = 1;
	return !*(int *)ud;
}

/* A loop kpipe already rewrote (register staging leaves no cp.async). */
typedef struct {
	const kp_node *loop;
	const kp_decl *tile; /* out: a tile filled before the loop and in it */
	int ntiles;
	const kp_decl *before[16];
} hand_walk;

/* A shared array of 2 to 8 buffers (its first extent) stored to. */
static const kp_decl *buffered_store(const kp_node *n)
{
	if (!(kp_is_assign(n) || n->kind == KP_N_ASSIGNOP) || n->nkids != 2)
		return NULL;
	kp_node *r = kp_lvalue_root(n->kids[0]);
	const kp_decl *d = r ? r->decl : NULL;
	if (!d || !d->is_shared || !d->is_array || d->ndims < 2 || d->dims[0] < 2 || d->dims[0] > 8)
		return NULL;
	return d;
}

static int find_hand_buffers(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	hand_walk *w = ud;
	const kp_decl *d = buffered_store(n);
	if (!d || w->tile)
		return !w->tile;
	if (n->end <= w->loop->begin) {
		if (w->ntiles < 16)
			w->before[w->ntiles++] = d;
	} else if (n->begin >= w->loop->begin && n->end <= w->loop->end && kp_is_assign(n) &&
		   !kp_node_names_decl(n->kids[1], d)) {
		/* the next buffer's fill is a plain store of data from elsewhere;
		 * `acc[ty][tx] += s` or `acc[r] = acc[r] + s` accumulates in a
		 * shared array that merely has 2 to 8 rows (kpipe-smem-carried
		 * says what it is) */
		for (int i = 0; i < w->ntiles; i++)
			if (w->before[i] == d)
				w->tile = d;
	}
	return 1;
}

/* A loop pipelined by hand without cp.async: a shared array of 2 to 8
 * buffers (`s_a[2][BK][BM]`) filled before the loop (the prologue) and
 * again inside it (the next buffer). */
const kp_decl *kp_hand_buffers(const kp_kernel *k, const kp_node *loop)
{
	hand_walk w = {loop, NULL, 0, {0}};
	kp_node_walk(k->body, NULL, find_hand_buffers, &w);
	return w.tile;
}

int kp_uses_kpipe_stage(kp_node *body)
{
	int found = 0;
	kp_node_walk(body, NULL, stage_ref, &found);
	return found;
}

/* An assignment of something loaded from global memory (in a helper's
 * body, whose destination is a parameter). */
static int assigns_global_load(kp_node *n)
{
	if (!n)
		return 0;
	if ((kp_is_assign(n) || n->kind == KP_N_ASSIGNOP) && n->nkids == 2 &&
	    kp_find_global_load(n->kids[1]))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (assigns_global_load(n->kids[i]))
			return 1;
	return 0;
}

/* A subscript of a pointer member the body names through the implicit
 * `this` (`data[r * ld + c]` in a view's method). */
static int self_pointer_read(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	int *found = ud;
	const kp_node *b = n->kind == KP_N_SUBSCRIPT && n->nkids == 2 ? kp_node_strip(n->kids[0])
								      : NULL;
	if (b && b->kind == KP_N_MEMBER && b->decl && b->decl->is_pointer && !b->decl->is_shared)
		*found = 1;
	return !*found;
}

/* A call of a helper whose body is `return E;` with E loaded from global
 * memory (`ld_vec(p)`: `return *(const float4 *)p;`), or of an accessor
 * method (kp_decl.accessor) whose E reads through a pointer member
 * (`a.at(r, c)`: `return data[r * ld + c];`). */
static int loading_call(const kp_node *n)
{
	n = kp_node_strip(n);
	const kp_kernel *x = n && n->kind == KP_N_CALL && n->decl
				     ? (n->decl->fn ? n->decl->fn : n->decl->accessor)
				     : NULL;
	if (!x || !x->body)
		return 0;
	const kp_node *b = x->body;
	if (b->nkids != 1 || b->kids[0]->kind != KP_N_RETURN || b->kids[0]->nkids != 1)
		return 0;
	int found = 0;
	if (x == n->decl->accessor)
		kp_node_walk(b->kids[0]->kids[0], NULL, self_pointer_read, &found);
	return found || kp_find_global_load(b->kids[0]->kids[0]);
}

/* A loading_call() anywhere in n. */
static int has_loading_call(kp_node *n)
{
	if (!n)
		return 0;
	if (loading_call(n))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (has_loading_call(n->kids[i]))
			return 1;
	return 0;
}

/* A call of a load helper (kp_decl.fn) handed a shared array: the loop
 * copies into shared memory through it, the load in its body or in an
 * argument (`st_vec(&As[y][x], ld_vec(A + ...))`). */
static int helper_copy(const kp_node *n)
{
	if (n->kind != KP_N_CALL || !n->decl || !n->decl->fn || !n->decl->fn->body ||
	    !kp_call_shared_arg(n))
		return 0;
	if (assigns_global_load(n->decl->fn->body))
		return 1;
	for (int i = 1; i < n->nkids; i++)
		if (loading_call(n->kids[i]))
			return 1;
	return 0;
}

static int has_smem_copy(kp_node *n)
{
	if (!n)
		return 0;
	if (helper_copy(n))
		return 1;
	if (kp_is_assign(n) && n->nkids == 2) {
		kp_decl *t;
		/* a plain copy, or a converting or guarded one (c ? A[i] : 0),
		 * or one through an accessor (a.at(r, c), at(A, lda, r, c)) */
		if (kp_shared_lhs(n->kids[0], &t) &&
		    (kp_find_global_load(n->kids[1]) || has_loading_call(n->kids[1])))
			return 1;
	}
	for (int i = 0; i < n->nkids; i++)
		if (has_smem_copy(n->kids[i]))
			return 1;
	return 0;
}

/* A copy through a temporary somewhere in `body`: a store into a shared
 * array of a local that the body sets (or whose initialiser is) a load
 * from global memory (`T v = 0; if (in) v = A[i]; As[r][c] = v;`). */
typedef struct {
	kp_node *body;
	int found;
} temp_copy_walk;

static int find_temp_copy(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	temp_copy_walk *w = ud;
	kp_decl *t;
	const kp_node *v = kp_is_assign(n) && n->nkids == 2 ? kp_node_strip(n->kids[1]) : NULL;
	if (w->found || !v || v->kind != KP_N_DECLREF || !v->decl || v->decl->kind != KP_D_VAR ||
	    v->decl->is_shared || !kp_shared_lhs(n->kids[0], &t))
		return !w->found;
	if (v->decl->init && kp_find_global_load(v->decl->init))
		w->found = 1;
	else {
		kp_assign_walk aw = {v->decl, NULL};
		kp_node_walk(w->body, NULL, kp_find_assign_load, &aw);
		w->found = aw.load != NULL;
	}
	return !w->found;
}

/* A copy from global into shared memory in n: direct (has_smem_copy) or
 * through a temporary of n. */
static int has_copy(kp_node *n)
{
	if (has_smem_copy(n))
		return 1;
	temp_copy_walk w = {n, 0};
	kp_node_walk(n, NULL, find_temp_copy, &w);
	return w.found;
}

static int has_barrier(kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_CALL && (n->sync == KP_SYNC_BLOCK || n->sync == KP_SYNC_BLOCK_VALUE))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (has_barrier(n->kids[i]))
			return 1;
	return 0;
}

static int has_barrier_or_smem_store(kp_node *n) { return has_barrier(n) || has_copy(n); }

static int is_loop(const kp_node *n)
{
	return n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO;
}

/* A barrier among the top-level statements of a loop's body. */
static int top_level_barrier(const kp_node *loop)
{
	kp_node *body = kp_loop_body(loop);
	if (!body || body->kind != KP_N_COMPOUND)
		return 0;
	for (int i = 0; i < body->nkids; i++)
		if (kp_is_barrier(body->kids[i]))
			return 1;
	return 0;
}

int kp_top_level_barrier(const kp_node *loop) { return top_level_barrier(loop); }

/* A loop that is a K-loop of its own wherever it is nested: a barrier at
 * the top level of its body and a copy from global into shared memory in
 * it.  (A copy loop of a load phase has no barrier; a loop of a compute
 * phase with a barrier in it copies nothing.) */
int kp_kloop_like(const kp_node *n)
{
	return is_loop(n) && top_level_barrier(n) && has_copy(kp_loop_body(n));
}

/* The first K-loop nested in a subtree, in source order. */
kp_node *kp_nested_kloop(kp_node *n)
{
	if (!n)
		return NULL;
	if (kp_kloop_like(n))
		return n;
	for (int i = 0; i < n->nkids; i++) {
		kp_node *r = kp_nested_kloop(n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

static void push_node(kp_node_vec *v, kp_node *n)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->v = kp_xrealloc(v->v, sizeof(*v->v) * (size_t)v->cap);
	}
	v->v[v->n++] = n;
}

/* Candidate loops: loops whose body holds a barrier or a copy into shared
 * memory.  A loop with a barrier at the top level of its body is a
 * candidate (the loops nested in it are part of it: copy loops, loops of
 * the compute phase), unless it encloses K-loops of its own (kp_nested_kloop):
 * then it is reported as an enclosing loop and each K-loop in it is a
 * candidate.  A loop without top-level barriers gives way to the candidates
 * nested in it, and is one itself only when there are none. */
void kp_find_candidates(kp_node *n, kp_node_vec *out)
{
	if (!n)
		return;
	if (!is_loop(n) || !has_barrier_or_smem_store(kp_loop_body(n))) {
		for (int i = 0; i < n->nkids; i++)
			kp_find_candidates(n->kids[i], out);
		return;
	}
	kp_node_vec inner = {0};
	for (int i = 0; i < n->nkids; i++)
		kp_find_candidates(n->kids[i], &inner);
	int encloses = 0;
	for (int i = 0; i < inner.n && !encloses; i++)
		encloses = kp_kloop_like(inner.v[i]);
	if (top_level_barrier(n) || !inner.n)
		push_node(out, n);
	if (!top_level_barrier(n) || encloses)
		for (int i = 0; i < inner.n; i++)
			push_node(out, inner.v[i]);
	free(inner.v);
}
