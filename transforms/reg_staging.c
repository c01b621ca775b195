/*
 * reg_staging.c - the register-staging transform: shared tiles become
 * [2][...]; tile 0 is loaded before the loop; each iteration loads the
 * next tile into registers (LDG), computes on the current buffer, stores
 * the registers into the other buffer (STS) and crosses one barrier.
 *
 * register-2bar keeps single tiles: compute; __syncthreads(); tile = regs;
 * __syncthreads() (two barriers, no extra shared memory).
 *
 *   prologue:  if (tile 0 exists) load it into buffer 0; __syncthreads();
 *   loop:      if (next exists) { regs = next tile; __syncwarp(); }
 *              compute buffer kp_stage
 *              buffer kp_stage ^ 1 = regs (unguarded: see below)
 *              __syncthreads(); kp_stage ^= 1;
 *
 * One barrier is enough: the buffer being stored was last read by the
 * previous iteration, before its barrier.  Staging arrays are indexed
 * only by compile-time expressions of the (unrolled) copy loops, so they
 * stay in registers.  A copy outside any copy loop stages through a
 * one-element array (`float4 kp_reg0[1]`), not a scalar: with scalars
 * NVVM hoists more address arithmetic out of an enclosing loop (the tile
 * loop of a persistent kernel), and ptxas gave wmma_persistent_staged 64
 * registers and a 4-byte spill instead of 62 and none; the other samples'
 * register counts are the same either way.  The stores after the math
 * leave the source's comments, which describe the loads, out.  Works on
 * any architecture and for any copy.
 *
 * The guarded prefetch ends with __syncwarp().  Without it ptxas
 * predicates the small guarded block (if-conversion) and then schedules
 * its loads freely inside the loop body: to stay under a register count
 * that keeps its occupancy it sinks them next to the stores, below most
 * of the math, and the overlap is gone (sgemm_128x128x8: the first LDG
 * after 256 of 512 FFMAs; matmul_ptr_bump: after 109 of 128;
 * matmul_barrier_top: after 30 of 32).  A warp barrier orders the
 * warp's memory accesses, so ptxas does not move coherent loads (LDG.E)
 * below it.  Read-only loads (LDG.E.CONSTANT, from const __restrict__
 * pointers) are not ordered by it, and where they land stays ptxas's
 * choice: with the barrier in the block it keeps more of them above the
 * math (sgemm_128x128x8: 4 of 5 loads before all 512 FFMAs, the float4
 * load of B after 242 of them), but this is observed, not guaranteed;
 * `kpipe validate` checks it.  It costs nothing at run time
 * (a converged warp: ptxas emits a NOP).  It is only legal where every
 * non-exited thread of the warp reaches it: a full-mask __syncwarp()
 * waits for all of them, where the original's __syncthreads() only
 * waits for the threads that have not exited.  So it is emitted only
 * where warp_split.h proves that every thread reaches the loop (no
 * enclosing condition, jump or loop condition that may differ between
 * threads; for a __device__ function, at every call) and kp_has_next,
 * the loop condition of the next iteration, is then alike in every
 * thread; elsewhere (course code's `if (row < M && col < N) { K-loop }`,
 * which on the H200 gave wrong results with it) a comment says why it
 * is left out.  The guard itself stays: no address outside the next
 * tile is ever read, and the last iteration reads nothing.
 */
#include "transform.h"
#include "warp_split.h"

#include <stdlib.h>
#include <string.h>

extern const kp_transform kp_transform_register;

/* Every copy a global load whose copy loops step with ++ or += a
 * compile-time number of times (the staging arrays are indexed by their
 * positions); one register per 4 bytes copied per thread. */
static void reg_facts(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *x)
{
	(void)f;
	x->ok = l->nloads > 0;
	x->why_not = NULL;
	x->regs_inst = NULL;
	int regs = 0, regs_known = 1;
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		if (!ld->src) {
			x->ok = 0;
			x->why_not = kp_arena_printf(
				arena, "line %d: the stored value is not a plain global load",
				ld->line);
			continue;
		}
		double slots = 1;
		for (int d = 0; d < ld->depth && d < 4; d++) {
			const kp_range *rg = &ld->ranges[d];
			if (ld->loops[d] && ld->loops[d]->kind != KP_N_FOR && x->ok) {
				x->ok = 0;
				x->why_not = kp_arena_printf(
					arena,
					"line %d: the copy is in a while or do loop (staging registers are "
					"indexed by the position in a counted for loop)",
					ld->line);
			}
			if (!rg->step_is_one && !rg->step_plus_assign && x->ok) {
				x->ok = 0;
				x->why_not = kp_arena_printf(
					arena,
					"line %d: the copy loop must step with ++ or += (staging registers "
					"are indexed by its position)",
					ld->line);
			}
			double trips = ld->trips[d] >= 0 ? ld->trips[d] : ld->max_trips[d];
			if (ld->trips_symbolic[d]) {
				/* a constant of each instantiation: the staging
				 * arrays are sized by the same expression */
				regs_known = 0;
				slots = 0;
				break;
			}
			if (trips < 0 || (ld->trips[d] < 0 && trips < 1)) {
				if (x->ok) {
					x->ok = 0;
					x->why_not = kp_arena_printf(
						arena,
						"line %d: the copy loop has no compile-time trip count "
						"(staging registers must be indexed by constants)",
						ld->line);
				}
				regs_known = 0;
				slots = 0;
				break;
			}
			slots *= trips;
		}
		if (ld->bytes > 0)
			regs += (int)(slots * (double)((ld->bytes + 3) / 4));
		else
			regs_known = 0;
		if (ld->depth > 4 && x->ok) {
			x->ok = 0;
			x->why_not = "copies nested more than 4 loops deep";
		}
	}
	/* symbolic template parameters: the copy loops' counts are guesses */
	if (l->params_symbolic && x->ok)
		for (int i = 0; i < l->nloads; i++)
			if (l->loads[i].depth) {
				regs_known = 0;
				break;
			}
	x->regs = regs_known ? regs : -1;
}

static int reg_match(const kp_file *f, const kp_loop *l, const kp_arch *a, kp_arena *arena,
		     const char **why_not)
{
	(void)a;
	return kp_transform_match_facts(&kp_transform_register, f, l, arena, why_not,
					"register staging does not apply");
}

/* Two buffers; the two-barrier form keeps one. */
static int reg_buffers(int stages)
{
	(void)stages;
	return 2;
}

static int reg_2bar_buffers(int stages)
{
	(void)stages;
	return 1;
}

typedef struct {
	kp_file *f;
	kp_subs *s;
	int depth;
	const kp_loop *l; /* the K-loop: a constant declared in it is not seen before it */
} const_walk;

static char *const_text(kp_file *f, const kp_loop *l, const kp_node *n, int depth);

static int sub_locals(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	const_walk *w = ud;
	const kp_decl *d = n->decl;
	/* a const declared inside the K-loop (an inlined helper's constexpr)
	 * is replaced too: the staging registers are declared before it */
	int in_loop = d && d->in_main && d->begin >= w->l->node->begin && d->end <= w->l->node->end;
	if (n->kind != KP_N_DECLREF || !d || !n->name_editable || d->kind != KP_D_VAR ||
	    (d->is_const && !in_loop) || !d->init || d->is_array || d->is_pointer || d->is_shared)
		return 1;
	char *t = const_text(w->f, w->l, d->init, w->depth + 1);
	if (!t)
		return 1;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "(%s)", t);
	kp_subs_add(w->s, n->name_off, (unsigned)strlen(n->name), kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	free(t);
	return 1;
}

/* The text of n with every plain local it names, and every constant
 * declared inside the K-loop l, replaced by its initialiser, recursively:
 * the count of a copy loop whose step is such a local (`int stride = BM /
 * rounds;`) or whose bound is such a constant (an inlined helper's
 * `constexpr size_t VEC{COLS / 4};`) becomes a constant expression (the
 * analysis took the loop's trip count from the same initialisers, which
 * it requires to be the locals' only values).  NULL when n is not in the
 * main file.  Caller frees. */
static char *const_text(kp_file *f, const kp_loop *l, const kp_node *n, int depth)
{
	if (!n || !n->in_main || depth > 8)
		return NULL;
	kp_subs s = {0};
	const_walk w = {f, &s, depth, l};
	kp_node_walk((kp_node *)n, NULL, sub_locals, &w);
	char *t = kp_render(f, n->begin, n->end, &s);
	kp_subs_release(&s);
	return t;
}

/* The staging registers' count and index expressions (as text) of a copy
 * loop for (int i = a; i < b; i += s), from the analysis's reading of it
 * (kp_load.ranges, the one its trip count comes from).  most > 0: a is
 * the thread's (kp_load.max_trips): the count is the most trips of any
 * thread, and each thread uses the slots of its own trips. */
static int loop_slot(kp_file *f, const kp_loop *l, const kp_range *r, double most, char **count,
		     char **index)
{
	if (!r->var_decl || !r->lo || !r->hi || !r->op ||
	    !(r->step_is_one || (r->step_plus_assign && r->step)))
		return -1; /* the count needs the declared counter, ++ or += */
	const char *name = r->var_decl->name;
	char *lot_c = const_text(f, l, r->lo, 0), *hit_c = const_text(f, l, r->hi, 0);
	char *step_c = r->step ? const_text(f, l, r->step, 0) : NULL;
	const char *lot = lot_c ? kp_arena_strdup(&f->arena, lot_c) : kp_node_text(f, r->lo);
	const char *hit = hit_c ? kp_arena_strdup(&f->arena, hit_c) : kp_node_text(f, r->hi);
	if (r->hi_off) { /* i + c < hi: the bound is hi - c */
		char *off_c = const_text(f, l, r->hi_off, 0);
		hit = kp_arena_printf(&f->arena, "(%s) - (%s)", hit,
				      off_c ? off_c : kp_node_text(f, r->hi_off));
		free(off_c);
	}
	const char *step = !r->step ? "1"
			   : step_c ? kp_arena_strdup(&f->arena, step_c)
				    : kp_node_text(f, r->step);
	free(lot_c);
	free(hit_c);
	free(step_c);
	kp_strbuf c = KP_STRBUF_INIT, x = KP_STRBUF_INIT;
	if (most > 0 && (r->opk == KP_OP_LT || r->opk == KP_OP_LE)) {
		kp_strbuf_addf(&c, "(%lld)", (long long)most);
		kp_strbuf_addf(&x, "((%s - (%s)) / (%s))", name, lot, step);
		*count = kp_strbuf_detach(&c);
		*index = kp_strbuf_detach(&x);
		return 0;
	}
	if (r->opk == KP_OP_LT && !strcmp(lot, "0") && !strcmp(step, "1")) {
		kp_strbuf_addf(&c, "(%s)", hit);
		kp_strbuf_adds(&x, name);
		*count = kp_strbuf_detach(&c);
		*index = kp_strbuf_detach(&x);
		return 0;
	}
	if (r->opk == KP_OP_LT)
		kp_strbuf_addf(&c, "(((%s) - (%s) + (%s) - 1) / (%s))", hit, lot, step, step);
	else if (r->opk == KP_OP_LE)
		kp_strbuf_addf(&c, "(((%s) - (%s)) / (%s) + 1)", hit, lot, step);
	else {
		kp_strbuf_release(&c);
		return -1;
	}
	if (!strcmp(step, "1"))
		kp_strbuf_addf(&x, "(%s - (%s))", name, lot);
	else
		kp_strbuf_addf(&x, "((%s - (%s)) / (%s))", name, lot, step);
	*count = kp_strbuf_detach(&c);
	*index = kp_strbuf_detach(&x);
	return 0;
}

typedef struct {
	char *type;
	char *size;
	char *slot;
	const char *name; /* kp_regK as kp_fresh_name() gives it (arena) */
} stage_reg;

static int plan_regs(kp_file *f, const kp_loop *l, stage_reg *r, const char **err)
{
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		kp_strbuf size = KP_STRBUF_INIT, slot = KP_STRBUF_INIT;
		kp_strbuf_adds(&size, "1");
		kp_strbuf_adds(&slot, "0");
		int symbolic = 0;
		for (int d = 0; d < ld->depth; d++) {
			symbolic |= ld->trips_symbolic[d];
			char *cnt, *idx;
			double most = ld->trips[d] < 0 ? ld->max_trips[d] : -1;
			if (loop_slot(f, l, &ld->ranges[d], most, &cnt, &idx)) {
				kp_strbuf_release(&size);
				kp_strbuf_release(&slot);
				*err = "a copy loop is not of the form for (int i = a; i < b; i += s)";
				return -1;
			}
			char *ps = kp_strbuf_detach(&size), *px = kp_strbuf_detach(&slot);
			if (!strcmp(ps, "1"))
				kp_strbuf_adds(&size, cnt);
			else
				kp_strbuf_addf(&size, "%s * %s", ps, cnt);
			if (!strcmp(px, "0"))
				kp_strbuf_adds(&slot, idx);
			else
				kp_strbuf_addf(&slot, "(%s) * %s + %s", px, cnt, idx);
			free(ps);
			free(px);
			free(cnt);
			free(idx);
		}
		const char *ty = ld->lhs->type;
		/* a spelling with a template-id or clang's "<dependent type>": the
		 * tile's element is spelled instead (a rendering choice) */
		if (!ty || strchr(ty, '<'))
			ty = ld->tile->elem_type;
		/* drop cv-qualifiers of the target type */
		if (!strncmp(ty, "volatile ", 9))
			ty += 9;
		r[i].type = kp_xstrdup(ty);
		r[i].name = kp_fresh_name(f, kp_arena_printf(&f->arena, KP_NAME_REG "%d", i));
		r[i].size = kp_strbuf_detach(&size);
		if (symbolic) { /* an instantiation may count no copy: one register */
			kp_strbuf b = KP_STRBUF_INIT;
			kp_strbuf_addf(&b, "((%s) > 0 ? (%s) : 1)", r[i].size, r[i].size);
			free(r[i].size);
			r[i].size = kp_strbuf_detach(&b);
		}
		r[i].slot = kp_strbuf_detach(&slot);
	}
	return 0;
}

static void free_regs(stage_reg *r, int n)
{
	for (int i = 0; i < n; i++) {
		free(r[i].type);
		free(r[i].size);
		free(r[i].slot);
	}
	free(r);
}

/* Inserts "#pragma unroll" before each copy loop that has none. */
static void add_unroll(kp_file *f, const kp_loop *l, kp_subs *s, const char *indent_extra)
{
	(void)indent_extra;
	for (int i = 0; i < l->nloads; i++)
		for (int d = 0; d < l->loads[i].depth; d++) {
			const kp_node *lp = l->loads[i].loops[d];
			unsigned lb = lp->begin;
			while (lb > 0 && f->src[lb - 1] != '\n')
				lb--;
			/* previous line */
			unsigned pe = lb ? lb - 1 : 0, pb = pe;
			while (pb > 0 && f->src[pb - 1] != '\n')
				pb--;
			const char *prev = f->src + pb;
			while (prev < f->src + pe && (*prev == ' ' || *prev == '\t'))
				prev++;
			if (lb && !strncmp(prev, "#pragma", 7))
				continue;
			int seen = 0;
			for (int k = 0; k < s->n; k++)
				if (s->v[k].off == lp->begin && s->v[k].len == 0)
					seen = 1;
			if (seen)
				continue;
			char *ind = kp_line_indent(f, lp->begin);
			kp_strbuf sb = KP_STRBUF_INIT;
			kp_strbuf_addf(&sb, "#pragma unroll\n%s", ind);
			kp_subs_add(s, lp->begin, 0, kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
			free(ind);
		}
}

typedef struct {
	kp_node **v;
	int n;
} node_list;

static void push_node(node_list *l, kp_node *n)
{
	l->v = kp_xrealloc(l->v, sizeof(*l->v) * (size_t)(l->n + 1));
	l->v[l->n++] = n;
}

/* Declarations and loop headers inside the load phase, and every
 * reference. */
typedef struct {
	node_list decls, refs, headers;
} load_nodes;

static void gather(kp_node *n, load_nodes *g, int is_for_init)
{
	if (!n)
		return;
	if (n->kind == KP_N_DECLSTMT && !is_for_init)
		push_node(&g->decls, n);
	if (n->kind == KP_N_DECLREF && n->decl && n->name_editable)
		push_node(&g->refs, n);
	if (n->kind == KP_N_FOR || n->kind == KP_N_IF || n->kind == KP_N_WHILE ||
	    n->kind == KP_N_DO || n->kind == KP_N_SWITCH)
		push_node(&g->headers, n);
	for (int i = 0; i < n->nkids; i++)
		gather(n->kids[i], g, n->kind == KP_N_FOR && n->kids[i] == n->for_init);
}

static int within(const kp_node *n, unsigned o) { return n && o >= n->begin && o < n->end; }

static int in_lhs(const kp_loop *l, unsigned o)
{
	for (int i = 0; i < l->nloads; i++) {
		if (within(l->loads[i].lhs, o))
			return 1;
		if (l->loads[i].zero_stmt && within(l->loads[i].zero_stmt->kids[0], o))
			return 1;
	}
	return 0;
}

static int declares(const kp_node *ds, const kp_decl *d)
{
	for (int i = 0; i < ds->nkids; i++)
		if (ds->kids[i]->decl == d)
			return 1;
	return 0;
}

/* Removes the expression statement n (kp_subs_drop_stmt: its line, where
 * it has one to itself); the body of a braceless for/if becomes an empty
 * statement. */
static void drop_stmt(const kp_file *f, kp_subs *s, const kp_node *n, const kp_node *parent)
{
	if (parent && parent->kind != KP_N_COMPOUND)
		kp_subs_add(s, n->begin, n->end - n->begin, "");
	else
		kp_subs_drop_stmt(s, f, n);
}

/* A statement that only writes a local the store copy drops: `r0 +=
 * threadIdx.y;` between `int r0 = k0;` and the copy that reads r0.  The
 * fetch copy computed the address with it; the store copy keeps only the
 * tile stores, so the write goes with the declaration (else it names a
 * variable no longer declared). */
static int is_load_stmt(const kp_loop *l, const kp_node *n);
static int stages_via(const kp_loop *l, const kp_decl *d);

typedef struct {
	const kp_file *f;
	const kp_loop *l;
	kp_subs *s;
	const kp_node *const *dead;
	int ndead;
} dead_writes;

static int drop_dead_write(kp_node *n, kp_node *parent, void *ud)
{
	dead_writes *w = ud;
	int plain;
	kp_node *lhs = kp_write_target(n, &plain);
	if (!lhs || (parent && parent->kind != KP_N_COMPOUND && parent->kind != KP_N_IF &&
		     parent->kind != KP_N_FOR))
		return 1;
	kp_node *r = kp_lvalue_root(lhs);
	if (!r || r->kind != KP_N_DECLREF || !r->decl || is_load_stmt(w->l, n))
		return 1;
	/* drop_staging_write()'s: a register the source stages a copy in */
	if (plain &&
	    (stages_via(w->l, r->decl) || kp_is_scratch(w->f, w->l->kernel, w->l, r->decl)))
		return 1;
	for (int i = 0; i < w->ndead; i++)
		if (declares(w->dead[i], r->decl)) {
			drop_stmt(w->f, w->s, n, parent);
			return 0;
		}
	return 1;
}

/* Control statements of the load phase that the store copy drops whole:
 * an if, for, while or do that holds no tile store, writes only what the
 * store copy drops anyway (the staging register, directly or through a
 * pointer into it, and locals declared inside it), leaves no jump or asm,
 * and hands no variable to a call by name or address.  Kept, they would
 * name the locals that went with the fetch (`if (gr < m) ;` once
 * `v = A[gr * K + gc]` is dropped and `gr` with it). */
typedef struct {
	const kp_file *f;
	const kp_loop *l;
	const kp_node *ctl;
	int live;
} ctl_walk;

static int inside(const kp_node *n, const kp_decl *d)
{
	return d && d->begin >= n->begin && d->end <= n->end;
}

static int dropped_write(const ctl_walk *w, const kp_decl *d)
{
	return d && (inside(w->ctl, d) || stages_via(w->l, d) ||
		     kp_is_scratch(w->f, w->l->kernel, w->l, d));
}

static int find_live(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	ctl_walk *w = ud;
	int plain, through;
	kp_node *t = kp_write_target(n, &plain);
	if (is_load_stmt(w->l, n) || n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE ||
	    n->kind == KP_N_RETURN || n->kind == KP_N_GOTO || n->kind == KP_N_ASM ||
	    n->kind == KP_N_LAMBDA)
		w->live = 1;
	else if (t) {
		kp_node *r = kp_lvalue_root(t);
		if (!dropped_write(w, r ? r->decl : NULL) &&
		    !dropped_write(w, kp_written_var(w->f, w->l->kernel, t, &through)))
			w->live = 1;
	}
	for (int i = 1; n->kind == KP_N_CALL && i < n->nkids; i++) {
		const kp_node *a = kp_node_strip(n->kids[i]);
		if (a && ((a->kind == KP_N_UNOP && a->op && a->opk == KP_OP_ADDR) ||
			  (a->kind == KP_N_DECLREF && a->decl && !a->decl->is_const &&
			   !inside(w->ctl, a->decl))))
			w->live = 1;
	}
	return !w->live;
}

static void find_dead_ctl(const kp_file *f, const kp_loop *l, kp_node *n, kp_node *parent,
			  node_list *dead, node_list *parents)
{
	if (!n)
		return;
	if ((n->kind == KP_N_IF || n->kind == KP_N_FOR || n->kind == KP_N_WHILE ||
	     n->kind == KP_N_DO) &&
	    n->in_main && !n->from_macro) {
		ctl_walk w = {f, l, n, 0};
		kp_node_walk(n, parent, find_live, &w);
		if (!w.live) {
			push_node(dead, n);
			push_node(parents, parent);
			return;
		}
	}
	for (int i = 0; i < n->nkids; i++)
		find_dead_ctl(f, l, n->kids[i], n, dead, parents);
}

/* Whether offset o is in the condition of a control statement (a for
 * header, an if, while, do or switch condition) among hs. */
static int in_condition(const node_list *hs, unsigned o)
{
	for (int h = 0; h < hs->n; h++) {
		const kp_node *c = hs->v[h];
		const kp_node *cond = NULL;
		if (c->kind == KP_N_FOR) {
			if (c->for_body && o >= c->begin && o < c->for_body->begin)
				return 1;
			continue;
		}
		if ((c->kind == KP_N_IF || c->kind == KP_N_WHILE || c->kind == KP_N_SWITCH) &&
		    c->nkids >= 2)
			cond = c->kids[0];
		else if (c->kind == KP_N_DO && c->nkids >= 2)
			cond = c->kids[c->nkids - 1];
		if (within(cond, o))
			return 1;
	}
	return 0;
}

/* Whether the declaration statement ds (its declarator `only`, or any when
 * NULL) is used by what this copy keeps: a kept declaration, a condition,
 * a store target (store copy) or what is not one (fetch copy). */
static int decl_used(const load_nodes *g, const int *kept, const kp_loop *l, int store,
		     const kp_node *ds, const kp_decl *only)
{
	for (int r = 0; r < g->refs.n; r++) {
		kp_node *ref = g->refs.v[r];
		unsigned o = ref->name_off;
		if (!declares(ds, ref->decl) || (only && ref->decl != only) || within(ds, o))
			continue;
		int in_decl = -1;
		for (int j = 0; j < g->decls.n; j++)
			if (within(g->decls.v[j], o))
				in_decl = j;
		if (in_decl >= 0                   ? kept[in_decl]
		    : in_condition(&g->headers, o) ? 1
						   : (store ? in_lhs(l, o) : !in_lhs(l, o)))
			return 1;
	}
	return 0;
}

/* Where declarator d of a declaration statement begins: its name, less
 * the `*` and `&` just before it.  0 when its name is not where the
 * model says (a macro). */
static unsigned declarator_begin(const kp_file *f, const kp_decl *d)
{
	size_t n = d->name ? strlen(d->name) : 0;
	unsigned o = d->name_off;
	if (!n || o + n > f->len || memcmp(f->src + o, d->name, n))
		return 0;
	while (o > 0 && (f->src[o - 1] == '*' || f->src[o - 1] == '&'))
		o--;
	return o;
}

/* The text between the end of one declarator and the next holds only a
 * comma (and blanks). */
static int comma_between(const kp_file *f, unsigned e, unsigned b)
{
	int commas = 0;
	for (unsigned o = e; o < b; o++)
		if (f->src[o] == ',')
			commas++;
		else if (f->src[o] != ' ' && f->src[o] != '\t' && f->src[o] != '\n' &&
			 f->src[o] != '\r')
			return 0;
	return commas == 1;
}

/* A kept statement that declares several locals (`int gi = .., si = ..;`)
 * may declare one this copy does not use: its declarator goes (`int si =
 * ..;`), so the copy adds no unused-variable warning (nvcc #177-D and
 * #550-D, g++ -Wunused).  Where the text is not plain enough to cut (a
 * declarator from a macro), `(void)gi;` follows the statement instead. */
static void drop_unused_declarators(const kp_file *f, const load_nodes *g, const int *kept,
				    const kp_loop *l, int store, kp_subs *s)
{
	for (int i = 0; i < g->decls.n; i++) {
		const kp_node *ds = g->decls.v[i];
		int n = ds->nkids;
		if (!kept[i] || n < 2 || n > 64 || ds->end == 0 || f->src[ds->end - 1] != ';')
			continue;
		int used[64], first = -1, plain = 1;
		unsigned beg[64];
		for (int k = 0; k < n; k++) {
			const kp_decl *d = ds->kids[k]->decl;
			used[k] = !d || !d->name || decl_used(g, kept, l, store, ds, d);
			if (used[k] && first < 0)
				first = k;
			beg[k] = d ? declarator_begin(f, d) : 0;
			plain &= beg[k] > 0 && ds->kids[k]->end <= ds->end;
			if (k)
				plain &= comma_between(f, ds->kids[k - 1]->end, beg[k]);
		}
		if (first < 0) /* none used: kept for its side effects; leave it */
			continue;
		if (plain) {
			if (first > 0) /* `*a = .., *b = ..` -> `*b = ..` */
				kp_subs_add(s, beg[0], beg[first] - beg[0], "");
			for (int k = first + 1; k < n; k++)
				if (!used[k]) /* `, si = ..` */
					kp_subs_add(s, ds->kids[k - 1]->end,
						    ds->kids[k]->end - ds->kids[k - 1]->end, "");
			continue;
		}
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_adds(&sb, ";");
		for (int k = 0; k < n; k++)
			if (!used[k])
				kp_strbuf_addf(&sb, " (void)%s;", ds->kids[k]->decl->name);
		kp_subs_add(s, ds->end - 1, 1, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
	}
}

/* Drops the load phase's declarations that a copy no longer uses (the
 * store copy keeps only the store targets, the fetch copy loses them), so
 * the rewrite adds no unused-variable warnings. */
static void drop_dead_decls(kp_file *f, const kp_loop *l, kp_subs *s, int store)
{
	load_nodes g = {0};
	node_list dead = {0}, dead_parent = {0};
	for (int i = l->load_b; i < l->load_e; i++) {
		if (store)
			find_dead_ctl(f, l, l->stmts[i], l->body, &dead, &dead_parent);
		gather(l->stmts[i], &g, 0);
	}
	/* what a dropped control statement holds goes with it */
	node_list *lists[] = {&g.decls, &g.refs, &g.headers};
	for (int k = 0; k < 3; k++) {
		int m = 0;
		for (int i = 0; i < lists[k]->n; i++) {
			int gone = 0;
			for (int d = 0; d < dead.n && !gone; d++)
				gone = within(dead.v[d], lists[k]->v[i]->begin);
			/* the store copy writes a guarded if/else copy as its
			 * store alone: the guard's names are gone with it */
			for (int j = 0; j < l->nloads && store && !gone; j++) {
				const kp_load *ld = &l->loads[j];
				unsigned o = lists[k]->v[i]->begin;
				gone = ld->guard == KP_G_IFELSE && within(ld->stmt, o) &&
				       !within(ld->lhs, o);
			}
			if (!gone)
				lists[k]->v[m++] = lists[k]->v[i];
		}
		lists[k]->n = m;
	}
	int *kept = kp_xcalloc((size_t)(g.decls.n ? g.decls.n : 1), sizeof(int));
	for (int i = 0; i < g.decls.n; i++)
		kept[i] = 1;
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < g.decls.n; i++)
			if (kept[i] && !decl_used(&g, kept, l, store, g.decls.v[i], NULL)) {
				kept[i] = 0;
				changed = 1;
			}
	}
	drop_unused_declarators(f, &g, kept, l, store, s);
	if (store) {
		/* the writes of a dropped local go with it */
		const kp_node **dead =
			kp_xcalloc((size_t)(g.decls.n ? g.decls.n : 1), sizeof(*dead));
		int nd = 0;
		for (int i = 0; i < g.decls.n; i++)
			if (!kept[i])
				dead[nd++] = g.decls.v[i];
		dead_writes w = {f, l, s, dead, nd};
		for (int i = l->load_b; i < l->load_e && nd; i++)
			kp_node_walk(l->stmts[i], l->body, drop_dead_write, &w);
		free(dead);
	}
	for (int i = 0; i < g.decls.n; i++) {
		if (kept[i])
			continue;
		kp_node *ds = g.decls.v[i];
		unsigned b = ds->begin, e = ds->end;
		unsigned lb = b;
		while (lb > 0 && (f->src[lb - 1] == ' ' || f->src[lb - 1] == '\t'))
			lb--;
		unsigned le = e;
		while (le < f->len &&
		       (f->src[le] == ' ' || f->src[le] == '\t' || f->src[le] == '\r'))
			le++;
		if ((lb == 0 || f->src[lb - 1] == '\n') && le < f->len && f->src[le] == '\n') {
			b = lb;
			e = le + 1;
		}
		kp_subs_add(s, b, e - b, "");
	}
	for (int d = 0; d < dead.n; d++) {
		const kp_node *p = dead_parent.v[d];
		if (!p || p->kind == KP_N_COMPOUND)
			kp_subs_drop_stmt(s, f, dead.v[d]);
		else
			kp_subs_add(s, dead.v[d]->begin, dead.v[d]->end - dead.v[d]->begin, ";");
	}
	free(dead.v);
	free(dead_parent.v);
	free(kept);
	free(g.decls.v);
	free(g.refs.v);
	free(g.headers.v);
}

typedef struct {
	const kp_file *f;
	const kp_loop *l;
	kp_subs *s;
} scratch_drop;

static int is_load_stmt(const kp_loop *l, const kp_node *n)
{
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i].stmt == n)
			return 1;
	return 0;
}

static int stages_via(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i].via == d)
			return 1;
	return 0;
}

static int drop_staging_write(kp_node *n, kp_node *parent, void *ud)
{
	scratch_drop *w = ud;
	int plain, through;
	kp_node *t = kp_write_target(n, &plain);
	if (!t || !plain || is_load_stmt(w->l, n))
		return 1;
	/* directly, or through a pointer into it (a masked vector's tail) */
	const kp_decl *d = kp_written_var(w->f, w->l->kernel, t, &through);
	if (!d || !(stages_via(w->l, d) || kp_is_scratch(w->f, w->l->kernel, w->l, d)))
		return 1;
	drop_stmt(w->f, w->s, n, parent);
	return 0;
}

/* The store copy keeps only the tile stores: a write to a register the
 * source stages a copy in (`stage[r] = A4[i]`, the declaration's
 * initialiser goes with drop_dead_decls) would load again, unguarded. */
static void drop_staging_writes(kp_file *f, const kp_loop *l, kp_subs *s)
{
	scratch_drop w = {f, l, s};
	for (int i = l->load_b; i < l->load_e; i++)
		kp_node_walk(l->stmts[i], l->body, drop_staging_write, &w);
}

/* Whether statement x of the load phase names d where the store after
 * the math keeps it: a copy is written there as its target alone
 * (`As[..] = kp_reg0[0]`), so its guard and value do not count. */
static int store_names(const kp_loop *l, const kp_node *x, const kp_decl *d)
{
	if (!x)
		return 0;
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i].stmt == x)
			return kp_node_names_decl(l->loads[i].lhs, d) ||
			       (l->loads[i].zero_stmt &&
				kp_node_names_decl(l->loads[i].zero_stmt->kids[0], d));
	if (x->kind == KP_N_DECLREF)
		return x->decl == d;
	for (int i = 0; i < x->nkids; i++)
		if (store_names(l, x->kids[i], d))
			return 1;
	return 0;
}

/* A tile value set by assignment (analysis/tile_value.c: `partial =
 * f(jj);`) is set for the next tile by the fetch, and again for the
 * current one at the top of the compute phase; the store after the math
 * keeps its statement only where what the store keeps reads it (a
 * declaration is drop_dead_decls's). */
static void drop_tile_values(kp_file *f, const kp_loop *l, kp_subs *s)
{
	for (int t = 0; t < l->ntvals; t++) {
		const kp_node *st = l->tval_stmt[t];
		if (st->kind == KP_N_DECLSTMT)
			continue;
		int used = 0;
		for (int i = l->load_b; i < l->load_e && !used; i++)
			used = l->stmts[i] != st && store_names(l, l->stmts[i], l->tval_var[t]);
		if (!used)
			kp_subs_drop_stmt(s, f, st);
	}
}

/* Element types __ldca() has an overload for (sm_32_intrinsics.h,
 * cuda_fp16.h, cuda_bf16.h). */
static const char *const ldca_types[] = {
	"float",          "double",         "float2",
	"float4",         "double2",        "int",
	"unsigned int",   "unsigned",       "int2",
	"int4",           "uint2",          "uint4",
	"char",           "signed char",    "unsigned char",
	"short",          "unsigned short", "long",
	"unsigned long",  "long long",      "unsigned long long",
	"char2",          "char4",          "uchar2",
	"uchar4",         "short2",         "short4",
	"ushort2",        "ushort4",        "longlong2",
	"ulonglong2",     "__half",         "half",
	"__half2",        "half2",          "__nv_bfloat16",
	"__nv_bfloat162", "int8_t",         "uint8_t",
	"int16_t",        "uint16_t",       "int32_t",
	"uint32_t",       "int64_t",        "uint64_t",
};

/*
 * register-ca: the prefetch reads through __ldca() (ld.global.ca) where
 * the tile comes from a `const T *__restrict__` kernel parameter.  ptxas
 * reads such a pointer with LDG.E.CONSTANT, which neither __syncwarp()
 * nor a block barrier orders, and may sink those loads below the math;
 * a coherent load stays above the __syncwarp() that closes the prefetch.
 * The value read is the same (the data is read-only during the kernel:
 * that is what the const __restrict__ promised); only the cache path
 * changes.  A kernel parameter pointer addresses global memory, which is
 * what __ldca() requires; a __device__ function's parameter is one only
 * where the analysis proved every caller passes global memory
 * (kp_load.src_global).  Returns the lvalue node to wrap, or NULL when
 * the copy is not such a read (it then stays a plain load).
 */
static const kp_node *ldca_target(const kp_load *ld)
{
	const kp_decl *d = ld->src;
	if (!d || !ld->src_global || d->kind != KP_D_PARM || !d->is_pointer || !ld->rhs ||
	    !d->ty.is_restrict || !d->ty.elem_const || KP_TY_ANY_VOLATILE(d->ty))
		return NULL;
	const kp_node *n = ld->rhs;
	while (n && (n->kind == KP_N_PAREN || (n->kind == KP_N_OTHER && n->nkids == 1)))
		n = n->kids[0];
	if (!n || !n->type || KP_TY_ANY_VOLATILE(n->ty) ||
	    !(n->kind == KP_N_SUBSCRIPT ||
	      (n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_DEREF)))
		return NULL;
	const char *t = n->type;
	if (!strncmp(t, "const ", 6))
		t += 6;
	size_t len = strlen(t);
	if (len > 6 && !strcmp(t + len - 6, " const"))
		len -= 6;
	for (size_t i = 0; i < KP_ARRAY_LEN(ldca_types); i++)
		if (strlen(ldca_types[i]) == len && !strncmp(ldca_types[i], t, len))
			return n;
	return NULL;
}

/* fetch: copies write the staging registers (next tile's addresses);
 * store: copies become "tile[next] = register". */
static char *load_copy(kp_file *f, const kp_loop *l, const kp_spans *sp, const stage_reg *r,
		       int store, int ldca, const char *store_idx)
{
	kp_subs s = {0};
	if (store && store_idx)
		kp_subs_tiles(&s, f, l, sp->load_b, sp->load_e, store_idx);
	kp_subs_next(&s, l, sp->load_b, sp->load_e);
	kp_subs outer = {0};
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		kp_strbuf reg = KP_STRBUF_INIT;
		kp_strbuf_addf(&reg, "%s[%s]", r[i].name, r[i].slot);
		if (store) {
			char *dst = kp_render(f, ld->lhs->begin, ld->lhs->end, &s);
			kp_strbuf sb = KP_STRBUF_INIT;
			kp_strbuf_addf(&sb, "%s = %s", dst, kp_strbuf_str(&reg));
			unsigned e = ld->stmt->end;
			if (ld->guard == KP_G_IFELSE) {
				unsigned p = e;
				while (p < f->len && (f->src[p] == ' ' || f->src[p] == '\t'))
					p++;
				if (p >= f->len || f->src[p] != ';')
					kp_strbuf_addc(&sb, ';');
			}
			kp_subs_add(&outer, ld->stmt->begin, e - ld->stmt->begin,
				    kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
			free(dst);
			/* a temporary's value was fetched into the register; its
			 * declaration goes with the other dead ones */
			kp_subs_drop_stmt(&outer, f, ld->tmp_set);
		} else {
			kp_subs_add(&outer, ld->lhs->begin, ld->lhs->end - ld->lhs->begin,
				    kp_strbuf_str(&reg));
			if (ld->zero_stmt) {
				const kp_node *zl = ld->zero_stmt->kids[0];
				kp_subs_add(&outer, zl->begin, zl->end - zl->begin,
					    kp_strbuf_str(&reg));
			}
		}
		kp_strbuf_release(&reg);
	}
	for (int i = 0; i < l->nloads && ldca && !store; i++) {
		/* the whole read, rendered with the advanced inductions, wrapped:
		 * it contains (and so replaces) the substitutions inside it */
		const kp_node *n = ldca_target(&l->loads[i]);
		if (!n)
			continue;
		/* a read from a macro expansion has no range of its own: the
		 * loaded value around it (FLOAT4(B[i]), its parentheses and
		 * implicit conversions) is the same lvalue, and is spelled
		 * (analyze.c: check_copy_spelled) */
		if (n->from_macro)
			n = l->loads[i].rhs;
		char *x = kp_render(f, n->begin, n->end, &s);
		kp_strbuf w = KP_STRBUF_INIT;
		kp_strbuf_addf(&w, "__ldca(&(%s))", x);
		kp_subs_add(&outer, n->begin, n->end - n->begin, kp_strbuf_str(&w));
		kp_strbuf_release(&w);
		free(x);
	}
	for (int i = 0; i < s.n; i++)
		kp_subs_add(&outer, s.v[i].off, s.v[i].len, s.v[i].text);
	if (store) {
		drop_staging_writes(f, l, &outer);
		drop_tile_values(f, l, &outer);
	}
	drop_dead_decls(f, l, &outer, store);
	add_unroll(f, l, &outer, NULL);
	char *txt = kp_render(f, sp->load_b, sp->load_e, &outer);
	kp_subs_release(&s);
	kp_subs_release(&outer);
	return txt;
}

/* Whether the store of the next tile reads memory at the next tile's
 * induction values: a subscript (other than the tile's own), a
 * dereference or a call that names an induction variable in what the
 * store keeps of the load phase - each copy's target, the conditions it
 * runs under, its copy loops' headers, and the load phase's locals these
 * read (`As[ty][(tx + rot[t]) % T]`, a per-tile descriptor).  On the last
 * iteration there is no next tile, and such a read would go past the
 * descriptor's end: the store is then guarded. */
typedef struct {
	const kp_loop *l;
	unsigned lb, le; /* the load phase's extent */
	int depth;
	int found;
} ahead_walk;

static int names_induction(const kp_loop *l, const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_DECLREF)
		for (int i = 0; i < l->nind; i++)
			if (n->decl == l->ind[i].var)
				return 1;
	for (int i = 0; i < n->nkids; i++)
		if (names_induction(l, n->kids[i]))
			return 1;
	return 0;
}

static void walk_ahead(ahead_walk *w, kp_node *n);

static int find_ahead_read(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	ahead_walk *w = ud;
	if (w->found)
		return 0;
	const kp_decl *d = n->kind == KP_N_DECLREF ? n->decl : NULL;
	if (d && d->kind == KP_D_VAR && d->init && d->in_main && d->begin >= w->lb &&
	    d->end <= w->le && w->depth < 8) {
		/* a local of the load phase the store keeps: what it reads */
		w->depth++;
		walk_ahead(w, d->init);
		w->depth--;
	}
	int reads = n->kind == KP_N_CALL ||
		    (n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_DEREF);
	if (n->kind == KP_N_SUBSCRIPT) {
		const kp_node *r = kp_lvalue_root(n);
		reads = 1;
		for (int i = 0; r && i < w->l->ntiles; i++)
			if (w->l->tiles[i].loaded && r->decl == w->l->tiles[i].arr)
				reads = 0; /* the tile's own subscript: what it reads counts */
	}
	if (reads && names_induction(w->l, n))
		w->found = 1;
	return !w->found;
}

static void walk_ahead(ahead_walk *w, kp_node *n)
{
	if (n && !w->found)
		kp_node_walk(n, NULL, find_ahead_read, w);
}

/* A tile read after the loop as the loop left it (analysis/last_tile.h):
 * with one buffer, the last iteration's store of stale registers would
 * overwrite the last tile, so the store is guarded. */
static int tile_read_after(const kp_loop *l)
{
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].loaded && l->tiles[i].last_after)
			return 1;
	return 0;
}

static int store_reads_ahead(const kp_loop *l)
{
	if (l->load_b >= l->load_e)
		return 0;
	ahead_walk w = {l, l->stmts[l->load_b]->begin, l->stmts[l->load_e - 1]->end, 0, 0};
	for (int i = 0; i < l->nloads && !w.found; i++) {
		const kp_load *ld = &l->loads[i];
		walk_ahead(&w, ld->lhs);
		/* the if or switch statements it runs under: their conditions
		 * (the guard of a guarded copy goes with the fetch) */
		for (int u = 0; u < ld->nunder && u < 4; u++)
			if (ld->under[u]->nkids)
				walk_ahead(&w, ld->under[u]->kids[0]);
		for (int d = 0; d < ld->depth && d < 4; d++) {
			const kp_node *lp = ld->loops[d];
			walk_ahead(&w, lp->for_init);
			walk_ahead(&w, lp->for_cond);
			walk_ahead(&w, lp->for_inc);
		}
	}
	return w.found;
}

static int reg_apply_common(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
			    const char **err, int ldca, int two_bar)
{
	stage_reg *r = kp_xcalloc((size_t)(l->nloads ? l->nloads : 1), sizeof(*r));
	if (plan_regs(f, l, r, err)) {
		free_regs(r, l->nloads);
		return -1;
	}
	kp_frame fr;
	kp_frame_open(&fr, f, l);
	const char *ind = fr.ind, *iu = fr.iu, *I1 = fr.I1, *I2 = fr.I2;

	kp_strbuf sb = KP_STRBUF_INIT;
	int nca = 0;
	for (int i = 0; ldca && i < l->nloads; i++)
		nca += ldca_target(&l->loads[i]) != NULL;
	char *comment =
		o->no_comment
			? NULL
			: kp_arena_printf(
				  &f->arena, "register staging%s, %s: %s",
				  !ldca ? ""
				  : nca ? " (prefetch of read-only tiles through __ldca)"
					: " (no tile read from a const __restrict__ parameter: plain loads)",
				  two_bar ? "1 buffer, 2 barriers" : "2 buffers", o->why);
	kp_emit_open(&sb, f, l, fr.start, ind, I1, comment, two_bar ? 1 : 2, o->dynamic, out);
	const char *stage = kp_fresh_name(f, KP_NAME_STAGE);
	const char *has_next = kp_fresh_name(f, KP_NAME_HAS_NEXT);
	int said = o->no_comment;
	for (int i = 0; i < l->nloads; i++) {
		int one = !strcmp(r[i].size, "1") && !said;
		said |= one;
		kp_strbuf_addf(&sb, "%s%s %s[%s] = {};%s\n", I1, r[i].type, r[i].name, r[i].size,
			       one ? " // kpipe: one-element arrays, not scalars: fewer "
				     "registers (docs/design.md)"
				   : "");
	}

	/* prologue: the original copies into buffer 0 */
	char *c0 = kp_xstrndup(f->src + l->cond->begin, l->cond->end - l->cond->begin);
	kp_subs ps = {0};
	if (!two_bar)
		kp_subs_tiles(&ps, f, l, fr.sp.load_b, fr.sp.load_e, "0");
	char *pro = kp_render(f, fr.sp.load_b, fr.sp.load_e, &ps);
	kp_subs_release(&ps);
	char *pro_i = kp_reindent(pro, iu);
	kp_strbuf_addf(&sb, "%sif (%s) {\n%s%s}\n", I1, c0, pro_i, I1);
	kp_strbuf_addf(&sb, "%s__syncthreads();\n", I1);
	free(pro);
	free(pro_i);

	if (fr.pragma)
		kp_strbuf_addf(&sb, "%s%s\n", I1, fr.pragma);
	char *inc = kp_render(f, l->inc->begin, l->inc->end, &(kp_subs){0});
	kp_strbuf_addf(&sb, "%sfor (; %s; %s) {\n", I1, c0, inc);
	free(inc);
	kp_subs cn = {0};
	kp_subs_next(&cn, l, l->cond->begin, l->cond->end);
	char *c1 = kp_render(f, l->cond->begin, l->cond->end, &cn);
	kp_subs_release(&cn);
	kp_strbuf_addf(&sb, "%sconst bool %s = %s;\n", I2, has_next, c1);
	free(c1);
	char *fetch = load_copy(f, l, &fr.sp, r, 0, ldca, NULL);
	char *fetch_i = kp_reindent(fetch, I1 + strlen(ind));
	char *fetch_ii = kp_reindent(fetch_i, iu);
	/* __syncwarp() closes the prefetch, inside the guard: see the comment
	 * at the top of this file; not where some threads of a warp may not
	 * reach the loop (warp_split.h) */
	const char *split = kp_warp_may_split(f, l);
	if (!split)
		kp_strbuf_addf(&sb, "%sif (%s) {\n%s%s%s__syncwarp();%s\n%s}\n", I2, has_next,
			       fetch_ii, I2, iu,
			       o->no_comment ? ""
					     : " // kpipe: keeps the loads above the math (ptxas)",
			       I2);
	else if (o->no_comment)
		kp_strbuf_addf(&sb, "%sif (%s) {\n%s%s}\n", I2, has_next, fetch_ii, I2);
	else
		kp_strbuf_addf(&sb,
			       "%s// kpipe: no __syncwarp() here: %s (a full-mask warp barrier "
			       "needs every thread of the warp)\n%sif (%s) {\n%s%s}\n",
			       I2, split, I2, has_next, fetch_ii, I2);
	free(fetch);
	free(fetch_i);
	free(fetch_ii);

	kp_subs cs = {0};
	if (!two_bar)
		kp_subs_tiles(&cs, f, l, fr.sp.comp_b, fr.sp.comp_e, stage);
	char *comp = kp_render_compute(f, l, &fr.sp, &cs, o->no_comment);
	char *comp_i = kp_reindent(comp, iu);
	kp_strbuf_adds(&sb, comp_i);
	free(comp);
	free(comp_i);
	kp_subs_release(&cs);

	char *store = load_copy(f, l, &fr.sp, r, 1, 0,
				two_bar ? NULL : kp_arena_printf(&f->arena, "%s ^ 1", stage));
	/* one buffer: every thread has finished reading it before it is
	 * refilled */
	if (two_bar)
		kp_strbuf_addf(&sb, "%s__syncthreads();\n", I2);
	/* the source's comments describe the loads: not repeated at the stores */
	char *bare = kp_strip_comments(store);
	free(store);
	store = bare;
	char *store_i = kp_reindent(store, I1 + strlen(ind));
	char *store_ii = kp_reindent(store_i, iu);
	/* The store runs unconditionally: on the last iteration it fills the
	 * unused buffer with stale registers, which nothing reads.  Guarding
	 * it lets the compiler sink the loads into the guarded store, after
	 * the math, and the overlap is lost; it is guarded only where its
	 * target reads memory at the next tile's index (store_reads_ahead),
	 * which the last iteration does not have, and with one buffer where
	 * the code after the loop reads the last tile (tile_read_after). */
	if (store_reads_ahead(l) || (two_bar && tile_read_after(l)))
		kp_strbuf_addf(&sb, "%sif (%s) {\n%s%s}\n", I2, has_next, store_ii, I2);
	else
		kp_strbuf_addf(&sb, "%s{\n%s%s}\n", I2, store_ii, I2);
	free(store);
	free(store_i);
	free(store_ii);
	kp_emit_tail(&sb, f, &fr.sp, iu);
	kp_strbuf_addf(&sb, "%s__syncthreads();\n", I2);
	/* with one buffer kp_stage indexes nothing; it stays as the mark
	 * kpipe-already-pipelined looks for */
	kp_emit_last_set(&sb, f, l, I2, stage, two_bar ? 1 : 2);
	kp_strbuf_addf(&sb, "%s%s ^= 1;\n", I2, stage);
	kp_strbuf_addf(&sb, "%s}\n", I1);
	kp_strbuf_addf(&sb, "%s}", ind);
	free(c0);

	kp_edits_add(out, fr.start, l->node->end - fr.start, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	kp_frame_release(&fr);
	free_regs(r, l->nloads);
	return 0;
}

static int reg_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		     const char **err)
{
	return reg_apply_common(f, l, o, out, err, 0, 0);
}

static int reg_ca_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
			const char **err)
{
	return reg_apply_common(f, l, o, out, err, 1, 0);
}

static int reg_2bar_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
			  const char **err)
{
	return reg_apply_common(f, l, o, out, err, 0, 1);
}

static const kp_tune_cand reg_tune[] = {{"register", 2, 10}};
static const kp_tune_cand reg_ca_tune[] = {{"register-ca", 2, 20}};
static const kp_tune_cand reg_2bar_tune[] = {{"register-2bar", 2, 30}};

const kp_transform kp_transform_register = {
	.name = "register",
	.label = "register staging",
	.summary = "double-buffered shared tiles filled from staging registers (LDG before the "
		   "math, STS after)",
	.min_stages = 2,
	.max_stages = 2,
	.buffers = reg_buffers,
	.reports_regs = 1,
	.facts = reg_facts,
	.match = reg_match,
	.tune = reg_tune,
	.ntune = KP_ARRAY_LEN(reg_tune),
	.apply = reg_apply,
};

const kp_transform kp_transform_register_ca = {
	.name = "register-ca",
	.label = "register staging",
	.summary = "register staging whose prefetch of read-only (const __restrict__) tiles goes "
		   "through __ldca, which ptxas keeps above the math",
	.usage = "register staging with the prefetch through __ldca",
	.min_stages = 2,
	.max_stages = 2,
	.buffers = reg_buffers,
	.reports_regs = 1,
	.facts = reg_facts,
	.match = reg_match,
	.tune = reg_ca_tune,
	.ntune = KP_ARRAY_LEN(reg_ca_tune),
	/* without a tile read through __ldca the build is register's */
	.tune_marker = "__ldca(",
	.tune_base = "register",
	.apply = reg_ca_apply,
};

/* The textbook form: the tiles stay single, the registers are stored
 * after a barrier that ends every read of the buffer, and a second barrier
 * publishes them.  No extra shared memory; two barriers per iteration. */
const kp_transform kp_transform_register_2bar = {
	.name = "register-2bar",
	.label = "register staging",
	.summary = "single shared tiles refilled from staging registers between two barriers (no "
		   "extra shared memory)",
	.usage = "one shared buffer, two barriers per iteration",
	.min_stages = 2,
	.max_stages = 2,
	.buffers = reg_2bar_buffers,
	.reports_regs = 1,
	.facts = reg_facts,
	.match = reg_match,
	.tune = reg_2bar_tune,
	.ntune = KP_ARRAY_LEN(reg_2bar_tune),
	.apply = reg_2bar_apply,
};
