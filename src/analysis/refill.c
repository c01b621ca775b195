/*
 * refill.c - a tile refilled after its K-loop (refill.h): the block after
 * the loop that stores into the tile through the loop's own subscripts,
 * waits at a barrier and only then reads it.
 */
#include "refill.h"

#include <string.h>

#include "liveness.h"

/* The text of n without white space. */
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

/* The root of a subscript chain As[i][j], or NULL. */
static const kp_node *chain_root(const kp_node *n, int *depth)
{
	*depth = 0;
	n = kp_node_strip(n);
	while (n && n->kind == KP_N_SUBSCRIPT && n->nkids == 2) {
		(*depth)++;
		n = kp_node_strip(n->kids[0]);
	}
	return n && n->kind == KP_N_DECLREF ? n : NULL;
}

typedef struct {
	const kp_decl *d;
	unsigned from;
	int hit;
} wwalk;

/* A write to d at or after offset w->from (an assignment, ++/--, its
 * address taken). */
static int late_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	wwalk *w = ud;
	const kp_node *t = NULL;
	if (((n->kind == KP_N_BINOP && n->opk == KP_OP_ASSIGN) || n->kind == KP_N_ASSIGNOP ||
	     (n->kind == KP_N_UNOP && (KP_OP_IS_INCDEC(n->opk) || n->opk == KP_OP_ADDR))) &&
	    n->nkids >= 1)
		t = kp_node_strip(n->kids[0]);
	if (t && t->kind == KP_N_DECLREF && t->decl == w->d && n->begin >= w->from)
		w->hit = 1;
	return !w->hit;
}

int kp_writes_decl_from(kp_node *root, const kp_decl *d, unsigned from)
{
	wwalk w = {d, from, 0};
	kp_node_walk(root, NULL, late_write, &w);
	return w.hit;
}

/* Every variable of the subscripts of a copy into the tile keeps its value
 * from the loop on: thread and block indices, parameters, constants, locals
 * no statement from the loop on writes (nor hands to a reference), and the
 * nlocal variables of local[] (counters of the copy's own loops). */
int kp_fixed_from(const kp_kernel *k, const kp_loop *l, const kp_node *n,
		  const kp_decl *const *local, int nlocal)
{
	if (!n)
		return 1;
	if (n->kind == KP_N_DECLREF) {
		const kp_decl *d = n->decl;
		if (!d)
			return 0;
		for (int i = 0; i < nlocal; i++)
			if (d == local[i])
				return 1;
		if (!d->in_main || d->kind == KP_D_PARM || d->kind == KP_D_TPARAM ||
		    d->kind == KP_D_ENUM || d->is_constexpr)
			return !d->ty.is_ref && !d->is_shared;
		if (d->kind != KP_D_VAR || d->is_shared || d->ty.is_ref || d->is_pointer)
			return 0;
		return !kp_writes_decl_from(k->body, d, l->node->begin);
	}
	if (n->kind == KP_N_CALL || n->kind == KP_N_ASM || n->kind == KP_N_LAMBDA)
		return 0;
	if ((n->kind == KP_N_BINOP && n->opk == KP_OP_ASSIGN) || n->kind == KP_N_ASSIGNOP ||
	    (n->kind == KP_N_UNOP && KP_OP_IS_INCDEC(n->opk)))
		return 0;
	for (int i = 0; i < n->nkids; i++)
		if (!kp_fixed_from(k, l, n->kids[i], local, nlocal))
			return 0;
	return 1;
}

static int fixed_from(const kp_kernel *k, const kp_loop *l, const kp_node *n)
{
	return kp_fixed_from(k, l, n, NULL, 0);
}

/* A return, break, continue or goto in n: a thread that skips its store
 * would leave its element to the last tile for the others. */
static int jumps(const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_RETURN || n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE ||
	    n->kind == KP_N_GOTO)
		return 1;
	if (n->kind == KP_N_LAMBDA)
		return 0;
	for (int i = 0; i < n->nkids; i++)
		if (jumps(n->kids[i]))
			return 1;
	return 0;
}

/* The assignment of an expression statement, or NULL. */
static const kp_node *stmt_assign(const kp_node *s)
{
	while (s && (s->kind == KP_N_OTHER || s->kind == KP_N_PAREN) && s->nkids == 1)
		s = s->kids[0];
	return s && s->kind == KP_N_BINOP && s->opk == KP_OP_ASSIGN && s->nkids == 2 ? s : NULL;
}

static int is_block_barrier(const kp_node *s)
{
	while (s && s->kind == KP_N_OTHER && s->nkids == 1)
		s = s->kids[0];
	return s && s->kind == KP_N_CALL && s->sync == KP_SYNC_BLOCK;
}

/* After the barrier: only reads of t by subscript (no store, no address,
 * no argument). */
static int only_reads(const kp_node *n, const kp_decl *t)
{
	if (!n)
		return 1;
	if (n->kind == KP_N_DECLREF && n->decl == t)
		return 0; /* reached outside a subscript chain */
	int depth;
	if (n->kind == KP_N_SUBSCRIPT) {
		const kp_node *r = chain_root(n, &depth);
		if (r && r->decl == t) {
			if (depth != t->ndims)
				return 0; /* a row: a pointer into the tile */
			for (const kp_node *p = n; p && p->kind == KP_N_SUBSCRIPT;
			     p = kp_node_strip(p->kids[0]))
				if (!only_reads(p->kids[1], t))
					return 0;
			return 1;
		}
	}
	if ((n->kind == KP_N_BINOP && n->opk == KP_OP_ASSIGN) || n->kind == KP_N_ASSIGNOP ||
	    (n->kind == KP_N_UNOP && (KP_OP_IS_INCDEC(n->opk) || n->opk == KP_OP_ADDR))) {
		const kp_node *r = n->nkids ? chain_root(n->kids[0], &depth) : NULL;
		if (r && r->decl == t)
			return 0;
	}
	for (int i = 0; i < n->nkids; i++)
		if (!only_reads(n->kids[i], t))
			return 0;
	return 1;
}

typedef struct {
	const kp_decl *t;
	unsigned after;
	const kp_node *first;
	unsigned last_end;
} rwalk;

static int refs_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	rwalk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->t && n->begin >= w->after) {
		if (!w->first || n->begin < w->first->begin)
			w->first = n;
		if (n->end > w->last_end)
			w->last_end = n->end;
	}
	return 1;
}

/* fixed_from() for each subscript of the chain n. */
static int subscripts_fixed(const kp_kernel *k, const kp_loop *l, const kp_node *n)
{
	n = kp_node_strip(n);
	for (; n && n->kind == KP_N_SUBSCRIPT && n->nkids == 2; n = kp_node_strip(n->kids[0]))
		if (!fixed_from(k, l, n->kids[1]))
			return 0;
	return 1;
}

/* The loop's copies into t: each unconditional and outside copy loops, its
 * target a full subscript chain with fixed subscripts; their texts. */
static int loop_copies(kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *t,
		       const char **txt, int max)
{
	int n = 0;
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		if (ld->tile != t)
			continue;
		int depth;
		const kp_node *r = chain_root(ld->lhs, &depth);
		if (ld->depth || ld->nunder || ld->tmp_decl || !r || r->decl != t ||
		    depth != t->ndims || n >= max || !subscripts_fixed(k, l, ld->lhs))
			return -1;
		txt[n++] = squeeze(f, ld->lhs);
		if (!txt[n - 1])
			return -1;
	}
	return n;
}

int kp_tile_refilled_after(kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_tile *t)
{
	const kp_decl *d = t->arr;
	if (!k->body || l->form != KP_FORM_BOTTOM || l->bar2 < 0 || !t->loaded || t->in_loop ||
	    t->naliases || l->loads_in_helper || kp_decl_is_dynamic_smem(d) || d->ndims < 1)
		return 0;
	for (int i = l->bar2 + 1; i < l->nstmts; i++)
		if (kp_node_names_decl(l->stmts[i], d))
			return 0;
	const char *copies[8];
	int matched[8] = {0};
	int nc = loop_copies(f, k, l, d, copies, 8);
	if (nc <= 0)
		return 0;
	rwalk rw = {d, l->node->end, NULL, 0};
	kp_node_walk(k->body, NULL, refs_after, &rw);
	if (!rw.first)
		return 0;
	/* the innermost block holding the first use after the loop */
	const kp_node *path[64];
	int np = 0, ib = -1;
	if (!kp_node_path(k->body, rw.first, path, &np, 64))
		return 0;
	for (int i = 0; i < np - 1; i++)
		if (path[i]->kind == KP_N_COMPOUND)
			ib = i;
	if (ib < 0)
		return 0;
	for (int i = 0; i < ib; i++)
		if (path[i]->kind != KP_N_COMPOUND && path[i]->kind != KP_N_IF)
			return 0; /* a loop, a switch around the block */
	const kp_node *B = path[ib], *st0 = path[ib + 1];
	if (st0->begin < l->node->end || rw.last_end > B->end)
		return 0;
	int phase = 0;
	for (int i = 0; i < B->nkids; i++) {
		const kp_node *s = B->kids[i];
		if (phase == 0 && jumps(s))
			return 0;
		if (s->begin < st0->begin)
			continue;
		if (phase == 0) {
			if (is_block_barrier(s)) {
				phase = 1;
				continue;
			}
			if (!kp_node_names_decl(s, d))
				continue;
			const kp_node *a = stmt_assign(s);
			int depth;
			const kp_node *r = a ? chain_root(a->kids[0], &depth) : NULL;
			if (!r || r->decl != d || kp_node_names_decl(a->kids[1], d))
				return 0;
			const char *txt = squeeze(f, a->kids[0]);
			int hit = 0;
			for (int c = 0; c < nc; c++)
				if (txt && !strcmp(txt, copies[c]))
					matched[c] = hit = 1;
			if (!hit)
				return 0;
		} else if (!only_reads(s, d))
			return 0;
	}
	if (phase != 1)
		return 0;
	for (int c = 0; c < nc; c++)
		if (!matched[c])
			return 0;
	return 1;
}
