/*
 * registry.c - the registry of transforms (one descriptor per file in
 * transforms/, one line each below), looked up by name, and what every
 * transform gets alike: the eligibility and target checks before its own
 * match, and the merge of its facts over a template kernel's
 * instantiations.
 */
#include "transform.h"

#include <stdlib.h>
#include <string.h>

extern const kp_transform kp_transform_cp_async;
extern const kp_transform kp_transform_register;
extern const kp_transform kp_transform_register_ca;
extern const kp_transform kp_transform_register_2bar;
extern const kp_transform kp_transform_bulk;
extern const kp_transform kp_transform_tma;

/* The order is the order of analyze's report, of --help and of the
 * "no variant applies" message. */
static const kp_transform *const registry[] = {
	&kp_transform_cp_async,      &kp_transform_register, &kp_transform_register_ca,
	&kp_transform_register_2bar, &kp_transform_bulk,     &kp_transform_tma,
};

/* The registry plus what tests registered; used once a test registers. */
static const kp_transform *extended[KP_ARRAY_LEN(registry) + 4];
static int nextended;

const kp_transform *const *kp_transform_all(int *n)
{
	if (nextended) {
		*n = nextended;
		return extended;
	}
	*n = (int)KP_ARRAY_LEN(registry);
	return registry;
}

const kp_transform *kp_transform_find(const char *name)
{
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	for (int i = 0; i < n; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

int kp_transform_register_for_test(const kp_transform *t)
{
	if (!t || !t->name || kp_transform_find(t->name))
		return -1;
	if (!nextended) {
		for (size_t i = 0; i < KP_ARRAY_LEN(registry); i++)
			extended[i] = registry[i];
		nextended = (int)KP_ARRAY_LEN(registry);
	}
	if (nextended == (int)KP_ARRAY_LEN(extended))
		return -1;
	extended[nextended++] = t;
	return 0;
}

int kp_transform_tune_list(const kp_tune_cand **cand, const kp_transform **xf, int max)
{
	int n, k = 0;
	const kp_transform *const *all = kp_transform_all(&n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < all[i]->ntune && k < max; j++) {
			/* insertion by order; equal orders keep the registry's */
			int at = k++;
			while (at > 0 && cand[at - 1]->order > all[i]->tune[j].order) {
				cand[at] = cand[at - 1];
				xf[at] = xf[at - 1];
				at--;
			}
			cand[at] = &all[i]->tune[j];
			xf[at] = all[i];
		}
	return k;
}

int kp_transform_arch_ok(const kp_transform *t, const kp_arch *a) { return a->cc >= t->min_cc; }

int kp_transform_reports_facts(const kp_transform *t)
{
	int n;
	const kp_transform *const *all = kp_transform_all(&n);
	for (int i = 0; i < n && all[i] != t; i++)
		if (all[i]->facts == t->facts)
			return 0;
	return 1;
}

void kp_transform_facts(const kp_transform *t, const kp_file *f, const kp_loop *l, kp_arena *arena,
			kp_xfacts *out)
{
	memset(out, 0, sizeof(*out));
	int n = l->nper_inst;
	if (n <= 0) {
		t->facts(f, l, arena, out);
		out->regs_inst = NULL;
		return;
	}
	kp_xfacts *px = kp_xcalloc((size_t)n, sizeof(*px));
	for (int i = 0; i < n; i++)
		t->facts(f, l->per_inst[i], arena, &px[i]);
	/* ok when ok everywhere; the first reason in the reported order */
	int ok = 1, same = 1, first = -1;
	const char *why = NULL;
	for (int s = 0; s < n; s++) {
		int i = kp_loop_inst_seq(l, s);
		if (px[i].ok) {
			same = 0;
			continue;
		}
		ok = 0;
		if (first < 0) {
			first = i;
			why = px[i].why_not;
		} else if (!why || !px[i].why_not || strcmp(why, px[i].why_not))
			same = 0;
	}
	if (!ok && !same && why)
		why = kp_arena_printf(arena, "for instantiation <%s>: %s", l->per_inst[first]->inst,
				      why);
	out->ok = ok;
	out->why_not = ok ? NULL : why;
	out->note = px[0].note;
	/* staging registers: the largest need (unknown wins), and whose */
	out->regs = px[0].regs;
	out->regs_inst = l->per_inst[0]->inst;
	for (int i = 1; i < n && out->regs >= 0; i++)
		if (px[i].regs < 0 || px[i].regs > out->regs) {
			out->regs = px[i].regs;
			out->regs_inst = l->per_inst[i]->inst;
		}
	free(px);
	if (out->ok && t->facts_merged)
		t->facts_merged(l, arena, out);
}

int kp_transform_match(const kp_transform *t, const kp_file *f, const kp_loop *l, const kp_arch *a,
		       kp_arena *arena, const char **why)
{
	if (!l->eligible) {
		*why = "the loop is not eligible";
		return 0;
	}
	if (!kp_transform_arch_ok(t, a)) {
		*why = kp_arena_printf(arena, "%s needs sm_%d or newer", t->label, t->min_cc);
		return 0;
	}
	return t->match(f, l, a, arena, why);
}

int kp_transform_match_facts(const kp_transform *t, const kp_file *f, const kp_loop *l,
			     kp_arena *arena, const char **why_not, const char *otherwise)
{
	kp_xfacts x;
	kp_transform_facts(t, f, l, arena, &x);
	if (!x.ok)
		*why_not = x.why_not ? x.why_not : otherwise;
	return x.ok;
}
