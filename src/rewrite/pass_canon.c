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

/* Where offset `off` of the text before ed is in the text after it (an
 * insertion at `off` goes before it). */
static unsigned moved_offset(const kp_edits *ed, unsigned off)
{
	long shift = 0;
	for (int i = 0; i < ed->n; i++)
		if (ed->v[i].off + ed->v[i].len <= off)
			shift += (long)strlen(ed->v[i].text) - (long)ed->v[i].len;
	return (unsigned)((long)off + shift);
}

static kp_loop *loop_at(const kp_analysis *an, const kp_loop *l, unsigned begin)
{
	for (int i = 0; i < an->nloops; i++)
		if (an->loops[i]->node->begin == begin &&
		    !strcmp(an->loops[i]->kernel->name, l->kernel->name))
			return an->loops[i];
	return NULL;
}

static int refused_for(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return 1;
	return 0;
}

/* Whether l2 (of the trial parse g, unit tu) is pipelined: planned as it
 * stands, or once the inline pass has inlined it (its message into
 * *inlined).  NULL when it is, else why not. */
static const char *pipelined(const kp_canon_env *e, kp_file *g, kp_file *tu, kp_loop *l2,
			     kp_canon_result *out, const char **inlined)
{
	kp_file *f = g;
	if (l2->eligible) {
		kp_plan p;
		kp_plan_loop(&p, g, l2, e->arch, e->variant, e->stages);
		if (!p.xform)
			return kp_arena_printf(&f->arena, "%s [%s]", p.refuse_msg, p.refuse_id);
		out->variant = p.xform->name;
		out->stages = p.stages;
		return NULL;
	}
	if (refused_for(l2, "kpipe-load-in-helper") || refused_for(l2, "kpipe-macro-array")) {
		kp_inline_env ie = {0};
		ie.arch = e->arch;
		ie.variant = e->variant;
		ie.stages = e->stages;
		ie.ao = e->ao;
		ie.tu = tu;
		ie.reparse = e->reparse;
		ie.env = e->env;
		ie.no_comment = e->no_comment;
		kp_edits ed = {0};
		kp_inline_result r;
		kp_inline_loop(&ie, g, l2, &ed, &r);
		kp_edits_release(&ed);
		if (r.status > 0) {
			out->variant = r.variant;
			out->stages = r.stages;
			*inlined = r.message;
			return NULL;
		}
		if (r.status < 0)
			return r.message;
	}
	if (!l2->nreasons)
		return "the loop is not eligible";
	return kp_arena_printf(&f->arena, "%s [%s]", l2->reasons[0].message, l2->reasons[0].id);
}

/* Parses the unit with ed applied and plans the loop at l's new place:
 * NULL when it is pipelined, else why not (arena text of f). */
static const char *try_edits(const kp_canon_env *e, kp_file *f, const kp_loop *l,
			     const kp_edits *ed, kp_canon_result *out, const char **inlined)
{
	char *text = NULL;
	size_t len = 0;
	if (kp_edits_apply(ed, f->src, f->len, &text, &len))
		return "the edits overlap";
	kp_file *tu = NULL;
	kp_file *g = e->reparse(e->env, f, text, len, &tu);
	const char *why = NULL;
	if (!g)
		why = "the rewritten code does not parse";
	else if (tu->nerrors > e->tu->nerrors)
		why = "the rewritten code does not compile";
	else {
		kp_analysis an;
		kp_analyze(&an, g, e->ao);
		kp_loop *l2 = loop_at(&an, l, moved_offset(ed, l->node->begin));
		if (!l2)
			why = "the loop is not found again";
		else {
			why = pipelined(e, g, tu, l2, out, inlined);
			if (why)
				why = kp_arena_strdup(&f->arena, why);
			if (*inlined)
				*inlined = kp_arena_strdup(&f->arena, *inlined);
		}
	}
	free(text);
	if (tu) {
		kp_file_release(tu);
		free(tu);
	}
	return why;
}

/* Whether the loop is one the canon pass looks at: left without a
 * variant, or refused for something its shapes cause. */
static int wanted(const kp_canon_env *e, kp_file *f, const kp_loop *l)
{
	if (l->kernel->error || l->already_pipelined)
		return 0;
	if (l->eligible) {
		/* no transform applies (asked without planning: auto's plan may
		 * ask ptxas) */
		const char *why = NULL;
		const kp_transform *t = e->variant && strcmp(e->variant, "auto")
						? kp_transform_find(e->variant)
						: NULL;
		if (t)
			return !kp_transform_match(t, f, l, e->arch, &f->arena, &why);
		int n;
		const kp_transform *const *all = kp_transform_all(&n);
		for (int i = 0; i < n; i++)
			if (kp_transform_match(all[i], f, l, e->arch, &f->arena, &why))
				return 0;
		return 1;
	}
	return refused_for(l, "kpipe-partial-tile-write") ||
	       refused_for(l, "kpipe-load-decl-used-later");
}

void kp_canon_loop(const kp_canon_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		   kp_canon_result *out)
{
	memset(out, 0, sizeof(*out));
	if (!wanted(e, f, l))
		return;
	const char *what = NULL, *why = NULL, *inlined = NULL;
	int r = kp_canon_edits(f, l, ed, &what, &why);
	if (r == 0)
		return;
	if (r > 0) {
		why = try_edits(e, f, l, ed, out, &inlined);
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

static void canon_run(kp_pass_ctx *c)
{
	if (!c->reparse)
		return;
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	kp_canon_env e = {c->o->arch, c->o->variant, c->o->stages, &ao,
			  c->tu,      c->reparse,    c->env,       c->o->no_comment};
	kp_analysis an;
	kp_analyze(&an, c->f, &ao);
	for (int i = 0; i < an.nloops; i++) {
		kp_loop *l = an.loops[i];
		if (!kp_pass_loop_wanted(c, l))
			continue;
		kp_edits ed = {0};
		kp_canon_result r;
		c->loop_begin = l->node->begin; /* "// kpipe: ignore" there counts */
		kp_canon_loop(&e, c->f, l, &ed, &r);
		if (r.status < 0)
			kp_pass_diag(c, l->node->line, l->node->col, "remark",
				     "kpipe-canon-refused", r.message);
		else if (r.status > 0) {
			int di = kp_pass_diag(c, l->node->line, l->node->col, "note",
					      "kpipe-canonicalized", r.message);
			for (int k = 0; k < ed.n; k++)
				kp_pass_edit(c, ed.v[k].off, ed.v[k].len, ed.v[k].text, di);
		}
		kp_edits_release(&ed);
	}
	c->loop_begin = 0;
	free(sk);
}

const kp_pass kp_pass_canon = {
	"canon",
	"writes the load phase of refused K-loops in the copy forms the pipeline pass proves",
	canon_run,
};
