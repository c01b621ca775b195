/*
 * plan.c - the variant decision.  auto picks register staging when the
 * copies allow it, the tile's compute/load ratio is at most 20 FLOP/B and
 * staging costs at most 16 registers per thread (our H200 figures: +10%
 * on the 32x32 tile, -15% on the 128x128x8 tile where 8 staging registers
 * on top of 128 halved occupancy); otherwise cp.async where the copies
 * and the architecture allow it.
 */
#include "plan.h"

#include <string.h>

void kp_plan_loop(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, const char *requested,
		  int stages)
{
	memset(p, 0, sizeof(*p));
	p->stages = stages;
	const kp_transform *cp = kp_transform_find("cp-async");
	const kp_transform *rg = kp_transform_find("register");
	const char *cp_no = NULL, *rg_no = NULL;
	int cp_ok = cp->match(l, a, &cp_no);
	int rg_ok = rg->match(l, a, &rg_no);
	if (!strcmp(requested, "cp-async")) {
		if (!cp_ok) {
			p->refuse_id = "kpipe-variant-unavailable";
			p->refuse_msg = kp_arena_printf(&f->arena, "cp.async was requested but %s", cp_no);
			return;
		}
		p->xform = cp;
		p->why = "requested with --variant cp-async";
		return;
	}
	if (!strcmp(requested, "register")) {
		if (stages != 2) {
			p->refuse_id = "kpipe-variant-unavailable";
			p->refuse_msg = "register staging uses exactly 2 buffers";
			return;
		}
		if (!rg_ok) {
			p->refuse_id = "kpipe-variant-unavailable";
			p->refuse_msg =
				kp_arena_printf(&f->arena, "register staging was requested but %s", rg_no);
			return;
		}
		p->xform = rg;
		p->why = "requested with --variant register";
		return;
	}
	if (!cp_ok && !rg_ok) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg = kp_arena_printf(&f->arena, "no variant applies: cp.async: %s; register "
					       "staging: %s",
					       cp_no, rg_no);
		return;
	}
	int cheap_regs = l->reg_per_thread >= 0 && l->reg_per_thread <= 16;
	if (rg_ok && stages == 2 && (!cp_ok || (l->ratio >= 0 && l->ratio <= 20 && cheap_regs))) {
		p->xform = rg;
		p->why = !cp_ok ? kp_arena_printf(&f->arena, "cp.async does not apply (%s)", cp_no)
				: kp_arena_printf(&f->arena,
						  "compute/load %.1f FLOP/B <= 20 and %d staging "
						  "registers per thread",
						  l->ratio, l->reg_per_thread);
		return;
	}
	p->xform = cp;
	if (!rg_ok)
		p->why = kp_arena_printf(&f->arena, "register staging does not apply (%s)", rg_no);
	else if (l->ratio > 20)
		p->why = kp_arena_printf(&f->arena,
					 "compute/load %.1f FLOP/B > 20: staging registers would "
					 "compete with the accumulators",
					 l->ratio);
	else if (!cheap_regs)
		p->why = "staging would need more than 16 registers per thread";
	else
		p->why = "compute/load ratio unknown: cp.async costs no registers";
}
