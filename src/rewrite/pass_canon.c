/*
 * pass_canon.c - the "canon" pass (pass.h), run before inline and
 * pipeline: a K-loop that is refused for a partial tile write or a
 * declaration of its load phase, or left without a variant, and whose
 * load phase has one of the shapes of canon.c (a guarded temporary, an
 * if/else of several copies, declarations the pipelined loop cannot keep
 * in its body), is tried with those rewritten: the unit is parsed again
 * with the edits, and they are kept only when the loop at the same place
 * is then pipelined (by the pipeline pass, or once the inline pass has
 * inlined its helpers).  Otherwise nothing is written and a remark says
 * why.
 */
#include "canon.h"
#include "inline.h"
#include "pass.h"

#include "plan.h"
#include "rewrite.h"
#include "transform.h"

#include <stdlib.h>
#include <string.h>

/* The judge of the trial (trial.h): is l2 (of the trial parse g, unit
 * tu) pipelined, planned as it stands or once the inline pass has
 * inlined it (its message into *inlined, in f's arena)? */
typedef struct {
	const kp_trial_env *e;
	kp_file *f;
	const char **inlined;
} judge_ud;

static const char *pipelined(void *ud, kp_file *g, kp_file *tu, kp_loop *l2, kp_trial_result *out)
{
	judge_ud *j = ud;
	const kp_trial_env *e = j->e;
	if (l2->eligible) {
		kp_plan p;
		kp_trial_plan(e, g, l2, &p);
		if (!p.xform)
			return kp_arena_printf(&g->arena, "%s [%s]", p.refuse_msg, p.refuse_id);
		out->variant = p.xform->name;
		out->stages = p.stages;
		out->why = p.why ? kp_arena_strdup(&j->f->arena, p.why) : NULL;
		return NULL;
	}
	if (kp_trial_refused_for(l2, "kpipe-load-in-helper") ||
	    kp_trial_refused_for(l2, "kpipe-macro-array")) {
		kp_trial_env ie = *e;
		ie.tu = tu;
		kp_edits ed = {0};
		kp_trial_result r;
		kp_inline_loop(&ie, g, l2, &ed, &r);
		kp_edits_release(&ed);
		if (r.status > 0) {
			out->variant = r.variant;
			out->stages = r.stages;
			out->why = r.why ? kp_arena_strdup(&j->f->arena, r.why) : NULL;
			*j->inlined = kp_arena_strdup(&j->f->arena, r.message);
			return NULL;
		}
		if (r.status < 0)
			return r.message;
	}
	if (!l2->nreasons)
		return "the loop is not eligible";
	return kp_arena_printf(&g->arena, "%s [%s]", l2->reasons[0].message, l2->reasons[0].id);
}

void kp_canon_loop(const kp_trial_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		   kp_trial_result *out)
{
	memset(out, 0, sizeof(*out));
	if (!e->reparse || !kp_canon_wanted(e, f, l)) /* (nothing is kept untried) */
		return;
	const char *what = NULL, *why = NULL, *inlined = NULL;
	int r = kp_canon_edits(f, l, ed, &what, &why);
	if (r == 0)
		return;
	if (r > 0) {
		judge_ud j = {e, f, &inlined};
		why = kp_trial_try(e, f, l, ed, "rewritten", pipelined, &j, out);
		if (why)
			why = kp_arena_printf(
				&f->arena,
				"the loop is refused even once kpipe %s, so it is left "
				"as written: %s",
				what, why);
	}
	if (why) {
		kp_edits_release(ed);
		memset(ed, 0, sizeof(*ed));
		out->status = -1;
		out->message = why;
		return;
	}
	out->status = 1;
	out->message = inlined ? kp_arena_printf(&f->arena,
						 "kpipe %s, so that the loop is pipelined once the "
						 "inline pass has run (%s)",
						 what, inlined)
			       : kp_arena_printf(&f->arena,
						 "kpipe %s, so that the loop is pipelined", what);
}

const kp_trial_kind kp_trial_canon = {"canon", "kpipe-canonicalized", "kpipe-canon-refused",
				      kp_canon_loop};

static void canon_run(kp_pass_ctx *c) { kp_trial_pass_run(&kp_trial_canon, c); }

const kp_pass kp_pass_canon = {
	"canon",
	"writes the load phase of refused K-loops in the copy forms the pipeline pass proves",
	canon_run,
};
