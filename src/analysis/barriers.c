/*
 * barriers.c - the barriers of a candidate loop: what its calls are
 * (barriers, atomics, fences, cp.async), the two top-level barriers that
 * delimit the phases and the barriers kpipe cannot replace, and whether
 * the code after the loop needs the rewrite to end with a barrier.
 */
#include "analyze.h"
#include "analyze_int.h"
#include "effects.h"

#include <string.h>

/* Whether a barrier call's operands (the group object, the predicate of
 * __syncthreads_count) could be dropped with it: no assignment, ++/--,
 * lambda, asm or call other than cg::this_thread_block(). */
static int sync_operands_pure(const kp_node *n, const kp_node *call)
{
	if (!n)
		return 1;
	switch (n->kind) {
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA:
	case KP_N_ASM: return 0;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN)
			return 0;
		break;
	case KP_N_UNOP:
		if (n->op && (KP_OP_IS_INCDEC(n->opk)))
			return 0;
		break;
	case KP_N_CALL:
		if (n != call && !(n->name && !strcmp(n->name, "this_thread_block")))
			return 0;
		break;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		if (!sync_operands_pure(n->kids[i], call))
			return 0;
	return 1;
}

/* A top-level statement that is one of the loop's two barriers: a block
 * barrier (__syncthreads(), a cg::thread_block's sync(), cg::sync(block))
 * or __syncthreads_count/_and/_or whose result is dropped, with operands
 * the rewrite may drop when it replaces it by __syncthreads(). */
int kp_is_barrier(const kp_node *n)
{
	return n && n->kind == KP_N_CALL &&
	       (n->sync == KP_SYNC_BLOCK || n->sync == KP_SYNC_BLOCK_VALUE) &&
	       sync_operands_pure(n, n);
}

/* How a message names a barrier call: as written when short. */
static const char *call_label(actx *c, const kp_node *n)
{
	if (n->name && !strcmp(n->name, "__syncthreads"))
		return "__syncthreads()";
	if (n->in_main && n->end > n->begin && n->end - n->begin <= 64)
		return kp_arena_printf(&c->f->arena, "'%s'", kp_node_text(c->f, n));
	return kp_arena_printf(&c->f->arena, "'%s()'", n->name ? n->name : "?");
}

static const char *const pipeline_calls[] = {
	"__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior", "memcpy_async",
	"producer_acquire",        "consumer_wait",     "cp_async_wait",
};

/* Whether the macro an inline-asm statement comes from (the identifier its
 * text starts with, `CP_ASYNC_CG(dst, src, 16)`) is #defined in the file
 * with "cp.async" in its body. */
static int asm_macro_is_cp_async(const kp_file *f, const kp_node *n)
{
	const char *t = kp_node_text((kp_file *)f, (kp_node *)n);
	size_t len = 0;
	while (t && kp_is_ident_char(t[len]))
		len++;
	if (!len)
		return 0;
	for (const char *p = f->src; (p = strstr(p, "#define")) != NULL; p += 7) {
		const char *q = p + 7;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, t, len) || kp_is_ident_char(q[len]))
			continue;
		/* the definition, continuation lines included */
		const char *e = q;
		while (*e && (*e != '\n' || e[-1] == '\\'))
			e++;
		for (const char *c = q; c + 8 <= e; c++)
			if (!strncmp(c, "cp.async", 8))
				return 1;
	}
	return 0;
}

/* Whether n holds a barrier of any kind (what kp_scan_calls counts in
 * barriers: a block, grid, cluster or group sync, not a warp's or a
 * tile's), at any depth. */
int kp_contains_barrier(const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_CALL && n->name && n->sync != KP_SYNC_NONE && n->sync != KP_SYNC_PART)
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (kp_contains_barrier(n->kids[i]))
			return 1;
	return 0;
}

void kp_scan_calls(kp_node *n, kp_scan_info *s, int in_if, int in_loop)
{
	if (!n)
		return;
	if (n->kind == KP_N_CALL && n->sync == KP_SYNC_PART) {
		/* a warp, a tile or a coalesced group: not the block's barrier,
		 * and not counted as one */
		if (!s->first_part_sync)
			s->first_part_sync = n;
	} else if (n->kind == KP_N_CALL && n->name) {
		if (n->sync != KP_SYNC_NONE) {
			s->barriers++;
			if (n->sync == KP_SYNC_OTHER && !s->first_other_sync)
				s->first_other_sync = n;
			if (in_if || in_loop) {
				s->nested_barriers++;
				if (in_if)
					s->divergent_barriers++;
				if (!s->first_barrier_nested)
					s->first_barrier_nested = n;
			}
		} else if (!strncmp(n->name, "atomic", 6) || !strncmp(n->name, "__atomic", 8)) {
			s->atomics++;
			if (!s->first_atomic)
				s->first_atomic = n;
		} else if (!strncmp(n->name, "__threadfence", 13)) {
			s->fences++;
			if (!s->first_fence)
				s->first_fence = n;
		} else {
			for (size_t i = 0; i < KP_ARRAY_LEN(pipeline_calls); i++)
				if (!strcmp(n->name, pipeline_calls[i])) {
					s->pipeline++;
					if (!s->first_pipeline)
						s->first_pipeline = n;
				}
		}
	}
	if (n->kind == KP_N_ASM) {
		s->asm_stmt++;
		if (n->in_main && (strstr(kp_node_text(s->c->f, n), "cp.async") ||
				   (n->from_macro && asm_macro_is_cp_async(s->c->f, n)))) {
			s->pipeline++;
			if (!s->first_pipeline)
				s->first_pipeline = n;
		}
	}
	int child_if = in_if, child_loop = in_loop;
	if (n->kind == KP_N_IF || n->kind == KP_N_CONDOP || n->kind == KP_N_SWITCH)
		child_if = 1;
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO)
		child_loop = 1;
	if (n->kind == KP_N_BINOP && n->op && (n->opk == KP_OP_LAND || n->opk == KP_OP_LOR))
		child_if = 1;
	for (int i = 0; i < n->nkids; i++)
		kp_scan_calls(n->kids[i], s, child_if, child_loop);
}

/* Does the code after the loop need the loop to end with a barrier?  The
 * pipelined cp.async form's last barrier is at the top of its last
 * iteration: without one after the loop, a thread still computing on the
 * last tile races with what the others do next. */
static int count_enclosing(const kp_node *n, const kp_node *target, int *depth)
{
	if (n == target)
		return 1;
	int is_l = n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO;
	for (int i = 0; i < n->nkids; i++)
		if (n->kids[i] && count_enclosing(n->kids[i], target, depth)) {
			if (is_l)
				(*depth)++;
			return 1;
		}
	return 0;
}

typedef struct {
	unsigned after;
	const kp_node *hit;
} after_walk;

static int find_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	after_walk *w = ud;
	if (w->hit)
		return 0;
	if (n->in_main && n->begin >= w->after) {
		if (n->kind == KP_N_DECLREF && n->decl && n->decl->is_shared)
			w->hit = n;
		else if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC &&
			 n->decl->in_main)
			w->hit = n; /* a helper of this file: it may use shared memory */
		else if (n->kind == KP_N_ASM)
			w->hit = n;
	}
	return 1;
}

void kp_find_exit_barrier(actx *c)
{
	kp_loop *l = c->l;
	int depth = 0;
	if (!c->k->body || !l->node->in_main)
		return;
	count_enclosing(c->k->body, l->node, &depth);
	if (c->k->is_device) {
		l->exit_barrier = 1;
		l->exit_barrier_why = "the loop is in a __device__ function, which its callers may "
				      "call again";
		return;
	}
	if (depth > 0) {
		l->exit_barrier = 1;
		l->exit_barrier_why = "the loop is nested in another loop";
		return;
	}
	after_walk w = {l->node->end, NULL};
	kp_node_walk(c->k->body, NULL, find_after, &w);
	const kp_effect *ge = l->effects && !w.hit ? kp_effects_read_after(l->effects) : NULL;
	if (ge) {
		l->exit_barrier = 1;
		l->exit_barrier_why = kp_arena_printf(
			&c->f->arena,
			"line %d writes global memory that the kernel reads after the loop",
			ge->at ? ge->at->line : l->node->line);
	}
	if (w.hit) {
		l->exit_barrier = 1;
		l->exit_barrier_why =
			kp_arena_printf(&c->f->arena, "line %d after the loop uses %s", w.hit->line,
					w.hit->kind == KP_N_DECLREF ? "shared memory"
					: w.hit->kind == KP_N_ASM   ? "inline assembly"
								    : "a helper function");
	}
}

/* A block barrier in a top-level statement that is not itself one of the
 * loop's barriers (a result used: `int n = __syncthreads_count(p);`, or
 * operands with a side effect), outside conditional code and nested loops
 * (those have their own reasons). */
typedef struct {
	kp_node *hit;
} kept_sync_walk;

static int find_kept_sync(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	kept_sync_walk *w = ud;
	if (w->hit)
		return 0;
	if (n->kind == KP_N_IF || n->kind == KP_N_SWITCH || n->kind == KP_N_CONDOP ||
	    n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO ||
	    (n->kind == KP_N_BINOP && n->op && (n->opk == KP_OP_LAND || n->opk == KP_OP_LOR)))
		return 0;
	if (n->kind == KP_N_CALL && (n->sync == KP_SYNC_BLOCK || n->sync == KP_SYNC_BLOCK_VALUE)) {
		w->hit = n;
		return 0;
	}
	return 1;
}

/* The barriers the rewrite cannot replace by its own __syncthreads():
 * one it does not model (a grid, cluster or thread-group sync ...), one
 * whose result the loop uses, one with side effects in its operands.
 * Returns 1 when there is such a barrier (the reason is added). */
static int unmodelled_barriers(actx *c, const kp_scan_info *si)
{
	kp_loop *l = c->l;
	if (si->first_other_sync) {
		kp_ana_refuse(
			c, si->first_other_sync, "kpipe-extra-barrier",
			"%s is a barrier kpipe does not model (a grid, cluster, thread-group or "
			"split barrier, or an unknown sync()): moving the copies across it could "
			"break what it orders",
			call_label(c, si->first_other_sync));
		return 1;
	}
	for (int i = 0; i < l->nstmts; i++) {
		if (kp_is_barrier(l->stmts[i]))
			continue;
		kept_sync_walk w = {NULL};
		kp_node_walk(l->stmts[i], NULL, find_kept_sync, &w);
		if (!w.hit)
			continue;
		if (w.hit->sync == KP_SYNC_BLOCK_VALUE && w.hit != l->stmts[i])
			kp_ana_refuse(
				c, w.hit, "kpipe-extra-barrier",
				"%s is a barrier whose result the loop uses: the rewrite replaces "
				"the loop's barriers by its own and cannot keep the result",
				call_label(c, w.hit));
		else
			kp_ana_refuse(
				c, w.hit, "kpipe-extra-barrier",
				"%s is a barrier with side effects in its operands: the rewrite "
				"replaces the loop's barriers by its own and would lose them",
				call_label(c, w.hit));
		return 1;
	}
	return 0;
}

/* Whether every barrier after the first top-level one sits in the
 * compute phase of a bottom-form loop (load; sync; compute; sync): between
 * the first top-level barrier and the last, at the top level or in nested
 * loops, none in the load phase or after the closing barrier, and the loop
 * does not start with a barrier (the top form's phases are the other way
 * round).  Needs two top-level barriers at least. */
static int compute_barriers_only(actx *c, int ntop, int last)
{
	kp_loop *l = c->l;
	if (ntop < 2)
		return 0;
	int first = 0;
	while (first < l->nstmts && l->stmts[first]->kind == KP_N_DECLSTMT)
		first++;
	if (l->bar1 <= first)
		return 0;
	for (int i = 0; i < l->nstmts; i++) {
		if (!kp_is_barrier(l->stmts[i]) && (i < l->bar1 || i > last) &&
		    kp_contains_barrier(l->stmts[i]))
			return 0;
	}
	return 1;
}

/* The top-level barriers (l->bar1, l->bar2) and what the barriers and
 * memory operations of the loop rule out; returns their number. */
int kp_top_barriers(actx *c, const kp_scan_info *si)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	/* the body's statements, null statements apart (`SYNC_THREADS;` of
	 * `#define SYNC_THREADS __syncthreads();` leaves one after the
	 * barrier): an empty statement is no phase's */
	l->stmts = l->body->kids;
	l->nstmts = l->body->nkids;
	for (int i = 0; i < l->body->nkids; i++)
		if (l->body->kids[i]->kind == KP_N_NULLSTMT) {
			kp_node **v =
				kp_arena_alloc(&c->f->arena, sizeof(*v) * (size_t)l->body->nkids);
			l->nstmts = 0;
			for (int j = 0; j < l->body->nkids; j++)
				if (l->body->kids[j]->kind != KP_N_NULLSTMT)
					v[l->nstmts++] = l->body->kids[j];
			l->stmts = v;
			break;
		}
	l->bar1 = l->bar2 = -1;
	int ntop = 0, last = -1;
	for (int i = 0; i < l->nstmts; i++)
		if (kp_is_barrier(l->stmts[i])) {
			if (ntop == 0)
				l->bar1 = i;
			else if (ntop == 1)
				l->bar2 = i;
			last = i;
			ntop++;
		}
	/* more barriers, top-level or in nested loops, inside the compute
	 * phase of a loop that ends with one (load; sync; compute with barriers
	 * of its own; sync): the compute phase is kept as written, barriers
	 * and all, so what they order stays ordered; the closing barrier is
	 * the last */
	int inner_ok = !si->divergent_barriers && compute_barriers_only(c, ntop, last);
	if (inner_ok && ntop > 2)
		l->bar2 = last;
	if (si->divergent_barriers)
		kp_ana_refuse(c, si->first_barrier_nested, "kpipe-divergent-barrier",
			      "%s inside conditional code: barriers must sit in block-uniform "
			      "control flow",
			      call_label(c, si->first_barrier_nested));
	else if (si->nested_barriers && !inner_ok)
		kp_ana_refuse(
			c, si->first_barrier_nested, "kpipe-extra-barrier",
			"a barrier inside a nested loop of the K-loop%s: the copies would move "
			"across it",
			ntop >= 2 ? " outside its compute phase" : "");
	int unmodelled = unmodelled_barriers(c, si);
	int odd = (si->nested_barriers && !inner_ok) || unmodelled;
	if (inner_ok)
		ntop = 2;
	/* a warp's or a tile's sync where a block barrier is missing */
	const char *part =
		si->first_part_sync
			? kp_arena_printf(&c->f->arena,
					  " (%s on line %d synchronises only part of the block)",
					  call_label(c, si->first_part_sync),
					  si->first_part_sync->line)
			: "";
	if (si->barriers == 0) {
		kp_ana_refuse(
			c, n, "kpipe-no-barrier",
			"no __syncthreads() separates the tile loads from the compute phase%s",
			part);
		return 0;
	}
	if (ntop == 1 && !odd)
		/* one of the two barriers is missing: either the compute reads
		 * tiles other threads may still be writing, or the next copy
		 * overwrites tiles other threads may still be reading */
		kp_ana_refuse(
			c, n, "kpipe-no-barrier",
			"only one __syncthreads() in the loop: the tile loads and the compute phase "
			"need one barrier between them and another before the next loads%s",
			part);
	else if (ntop != 2 && !odd)
		kp_ana_refuse(
			c, n, "kpipe-loop-shape",
			"expected two top-level barriers (load; sync; compute; sync), found %d",
			ntop);
	/* with a barrier of its own in place of one of the two, the phases
	 * cannot be told apart: nothing more to say about them */
	if (ntop < 1 || (unmodelled && ntop != 2))
		return 0;
	if (si->atomics)
		kp_ana_refuse(
			c, si->first_atomic, "kpipe-memory-order",
			"'%s' in the loop: atomics order memory that pipelining would reorder",
			si->first_atomic->name);
	if (si->fences)
		kp_ana_refuse(
			c, si->first_fence, "kpipe-memory-order",
			"'%s' in the loop: a fence orders memory that pipelining would reorder",
			si->first_fence->name);
	return ntop;
}
