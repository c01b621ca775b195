/*
 * auto.c - the --variant auto rule (the plan layer's policy), the one
 * place outside transforms/ that names transforms: it weighs cp.async against register
 * staging by measurements, so a new transform joins it only with
 * measurements of its own (docs/design.md, "Adding a transform").  Also
 * the compute/load rule of thumb, which analyze prints for comparison.
 *
 * auto picks register staging when it applies and needs at most 16
 * staging registers per thread, and cp.async otherwise (where the copies
 * and the architecture allow it).  The rule follows our H200 runs
 * (docs/benchmarks.md): with <= 16 staging registers, register staging
 * matched or beat cp.async on every sample (run of commit e88cb6a: 32x32
 * 1.115x vs 0.969x, 128x128x8 1.123x vs 1.102x, int8 0.995x vs 0.962x);
 * with 64 (attention) it needed 245 registers, and cp.async is the choice
 * that costs none.  The compute/load rule of thumb (a tuning guide's,
 * measured on a GA104) is reported by analyze but did not predict these.
 *
 * When two buffers of the tiles do not fit the static shared-memory limit
 * but one does, auto picks register-2bar (single tiles, two barriers)
 * where register staging applies (whatever its register count): it is
 * the only form that fits, the alternative is leaving the loop alone, and
 * on the H200 it was the fastest variant of 4 of the 12 samples
 * (docs/benchmarks.md), and it needs no change to the callers.  When
 * every launch of the kernel is in the file, or register-2bar does not
 * apply (or for more than 2 stages), the S buffers move to dynamic shared
 * memory instead, where they fit the opt-in limit (plan.h,
 * kp_plan_dynamic): kpipe edits those launches itself, and on the H200
 * two buffers in dynamic shared memory beat one static buffer
 * (wmma_fp16_128x128x64: cp.async 1.717x, register staging 1.471x,
 * register-2bar 1.437x; bench/results/2026-12-01-h200-dynamic).
 * Otherwise the loop is refused with kpipe-smem-over-limit.
 */
#include "plan.h"

#include <string.h>

/* Two buffers over the limit, one within it: register-2bar, or NULL. */
static const char *single_buffer(kp_file *f, const kp_loop *l, const kp_arch *a,
				 const kp_transform *two, const kp_transform *one)
{
	long long need1, need2;
	const char *inst1, *inst2, *no = NULL;
	if (!kp_plan_smem(l, a, one->buffers(2), &need1, &inst1) ||
	    !kp_transform_match(one, f, l, a, &f->arena, &no))
		return NULL;
	kp_plan_smem(l, a, two->buffers(2), &need2, &inst2);
	return kp_arena_printf(&f->arena,
			       "%s%s%stwo buffers of the tiles need %lld B of shared memory, "
			       "over the %d B static limit of %s; one fits",
			       inst2 ? "for instantiation <" : "", inst2 ? inst2 : "",
			       inst2 ? ">: " : "", need2, a->smem_static_per_block, a->name);
}

/* The old rule between cp.async and register staging, once S buffers fit. */
static void pick(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, int stages,
		 const kp_transform *cp, const kp_transform *rg)
{
	kp_arena *ar = &f->arena;
	const char *cp_no = NULL, *rg_no = NULL;
	int cp_ok = kp_transform_match(cp, f, l, a, ar, &cp_no);
	int rg_ok = kp_transform_match(rg, f, l, a, ar, &rg_no);
	if (stages > 2 && !cp_ok) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg =
			kp_arena_printf(ar, "%d stages need cp.async, but %s", stages, cp_no);
		return;
	}
	if (!cp_ok && !rg_ok) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg = kp_arena_printf(ar,
						"no variant applies: cp.async: %s; register "
						"staging: %s",
						cp_no, rg_no);
		return;
	}
	kp_xfacts rx;
	kp_transform_facts(rg, f, l, ar, &rx);
	int regs = rx.regs;
	int cheap_regs = regs >= 0 && regs <= 16;
	if (rg_ok && stages == 2 && (!cp_ok || cheap_regs)) {
		p->xform = rg;
		p->why = !cp_ok ? kp_arena_printf(ar, "cp.async does not apply (%s)", cp_no)
			 : l->ratio < 0
				 ? kp_arena_printf(ar, "%d staging register%s per thread (<= 16)",
						   regs, regs == 1 ? "" : "s")
				 : kp_arena_printf(ar,
						   "%d staging register%s per thread (<= 16), "
						   "compute/load %.1f FLOP/B",
						   regs, regs == 1 ? "" : "s", l->ratio);
		return;
	}
	p->xform = cp;
	if (!rg_ok)
		p->why = kp_arena_printf(ar, "register staging does not apply (%s)", rg_no);
	else if (stages != 2)
		p->why = kp_arena_printf(ar, "%d stages need cp.async", stages);
	else if (regs > 16)
		p->why = kp_arena_printf(
			ar,
			"staging would need %d registers per thread (> 16); cp.async "
			"needs none",
			regs);
	else
		p->why = "staging register count unknown; cp.async needs none";
}

void kp_plan_auto(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, int stages)
{
	const kp_transform *cp = kp_transform_find("cp-async");
	const kp_transform *rg = kp_transform_find("register");
	const kp_transform *r2 = kp_transform_find("register-2bar");
	/* S buffers of the tiles: cp.async's ring, register staging's pair;
	 * in dynamic shared memory when kpipe edits every launch (they are in
	 * the file) or no single-buffer form applies */
	int fits = kp_plan_fits(p, f, l, a, cp, stages);
	if (!fits || (p->dynamic && !kp_plan_launches(f, l))) {
		const char *why = stages == 2 ? single_buffer(f, l, a, rg, r2) : NULL;
		if (why) {
			p->refuse_id = p->refuse_msg = NULL;
			p->dynamic = 0;
			p->xform = r2;
			p->why = why;
			return;
		}
		if (!fits)
			return;
	}
	pick(p, f, l, a, stages, cp, rg);
}

const char *kp_ratio_rule(const kp_loop *l, kp_arena *arena, const char **why)
{
	double ratio = l->ratio;
	if (ratio < 0) {
		*why = "compute/load ratio unknown (threads per block or tile sizes not known)";
		return "cp-async";
	}
	if (ratio < 5) {
		*why = kp_arena_printf(
			arena, "%.1f FLOP/B < 5: memory-bound tile, cp.async preferred", ratio);
		return "cp-async";
	}
	if (ratio <= 20) {
		*why = kp_arena_printf(arena,
				       "%.1f FLOP/B in 5..20: build both and measure (register "
				       "staging first)",
				       ratio);
		return "register";
	}
	*why = kp_arena_printf(arena,
			       "%.1f FLOP/B > 20: little gain expected (warp interleaving "
			       "already hides latency)",
			       ratio);
	return "none";
}
