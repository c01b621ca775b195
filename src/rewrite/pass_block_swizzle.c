/*
 * pass_block_swizzle.c - `rewrite --block-swizzle[=G]` (issue 35): which
 * output tile each block computes is remapped so that the blocks the GPU
 * runs at one time share A and B tiles in L2.  At the kernel's entry kpipe
 * declares the remapped coordinates and every blockIdx.x / blockIdx.y of
 * the kernel's body reads them instead.  The grid and the launches are
 * unchanged: the remap is a permutation of the grid's (x, y) blocks,
 * Triton's grouped ordering.  With the linear id
 *
 *   id = blockIdx.y * gridDim.x + blockIdx.x     (the order blocks start in)
 *
 * the blocks come in groups of G rows of blocks (G * gridDim.x ids); the
 * last group has h = min(gridDim.y - y0, G) rows (y0 its first row), and
 * within a group the ids run down a column of h blocks, then the next
 * column:
 *
 *   y = y0 + (id % (G * gridDim.x)) % h,  x = (id % (G * gridDim.x)) / h
 *
 * A bijection of the whole grid for every gridDim and G >= 1 (a group's
 * ids are h * gridDim.x, each (x, y) of its rows once).  The group runs
 * along y: blockIdx.y usually picks the rows of A (and C), blockIdx.x the
 * columns of B, so blocks started together read G tiles of A and few of B.
 * Where the kernel has them the other way round the blocks started
 * together still cover a compact G-by-n rectangle of tiles, which shares
 * as much.  blockIdx.z is left alone (each z-slice is permuted alike).
 *
 * Legality, denied by default: a permutation of which block computes which
 * tile is safe when the blocks do not communicate and nothing depends on
 * their order.  The kernel, and every __device__ function it calls (their
 * bodies, read through kp_decl.fn, to any depth), must use no atomic on
 * memory other than __shared__ (the effects of the call, effects.h), no
 * __threadfence / __threadfence_system, no grid or cluster barrier, no
 * grid or cluster group of cooperative groups, no inline PTX that orders
 * or changes memory for other blocks (atom / red outside shared memory,
 * membar / fence beyond the block, a .gpu or .sys scope) or reads the
 * block coordinates (%ctaid, %nctaid, %cluster...), no volatile memory
 * outside shared memory, no loop that reads gridDim.x or gridDim.y (a
 * persistent kernel striding over tiles by the grid); a called function
 * must not read blockIdx (only the kernel's body is rewritten), every
 * callee must be one kpipe reads (or a CUDA or system function), and
 * every blockIdx.x / .y of the body must be spelled in the file (not by a
 * macro).  A kernel that reads no blockIdx.y (or no blockIdx.x) runs on a
 * 1-D grid as far as the remap goes: nothing to gain, a remark.  That the
 * blocks' writes are disjoint is what the CPU verifier checks by running
 * the rewrite against the original (verify.h): a remap that was not a
 * permutation would leave a tile unwritten.
 */
#define _GNU_SOURCE
#include "effects.h"
#include "pass.h"

#include <stdlib.h>
#include <string.h>

/* How deep the walk follows called functions. */
#define SWZ_DEPTH 8

typedef struct {
	kp_pass_ctx *c;
	const kp_kernel *k;   /* the kernel */
	const kp_kernel *cur; /* the function being walked (k or a callee) */
	const char *callee;   /* its name when it is a callee, else NULL */
	int depth;
	/* the first reason to refuse, and where */
	const char *why;
	int line, col;
	/* the kernel body's blockIdx.x (0) and .y (1) reads, to edit */
	const kp_node **reads[2];
	int nreads[2];
	int reads_z;
	const kp_decl *seen[64]; /* callees already walked */
	int nseen;
} swz_walk;

static void refuse(swz_walk *w, const kp_node *n, const char *why)
{
	if (w->why)
		return;
	w->why = why;
	w->line = n ? n->line : w->k->line;
	w->col = n ? n->col : w->k->col;
}

static const char *in_callee(swz_walk *w)
{
	return w->callee
		       ? kp_arena_printf(&w->c->f->arena, " in the called function '%s'", w->callee)
		       : "";
}

static void add_read(swz_walk *w, int comp, const kp_node *n)
{
	w->reads[comp] = kp_xrealloc(w->reads[comp],
				     sizeof(*w->reads[comp]) * (size_t)(w->nreads[comp] + 1));
	w->reads[comp][w->nreads[comp]++] = n;
}

/* A member of blockIdx or gridDim (n is one, name its builtin). */
static void builtin_member(swz_walk *w, const kp_node *n, const char *name, int in_loop)
{
	kp_file *f = w->c->f;
	int comp = -1;
	kp_node_builtin(f, n, 1, &comp);
	if (!strcmp(name, "gridDim")) {
		if (in_loop && comp != 2)
			refuse(w, n,
			       kp_arena_printf(
				       &f->arena,
				       "a loop%s reads gridDim%s at line %d: a persistent kernel "
				       "whose blocks stride over the tiles by the grid visits them in "
				       "its own order, which the remap of the block coordinates does "
				       "not change (and which kpipe does not prove independent of it)",
				       in_callee(w),
				       comp == 0   ? ".x"
				       : comp == 1 ? ".y"
						   : "",
				       n->line));
		return;
	}
	if (w->cur != w->k) {
		refuse(w, n,
		       kp_arena_printf(
			       &f->arena,
			       "the called function '%s' reads blockIdx at line %d: kpipe "
			       "rewrites the kernel's body only, so it would see the "
			       "hardware's coordinates where the kernel sees the remapped ones",
			       w->callee, n->line));
		return;
	}
	int bycomp = -1;
	kp_node_builtin(f, n, 0, &bycomp);
	if (comp == 2) {
		w->reads_z++;
		return;
	}
	if (bycomp < 0 && n->in_main && !n->from_macro) {
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "blockIdx is used whole at line %d (not one of its "
				       "coordinates): kpipe cannot remap it",
				       n->line));
		return;
	}
	if (bycomp < 0 || !n->in_main || n->from_macro) {
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "blockIdx%s at line %d is written by a macro: kpipe cannot "
				       "replace it with the remapped coordinate",
				       comp == 0   ? ".x"
				       : comp == 1 ? ".y"
						   : "",
				       n->line));
		return;
	}
	add_read(w, bycomp, n);
}

/* The name of a call's callee as written, "" when unknown. */
static const char *callee_name(const kp_node *n)
{
	const char *nm = kp_call_name(n);
	const char *q = strrchr(nm, ':');
	return q ? q + 1 : nm;
}

static int one_of(const char *nm, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nm, list[i]))
			return 1;
	return 0;
}

/* An atomic: its writes must all go to shared memory. */
static void atomic_call(swz_walk *w, const kp_node *n, const char *nm)
{
	kp_file *f = w->c->f;
	kp_effect_set rd = {0}, wr = {0};
	kp_effects_of_node(w->cur->home ? w->cur->home : f, w->cur, n, &rd, &wr);
	for (int i = 0; i < wr.n; i++)
		if (wr.v[i].loc.kind != KP_LOC_TILE && wr.v[i].loc.kind != KP_LOC_LOCAL) {
			refuse(w, n,
			       kp_arena_printf(
				       &f->arena,
				       "%s at line %d%s writes %s, not shared memory: blocks "
				       "that meet in global memory (a counter, a flag, a "
				       "reduction) may depend on which block computes which "
				       "tile",
				       nm, n->line, in_callee(w), kp_loc_text(f, &wr.v[i].loc)));
			return;
		}
	if (!wr.n)
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "%s at line %d%s: kpipe cannot tell which memory it changes",
				       nm, n->line, in_callee(w)));
}

static void walk(swz_walk *w, const kp_node *n, int in_loop);

/* A call: atomics, fences, grid-wide cooperative groups, barriers other
 * than the block's, and the callee's body. */
static void visit_call(swz_walk *w, const kp_node *n, int in_loop)
{
	static const char *const fences[] = {"__threadfence", "__threadfence_system"};
	static const char *const grid_cg[] = {"this_grid",    "this_multi_grid", "this_cluster",
					      "grid_group",   "cluster_group",   "group_index",
					      "block_index",  "block_rank",      "dim_blocks",
					      "num_blocks",   "dim_clusters",    "cluster_index",
					      "num_clusters", "sync_grids"};
	kp_file *f = w->c->f;
	const char *nm = callee_name(n);
	if (n->sync == KP_SYNC_OTHER) {
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "'%s' at line %d%s is a barrier beyond the block (a grid, "
				       "cluster or group barrier): the blocks communicate",
				       *nm ? nm : "the call", n->line, in_callee(w)));
		return;
	}
	if (n->sync != KP_SYNC_NONE)
		return;
	if (one_of(nm, fences, KP_ARRAY_LEN(fences))) {
		refuse(w, n,
		       kp_arena_printf(
			       &f->arena,
			       "%s at line %d%s orders this block's writes for other blocks: "
			       "the blocks communicate, and the order they run in may matter",
			       nm, n->line, in_callee(w)));
		return;
	}
	if (one_of(nm, grid_cg, KP_ARRAY_LEN(grid_cg))) {
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "'%s' at line %d%s reads the grid or a cluster through "
				       "cooperative groups, which the remap does not rewrite",
				       nm, n->line, in_callee(w)));
		return;
	}
	if (!strncmp(nm, "atomic", 6) || !strncmp(nm, "__nv_atomic", 11)) {
		atomic_call(w, n, nm);
		return;
	}
	const kp_decl *d = n->decl && n->decl->tmpl ? n->decl->tmpl : n->decl;
	/* libcu++'s atomics and fences (cuda::atomic_ref's fetch_add,
	 * cuda::atomic_thread_fence), which the toolkit declares: any call
	 * whose name or whose declaration's USR says atomic or fence */
	if ((strstr(nm, "atomic") || strstr(nm, "fence") || !strncmp(nm, "fetch_", 6) ||
	     !strncmp(nm, "compare_exchange", 16) || (d && d->usr && strstr(d->usr, "atomic"))) &&
	    strcmp(nm, "__threadfence_block")) {
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "'%s' at line %d%s is an atomic operation or a fence kpipe "
				       "does not prove block-local: blocks that meet in memory may "
				       "depend on which block computes which tile",
				       nm, n->line, in_callee(w)));
		return;
	}
	if (d && d->kind == KP_D_FUNC && d->fn && d->fn->body) {
		for (int i = 0; i < w->nseen; i++)
			if (w->seen[i] == d)
				return;
		if (w->depth >= SWZ_DEPTH || w->nseen == (int)KP_ARRAY_LEN(w->seen)) {
			refuse(w, n,
			       kp_arena_printf(
				       &f->arena,
				       "the calls reach deeper than kpipe reads (%d functions) "
				       "at '%s', line %d",
				       SWZ_DEPTH, nm, n->line));
			return;
		}
		w->seen[w->nseen++] = d;
		swz_walk sub = *w;
		sub.cur = d->fn;
		sub.callee = d->name;
		sub.depth = w->depth + 1;
		walk(&sub, d->fn->body, in_loop);
		w->why = sub.why;
		w->line = sub.line;
		w->col = sub.col;
		w->nseen = sub.nseen;
		memcpy(w->seen, sub.seen, sizeof(w->seen));
		return;
	}
	if (d && d->in_system)
		return; /* CUDA's and the system's own (math, intrinsics, wmma) */
	if (!d && n->lookup_system)
		return; /* a dependent call whose candidates are all the toolkit's */
	refuse(w, n,
	       kp_arena_printf(&f->arena,
			       "the call to '%s' at line %d%s: kpipe does not read its body (%s), "
			       "so it cannot tell that it neither reads blockIdx nor meets other "
			       "blocks in memory",
			       *nm ? nm : "?", n->line, in_callee(w),
			       d && d->fn_why ? d->fn_why : "no definition it reads"));
}

/* One PTX instruction of an asm statement. */
typedef struct {
	const char *why;
	char op[48];
} asm_scan;

static void asm_opcode(const char *op, size_t n, void *ctx)
{
	asm_scan *s = ctx;
	if (s->why)
		return;
	char o[48];
	size_t m = n < sizeof(o) - 1 ? n : sizeof(o) - 1;
	memcpy(o, op, m);
	o[m] = 0;
	size_t h = strcspn(o, ".");
	int shared = strstr(o, ".shared") != NULL;
	int wide = strstr(o, ".gpu") || strstr(o, ".sys") || strstr(o, ".gl") ||
		   strstr(o, ".cluster") || strstr(o, "::cluster");
	if ((h == 4 && !strncmp(o, "atom", 4)) || (h == 3 && !strncmp(o, "red", 3)))
		s->why = shared && !strstr(o, "::cluster") ? NULL
							   : "an atomic outside shared memory";
	else if ((h == 5 && !strncmp(o, "membar", 5)) || (h == 6 && !strncmp(o, "membar", 6)) ||
		 (h == 5 && !strncmp(o, "fence", 5)))
		s->why = wide || !strstr(o, ".cta")
				 ? (strstr(o, ".proxy") ? NULL : "a memory fence beyond the block")
				 : NULL;
	else if ((h == 4 && !strncmp(o, "mapa", 4)) || (h == 10 && !strncmp(o, "getctarank", 10)) ||
		 (h == 8 && !strncmp(o, "multimem", 8)) ||
		 ((h == 7 || h == 3) && (!strncmp(o, "barrier", 7) || !strncmp(o, "bar", 3)) &&
		  strstr(o, "cluster")))
		s->why = "an instruction between the blocks of a cluster or the GPU";
	else if (wide && (!strncmp(o, "ld", 2) || !strncmp(o, "st", 2)))
		s->why = "a load or store ordered for other blocks (a .gpu, .sys or cluster scope)";
	if (s->why)
		memcpy(s->op, o, m + 1);
}

static void visit_asm(swz_walk *w, const kp_node *n)
{
	kp_file *f = w->c->f;
	const char *t = n->asm_text;
	if (!t) {
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "inline assembly at line %d%s that kpipe cannot read",
				       n->line, in_callee(w)));
		return;
	}
	if (strstr(t, "%ctaid") || strstr(t, "%nctaid") || strstr(t, "%cluster") ||
	    strstr(t, "%nclusterid")) {
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "inline assembly at line %d%s reads the block's or the "
				       "cluster's coordinates (%%ctaid, %%nctaid, %%cluster...), "
				       "which the remap does not rewrite",
				       n->line, in_callee(w)));
		return;
	}
	asm_scan s = {NULL, {0}};
	if (!kp_asm_each_opcode(t, asm_opcode, &s)) {
		refuse(w, n,
		       kp_arena_printf(
			       &f->arena,
			       "inline assembly at line %d%s whose template kpipe cannot read",
			       n->line, in_callee(w)));
		return;
	}
	if (s.why)
		refuse(w, n,
		       kp_arena_printf(&f->arena,
				       "inline assembly at line %d%s: '%s' is %s: the blocks may "
				       "communicate",
				       n->line, in_callee(w), s.op, s.why));
}

static void walk(swz_walk *w, const kp_node *n, int in_loop)
{
	if (!n || w->why)
		return;
	kp_file *f = w->c->f;
	int comp = -1;
	const char *b = kp_node_builtin(f, n, 1, &comp);
	if (b && (!strcmp(b, "blockIdx") || !strcmp(b, "gridDim"))) {
		builtin_member(w, n, b, in_loop);
		return;
	}
	if (b)
		return; /* threadIdx, blockDim */
	switch (n->kind) {
	case KP_N_DECLREF:
		if (n->name && (!strcmp(n->name, "blockIdx") || !strcmp(n->name, "gridDim")) &&
		    w->cur == w->k) {
			refuse(w, n,
			       kp_arena_printf(&f->arena,
					       "%s is used whole at line %d (not one of its "
					       "coordinates): kpipe cannot remap it",
					       n->name, n->line));
			return;
		}
		if (n->name && !strcmp(n->name, "blockIdx")) {
			refuse(w, n,
			       kp_arena_printf(&f->arena,
					       "the called function '%s' reads blockIdx at line %d: "
					       "kpipe rewrites the kernel's body only",
					       w->callee, n->line));
			return;
		}
		if (n->decl && KP_TY_ANY_VOLATILE(n->decl->ty) && !n->decl->is_shared)
			refuse(w, n,
			       kp_arena_printf(&f->arena,
					       "'%s' at line %d%s is volatile memory outside shared "
					       "memory: blocks may signal each other through it",
					       n->name, n->line, in_callee(w)));
		return;
	case KP_N_CALL:
		/* the arguments first: a blockIdx used whole is the reason to
		 * give, not the conversion it is handed to */
		for (int i = 0; i < n->nkids && !w->why; i++)
			walk(w, n->kids[i], in_loop);
		visit_call(w, n, in_loop);
		return;
	case KP_N_ASM: visit_asm(w, n); break;
	case KP_N_FOR:
	case KP_N_WHILE:
	case KP_N_DO: in_loop = 1; break;
	default: break;
	}
	for (int i = 0; i < n->nkids && !w->why; i++)
		walk(w, n->kids[i], in_loop);
}

/* Whether kpipe's own remap is already in k (a rewrite of its output). */
static int already_swizzled(const kp_file *f, const kp_kernel *k)
{
	const char *p = f->src + k->body->begin;
	const char *e = f->src + (k->body->end <= f->len ? k->body->end : f->len);
	size_t n = strlen("kp_swz_");
	for (; p + n <= e; p++)
		if (!memcmp(p, "kp_swz_", n))
			return 1;
	return 0;
}

/* Where the declarations go: after the body's '{' and the rest of its line. */
static unsigned entry_offset(const kp_file *f, const kp_kernel *k)
{
	unsigned q = k->body->begin;
	if (q >= f->len || f->src[q] != '{')
		return 0;
	q++;
	while (q < f->len && (f->src[q] == ' ' || f->src[q] == '\t'))
		q++;
	if (q < f->len && f->src[q] == '\n')
		return q + 1;
	return k->body->begin + 1;
}

/* The indentation of the body's first line at `at` (its statements'),
 * or four spaces when the body starts on the brace's line. */
static const char *body_indent(kp_file *f, const kp_kernel *k, unsigned at)
{
	unsigned e = at;
	if (at == k->body->begin + 1)
		return "    ";
	while (e < f->len && (f->src[e] == ' ' || f->src[e] == '\t'))
		e++;
	if (e == at || e >= f->len || f->src[e] == '\n' || f->src[e] == '}')
		return "    ";
	return kp_range_text(f, at, e);
}

static const char *entry_text(kp_pass_ctx *c, const kp_kernel *k, unsigned at, int g,
			      const char *const *nm)
{
	kp_strbuf s = KP_STRBUF_INIT;
	const char *in = body_indent(c->f, k, at);
	if (!c->o->no_comment)
		kp_strbuf_addf(&s,
			       "%s// kpipe --block-swizzle=%d: blocks started one after another "
			       "compute\n"
			       "%s// the tiles of %d rows of blocks, column by column (a "
			       "permutation of the\n"
			       "%s// grid; the launch is unchanged), so they share A and B "
			       "tiles in L2\n",
			       in, g, in, g, in);
	kp_strbuf_addf(&s,
		       "%sconst unsigned long long %s = (unsigned long long)blockIdx.y * gridDim.x "
		       "+ blockIdx.x;\n"
		       "%sconst unsigned long long %s = %dull * gridDim.x;\n",
		       in, nm[0], in, nm[1], g);
	kp_strbuf_addf(&s, "%sconst unsigned int %s = (unsigned int)(%s / %s) * %du;\n", in, nm[2],
		       nm[0], nm[1], g);
	kp_strbuf_addf(&s,
		       "%sconst unsigned int %s = gridDim.y - %s < %du ? gridDim.y - %s : %du;\n",
		       in, nm[3], nm[2], g, nm[2], g);
	kp_strbuf_addf(&s, "%sconst unsigned int %s = %s + (unsigned int)(%s %% %s %% %s);\n", in,
		       nm[5], nm[2], nm[0], nm[1], nm[3]);
	kp_strbuf_addf(&s, "%sconst unsigned int %s = (unsigned int)(%s %% %s / %s);\n", in, nm[4],
		       nm[0], nm[1], nm[3]);
	const char *t = kp_arena_strdup(&c->f->arena, kp_strbuf_str(&s));
	kp_strbuf_release(&s);
	return t;
}

static void swizzle_kernel(kp_pass_ctx *c, const kp_kernel *k)
{
	kp_file *f = c->f;
	int g = c->o->block_swizzle;
	if (already_swizzled(f, k)) {
		kp_pass_diag(c, k->line, k->col, "remark", "kpipe-block-swizzle-refused",
			     "the kernel's blocks are already remapped (kpipe's own output): left "
			     "as it is");
		return;
	}
	swz_walk w;
	memset(&w, 0, sizeof(w));
	w.c = c;
	w.k = k;
	w.cur = k;
	if (k->begin < k->body->begin &&
	    memmem(f->src + k->begin, k->body->begin - k->begin, "__cluster_dims__", 16) != NULL)
		refuse(&w, NULL,
		       "the kernel has __cluster_dims__: the blocks of a cluster share memory and "
		       "are grouped by their coordinates, which the remap would change");
	walk(&w, k->body, 0);
	unsigned at = entry_offset(f, k);
	if (!w.why && !at)
		refuse(&w, NULL,
		       "the kernel's body does not start where kpipe can declare the "
		       "remapped coordinates");
	if (w.why) {
		kp_pass_diag(
			c, w.line, w.col, "warning", "kpipe-block-swizzle-refused",
			kp_arena_printf(&f->arena,
					"blocks of kernel '%s' not remapped (--block-swizzle): %s",
					k->name, w.why));
	} else if (!w.nreads[0] || !w.nreads[1]) {
		kp_pass_diag(
			c, k->line, k->col, "remark", "kpipe-block-swizzle-refused",
			kp_arena_printf(&f->arena,
					"blocks of kernel '%s' not remapped (--block-swizzle): it "
					"reads no blockIdx.%c, so its tiles form one %s of blocks "
					"as far as the remap goes, which no order of the blocks "
					"makes share more",
					k->name, w.nreads[0] ? 'y' : 'x',
					w.nreads[0] ? "row" : "column"));
	} else {
		static const char *const base[] = {"kp_swz_id", "kp_swz_n",  "kp_swz_y0",
						   "kp_swz_h",  "kp_swz_bx", "kp_swz_by"};
		const char *nm[6];
		for (int i = 0; i < 6; i++)
			nm[i] = kp_fresh_name(f, base[i]);
		int d = kp_pass_diag(
			c, k->line, k->col, "note", "kpipe-block-swizzled",
			kp_arena_printf(
				&f->arena,
				"blocks of kernel '%s' remapped in groups of %d rows of "
				"blocks (--block-swizzle=%d): %d read%s of blockIdx.x and %d of "
				"blockIdx.y now read %s and %s; the grid and the launches are "
				"unchanged",
				k->name, g, g, w.nreads[0], w.nreads[0] == 1 ? "" : "s",
				w.nreads[1], nm[4], nm[5]));
		kp_pass_edit(c, at, 0, entry_text(c, k, at, g, nm), d);
		for (int comp = 0; comp < 2; comp++)
			for (int i = 0; i < w.nreads[comp]; i++)
				kp_pass_edit(c, w.reads[comp][i]->begin,
					     w.reads[comp][i]->end - w.reads[comp][i]->begin,
					     nm[4 + comp], d);
	}
	free(w.reads[0]);
	free(w.reads[1]);
}

static void block_swizzle_run(kp_pass_ctx *c)
{
	for (int i = 0; i < c->f->nkernels; i++) {
		const kp_kernel *k = c->f->kernels[i];
		if (k->error || k->is_device || !k->body ||
		    (c->o->kernel && !kp_kernel_matches(k, c->o->kernel)))
			continue;
		swizzle_kernel(c, k);
	}
}

const kp_pass kp_pass_block_swizzle = {
	"block-swizzle",
	"remaps the blocks of 2-D grids in groups of rows so that they share tiles in L2",
	block_swizzle_run,
};
