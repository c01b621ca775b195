/*
 * smem_fit.c - the shared memory a plan's buffers need: the static bytes
 * per block of every instantiation (kp_plan_smem), whether the tiles may
 * move to dynamic shared memory instead (kp_plan_dynamic) and the check
 * both the forced variant (plan.c) and --variant auto (auto.c) make
 * (kp_plan_fits).  Kept apart from plan.c so that auto.c, which plan.c
 * calls, does not call plan.c back.
 */
#include "plan.h"

#include <string.h>

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
