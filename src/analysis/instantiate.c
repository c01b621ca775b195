/*
 * instantiate.c - the instantiations of a template kernel: which are
 * analysed with known arguments, and the merge of one loop's analyses
 * into the loop that is reported and rewritten.
 */
#include "analyze.h"
#include "analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* Whether every argument of instantiation i is known (values, and the
 * sizes of types); otherwise it is analysed with its parameters left
 * symbolic, as a template without instantiations. */
int kp_inst_known(const kp_kernel *k, int i)
{
	if (!k->inst_targs || k->ntparams > KP_MAX_TARGS)
		return 0;
	for (int p = 0; p < k->ntparams; p++)
		if (!k->inst_targs[i][p].known)
			return 0;
	return 1;
}

/* A fixed order of instantiations that does not depend on where they
 * appear in the file: argument by argument, types by spelling and values
 * by value, then the argument text. */
static int inst_cmp(const kp_kernel *k, int a, int b)
{
	for (int p = 0; p < k->ntparams && p < KP_MAX_TARGS && k->inst_targs; p++) {
		const kp_targ *x = &k->inst_targs[a][p], *y = &k->inst_targs[b][p];
		if (x->type && y->type) {
			int r = strcmp(x->type, y->type);
			if (r)
				return r;
		} else if (x->known && y->known && !x->type && !y->type &&
			   k->inst_values[a][p] != k->inst_values[b][p])
			return k->inst_values[a][p] < k->inst_values[b][p] ? -1 : 1;
	}
	return strcmp(k->inst_args[a], k->inst_args[b]);
}

static long long double_buffered(const kp_loop *l)
{
	return l->tile_bytes >= 0 ? l->tile_bytes * 2 + l->other_smem : -1;
}

static int has_reason(const kp_loop *l, const char *id, const char *msg)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id) && (!msg || !strcmp(l->reasons[i].message, msg)))
			return 1;
	return 0;
}

/* Adds p's tile values that l does not have (by place: the same
 * statement), in the order of the source. */
static void merge_tile_values(kp_loop *l, const kp_loop *p)
{
	for (int t = 0; t < p->ntvals; t++) {
		int have = 0;
		for (int u = 0; u < l->ntvals && !have; u++)
			have = l->tval_stmt[u]->begin == p->tval_stmt[t]->begin;
		if (have || l->ntvals >= KP_MAX_TVALS)
			continue;
		int at = l->ntvals;
		while (at > 0 && l->tval_stmt[at - 1]->begin > p->tval_stmt[t]->begin) {
			l->tval_stmt[at] = l->tval_stmt[at - 1];
			l->tval_var[at] = l->tval_var[at - 1];
			at--;
		}
		l->tval_stmt[at] = p->tval_stmt[t];
		l->tval_var[at] = p->tval_var[t];
		l->ntvals++;
	}
}

/* Merges the analyses of one loop for each instantiation (`per`, in the
 * kernel's order) into the loop that is reported and rewritten: the
 * instantiation with the largest double-buffered shared memory gives the
 * sizes shown (and the copies the transforms read), the loop is eligible
 * only if it is for every instantiation, and a reason that does not hold
 * for every instantiation names the one it comes from.  Whether a
 * transform applies to all of them is the transform's question
 * (kp_transform_facts). */
kp_loop *kp_merge_insts(kp_file *f, kp_kernel *k, kp_loop **per)
{
	int n = k->ninst;
	kp_arena *a = &f->arena;
	int *order = kp_xcalloc((size_t)n, sizeof(*order));
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && inst_cmp(k, order[j - 1], i) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	/* the worst case for shared memory (the first in the order on a tie) */
	int w = order[0];
	for (int i = 1; i < n; i++)
		if (double_buffered(per[order[i]]) > double_buffered(per[w]))
			w = order[i];
	/* the order reasons are taken in: the worst case first */
	int *seq = kp_xcalloc((size_t)n, sizeof(*seq));
	seq[0] = w;
	for (int i = 0, m = 1; i < n; i++)
		if (order[i] != w)
			seq[m++] = order[i];

	kp_loop *l = kp_arena_alloc(a, sizeof(*l));
	*l = *per[w];
	l->per_inst = kp_arena_alloc(a, sizeof(*l->per_inst) * (size_t)n);
	for (int i = 0; i < n; i++) {
		l->per_inst[i] = per[order[i]];
		if (order[i] == w)
			l->inst_shown = i;
	}
	l->nper_inst = n;
	l->reasons = NULL;
	l->nreasons = 0;
	for (int s = 0; s < n; s++) {
		const kp_loop *p = per[seq[s]];
		for (int r = 0; r < p->nreasons; r++) {
			const kp_reason *pr = &p->reasons[r];
			if (has_reason(l, pr->id, NULL))
				continue; /* one entry per id and loop */
			int everywhere = 1;
			for (int i = 0; i < n && everywhere; i++)
				everywhere = has_reason(per[i], pr->id, pr->message);
			kp_reason *nr = kp_arena_alloc(a, sizeof(*nr) * (size_t)(l->nreasons + 1));
			if (l->nreasons)
				memcpy(nr, l->reasons, sizeof(*nr) * (size_t)l->nreasons);
			nr[l->nreasons] = *pr;
			if (!everywhere)
				nr[l->nreasons].message =
					kp_arena_printf(a, "for instantiation <%s>: %s",
							k->inst_args[seq[s]], pr->message);
			l->reasons = nr;
			l->nreasons++;
		}
		if (p->already_pipelined)
			l->already_pipelined = 1;
		l->not_kloop |= p->not_kloop;
		l->comp_writes_shared |= p->comp_writes_shared;
		merge_tile_values(l, p);
	}
	/* one condition per tile only if monotone for every instantiation; a
	 * barrier after the loop if any instantiation needs one */
	for (int i = 0; i < n; i++) {
		if (!per[i]->cond_monotone)
			l->cond_monotone = 0;
		if (per[i]->exit_barrier && !l->exit_barrier) {
			l->exit_barrier = 1;
			l->exit_barrier_why = per[i]->exit_barrier_why;
		}
	}
	/* the most trips an instantiation makes, -1 where one's is unknown */
	l->trips = 0;
	for (int i = 0; i < n && l->trips >= 0; i++)
		l->trips = per[i]->trips < 0          ? -1
			   : per[i]->trips > l->trips ? per[i]->trips
						      : l->trips;
	l->eligible = l->nreasons == 0;
	free(order);
	free(seq);
	return l;
}

int kp_loop_inst_seq(const kp_loop *l, int s)
{
	if (s == 0)
		return l->inst_shown;
	return s <= l->inst_shown ? s - 1 : s;
}
