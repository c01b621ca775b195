/*
 * shared_table.c - a __shared__ table the K-loop reads and never writes
 * (shared_table.h): every use of it in the kernel is an element read or
 * written by subscript, and none inside the loop writes.
 */
#include "shared_table.h"

#include "analyze.h"
#include "analyze_int.h"

typedef struct {
	const kp_decl *d;
	const kp_node *loop;
	int bad;
} twalk;

static int is_d(const twalk *w, const kp_node *n)
{
	n = n ? kp_node_strip(n) : NULL;
	return n && n->kind == KP_N_DECLREF && n->decl == w->d;
}

/* The number of subscripts of the chain n = d[i]..[j], 0 when n is not
 * one rooted at d. */
static int chain_len(const twalk *w, const kp_node *n)
{
	int len = 0;
	while (n && n->kind == KP_N_SUBSCRIPT && n->nkids == 2) {
		len++;
		n = kp_node_strip(n->kids[0]);
	}
	return is_d(w, n) ? len : 0;
}

static int inside(const kp_node *n, const kp_node *outer)
{
	return n->begin >= outer->begin && n->end <= outer->end;
}

/* What the parent does with the element n: 0 reads it, 1 writes it, -1
 * lets it escape (its address, a reference, a call's argument). */
static int element_use(const kp_node *n, const kp_node *parent)
{
	if (!parent)
		return 0;
	switch (parent->kind) {
	case KP_N_BINOP:
		if (parent->opk == KP_OP_ASSIGN && parent->nkids == 2 && parent->kids[0] == n)
			return 1;
		return 0;
	case KP_N_ASSIGNOP: return parent->nkids == 2 && parent->kids[0] == n ? 1 : 0;
	case KP_N_UNOP:
		if (parent->opk == KP_OP_ADDR)
			return -1;
		return KP_OP_IS_INCDEC(parent->opk) ? 1 : 0;
	case KP_N_CALL:
	case KP_N_ASM:
	case KP_N_LAMBDA: return -1;
	case KP_N_VARDECL: return parent->decl && parent->decl->ty.is_ref ? -1 : 0;
	default: return 0;
	}
}

static int visit(kp_node *n, kp_node *parent, void *ud)
{
	twalk *w = ud;
	if (w->bad)
		return 0;
	if ((n->kind == KP_N_ASM || n->kind == KP_N_LAMBDA) && kp_node_names_decl(n, w->d)) {
		w->bad = 1;
		return 0;
	}
	int len = chain_len(w, n);
	if (len) {
		/* the outermost subscript of a chain: its parent is no subscript
		 * whose base it is */
		if (parent && parent->kind == KP_N_SUBSCRIPT && parent->kids[0] == n)
			return 1;
		if (len != w->d->ndims) {
			w->bad = 1; /* a row of it: a pointer */
			return 0;
		}
		int use = element_use(n, parent);
		if (use < 0 || (use > 0 && inside(n, w->loop)))
			w->bad = 1;
		return 1;
	}
	if (n->kind == KP_N_DECLREF && n->decl == w->d) {
		/* d named otherwise than as the base of a subscript chain */
		if (!parent || parent->kind != KP_N_SUBSCRIPT ||
		    kp_node_strip(parent->kids[0]) != n)
			w->bad = 1;
		return 0;
	}
	return 1;
}

int kp_shared_table_fixed(const kp_kernel *k, const kp_loop *l, const kp_decl *d)
{
	if (!d || !d->is_shared || !d->is_array || d->ndims < 1 || kp_decl_is_dynamic_smem(d) ||
	    !k->body || d->begin < k->body->begin || d->end > k->body->end)
		return 0;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].arr == d && l->tiles[i].loaded)
			return 0;
	twalk w = {d, l->node, 0};
	kp_node_walk(k->body, NULL, visit, &w);
	return !w.bad;
}
