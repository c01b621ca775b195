/*
 * plan.c - the variant decision.  A forced --variant is checked against
 * its descriptor: the stage counts it builds, the shared memory of its
 * buffers (smem_fit.c: kp_plan_fits, every instantiation of a template
 * kernel) and its match.  --variant auto is src/plan/auto.c's rule, given
 * the same checks (auto.c and this file both call smem_fit.c; neither
 * calls the other back but for kp_plan_auto).
 *
 * A loop with preprocessor conditionals is refused unless every #if group
 * sits whole in the compute phase (or after the closing barrier) and names
 * no tile: the transforms copy and move the loads and rebuild the
 * barriers, so a directive there would be duplicated, dropped or left
 * unbalanced, and the branch libclang did not see is never re-indexed.
 */
#include "plan.h"

#include <ctype.h>
#include <string.h>

/* The conditional directive starting a line at p: 1 opens a group (#if,
 * #ifdef, #ifndef), 0 continues one (#elif..., #else), -1 closes it, 2 is
 * anything else.  *word gets the directive's name. */
static int cond_directive(const char *s, size_t len, size_t p, const char **word, int *wlen)
{
	while (p < len && (s[p] == ' ' || s[p] == '\t'))
		p++;
	if (p >= len || s[p] != '#')
		return 2;
	p++;
	while (p < len && (s[p] == ' ' || s[p] == '\t'))
		p++;
	size_t b = p;
	while (p < len && isalpha((unsigned char)s[p]))
		p++;
	*word = s + b;
	*wlen = (int)(p - b);
	static const struct {
		const char *w;
		int kind;
	} ds[] = {{"if", 1},   {"ifdef", 1},   {"ifndef", 1},   {"elif", 0},
		  {"else", 0}, {"elifdef", 0}, {"elifndef", 0}, {"endif", -1}};
	for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
		if (strlen(ds[i].w) == p - b && !strncmp(s + b, ds[i].w, p - b))
			return ds[i].kind;
	return 2;
}

/* Does the identifier `name` occur in s[b, e)? */
static int mentions(const char *s, unsigned b, unsigned e, const char *name)
{
	return kp_mentions_ident(s, b, e, name);
}

static const char *unbalanced(kp_file *f, int line)
{
	return kp_arena_printf(&f->arena,
			       "line %d: a #if group of the compute phase does not close inside it",
			       line);
}

/* Why the preprocessor conditionals in the loop stop the rewrite, or NULL. */
static const char *conditional_problem(kp_file *f, const kp_loop *l)
{
	if (!l->node->in_main || l->node->end > f->len)
		return NULL;
	kp_spans sp;
	kp_loop_spans(f, l, &sp);
	const char *s = f->src;
	int depth = 0, gspan = -1, line = 0;
	unsigned gb = 0;
	for (unsigned p = l->node->begin; p < l->node->end;) {
		unsigned le = p;
		while (le < f->len && s[le] != '\n')
			le++;
		const char *w;
		int wl;
		int k = cond_directive(s, le, p, &w, &wl);
		if (k != 2) {
			int col;
			kp_file_linecol(f, p, &line, &col);
			int span = p >= sp.comp_b && le <= sp.comp_e   ? 0
				   : p >= sp.tail_b && le <= sp.tail_e ? 1
								       : -1;
			if (span < 0)
				return kp_arena_printf(
					&f->arena,
					"line %d: '#%.*s' in the loads, a barrier or the loop "
					"header: the rewrite copies and moves that code, so a "
					"conditional there would be duplicated or unbalanced",
					line, wl, w);
			if (k == 1) {
				if (depth++ == 0) {
					gb = p;
					gspan = span;
				}
			} else if (depth == 0 || span != gspan)
				return unbalanced(f, line);
			else if (k == -1 && --depth == 0)
				for (int t = 0; t < l->ntiles; t++)
					if (l->tiles[t].loaded &&
					    mentions(s, gb, le, l->tiles[t].arr->name))
						return kp_arena_printf(
							&f->arena,
							"line %d: the tile '%s' is used in a #if group; the "
							"branch that is not compiled now would not be re-indexed",
							line, l->tiles[t].arr->name);
		}
		p = le + 1;
	}
	return depth ? unbalanced(f, line) : NULL;
}

/* Why t does not build `stages` stages. */
static const char *stages_refusal(kp_file *f, const kp_transform *t)
{
	if (t->min_stages == t->max_stages && t->buffers(t->min_stages) == t->min_stages)
		return kp_arena_printf(&f->arena, "%s uses exactly %d buffers", t->label,
				       t->min_stages);
	if (t->min_stages == t->max_stages)
		return kp_arena_printf(&f->arena, "--variant %s builds %d stages only", t->name,
				       t->min_stages);
	return kp_arena_printf(&f->arena, "--variant %s builds %d to %d stages", t->name,
			       t->min_stages, t->max_stages);
}

/* Whether the launch argument [b, e) may be evaluated twice: no
 * assignment, ++ or --. */
static int side_effect_free(const kp_file *f, unsigned b, unsigned e)
{
	for (unsigned i = b; i < e; i++) {
		char ch = f->src[i], nx = i + 1 < e ? f->src[i + 1] : 0;
		char pv = i > b ? f->src[i - 1] : 0;
		if ((ch == '+' && nx == '+') || (ch == '-' && nx == '-'))
			return 0;
		if (ch == '=' && nx != '=' && !strchr("=!<>", pv))
			return 0;
	}
	return 1;
}

/* Dynamic tiles (extern arrays, their carve-outs) get a copy of the whole
 * region per buffer: every launch must pass that many times its bytes.
 * Why the launches of the file do not allow it, or NULL. */
static const char *copies_problem(kp_file *f, const kp_loop *l)
{
	for (int i = 0; i < f->nlaunches; i++) {
		const kp_launch *x = &f->launches[i];
		if (x->kernel != l->kernel)
			continue;
		const char *why = kp_launch_uneditable(x, &f->arena);
		if (why)
			return why;
		if (x->nconfig < 3 || !side_effect_free(f, x->arg_b[2], x->arg_e[2]))
			return kp_arena_printf(
				&f->arena,
				"the launch at line %d passes %s: kpipe must multiply "
				"the bytes it passes",
				x->line,
				x->nconfig < 3 ? "no dynamic shared memory"
					       : "bytes computed with a side effect");
	}
	if (f->abs_path)
		return "the kernel is in a header: its launches are in other files";
	return NULL;
}

static void plan_choice(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			const char *requested, int stages);

void kp_plan_loop(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, const char *requested,
		  int stages)
{
	plan_choice(p, f, l, a, requested, stages);
	kp_plan_launch_check(p, f, l, a);
	int buffers = p->xform ? p->xform->buffers(p->stages) : 0;
	if (!l->dyn_tiles || buffers < 2)
		return;
	const char *why = copies_problem(f, l);
	if (!why)
		return;
	p->xform = NULL;
	p->why = NULL;
	p->refuse_id = "kpipe-dynamic-smem";
	p->refuse_msg =
		kp_arena_printf(&f->arena,
				"the tiles are dynamic shared memory and %d buffers need %d "
				"copies of the region, but %s",
				buffers, buffers, why);
}

static void plan_choice(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			const char *requested, int stages)
{
	memset(p, 0, sizeof(*p));
	/* 0: --stages not given; auto picks the depth, a named variant has 2 */
	int unset = stages == 0;
	if (unset)
		stages = 2;
	p->stages = stages;
	if (stages < 2 || stages > 8) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg =
			kp_arena_printf(&f->arena, "%d stages: kpipe builds 2 to 8", stages);
		return;
	}
	const char *cond = conditional_problem(f, l);
	if (cond) {
		p->refuse_id = "kpipe-preprocessor-conditional";
		p->refuse_msg = cond;
		return;
	}
	if (!strcmp(requested, "auto")) {
		kp_plan_auto(p, f, l, a, unset ? 0 : stages);
		return;
	}
	const kp_transform *t = kp_transform_find(requested);
	if (!t) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg =
			kp_arena_printf(&f->arena, "no transform is called '%s'", requested);
		return;
	}
	if (stages < t->min_stages || stages > t->max_stages) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg = stages_refusal(f, t);
		return;
	}
	if (!kp_plan_fits(p, f, l, a, t, stages))
		return;
	const char *no = NULL;
	if (!kp_transform_match(t, f, l, a, &f->arena, &no)) {
		p->refuse_id = t->refuse_id ? t->refuse_id : "kpipe-variant-unavailable";
		p->refuse_msg = kp_arena_printf(&f->arena, "%s was requested but %s", t->label, no);
		return;
	}
	p->xform = t;
	p->why = kp_arena_printf(&f->arena, "requested with --variant %s", t->name);
}
