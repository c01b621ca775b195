/*
 * trial.c - the part of the passes that try a change before they keep it
 * (trial.h) that does not depend on the change: the unit parsed again
 * with the edits and the loop found at its new place (kp_trial_try), and
 * the pass over every loop of a model that writes the kept edits with
 * their note, or a remark (kp_trial_pass_run).  The canon and inline
 * passes differ only in their kp_trial_kind.
 */
#include "trial.h"

#include "rewrite.h"

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

kp_loop *kp_trial_loop_at(const kp_analysis *an, const kp_loop *l, unsigned begin)
{
	for (int i = 0; i < an->nloops; i++)
		if (an->loops[i]->node->begin == begin &&
		    !strcmp(an->loops[i]->kernel->name, l->kernel->name))
			return an->loops[i];
	return NULL;
}

int kp_trial_refused_for(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return 1;
	return 0;
}

const char *kp_trial_try(const kp_trial_env *e, kp_file *f, const kp_loop *l, const kp_edits *ed,
			 const char *noun, kp_trial_judge judge, void *ud, kp_trial_result *out)
{
	char *text = NULL;
	size_t len = 0;
	if (kp_edits_apply(ed, f->src, f->len, &text, &len))
		return "the edits overlap";
	kp_file *tu = NULL;
	kp_file *g = e->reparse(e->env, f, text, len, &tu);
	const char *why = NULL;
	if (!g)
		why = kp_arena_printf(&f->arena, "the %s code does not parse", noun);
	else if (tu->nerrors > e->tu->nerrors)
		why = kp_arena_printf(&f->arena, "the %s code does not compile", noun);
	else {
		kp_analysis an;
		kp_analyze(&an, g, e->ao);
		kp_loop *l2 = kp_trial_loop_at(&an, l, moved_offset(ed, l->node->begin));
		if (!l2)
			why = "the loop is not found again";
		else {
			why = judge(ud, g, tu, l2, out);
			if (why)
				why = kp_arena_strdup(&f->arena, why);
		}
	}
	free(text);
	if (tu) {
		kp_file_release(tu);
		free(tu);
	}
	return why;
}

void kp_trial_plan(const kp_trial_env *e, kp_file *g, const kp_loop *l2, kp_plan *p)
{
	if (!e->targets || e->targets->n < 2) {
		kp_plan_loop(p, g, l2, e->arch, e->variant, e->stages);
		return;
	}
	kp_tplan tp;
	kp_plan_targets(&tp, g, l2, e->targets, e->variant, e->stages);
	/* the oldest target's, as analyze's JSON plan; the newer targets'
	 * where the older keep the loop as written */
	*p = !tp.split ? tp.one : tp.lo_asis ? tp.hi : tp.lo;
}

void kp_trial_pass_run(const kp_trial_kind *k, kp_pass_ctx *c)
{
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	kp_trial_env e = {c->o->arch, c->o->variant, c->o->stages,     &ao,           c->tu,
			  c->reparse, c->env,        c->o->no_comment, &c->o->targets};
	kp_analysis an;
	kp_analyze(&an, c->f, &ao);
	for (int i = 0; i < an.nloops; i++) {
		kp_loop *l = an.loops[i];
		if (!kp_pass_loop_wanted(c, l))
			continue;
		kp_edits ed = {0};
		kp_trial_result r;
		c->loop_begin = l->node->begin; /* "// kpipe: ignore" there counts */
		k->loop(&e, c->f, l, &ed, &r);
		if (r.status < 0)
			kp_pass_diag(c, l->node->line, l->node->col, "remark", k->refused_id,
				     r.message);
		else if (r.status > 0) {
			int di = kp_pass_diag(c, l->node->line, l->node->col, "note", k->done_id,
					      r.message);
			for (int x = 0; x < ed.n; x++)
				kp_pass_edit(c, ed.v[x].off, ed.v[x].len, ed.v[x].text, di);
		}
		kp_edits_release(&ed);
	}
	c->loop_begin = 0;
	free(sk);
}
