/*
 * targets.c - the plan of a loop for several targets at once (plan.h,
 * kp_plan_targets): one source must be valid and fast on every target the
 * build compiles for.  The targets split at the cp.async line (sm_80):
 * when some are older and some newer, the newer ones get their own plan
 * (cp.async, or whatever auto picks there) and the older ones theirs
 * (register staging: cp.async needs sm_80), each with the limits its
 * group shares (kp_arch_common: the smallest of each); the rewrite puts
 * the first under `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800`
 * and the second in the #else (transforms/split.c).  Both branches share
 * the tile declarations, so the two plans must declare as many buffers,
 * statically: where they do not, the deeper is brought down to the other
 * (a named variant at that depth), else one plan for every target is made
 * with the limits all of them share, which the oldest target's rules
 * decide (register staging below sm_80).  Where no form applies below
 * sm_80 (register staging needs copy loops of compile-time counts) or
 * auto predicts no gain there, and the newer targets have a plan, the
 * older ones keep the loop as written (lo_asis): the #else holds the
 * loop and the tile declarations unchanged.
 */
#include "plan.h"

#include <stdio.h>
#include <string.h>

/* A plan for one side's limits a, with `requested` unless a's targets
 * cannot run it (auto there: --variant cp-async asks for cp.async where
 * it runs). */
static void plan_group(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a,
		       const char *requested, int stages)
{
	const kp_transform *t = kp_transform_find(requested);
	if (t && !kp_transform_arch_ok(t, a)) {
		requested = "auto";
		stages = 0;
	}
	kp_plan_loop(p, f, l, a, requested, stages);
}

static int buffers_of(const kp_plan *p) { return p->xform->buffers(p->stages); }

/* One plan for every target: the limits they all share. */
static void plan_one(kp_tplan *tp, kp_file *f, const kp_loop *l, const char *requested, int stages,
		     const char *why_not_split)
{
	tp->split = 0;
	kp_plan_loop(&tp->one, f, l, &tp->all, requested, stages);
	tp->why_one = why_not_split;
}

/* Brings the plan with more buffers down to the other's count; 1 when
 * the counts then agree. */
static int align_buffers(kp_tplan *tp, kp_file *f, const kp_loop *l)
{
	int bh = buffers_of(&tp->hi), bl = buffers_of(&tp->lo);
	if (bh == bl)
		return 1;
	kp_plan q;
	if (bh > bl && bl >= 2) { /* the ring at the older side's depth */
		kp_plan_loop(&q, f, l, &tp->ahi, tp->hi.xform->name, bl);
		if (q.xform && !q.dynamic && buffers_of(&q) == bl) {
			q.why = kp_arena_printf(&f->arena,
						"%s; %d stages rather than %d: the older targets' "
						"loop shares the %d tile buffers",
						tp->hi.why, q.stages, tp->hi.stages, bl);
			tp->hi = q;
			return 1;
		}
	}
	/* one buffer below (register-2bar): the form of the same family
	 * (the same facts) with as many buffers as above */
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	for (int i = 0; bl < bh && i < n; i++) {
		const kp_transform *t = all[i];
		if (t == tp->lo.xform || t->facts != tp->lo.xform->facts ||
		    !kp_transform_arch_ok(t, &tp->alo) || t->buffers(2) != bh)
			continue;
		kp_plan_loop(&q, f, l, &tp->alo, t->name, 2);
		if (q.xform && !q.dynamic && buffers_of(&q) == bh) {
			tp->lo = q;
			return 1;
		}
	}
	return 0;
}

/* Whether the older targets' refusal p leaves them the loop as written
 * while the newer ones pipeline it: no form applies there, its buffers do
 * not fit, or auto predicts no gain; not a compiler error or a refusal
 * that holds on every target. */
static int asis_ok(const kp_plan *p)
{
	static const char *const ids[] = {"kpipe-variant-unavailable", "kpipe-smem-over-limit",
					  "kpipe-no-predicted-gain", "kpipe-registers-over-limit"};
	if (p->fatal || !p->refuse_id)
		return 0;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (!strcmp(p->refuse_id, ids[i]))
			return 1;
	return 0;
}

void kp_plan_targets(kp_tplan *tp, kp_file *f, const kp_loop *l, const kp_targets *t,
		     const char *requested, int stages)
{
	memset(tp, 0, sizeof(*tp));
	kp_arch_common(t->v, t->n, &tp->all);
	int nlo = 0;
	while (nlo < t->n && t->v[nlo]->cc < KP_SPLIT_CC)
		nlo++;
	tp->nlo = nlo;
	if (nlo == 0 || nlo == t->n) {
		plan_one(tp, f, l, requested, stages, NULL);
		return;
	}
	kp_arch_common(t->v, nlo, &tp->alo);
	kp_arch_common(t->v + nlo, t->n - nlo, &tp->ahi);
	plan_group(&tp->hi, f, l, &tp->ahi, requested, stages);
	plan_group(&tp->lo, f, l, &tp->alo, requested, stages);
	if (tp->hi.xform && !tp->lo.xform && asis_ok(&tp->lo) && !tp->hi.dynamic && !l->dyn_tiles &&
	    !l->carve_tiles) {
		/* the newer targets pipelined, the older ones as written */
		tp->split = 1;
		tp->lo_asis = 1;
		tp->guard_cc = tp->hi.xform->min_cc > KP_SPLIT_CC ? tp->hi.xform->min_cc
								  : KP_SPLIT_CC;
		return;
	}
	if (!tp->hi.xform || !tp->lo.xform) {
		/* refused on one side: the loop is left alone, with that side's reason */
		tp->split = 0;
		tp->one = tp->hi.xform ? tp->lo : tp->hi;
		const kp_arch *side = tp->hi.xform ? &tp->alo : &tp->ahi;
		if (tp->one.refuse_msg)
			tp->one.refuse_msg = kp_arena_printf(
				&f->arena, "for %s%s: %s", side->name,
				side == &tp->alo ? " and the older targets" : " and newer",
				tp->one.refuse_msg);
		return;
	}
	/* the same form, or one the older targets run too (register-2bar
	 * above, register below): one loop, planned for every target */
	if ((tp->hi.xform == tp->lo.xform && tp->hi.stages == tp->lo.stages) ||
	    !tp->hi.xform->min_cc || tp->hi.xform->min_cc < KP_SPLIT_CC) {
		plan_one(tp, f, l, requested, stages, NULL);
		/* the newer targets' reason: the older ones' ("cp.async needs
		 * sm_80 or newer") is not why the newer targets do the same */
		if (tp->one.xform == tp->hi.xform && tp->one.stages == tp->hi.stages && tp->hi.why)
			tp->one.why = tp->hi.why;
		return;
	}
	if (tp->hi.dynamic || tp->lo.dynamic || l->dyn_tiles) {
		plan_one(tp, f, l, requested, stages,
			 "the tiles would need dynamic shared memory: one loop for every target");
		return;
	}
	if (l->carve_tiles) {
		plan_one(tp, f, l, requested, stages,
			 "the tiles are carved out of a static array, repeated per buffer: one "
			 "loop for every target");
		return;
	}
	if (!align_buffers(tp, f, l)) {
		plan_one(tp, f, l, requested, stages,
			 kp_arena_printf(&f->arena,
					 "%s and %s declare different numbers of tile buffers: "
					 "one loop for every target",
					 tp->hi.xform->name, tp->lo.xform->name));
		return;
	}
	tp->split = 1;
	/* where the newer form becomes valid: 80, or 90 for bulk copies */
	tp->guard_cc = tp->hi.xform->min_cc > KP_SPLIT_CC ? tp->hi.xform->min_cc : KP_SPLIT_CC;
}

const kp_plan *kp_tplan_for(const kp_tplan *tp, const kp_arch *a)
{
	if (!tp->split)
		return &tp->one;
	return a->cc >= tp->guard_cc ? &tp->hi : &tp->lo;
}
