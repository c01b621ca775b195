/*
 * writes.c - the local pointers whose target is known (carve-outs of a
 * shared array, pointers into a variable of the thread) and the writes of
 * a shared array a call makes.  The root of an lvalue, the target of a
 * write and whether a variable is changed in a kernel are the model's
 * (src/model/changes.c).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "pure.h"

#include <string.h>

const kp_decl *kp_call_shared_arg(const kp_node *call)
{
	for (int i = 1; i < call->nkids; i++) {
		kp_node *r = (kp_node *)kp_node_strip(call->kids[i]);
		r = r ? kp_lvalue_root(r) : NULL;
		if (r && r->decl && r->decl->is_shared && r->decl->is_array)
			return r->decl;
	}
	return NULL;
}

/* A carve-out: a local pointer initialised into a shared array and never
 * changed (`float *Kj = &sram[tile_size];`).  Returns the array, or NULL. */
const kp_decl *kp_carve_out_of(const kp_kernel *k, const kp_decl *d)
{
	if (!d || d->kind != KP_D_VAR || !d->is_pointer || !d->init || !k || !k->body)
		return NULL;
	kp_node *r = kp_lvalue_root(d->init);
	if (!r || !r->decl || !r->decl->is_shared || !r->decl->is_array)
		return NULL;
	return kp_assigned_in(k, d) ? NULL : r->decl;
}

/* A variable of the thread declared in the kernel's body, not static, with
 * no pointer or reference in its type: a write into it stays in the thread. */
static int thread_local_var(const kp_file *f, const kp_kernel *k, const kp_decl *d)
{
	if (!d || d->kind != KP_D_VAR || d->is_shared || d->is_pointer || !d->type ||
	    strchr(d->type, '*') || strchr(d->type, '&') || !k->body || d->begin < k->body->begin ||
	    d->end > k->body->end || d->name_off < d->begin)
		return 0;
	for (unsigned o = d->begin; o + 6 <= d->name_off; o++)
		if (!strncmp(f->src + o, "static", 6) &&
		    (o == d->begin || !kp_is_ident_char(f->src[o - 1])) &&
		    !kp_is_ident_char(f->src[o + 6]))
			return 0;
	return 1;
}

/* A pointer into a variable of the thread: a local pointer (one level, never
 * changed) initialised with the variable's address or, for an array, the
 * array (`T *const p = reinterpret_cast<T *>(&vec);`, the masking of a
 * loaded vector).  Stores through it write the thread's own variable,
 * never memory a tile load reads.  Returns the variable, or NULL. */
const kp_decl *kp_points_into_local(const kp_file *f, const kp_kernel *k, const kp_decl *d)
{
	if (!d || d->kind != KP_D_VAR || !d->is_pointer || !d->init || !k || !k->body || !d->type ||
	    strchr(d->type, '&') || strchr(d->type, '*') != strrchr(d->type, '*'))
		return NULL;
	const kp_node *n = kp_node_strip(d->init);
	int addr = n && n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids == 1;
	kp_node *r = kp_lvalue_root((kp_node *)n);
	if (!r || !r->decl || !thread_local_var(f, k, r->decl) || (!addr && !r->decl->is_array) ||
	    (!addr && kp_node_strip(n) != r))
		return NULL;
	return kp_assigned_in(k, d) ? NULL : r->decl;
}

const kp_decl *kp_written_var(const kp_file *f, const kp_kernel *k, kp_node *t, int *through)
{
	kp_node *r = t ? kp_lvalue_root(t) : NULL;
	*through = 0;
	if (!r || !r->decl)
		return NULL;
	const kp_decl *into = r != kp_node_strip(t) ? kp_points_into_local(f, k, r->decl) : NULL;
	*through = into != NULL;
	return into ? into : r->decl;
}
