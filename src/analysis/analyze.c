/*
 * analyze.c - finds candidate K-loops and decides what can be said about
 * them: phases, induction, copies (with their copy loops' trip counts),
 * math, shared-memory sizes, and every legality condition (with a stable
 * diagnostic id) that pipelining needs.  What one transform needs beyond
 * that (cp.async's copy widths, register staging's register count, the
 * shared memory of its buffers) is decided by the transform and the plan.
 *
 * This file runs the analysis of one loop (analyze_loop): the shape and
 * the phases here, the facts from the files analyze_int.h names, then the
 * table of legality rules (rules/rules.c).  It never edits anything and
 * never prints; cmd_analyze.c renders its result and the transforms
 * consume it.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "effects.h"
#include "rules.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *kp_math_name(kp_math m)
{
	static const char *names[] = {"none", "FFMA", "HFMA", "HMMA", "IMMA", "IDP4A", "DFMA"};
	return names[m];
}

void kp_ana_refuse(actx *c, const kp_node *at, const char *id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_loop_vrefuse(c->f, c->l, at, id, fmt, ap);
	va_end(ap);
}

static long long decl_elems(actx *c, kp_decl *d)
{
	long long e = 1;
	for (int i = 0; i < d->ndims; i++) {
		long long v = d->dims[i];
		if (v < 0 && d->dim_expr[i] && kp_eval(d->dim_expr[i], c->k, c->iv, &v))
			return -1;
		if (v < 0)
			return -1;
		e *= v;
	}
	return d->ndims ? e : -1;
}

static void add_tile(actx *c, kp_decl *d, kp_node *decl_stmt, int loaded)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].arr == d) {
			l->tiles[i].loaded |= loaded;
			if (decl_stmt)
				l->tiles[i].decl_stmt = decl_stmt, l->tiles[i].in_loop = 1;
			return;
		}
	kp_tile *nt = kp_arena_alloc(&c->f->arena, sizeof(*nt) * (size_t)(l->ntiles + 1));
	if (l->ntiles)
		memcpy(nt, l->tiles, sizeof(*nt) * (size_t)l->ntiles);
	kp_tile *t = &nt[l->ntiles];
	t->arr = d;
	t->elems = decl_elems(c, d);
	long long esz = kp_elem_size_of(c, d);
	t->bytes = t->elems > 0 && esz > 0 ? t->elems * esz : -1;
	t->loaded = loaded;
	t->decl_stmt = decl_stmt;
	t->in_loop = decl_stmt != NULL;
	l->tiles = nt;
	l->ntiles++;
}

typedef struct {
	kp_decl **v;
	int n, cap;
} decl_vec;

static int collect_shared_refs(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	decl_vec *v = ud;
	if (n->kind == KP_N_DECLREF && n->decl && n->decl->is_shared)
		kp_push_decl(&v->v, &v->n, &v->cap, n->decl);
	return 1;
}

/* The shared tiles of the loop (written by the load phase, or used in the
 * body), and how many of the loaded ones live in dynamic shared memory
 * that kpipe can place (the rule loaded_tiles.c refuses the others). */
static void collect_tiles(actx *c, const kp_rw_set *lw)
{
	kp_loop *l = c->l;
	for (int i = 0; i < lw->nw; i++)
		if (lw->w[i]->is_shared)
			add_tile(c, lw->w[i], NULL, 1);
	decl_vec sv = {0};
	kp_node_walk(l->body, NULL, collect_shared_refs, &sv);
	for (int i = 0; i < sv.n; i++)
		add_tile(c, sv.v[i], NULL, kp_rw_has(lw->w, lw->nw, sv.v[i]));
	free(sv.v);
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		if (t->loaded && kp_decl_is_dynamic_smem(t->arr) &&
		    !kp_dynamic_tile_problem(c->f, c->k, c->iv, t))
			l->dyn_tiles++;
	}
	kp_static_carve_tiles(c);
}

/* The innermost loop of the kernel around the K-loop that also holds `use`
 * (a use of a tile outside the K-loop, in a loop that runs it again), or
 * NULL. */
typedef struct {
	const kp_node *kloop, *use, *best;
} around_walk;

static int find_around(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	around_walk *w = ud;
	if (n == w->kloop)
		return 0;
	if ((n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO) && n->in_main &&
	    n->begin <= w->kloop->begin && w->kloop->end <= n->end && n->begin <= w->use->begin &&
	    w->use->end <= n->end)
		w->best = n;
	return 1;
}

const kp_node *kp_loop_around(const kp_kernel *k, const kp_loop *l, const kp_node *use)
{
	around_walk w = {l->node, use, NULL};
	if (k->body && use->in_main && l->node->in_main)
		kp_node_walk(k->body, NULL, find_around, &w);
	return w.best;
}

/* The load and compute phases between the barriers, and the bumps that
 * close the load phase; 0 when there is no load phase. */
static int split_phases(actx *c, int ntop)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	/* phases: skip leading __shared__ declarations */
	int first = 0;
	while (first < l->nstmts && l->stmts[first]->kind == KP_N_DECLSTMT) {
		kp_node *ds = l->stmts[first];
		int all_shared = ds->nkids > 0;
		for (int i = 0; i < ds->nkids; i++)
			if (ds->kids[i]->kind != KP_N_VARDECL || !ds->kids[i]->decl ||
			    !ds->kids[i]->decl->is_shared)
				all_shared = 0;
		if (!all_shared)
			break;
		for (int i = 0; i < ds->nkids; i++)
			add_tile(c, ds->kids[i]->decl, ds, 0);
		first++;
	}
	if (ntop >= 2 && l->bar1 == first) {
		l->form = KP_FORM_TOP;
		l->load_b = l->bar1 + 1;
		l->load_e = l->bar2;
		l->comp_b = l->bar2 + 1;
		l->comp_e = l->nstmts;
	} else {
		l->form = KP_FORM_BOTTOM;
		l->load_b = first;
		l->load_e = l->bar1;
		l->comp_b = l->bar1 + 1;
		l->comp_e = l->bar2 >= 0 ? l->bar2 : l->nstmts;
		if (l->bar2 >= 0)
			for (int i = l->bar2 + 1; i < l->nstmts; i++) {
				kp_decl *v = kp_inc_var(l->stmts[i]);
				int sign;
				if (!v || !kp_step_text(c, l->stmts[i], &sign))
					kp_ana_refuse(
						c, l->stmts[i], "kpipe-loop-shape",
						"statement after the closing barrier is not a pointer "
						"or counter bump");
			}
	}
	/* pointer or counter bumps closing the load phase move after the compute */
	l->bump_b = l->bump_e = l->load_e;
	while (l->load_e > l->load_b) {
		kp_node *s = l->stmts[l->load_e - 1];
		kp_decl *v = kp_inc_var(s);
		int sign;
		if (!v || v->is_shared || !kp_step_text(c, s, &sign) ||
		    (v->in_main && n->in_main && v->name_off >= n->begin && v->name_off < n->end))
			break;
		l->load_e--;
		l->bump_b = l->load_e;
	}
	if (l->load_e <= l->load_b) {
		kp_ana_refuse(c, n, "kpipe-loop-shape", "no load phase before the first barrier");
		return 0;
	}
	return 1;
}

/* A while or do loop that is no K-loop (kp_kloop_like): the reason a for-loop
 * of the same body would get, not "rewrite it as a for-loop", which would not
 * make it one (the canon pass does not try it either). */
static void refuse_not_kloop(actx *c, kp_node *n)
{
	if (!kp_top_level_barrier(n))
		kp_ana_refuse(
			c, n, "kpipe-no-barrier",
			"not a K-loop: no __syncthreads() at the top level of the loop's body "
			"(a copy or reduction loop, not a loop over tiles)");
	else
		kp_ana_refuse(c, n, "kpipe-no-tile-load",
			      "not a K-loop: the loop copies nothing from global into __shared__ "
			      "memory (an iteration to convergence, a reduction)");
}

static void analyze_loop(actx *c)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	l->not_kloop = !kp_kloop_like(n); /* a copy loop, a reduction: remarks */
	const kp_node *around = kp_loop_around(c->k, l, n);
	l->within_line = around ? around->line : 0;
	/* a loop around K-loops (a persistent kernel's tile loop, a loop over
	 * batches) is no K-loop itself, whatever barriers it has of its own:
	 * its K-loops are candidates of their own (kp_find_candidates) */
	kp_node *inner = kp_nested_kloop(kp_loop_body(n));
	if (inner) {
		l->encloses_line = inner->line;
		l->cond = n->kind == KP_N_FOR ? n->for_cond : NULL;
		l->inc = n->kind == KP_N_FOR ? n->for_inc : NULL;
		l->init = n->kind == KP_N_FOR ? n->for_init : NULL;
		l->bar1 = l->bar2 = -1;
		kp_ana_refuse(c, n, "kpipe-loop-shape",
			      "not a K-loop: the loop encloses the K-loop at line %d, which is "
			      "analysed on its own",
			      inner->line);
		return;
	}
	/* kpipe's own output says so through kp_stage (below) */
	const kp_decl *hb = c->k->body && !kp_uses_kpipe_stage(kp_loop_body(n))
				    ? kp_hand_buffers(c->k, n)
				    : NULL;
	if (hb) {
		l->already_pipelined = 1;
		kp_ana_refuse(
			c, n, "kpipe-already-pipelined",
			"'%s' has %lld buffers, filled before the loop and again inside it: the "
			"loop is pipelined by hand and is left alone",
			hb->name, hb->dims[0]);
		return;
	}
	if (n->kind != KP_N_FOR) {
		if (l->not_kloop) /* a convergence loop, a copy loop: say why, not its form */
			refuse_not_kloop(c, n);
		else
			kp_ana_refuse(
				c, n, "kpipe-loop-shape",
				"only for-loops are pipelined; rewrite this loop as a for-loop");
		return;
	}
	l->body = n->for_body;
	l->init = n->for_init;
	l->cond = n->for_cond;
	l->inc = n->for_inc;
	if (!l->body) {
		kp_ana_refuse(c, n, "kpipe-loop-shape", "the loop has no body kpipe can read");
		return;
	}
	kp_scan_info si = {0};
	si.c = c;
	kp_scan_calls(l->body, &si, 0, 0);
	l->nbarriers = si.barriers;
	if (si.pipeline || kp_uses_kpipe_stage(l->body)) {
		l->already_pipelined = 1;
		kp_ana_refuse(c, si.first_pipeline ? si.first_pipeline : n,
			      "kpipe-already-pipelined",
			      "the loop already uses '%s': it is pipelined and is left alone",
			      si.first_pipeline && si.first_pipeline->name ? si.first_pipeline->name
			      : si.first_pipeline                          ? "cp.async"
									   : "kp_stage");
		return;
	}
	if (!l->cond || !l->inc) {
		kp_ana_refuse(
			c, n, "kpipe-loop-shape",
			"the loop needs a condition and an increment (for (init; cond; inc))");
		return;
	}
	if (l->body->kind != KP_N_COMPOUND) {
		/* a one-statement loop has no barrier: that is what keeps it from
		 * being a K-loop (a copy loop of a K-loop whose barriers are gone) */
		if (si.barriers == 0)
			kp_ana_refuse(
				c, n, "kpipe-no-barrier",
				"no __syncthreads() separates the tile loads from the compute "
				"phase (the loop is one statement, not a braced block)");
		else
			kp_ana_refuse(c, n, "kpipe-loop-shape",
				      "the loop body is not a braced block");
		return;
	}
	int ntop = kp_top_barriers(c, &si);
	if (ntop < 1 || !split_phases(c, ntop))
		return;
	kp_find_induction(c);
	kp_find_tile_values(c);

	kp_find_loads(c);

	/* read/write sets */
	kp_loop_rw rw = {0};
	kp_rw_range(l, l->load_b, l->load_e, &rw.load);
	kp_rw_range(l, l->comp_b, l->comp_e, &rw.comp);
	kp_rw_collect(l->body, &rw.all);
	/* the facts the rules read, then the rules (rules.c) */
	collect_tiles(c, &rw.load);
	kp_count_copy_trips(c);
	kp_find_tile_aliases(c);
	kp_copy_facts(c->f, c->k, l, c->iv, c->targs, &rw.load);
	l->effects = kp_effects_of_loop(c->f, c->k, l);
	kp_rule_ctx rc = {c->f, c->k, l, c->iv, c->targs, &rw, c->o};
	kp_rules_run(&rc);
	if (l->nreasons)
		kp_find_hand_prefetch(c);
	l->cond_monotone = kp_cond_monotone(c);
	kp_find_exit_barrier(c);
	kp_count_math(c);
	kp_rw_release(&rw.load);
	kp_rw_release(&rw.comp);
	kp_rw_release(&rw.all);
}

void kp_loop_budget(const kp_loop *l, const kp_arch *a, int stages, kp_budget *out)
{
	memset(out, 0, sizeof(*out));
	out->stages = stages;
	if (l->tile_bytes < 0) {
		out->bytes = -1;
		return;
	}
	out->bytes = l->tile_bytes * stages + l->other_smem;
	out->fits_static = out->bytes <= a->smem_static_per_block;
	out->fits_optin = out->bytes <= a->smem_optin_per_block;
	out->occ = kp_arch_occupancy(a, l->threads > 0 ? l->threads : 256, 0, (int)out->bytes);
}

static void finish_loop(actx *c, const kp_analyze_opts *o)
{
	kp_loop *l = c->l;
	kp_kernel *k = c->k;
	/* other static shared memory of the kernel */
	decl_vec sv = {0};
	kp_node_walk(k->body, NULL, collect_shared_refs, &sv);
	l->other_smem = 0;
	for (int i = 0; i < sv.n; i++) {
		int is_tile = 0;
		for (int j = 0; j < l->ntiles; j++)
			if (l->tiles[j].arr == sv.v[i] && l->tiles[j].loaded)
				is_tile = 1;
		if (!is_tile && !kp_static_carve_region_loaded(l, sv.v[i])) {
			long long e = decl_elems(c, sv.v[i]);
			long long esz = kp_elem_size_of(c, sv.v[i]);
			if (e > 0 && esz > 0)
				l->other_smem += e * esz;
		}
	}
	free(sv.v);
	/* threads per block */
	if (o->threads > 0) {
		l->threads = o->threads;
		l->threads_from = "--threads";
	} else if (o->spec_threads > 0 && (!o->spec_kernel || !strcmp(o->spec_kernel, k->name))) {
		l->threads = o->spec_threads;
		l->threads_from = "launch description";
	} else if (k->launch_bounds > 0) {
		l->threads = k->launch_bounds;
		l->threads_from = "__launch_bounds__";
	}
	kp_loop_block(c->f, k, o, l->block, &l->block_from);
	if (!l->threads && l->block[0] > 0 && l->block_from &&
	    !strncmp(l->block_from, "launch at line", 14)) {
		/* every launch of the kernel in the file, the same constant block */
		l->threads = l->block[0] * l->block[1] * l->block[2];
		l->threads_from = l->block_from;
	}
	if (l->flops_thread >= 0 && l->threads > 0)
		l->flops_tile = l->flops_thread * l->threads;
	else
		l->flops_tile = -1;
	l->ratio = l->flops_tile >= 0 && l->tile_bytes > 0 ? l->flops_tile / (double)l->tile_bytes
							   : -1;
	/* the static shared-memory limit depends on the buffers of the
	 * transform: plan.c checks it (kp_plan_smem) */
	l->eligible = l->nreasons == 0;
}

/* One analysis of a candidate loop: for instantiation `inst` of a template
 * kernel, or (inst < 0) with the template parameters left symbolic. */
static kp_loop *analyze_one(kp_file *f, kp_kernel *k, kp_node *node, int index, int inst,
			    const kp_analyze_opts *o)
{
	kp_loop *l = kp_arena_alloc(&f->arena, sizeof(*l));
	l->kernel = k;
	l->index = index;
	l->node = node;
	l->trips = -1;
	actx c = {f, k, NULL, l, NULL, NULL, 0, o};
	if (inst >= 0) {
		l->inst = k->inst_args[inst];
		if (kp_inst_known(k, inst)) {
			c.iv = k->inst_values[inst];
			c.targs = k->inst_targs[inst];
		}
	}
	analyze_loop(&c);
	finish_loop(&c, o);
	return l;
}

int kp_analyze(kp_analysis *out, kp_file *f, const kp_analyze_opts *o)
{
	memset(out, 0, sizeof(*out));
	int cap = 0;
	for (int ki = 0; ki < f->nkernels; ki++) {
		kp_kernel *k = f->kernels[ki];
		if (!kp_kernel_matches(k, o->kernel))
			continue;
		out->nkernels++;
		kp_node_vec cands = {0};
		kp_find_candidates(k->body, &cands);
		for (int i = 0; i < cands.n; i++) {
			kp_loop *l;
			if (k->is_template && k->ninst > 0) {
				kp_loop **per = kp_xcalloc((size_t)k->ninst, sizeof(*per));
				for (int j = 0; j < k->ninst; j++)
					per[j] = analyze_one(f, k, cands.v[i], i + 1, j, o);
				l = kp_merge_insts(f, k, per);
				free(per);
			} else
				l = analyze_one(f, k, cands.v[i], i + 1, -1, o);
			if (k->error) { /* analysed for the report, never rewritten */
				actx c = {f, k, NULL, l, NULL, NULL, 0, o};
				kp_ana_refuse(
					&c, NULL, "kpipe-kernel-error",
					"clang reports an error in this kernel (%s); kpipe does not "
					"rewrite a kernel that does not compile",
					k->error);
				l->eligible = 0;
			}
			if (out->nloops == cap) {
				cap = cap ? cap * 2 : 8;
				kp_loop **nl = kp_arena_alloc(&f->arena, sizeof(*nl) * (size_t)cap);
				if (out->nloops)
					memcpy(nl, out->loops, sizeof(*nl) * (size_t)out->nloops);
				out->loops = nl;
			}
			out->loops[out->nloops++] = l;
		}
		free(cands.v);
	}
	return 0;
}
