/*
 * plan.c - the variant decision.  A forced --variant is checked against
 * its descriptor: the stage counts it builds, the static shared memory of
 * its buffers (kp_plan_smem: every instantiation of a template kernel),
 * and its match.  --variant auto is src/plan/auto.c's rule, given the
 * same checks.
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

int kp_plan_smem(const kp_loop *l, const kp_arch *a, int buffers, long long extra, long long *need,
		 const char **inst)
{
	*need = -1;
	*inst = NULL;
	if (l->nper_inst <= 0) {
		*need = l->tile_bytes > 0 ? l->tile_bytes * buffers + l->other_smem + extra : -1;
		return *need <= a->smem_static_per_block;
	}
	int over = 0, same = 1;
	for (int s = 0; s < l->nper_inst; s++) {
		const kp_loop *q = l->per_inst[kp_loop_inst_seq(l, s)];
		long long b = q->tile_bytes > 0 ? q->tile_bytes * buffers + q->other_smem + extra
						: -1;
		if (b <= a->smem_static_per_block) {
			same = 0;
			continue;
		}
		if (!over++) {
			*need = b;
			*inst = q->inst;
		} else if (b != *need)
			same = 0;
	}
	if (!over)
		return 1;
	if (same)
		*inst = NULL;
	return 0;
}

int kp_plan_launches(const kp_file *f, const kp_loop *l)
{
	int n = 0;
	for (int i = 0; i < f->nlaunches; i++)
		n += f->launches[i].kernel == l->kernel;
	return n;
}

/* The dynamic shared memory (an extern __shared__ array) the kernel
 * declares or uses, or NULL. */
static int find_dynamic(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	const kp_decl **hit = ud;
	const kp_decl *d = n->decl;
	if (*hit)
		return 0;
	if ((n->kind == KP_N_DECLREF || n->kind == KP_N_VARDECL) && kp_decl_is_dynamic_smem(d))
		*hit = d;
	return 1;
}

static const kp_decl *own_dynamic(const kp_kernel *k)
{
	const kp_decl *hit = NULL;
	kp_node_walk(k->body, NULL, find_dynamic, &hit);
	return hit;
}

/* Whether launch x passes no dynamic shared memory: no third argument, or
 * a literal 0 (with an integer suffix: 0U, 0ul). */
static int passes_none(const kp_file *f, const kp_launch *x)
{
	if (x->nconfig < 3)
		return 1;
	unsigned b, e;
	kp_launch_span(f, x, 2, &b, &e);
	if (e <= b || f->src[b] != '0')
		return 0;
	for (unsigned i = b + 1; i < e; i++)
		if (!strchr("uUlL", f->src[i]))
			return 0;
	return e - b <= 4;
}

const char *kp_plan_dynamic(kp_file *f, const kp_loop *l, const kp_arch *a, int buffers,
			    long long *bytes)
{
	kp_arena *ar = &f->arena;
	const kp_kernel *k = l->kernel;
	long long need1;
	const char *inst1;
	*bytes = -1;
	if (a->smem_optin_per_block <= a->smem_static_per_block)
		return kp_arena_printf(ar, "%s has no opt-in limit above the static one", a->name);
	if (k->is_device)
		return "the loop is in a __device__ function, whose callers' launches would change";
	if (l->carve_tiles)
		return "the tiles are carved out of a static shared array, repeated in place";
	if (f->abs_path || !l->node->in_main)
		return "the kernel is in a header: its launches are in other files";
	if (!kp_plan_smem(l, a, 1, 0, &need1, &inst1))
		return "one buffer of the tiles is already over the static limit";
	const kp_decl *dd = own_dynamic(k);
	if (dd)
		return kp_arena_printf(ar, "the kernel already uses dynamic shared memory ('%s')",
				       dd->name);
	const char *why = kp_dynamic_problem(f, l);
	if (why)
		return why;
	for (int i = 0; i < f->nlaunches; i++) {
		const kp_launch *x = &f->launches[i];
		if (x->kernel != k)
			continue;
		const char *why_not = kp_launch_uneditable(x, ar);
		if (why_not)
			return why_not;
		if (!passes_none(f, x))
			return kp_arena_printf(ar,
					       "the launch at line %d passes dynamic shared memory "
					       "of its own",
					       x->line);
	}
	long long most = -1;
	int n = l->nper_inst > 0 ? l->nper_inst : 1;
	for (int q = 0; q < n; q++) {
		const kp_loop *one = l->nper_inst > 0 ? l->per_inst[q] : l;
		long long b = kp_dynamic_bytes(one, buffers);
		if (b < 0)
			return "the size of a tile is not known";
		if (b + one->other_smem > a->smem_optin_per_block)
			return kp_arena_printf(ar,
					       "%s%s%s%lld B of tiles and %lld B of other shared "
					       "memory exceed the %d B opt-in limit of %s",
					       one->inst ? "for instantiation <" : "",
					       one->inst ? one->inst : "", one->inst ? ">: " : "",
					       b, one->other_smem, a->smem_optin_per_block,
					       a->name);
		if (b > most)
			most = b;
	}
	*bytes = most;
	return NULL;
}

int kp_plan_fits(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, const kp_transform *t,
		 int stages)
{
	long long need;
	const char *inst;
	int buffers = t->buffers(stages);
	p->dynamic = 0;
	p->dyn_bytes = 0;
	if (kp_plan_smem(l, a, buffers, t->own_smem ? t->own_smem(stages) : 0, &need, &inst))
		return 1;
	long long dyn;
	const char *no_dyn = kp_plan_dynamic(f, l, a, buffers, &dyn);
	if (!no_dyn) {
		p->dynamic = 1;
		p->dyn_bytes = dyn;
		return 1;
	}
	const char *pre = inst ? kp_arena_printf(&f->arena, "for instantiation <%s>: ", inst) : "";
	const char *what = buffers == stages
				   ? kp_arena_printf(&f->arena, "%d stages need", stages)
				   : kp_arena_printf(&f->arena, "%d stages with %d buffer%s need",
						     stages, buffers, buffers == 1 ? "" : "s");
	p->refuse_id = "kpipe-smem-over-limit";
	p->refuse_msg = kp_arena_printf(
		&f->arena,
		"%s%s %lld B of shared memory per block, over the %d B static "
		"limit of %s, and the tiles cannot move to dynamic shared memory: %s",
		pre, what, need, a->smem_static_per_block, a->name, no_dyn);
	return 0;
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
