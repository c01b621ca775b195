/*
 * carves.c - which local pointers are carve-outs of shared memory, read
 * from the model alone: a pointer initialised into an extern __shared__
 * array, or into a static __shared__ array of the kernel that the kernel
 * names only through such pointers, and never changed (`float *Kj =
 * &sram[ts];`, `float *Bs = (float *)(buf + 4096);`).  The parser records
 * the answer on the pointer's declaration (kp_decl.dyn_base, dyn_off:
 * frontend/parse_carve.c), so the model is complete when kp_parse returns
 * and no later stage writes it.
 */
#include "carves.h"

#include "changes.h"

/* Whether the array base is named outside the initialisers of pointers
 * into it (`float *As = (float *)base + X`): a direct use. */
static int direct_use(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	const kp_decl **w = ud;
	if (w[1])
		return 0;
	if (n->kind == KP_N_VARDECL && n->decl && n->decl->is_pointer && n->decl->init) {
		const kp_node *r = kp_lvalue_root(n->decl->init);
		if (r && r->decl == w[0])
			return 0;
	}
	if (n->kind == KP_N_DECLREF && n->decl == w[0])
		w[1] = w[0];
	return 1;
}

int kp_static_carve_base(const kp_kernel *k, const kp_decl *d)
{
	if (!d || !k || !k->body || d->kind != KP_D_VAR || !d->is_shared || !d->is_array ||
	    d->is_pointer || d->dyn_base || d->unsized || d->ndims < 1 ||
	    d->begin < k->body->begin || d->end > k->body->end)
		return 0;
	/* an array the kernel also names itself is a tile, and pointers into
	 * it are tile pointers (tile_ptr.c), not carve-outs */
	const kp_decl *w[2] = {d, NULL};
	kp_node_walk(k->body, NULL, direct_use, (void *)w);
	return !w[1];
}

/* `&base[X]`, `base + X` or `base` (casts and parentheses aside): X, or NULL
 * for the array itself; *ok 0 for any other form. */
static const kp_node *carve_offset(const kp_node *init, const kp_decl *base, int *ok)
{
	const kp_node *n = kp_node_strip(init);
	*ok = 1;
	if (n && n->kind == KP_N_DECLREF && n->decl == base)
		return NULL;
	if (n && n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids == 1) {
		const kp_node *sub = kp_node_strip(n->kids[0]);
		if (sub->kind == KP_N_SUBSCRIPT && sub->nkids == 2) {
			const kp_node *b = kp_node_strip(sub->kids[0]);
			if (b->kind == KP_N_DECLREF && b->decl == base)
				return sub->kids[1];
		}
	}
	if (n && n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ADD && n->nkids == 2) {
		const kp_node *b = kp_node_strip(n->kids[0]);
		if (b->kind == KP_N_DECLREF && b->decl == base)
			return n->kids[1];
	}
	*ok = 0;
	return NULL;
}

const kp_decl *kp_carve_of(const kp_kernel *k, const kp_decl *d, const kp_node **off)
{
	*off = NULL;
	if (!d || d->kind != KP_D_VAR || !d->is_pointer || d->is_shared || !d->init)
		return NULL;
	kp_node *r = kp_lvalue_root(d->init);
	if (!r || (!kp_decl_is_extern_shared(r->decl) && !kp_static_carve_base(k, r->decl)))
		return NULL;
	int ok;
	const kp_node *o = carve_offset(d->init, r->decl, &ok);
	if (!ok || kp_assigned_in(k, d))
		return NULL;
	*off = o;
	return r->decl;
}
