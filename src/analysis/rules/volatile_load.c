/*
 * volatile_load.c - rule (kpipe-memory-order): the load phase reads no
 * volatile memory outside __shared__ (through a pointer, a member, a
 * __device__ variable; directly or in a __device__ helper it calls, as
 * deep as the effect walk reads helpers).  Volatile says that another
 * block or the host may change the memory while the kernel runs; the
 * rewrite reads the next tile one iteration early, so it could see another
 * value than the original does.  A volatile __shared__ tile is the
 * block's own memory, ordered by its barriers, and stays allowed.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "changes.h"
#include "effects.h"
#include "rules.h"

/* A read of volatile memory that is not __shared__: a subscript, a
 * dereference or a member of volatile type whose root is no __shared__
 * array, or a volatile __device__ variable. */
static int volatile_global(const kp_node *n)
{
	if (!n->ty.is_volatile)
		return 0;
	if (n->kind == KP_N_DECLREF)
		return n->decl && n->decl->is_device_var;
	if (n->kind != KP_N_SUBSCRIPT && n->kind != KP_N_MEMBER &&
	    !(n->kind == KP_N_UNOP && n->opk == KP_OP_DEREF))
		return 0;
	const kp_node *r = kp_lvalue_root((kp_node *)n);
	return !(r && r->decl && r->decl->is_shared);
}

static void check(kp_rule_ctx *c)
{
	const kp_loop *l = c->l;
	for (int i = l->load_b; i < l->load_e; i++) {
		const kp_kernel *h = NULL;
		const kp_node *v = kp_find_through_helpers(l->stmts[i], 0, volatile_global, 0, &h);
		if (v && h)
			kp_rule_refuse(
				c, l->stmts[i], "kpipe-memory-order",
				"the load phase reads volatile memory in the called function "
				"'%s' (its line %d): another block or the host may change it "
				"while the kernel runs, and the rewrite reads it a tile ahead",
				h->name, v->line);
		else if (v)
			kp_rule_refuse(c, v, "kpipe-memory-order",
				       "the load phase reads volatile memory at line %d ('%s'): "
				       "another block or the host may change it while the kernel "
				       "runs, and the rewrite reads it a tile ahead",
				       v->line, kp_node_text(c->f, v));
		if (v)
			return;
	}
}

const kp_rule kp_rule_volatile_load = {
	"kpipe-memory-order",
	"the load phase reads no volatile memory outside __shared__",
	check,
};
