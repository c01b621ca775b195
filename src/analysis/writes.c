/*
 * writes.c - what an expression writes and what may change a variable:
 * the root of an lvalue, the target of a write, whether a variable is
 * assigned (or handed to something that may change it) in a kernel, and
 * the local pointers whose target is known (carve-outs of a shared array,
 * pointers into a variable of the thread).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "pure.h"

#include <string.h>

/* Root declaration of an lvalue: As[i][j], *reinterpret_cast<T*>(&As[i][j]),
 * ((float4*)As)[i], p->x ... */
kp_node *kp_lvalue_root(kp_node *n)
{
	for (int guard = 0; n && guard < 64; guard++) {
		switch (n->kind) {
		case KP_N_DECLREF: return n;
		case KP_N_SUBSCRIPT:
		case KP_N_PAREN:
		case KP_N_CAST:
		case KP_N_OTHER:
		case KP_N_MEMBER:
			if (!n->nkids)
				return NULL;
			n = n->kind == KP_N_CAST || n->kind == KP_N_OTHER ? n->kids[n->nkids - 1]
									  : n->kids[0];
			break;
		case KP_N_UNOP:
			if (!n->nkids || (n->opk != KP_OP_DEREF && n->opk != KP_OP_ADDR))
				return NULL;
			n = n->kids[0];
			break;
		case KP_N_BINOP: /* pointer arithmetic: base + off */
			if (n->nkids != 2 || (n->opk != KP_OP_ADD && n->opk != KP_OP_SUB))
				return NULL;
			n = n->kids[0];
			break;
		default: return NULL;
		}
	}
	return NULL;
}

/* What a write node writes: the target of an assignment (plain or
 * compound; *plain says which) or of ++/--; NULL for other nodes. */
kp_node *kp_write_target(const kp_node *n, int *plain)
{
	*plain = 0;
	if ((kp_is_assign(n) || n->kind == KP_N_ASSIGNOP) && n->nkids == 2) {
		*plain = kp_is_assign(n);
		return n->kids[0];
	}
	if (n->kind == KP_N_UNOP && n->nkids == 1 && n->op && (KP_OP_IS_INCDEC(n->opk)))
		return n->kids[0];
	return NULL;
}

typedef struct {
	const kp_decl *d;
	int assigned;
	const kp_file *f; /* when set: an asm statement changes its outputs only */
} reassign_walk;

static int find_reassign(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	if (!t && n->kind == KP_N_UNOP && n->nkids == 1 && n->op && n->opk == KP_OP_ADDR)
		t = n->kids[0]; /* its address taken: it may change */
	t = t ? (kp_node *)kp_node_strip(t) : NULL;
	if (t && t->kind == KP_N_DECLREF && t->decl == w->d)
		w->assigned = 1;
	return !w->assigned;
}

static int names_var(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d)
		w->assigned = 1;
	return !w->assigned;
}

/* What else may change a variable: a call handed it where the callee's
 * parameter is a non-const reference (or the callee is unknown), an asm
 * statement or a lambda that names it. */
static int find_hidden_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	if (w->assigned)
		return 0;
	if (n->kind == KP_N_ASM && w->f && n->in_main && n->end <= w->f->len) {
		/* its output operands come first, each constraint "=..." or "+..." */
		int nout = 0;
		for (unsigned i = n->begin; i + 1 < n->end; i++)
			nout += w->f->src[i] == '"' &&
				(w->f->src[i + 1] == '=' || w->f->src[i + 1] == '+');
		for (int i = 0; i < nout && i < n->nkids; i++)
			kp_node_walk(n->kids[i], NULL, names_var, w);
		return 0;
	}
	if (n->kind == KP_N_ASM || n->kind == KP_N_LAMBDA) {
		kp_node_walk(n, NULL, names_var, w);
		return 0;
	}
	if (n->kind == KP_N_CALL)
		for (int i = kp_call_first_arg(n); i < n->nkids; i++) {
			const kp_node *a = kp_node_strip(n->kids[i]);
			if (a && a->kind == KP_N_DECLREF && a->decl == w->d &&
			    kp_call_arg_write(n, i) == 1)
				w->assigned = 1;
		}
	return 1;
}

/* Whether d is assigned, incremented, has its address taken, or is handed
 * to something that may change it anywhere in k's body. */
int kp_assigned_in(const kp_kernel *k, const kp_decl *d)
{
	reassign_walk w = {d, 0, NULL};
	kp_node_walk(k->body, NULL, find_reassign, &w);
	if (!w.assigned)
		kp_node_walk(k->body, NULL, find_hidden_write, &w);
	return w.assigned;
}

int kp_changed_in(const kp_file *f, const kp_kernel *k, const kp_decl *d)
{
	reassign_walk w = {d, 0, f};
	kp_node_walk(k->body, NULL, find_reassign, &w);
	if (!w.assigned)
		kp_node_walk(k->body, NULL, find_hidden_write, &w);
	return w.assigned;
}

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
