/*
 * copy_trips.c - rule: a copy loop of the load phase that runs no trip in
 * this instantiation (`for (i = 0; i < BM * BK / NT; ++i)` with BM * BK <
 * NT).  Register staging sizes its staging registers by the trip count, and
 * a zero-sized array does not compile; the loop is refused for that
 * instantiation (kp_load.trips, math.c's kp_count_copy_trips).
 */
#include "rules.h"

static void check(kp_rule_ctx *c)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		for (int d = 0; d < ld->depth && d < 4; d++)
			if (ld->trips[d] == 0) {
				kp_rule_refuse(
					c, ld->loops[d], "kpipe-loop-shape",
					"the copy loop at line %d runs no trip, so the copy at "
					"line %d never runs: kpipe does not rewrite a load phase "
					"that copies nothing",
					ld->loops[d]->line, ld->line);
				return;
			}
	}
}

const kp_rule kp_rule_copy_trips = {
	"kpipe-loop-shape",
	"a copy loop of the load phase runs no trip (in one instantiation of a template)",
	check,
};
