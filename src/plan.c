/*
 * plan.c - the variant decision.  auto picks register staging when the
 * copies allow it and staging costs at most 16 registers per thread, and
 * cp.async otherwise (where the copies and the architecture allow it).
 * The rule follows our H200 runs (docs/benchmarks.md): with <= 16 staging
 * registers, register staging matched or beat cp.async on every sample
 * (run of commit e88cb6a: 32x32 1.115x vs 0.969x, 128x128x8 1.123x vs
 * 1.102x, int8 0.995x vs 0.962x); with 64 (attention) it needed 245
 * registers, and cp.async is the choice that costs none.  The seed's compute/load
 * rule (measured on a GA104) is reported by analyze but did not predict
 * these.
 */
#include "plan.h"

#include <string.h>

void kp_plan_loop(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, const char *requested,
		  int stages)
{
	memset(p, 0, sizeof(*p));
	p->stages = stages;
	if (stages < 2 || stages > 8) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg = kp_arena_printf(&f->arena, "%d stages: kpipe builds 2 to 8", stages);
		return;
	}
	if (l->tile_bytes > 0) {
		long long need = l->tile_bytes * stages + l->other_smem;
		if (need > a->smem_static_per_block) {
			p->refuse_id = "kpipe-smem-over-limit";
			p->refuse_msg = kp_arena_printf(
				&f->arena,
				"%d stages need %lld B of shared memory per block, over the %d B static "
				"limit of %s (dynamic shared memory is not generated yet)",
				stages, need, a->smem_static_per_block, a->name);
			return;
		}
	}
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
	if (stages > 2 && !cp_ok) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg = kp_arena_printf(&f->arena, "%d stages need cp.async, but %s", stages, cp_no);
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
	if (rg_ok && stages == 2 && (!cp_ok || cheap_regs)) {
		p->xform = rg;
		p->why = !cp_ok ? kp_arena_printf(&f->arena, "cp.async does not apply (%s)", cp_no)
				: l->ratio < 0
				? kp_arena_printf(&f->arena,
						  "%d staging register%s per thread (<= 16)",
						  l->reg_per_thread, l->reg_per_thread == 1 ? "" : "s")
				: kp_arena_printf(&f->arena,
						  "%d staging register%s per thread (<= 16), compute/load "
						  "%.1f FLOP/B",
						  l->reg_per_thread, l->reg_per_thread == 1 ? "" : "s",
						  l->ratio);
		return;
	}
	p->xform = cp;
	if (!rg_ok)
		p->why = kp_arena_printf(&f->arena, "register staging does not apply (%s)", rg_no);
	else if (stages != 2)
		p->why = kp_arena_printf(&f->arena, "%d stages need cp.async", stages);
	else if (l->reg_per_thread > 16)
		p->why = kp_arena_printf(&f->arena,
					 "staging would need %d registers per thread (> 16); cp.async "
					 "needs none",
					 l->reg_per_thread);
	else
		p->why = "staging register count unknown; cp.async needs none";
}
