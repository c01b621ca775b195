/*
 * hand_prefetch.c - a K-loop pipelined by hand through registers, the
 * way cuda-convnet2's "preload" kernels are written:
 *
 *     fPre[..] = filters[..];                     // before the loop
 *     for (...) {
 *         shF[..][..] = fPre[..];                 // load phase: registers -> tile
 *         __syncthreads();
 *         ... math on shF ...; fPre[..] = ff[..]; // compute: the next tile's values
 *         __syncthreads();
 *     }
 *
 * Every tile store of the load phase stores a thread's variable (or 0)
 * that the body refills from global memory after the store (the rest of
 * the load phase or the compute phase) and that is filled before the
 * loop too: the next tile's loads already overlap the
 * math.  Such a loop is no candidate for another pipeline (its tile
 * stores depend on the compute phase by construction), so it gets one
 * remark, kpipe-already-pipelined, instead of the dependence ids.  The
 * finding only ever leaves a loop alone; it never makes one eligible.
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

#define MAX_VARS 16

typedef struct {
	kp_file *f;
	int hit;
} fetch_ctx;

static int fetch_walk(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	fetch_ctx *w = ud;
	if (n->kind == KP_N_CALL) {
		const char *nm = kp_callee_name(w->f, n);
		if (!strncmp(nm, "tex1Dfetch", 10) || !strncmp(nm, "tex2D", 5) ||
		    !strncmp(nm, "tex3D", 5) || !strcmp(nm, "__ldg"))
			w->hit = 1;
	}
	return !w->hit;
}

/* Whether n reads global memory: a load kpipe reads as one, or a texture
 * or read-only cache fetch. */
static int fetches(kp_file *f, kp_node *n)
{
	if (!n)
		return 0;
	if (kp_find_global_load(n))
		return 1;
	fetch_ctx w = {f, 0};
	kp_node_walk(n, NULL, fetch_walk, &w);
	return w.hit;
}

/* A variable of the thread: declared in the kernel's body, not shared,
 * not a pointer or reference. */
static int thread_var(const kp_kernel *k, const kp_decl *d)
{
	return d && d->kind == KP_D_VAR && !d->is_shared && !d->is_pointer && !d->ty.is_ref &&
	       d->in_main && k->body && d->begin >= k->body->begin && d->end <= k->body->end;
}

typedef struct {
	kp_file *f;
	const kp_decl *v;
	unsigned b, e; /* the range looked at */
	int hit;
	int line;
} fill_walk;

/* An assignment to v (v = .., v[..] = ..) or its declaration in [b, e)
 * whose value is read from global memory. */
static int find_fill(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	fill_walk *w = ud;
	if (w->hit)
		return 0;
	if (n->kind == KP_N_VARDECL && n->decl == w->v && n->begin >= w->b && n->end <= w->e &&
	    n->decl->init && fetches(w->f, n->decl->init)) {
		w->hit = 1; /* float pre = A[...]; */
		w->line = n->line;
		return 0;
	}
	int plain = 0;
	kp_node *t = kp_write_target(n, &plain);
	if (!t || !plain || n->nkids != 2 || n->begin < w->b || n->end > w->e)
		return 1;
	kp_node *r = kp_lvalue_root(t);
	if (r && r->decl == w->v && fetches(w->f, n->kids[1])) {
		w->hit = 1;
		w->line = n->line;
	}
	return 1;
}

typedef struct {
	const kp_kernel *k;
	const kp_decl *v[MAX_VARS];
	int nv;
} var_walk;

static int find_vars(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	var_walk *w = ud;
	if (n->kind == KP_N_DECLREF && thread_var(w->k, n->decl) && w->nv < MAX_VARS) {
		for (int i = 0; i < w->nv; i++)
			if (w->v[i] == n->decl)
				return 1;
		w->v[w->nv++] = n->decl;
	}
	return 1;
}

typedef struct {
	actx *c;
	int stores, staged;
	const kp_node *plain; /* a tile store of a value not staged by hand */
	const kp_decl *var, *tile;
	int fill_line;
} store_walk;

/* A tile store (into a __shared__ array or a pointer carved out of one)
 * of the load phase: 0 stored, or a thread's variable refilled from
 * global memory later in the body (after the store) and before the
 * loop. */
static int find_store(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	store_walk *w = ud;
	actx *c = w->c;
	const kp_loop *l = c->l;
	int plain = 0;
	kp_node *t = kp_write_target(n, &plain);
	kp_node *r = t ? kp_lvalue_root(t) : NULL;
	const kp_decl *tile = r && r->decl && r->decl->is_shared && r->decl->is_array
				      ? r->decl
				      : kp_carve_out_of(c->k, r ? r->decl : NULL);
	if (!tile)
		return 1;
	w->stores++;
	if (!plain || n->nkids != 2) {
		w->plain = w->plain ? w->plain : n;
		return 1;
	}
	if (kp_is_zero_value(n->kids[1])) {
		w->staged++;
		return 1;
	}
	var_walk vw = {c->k, {0}, 0};
	kp_node_walk(n->kids[1], NULL, find_vars, &vw);
	for (int i = 0; i < vw.nv; i++) {
		/* refilled after the store, in the load phase or past the barrier */
		fill_walk in = {c->f, vw.v[i], n->end, l->body->end, 0, 0};
		kp_node_walk(l->body, NULL, find_fill, &in);
		fill_walk before = {c->f, vw.v[i], c->k->body->begin, l->node->begin, 0, 0};
		if (in.hit)
			kp_node_walk(c->k->body, NULL, find_fill, &before);
		if (in.hit && before.hit) {
			w->staged++;
			if (!w->var) {
				w->var = vw.v[i];
				w->tile = tile;
				w->fill_line = in.line;
			}
			return 1;
		}
	}
	w->plain = w->plain ? w->plain : n;
	return 1;
}

int kp_find_hand_prefetch(actx *c)
{
	kp_loop *l = c->l;
	if (!c->k->body || !l->body || l->load_e <= l->load_b || l->comp_e <= l->comp_b ||
	    !l->node->in_main)
		return 0;
	store_walk w = {c, 0, 0, NULL, NULL, NULL, 0};
	for (int i = l->load_b; i < l->load_e; i++)
		kp_node_walk(l->stmts[i], NULL, find_store, &w);
	if (!w.stores || w.plain || w.staged != w.stores || !w.var)
		return 0;
	l->nreasons = 0;
	l->already_pipelined = 1;
	kp_ana_refuse(c, l->node, "kpipe-already-pipelined",
		      "the tile '%s' is stored from '%s', which the loop refills from global "
		      "memory after the store (line %d) and which is filled before the "
		      "loop: the loop is pipelined by hand through registers and is left alone",
		      w.tile->name, w.var->name, w.fill_line);
	return 1;
}
