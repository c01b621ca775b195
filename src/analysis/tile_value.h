/*
 * tile_value.h - values the load phase computes for its own tile and the
 * compute phase reads (kp_loop.tval_stmt; tile_value.c finds them, as part
 * of the analysis of a loop: analyze_int.h, kp_find_tile_values).  What
 * the rules and the other facts ask of them.
 */
#ifndef KPIPE_TILE_VALUE_H
#define KPIPE_TILE_VALUE_H

#include "loop.h"

/* What a tile value needs, for the refusals that name one. */
#define KP_TILE_VALUE_NEEDS                                                                        \
	"a pure function of the loop counter and of values the loop does not change, set once "    \
	"at the top level of the load phase, changed nowhere else in the loop, and not read "      \
	"after it"

/* The value the tile value d is set to (`E` of `d = E;` or of `T d =
 * E;`), or NULL when d is none of l's.  Accessors of the loop's facts,
 * inline: the facts' readers (guard_cover.c) do not call into the
 * analysis's core that finds them. */
static inline const kp_node *kp_tile_value_expr(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->ntvals; i++)
		if (l->tval_var[i] == d)
			return l->tval_stmt[i]->kind == KP_N_DECLSTMT ? d->init
								      : l->tval_stmt[i]->kids[1];
	return NULL;
}

/* Whether d is the variable of one of l's tile values. */
static inline int kp_is_tile_value(const kp_loop *l, const kp_decl *d)
{
	return kp_tile_value_expr(l, d) != NULL;
}

#endif
