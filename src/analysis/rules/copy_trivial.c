/*
 * copy_trivial.c - rule: a loaded tile's element type must be trivially
 * copyable.  cp.async and the bulk copies move the bytes and bypass a
 * user-provided copy-assignment operator; register staging copies each
 * element twice (into the staging register, then into the tile) and so
 * applies such an operator twice, which changes the result when it is not
 * idempotent.  The fact comes from clang (kp_decl.elem_trivial, or the
 * instantiation's type argument for a tile of a template type parameter).
 */
#include <string.h>

#include "rules.h"

/* 1 trivially copyable, 0 not, -1 unknown; *type: the type judged. */
static int elem_trivial(const kp_rule_ctx *c, const kp_decl *d, const char **type)
{
	*type = d->elem_type ? d->elem_type : "?";
	if (d->elem_trivial >= 0)
		return d->elem_trivial;
	if (!c->targs || !d->elem_type || !c->k->tparam_names)
		return -1;
	const char *t = d->elem_type;
	while (!strncmp(t, "const ", 6) || !strncmp(t, "volatile ", 9))
		t += t[0] == 'c' ? 6 : 9;
	for (int i = 0; i < c->k->ntparams && i < KP_MAX_TARGS; i++)
		if (!strcmp(c->k->tparam_names[i], t)) {
			if (!c->targs[i].type)
				return -1;
			*type = c->targs[i].type;
			return c->targs[i].trivial;
		}
	return -1;
}

static void check(kp_rule_ctx *c)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		const char *type;
		if (!t->loaded || elem_trivial(c, t->arr, &type) != 0)
			continue;
		const kp_node *at = NULL;
		for (int j = 0; j < l->nloads && !at; j++)
			if (l->loads[j].tile == t->arr)
				at = l->loads[j].stmt;
		kp_rule_refuse(c, at, "kpipe-copy-not-trivial",
			       "the elements of '%s' are of type '%s', which is not trivially "
			       "copyable (a user-provided copy or move, a destructor, or something "
			       "virtual): cp.async and bulk copies would bypass its copy, register "
			       "staging would apply it twice",
			       t->arr->name, type);
	}
}

const kp_rule kp_rule_copy_trivial = {
	"kpipe-copy-not-trivial",
	"a loaded tile's element type has a user-provided copy (or is otherwise not trivially "
	"copyable)",
	check,
};
