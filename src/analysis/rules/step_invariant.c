/*
 * step_invariant.c - rule (kpipe-loop-shape): each induction variable's
 * step is a loop invariant: no variable of it is written in the body.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "rules.h"

#include <string.h>

static const kp_node *written_ref(const kp_node *n, const kp_rw_set *all)
{
	if (!n)
		return NULL;
	if (n->kind == KP_N_DECLREF && n->decl && kp_rw_has(all->w, all->nw, n->decl))
		return n;
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = written_ref(n->kids[i], all);
		if (r)
			return r;
	}
	return NULL;
}

static void check(kp_rule_ctx *c)
{
	const kp_rw_set *all = &c->rw->all;
	kp_loop *l = c->l;
	for (int i = 0; i < l->nind; i++) {
		const kp_node *r = written_ref(kp_step_node(l->ind[i].stmt), all);
		if (r)
			kp_rule_refuse(c, l->ind[i].stmt, "kpipe-loop-shape",
				       "the step of '%s' uses '%s', which changes inside the loop",
				       l->ind[i].var->name, r->decl->name);
	}
}

const kp_rule kp_rule_step_invariant = {
	"kpipe-loop-shape",
	"each induction variable's step is a loop invariant",
	check,
};
