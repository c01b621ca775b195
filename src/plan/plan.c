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
	const char *cond = conditional_problem(f, l);
	if (cond) {
		p->refuse_id = "kpipe-preprocessor-conditional";
		p->refuse_msg = cond;
		return;
	}
	/* register-2bar keeps single tiles */
	int buffers = !strcmp(requested, "register-2bar") ? 1 : stages;
	if (l->tile_bytes > 0) {
		long long need = l->tile_bytes * buffers + l->other_smem;
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
	if (!strcmp(requested, "register") || !strcmp(requested, "register-ca") ||
	    !strcmp(requested, "register-2bar")) {
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
		if (strcmp(requested, "register")) {
			p->xform = kp_transform_find(requested);
			p->why = kp_arena_printf(&f->arena, "requested with --variant %s", requested);
		} else {
			p->xform = rg;
			p->why = "requested with --variant register";
		}
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
