/*
 * pass_targets.c - several targets in the pipeline pass
 * (pass_targets.h; docs/design.md, "Several targets").
 */
#include "pass_targets.h"

#include <stdlib.h>

int kp_pass_plan(kp_pass_ctx *c, const kp_loop *l, kp_tplan *tp, kp_plan *p)
{
	const kp_rw_opts *o = c->o;
	if (o->targets.n < 2) {
		kp_plan_loop(p, c->f, l, o->arch, o->variant, o->stages);
		return 0;
	}
	kp_plan_targets(tp, c->f, l, &o->targets, o->variant, o->stages);
	if (tp->split) { /* the two loops must combine, else one for every target */
		kp_edits trial = {0};
		const char *err = NULL;
		if (kp_pass_split_apply(c, l, tp, &trial, &err)) {
			tp->split = 0;
			kp_plan_loop(&tp->one, c->f, l, &tp->all, o->variant, o->stages);
			tp->why_one = kp_arena_printf(&c->f->arena,
						      "the loops for sm_%d on and below do not "
						      "combine (%s): one loop for every target",
						      tp->guard_cc, err ? err : "no reason given");
		}
		kp_edits_release(&trial);
	}
	*p = tp->split ? tp->hi : tp->one;
	if (!tp->split && tp->why_one && p->xform)
		p->why = kp_arena_printf(&c->f->arena, "%s (%s)", p->why, tp->why_one);
	return tp->split;
}

int kp_pass_split_apply(kp_pass_ctx *c, const kp_loop *l, const kp_tplan *tp, kp_edits *out,
			const char **err)
{
	kp_file *f = c->f;
	int nc = c->o->no_comment;
	kp_xform_opts xh = {&tp->ahi, tp->hi.stages, tp->hi.why, 0, nc};
	kp_xform_opts xl = {&tp->alo, tp->lo.stages, tp->lo.why, 0, nc};
	kp_edits hi = {0}, lo = {0};
	int rc = tp->hi.xform->apply(f, l, &xh, &hi, err);
	if (!rc && !tp->lo_asis)
		rc = tp->lo.xform->apply(f, l, &xl, &lo, err);
	if (!rc)
		rc = kp_split_compose(f, l, &hi, tp->lo_asis ? NULL : &lo, tp->guard_cc, out, err);
	kp_edits_release(&hi);
	kp_edits_release(&lo);
	return rc ? -1 : 0;
}

void kp_pass_split_note(kp_strbuf *note, const kp_tplan *tp)
{
	if (tp->lo_asis) {
		kp_strbuf_addf(note,
			       "pipelined for sm_%d and newer with %s (%d stages): %s; below, "
			       "the loop is kept as written: %s",
			       tp->guard_cc, tp->hi.xform->name, tp->hi.stages, tp->hi.why,
			       tp->lo.refuse_msg);
		return;
	}
	kp_strbuf_addf(note,
		       "pipelined for sm_%d and newer with %s (%d stages): %s; below, with %s (%d "
		       "stages): %s",
		       tp->guard_cc, tp->hi.xform->name, tp->hi.stages, tp->hi.why,
		       tp->lo.xform->name, tp->lo.stages, tp->lo.why);
}
