/*
 * no_tile_load.c - rule (kpipe-no-tile-load): the load phase copies
 * something from global into __shared__ memory, as a copy kpipe reads
 * (kp_loop.loads), through a helper or into a carve-out (those have
 * reasons of their own, loads.c).
 */
#include "rules.h"

static void check(kp_rule_ctx *c)
{
	kp_loop *l = c->l;
	if (l->nloads == 0 && !l->loads_in_helper && !l->loads_carve_out)
		kp_rule_refuse(c, l->node, "kpipe-no-tile-load",
			       "the load phase copies nothing from global into __shared__ memory");
}

const kp_rule kp_rule_no_tile_load = {
	"kpipe-no-tile-load",
	"the load phase copies something from global into shared memory",
	check,
};
