/*
 * hidden_induction.c - rule (kpipe-hidden-induction): the load phase and
 * the condition see every induction variable where the rewrite can
 * advance it.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "rules.h"

#include <string.h>

/* The rewrite advances the loop by substituting, in the spelled source of
 * the load phase and of the condition, every use of an induction variable,
 * and it re-indexes every use of a loaded tile inside the loop.  This rule
 * (and tile_escapes.c for the tiles) refuses every way a use escapes that
 * substitution: spelled in a macro body, reached through a reference or an
 * address, hidden in a lambda body (lambda bodies are not part of the
 * model), or made outside the loop; store_order.c refuses every store the
 * prefetch could overtake. */

typedef struct {
	const kp_loop *l;
	unsigned b, e;      /* where uses are advanced: the load phase */
	kp_node *macro_use; /* an induction variable spelled in a macro body */
	kp_node *alias;     /* its address taken or a reference bound to it */
	kp_node *lambda;    /* a lambda of [b, e) or of the condition naming one */
	kp_decl *var;
} hidden_walk;

static int lambda_names_ind(const kp_file *f, const kp_loop *l, const kp_node *n)
{
	for (int i = 0; i < l->nind; i++)
		if (kp_mentions_ident(f->src, n->begin, n->end, l->ind[i].var->name))
			return 1;
	return 0;
}

static int find_hidden(kp_node *n, kp_node *parent, void *ud)
{
	void **a = ud;
	hidden_walk *w = a[0];
	const kp_file *f = a[1];
	int advanced = kp_node_in(n, w->b, w->e) ||
		       (w->l->cond && n->in_main && w->l->cond->in_main &&
			kp_node_in(n, w->l->cond->begin, w->l->cond->end));
	if (n->kind == KP_N_LAMBDA && advanced && !w->lambda && lambda_names_ind(f, w->l, n))
		w->lambda = n;
	if (n->kind != KP_N_DECLREF || !n->decl || !kp_is_ind(w->l, n->decl))
		return 1;
	if (advanced && !n->name_editable && !w->macro_use) {
		w->macro_use = n;
		w->var = n->decl;
	}
	if (parent && !w->alias &&
	    ((parent->kind == KP_N_UNOP && parent->op && parent->opk == KP_OP_ADDR) ||
	     (parent->kind == KP_N_VARDECL && parent->decl && parent->decl != n->decl &&
	      parent->decl->ty.is_ref))) {
		w->alias = n;
		if (!w->var)
			w->var = n->decl;
	}
	return 1;
}

/* The load phase and the condition see every induction variable where the
 * rewrite can advance it. */
static void check(kp_rule_ctx *c)
{
	kp_loop *l = c->l;
	unsigned load_b = l->stmts[l->load_b]->begin, load_e = l->stmts[l->load_e - 1]->end;
	hidden_walk w = {l, load_b, load_e, NULL, NULL, NULL, NULL};
	void *a[2] = {&w, c->f};
	kp_node_walk(c->k->body, NULL, find_hidden, a);
	if (w.macro_use)
		kp_rule_refuse(
			c, w.macro_use, "kpipe-hidden-induction",
			"'%s' is used inside a macro body in the %s: kpipe cannot advance it to "
			"the next tile; pass it to the macro as an argument",
			w.var->name,
			l->cond && kp_node_in(w.macro_use, l->cond->begin, l->cond->end)
				? "loop condition"
				: "load phase");
	if (w.alias)
		kp_rule_refuse(
			c, w.alias, "kpipe-hidden-induction",
			"a pointer or reference to '%s' is taken: code reading '%s' through it "
			"cannot be advanced to the next tile",
			w.alias->decl->name, w.alias->decl->name);
	if (w.lambda)
		kp_rule_refuse(c, w.lambda, "kpipe-hidden-induction",
			       "a lambda in the load phase or the loop condition uses an induction "
			       "variable: kpipe cannot advance uses inside a lambda body");
}

const kp_rule kp_rule_hidden_induction = {
	"kpipe-hidden-induction",
	"every use of an induction variable in the load phase and the condition is one the rewrite "
	"can advance",
	check,
};
