/*
 * rw.c - the declarations a subtree reads, writes (directly, through a
 * call, or through a pointer into global memory) and declares: the read
 * and write sets of the loop's phases (kp_rw_set).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "pure.h"

#include <stdlib.h>
#include <string.h>

void kp_push_decl(kp_decl ***v, int *n, int *cap, kp_decl *d)
{
	for (int i = 0; i < *n; i++)
		if ((*v)[i] == d)
			return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = kp_xrealloc(*v, sizeof(**v) * (size_t)*cap);
	}
	(*v)[(*n)++] = d;
}

int kp_rw_has(kp_decl **v, int n, const kp_decl *d)
{
	for (int i = 0; i < n; i++)
		if (v[i] == d)
			return 1;
	return 0;
}

void kp_rw_release(kp_rw_set *s)
{
	free(s->w);
	free(s->wat);
	free(s->r);
	free(s->decl);
	free(s->gs);
	free(s->gsat);
	memset(s, 0, sizeof(*s));
}

static void note_write(kp_rw_set *s, kp_node *target, kp_node *at)
{
	kp_node *root = kp_lvalue_root(target);
	if (!root || !root->decl)
		return;
	/* a store through a pointer that is not shared: global memory, not a
	 * change of the pointer itself */
	if (root->decl->is_pointer && !root->decl->is_shared && root != kp_node_strip(target)) {
		int before = s->ngs;
		kp_push_decl(&s->gs, &s->ngs, &s->capgs, root->decl);
		if (s->ngs != before) {
			s->gsat = kp_xrealloc(s->gsat, sizeof(*s->gsat) * (size_t)s->capgs);
			s->gsat[s->ngs - 1] = at;
		}
		return;
	}
	int before = s->nw;
	kp_push_decl(&s->w, &s->nw, &s->capw, root->decl);
	if (s->nw != before) {
		s->wat = kp_xrealloc(s->wat, sizeof(*s->wat) * (size_t)s->capw);
		s->wat[s->nw - 1] = at;
	}
}

void kp_rw_collect(kp_node *n, kp_rw_set *s)
{
	if (!n)
		return;
	switch (n->kind) {
	case KP_N_VARDECL:
		if (n->decl)
			kp_push_decl(&s->decl, &s->nd, &s->capd, n->decl);
		break;
	case KP_N_BINOP:
		if (kp_is_assign(n) && n->nkids == 2)
			note_write(s, n->kids[0], n);
		break;
	case KP_N_ASSIGNOP:
		if (n->nkids == 2)
			note_write(s, n->kids[0], n);
		break;
	case KP_N_UNOP:
		if (n->nkids == 1 && n->op && (KP_OP_IS_INCDEC(n->opk)))
			note_write(s, n->kids[0], n);
		break;
	case KP_N_DECLREF:
		if (n->decl && (n->decl->kind == KP_D_VAR || n->decl->kind == KP_D_PARM))
			kp_push_decl(&s->r, &s->nr, &s->capr, n->decl);
		break;
	case KP_N_CALL: {
		/* what the call may change, from the callee's parameter types
		 * and the arguments' own (pure.h): an array passed, or an address
		 * into one (`&As[y][x]`, `As + 4`, a row `As[r]`), may have its
		 * elements written; a variable, its value (bound to a non-const
		 * reference, or handed to a call kpipe cannot see); a constant,
		 * a template parameter or a const object, nothing */
		int a0 = kp_call_first_arg(n);
		for (int i = a0; i < n->nkids; i++) {
			int w = kp_call_arg_write(n, i);
			if (!w)
				continue;
			kp_node *a = (kp_node *)kp_node_strip(n->kids[i]);
			kp_node *r = a && a->kind != KP_N_DECLREF && a->type &&
						     (strchr(a->type, '*') || strchr(a->type, '['))
					     ? kp_lvalue_root(a)
					     : NULL;
			if (r && r->decl && r->decl->is_array)
				a = r;
			if (a && a->kind == KP_N_DECLREF && a->decl && a->decl->is_array)
				note_write(s, a, n);
			else if (w == 1 && a && (n->decl || a->kind == KP_N_DECLREF))
				note_write(s, n->kids[i], n);
		}
		break;
	}
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		kp_rw_collect(n->kids[i], s);
}

void kp_rw_range(kp_loop *l, int b, int e, kp_rw_set *s)
{
	for (int i = b; i < e; i++)
		kp_rw_collect(l->stmts[i], s);
}
