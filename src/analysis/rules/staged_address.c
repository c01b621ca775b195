/*
 * staged_address.c - rule (kpipe-load-depends-on-compute): the address or
 * guard of a copy must not read a register the load phase itself writes
 * or fills from global memory.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "liveness.h"
#include "rules.h"

#include <string.h>

static const kp_node *ref_to(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return NULL;
	if (n->kind == KP_N_DECLREF && n->decl == d)
		return n;
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = ref_to(n->kids[i], d);
		if (r)
			return r;
	}
	return NULL;
}

/* Register staging stores the tile after the math, from its registers,
 * with the address computed there: an address (or guard) that reads the
 * register the source stages a copy in would see the value it holds at
 * the end of the next tile's load phase, not the one it held at the
 * store. */
typedef struct {
	const kp_rule_ctx *c;
	const kp_node *hit;
} scratch_ref_walk;

typedef struct {
	const kp_decl *d;
	int hit;
} written_walk;

static int find_write_to(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	written_walk *w = ud;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	kp_node *r = t ? kp_lvalue_root(t) : NULL;
	if (r && r->decl == w->d)
		w->hit = 1;
	return !w->hit;
}

/* A scratch register the load phase writes (not a constant of the thread
 * that only the load phase happens to name). */
static int written_scratch(const kp_rule_ctx *c, const kp_decl *d)
{
	if (!kp_is_scratch(c->f, c->k, c->l, d) && !kp_var_phase_private(c->f, c->k, c->l, d))
		return 0;
	written_walk w = {d, 0};
	for (int i = c->l->load_b; i < c->l->load_e && !w.hit; i++)
		kp_node_walk(c->l->stmts[i], NULL, find_write_to, &w);
	return w.hit;
}

static int find_scratch_ref(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	scratch_ref_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl && written_scratch(w->c, n->decl))
		w->hit = n;
	return !w->hit;
}

static void check(kp_rule_ctx *c)
{
	kp_loop *l = c->l;
	for (int j = 0; j < l->nloads; j++) {
		scratch_ref_walk w = {c, NULL};
		kp_node_walk(l->loads[j].lhs, NULL, find_scratch_ref, &w);
		if (!w.hit && l->loads[j].guard != KP_G_NONE)
			kp_node_walk(l->loads[j].cond, NULL, find_scratch_ref, &w);
		if (w.hit) {
			kp_rule_refuse(
				c, w.hit, "kpipe-load-depends-on-compute",
				"the address or guard of the copy on line %d reads '%s', which the "
				"load phase itself writes",
				l->loads[j].line, w.hit->decl->name);
			return;
		}
	}
	for (int i = 0; i < l->nloads; i++) {
		const kp_decl *v = l->loads[i].via;
		for (int j = 0; v && j < l->nloads; j++) {
			const kp_node *r = ref_to(l->loads[j].lhs, v);
			if (!r && l->loads[j].guard != KP_G_NONE)
				r = ref_to(l->loads[j].cond, v);
			if (r) {
				kp_rule_refuse(
					c, r, "kpipe-load-depends-on-compute",
					"the address or guard of the copy on line %d reads '%s', "
					"which the load phase itself fills from global memory",
					l->loads[j].line, v->name);
				return;
			}
		}
	}
}

const kp_rule kp_rule_staged_address = {
	"kpipe-load-depends-on-compute",
	"a copy's address and guard read no register the load phase itself writes",
	check,
};
