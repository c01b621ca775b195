/*
 * bulk.c - the bulk-copy transform for sm_90 and newer: shared tiles become
 * [S][R][C], one "full" mbarrier per stage, and the lanes 0 of the block's
 * warps fill a stage with cp.async.bulk copies (one per tile row, or one
 * per tile when the rows are adjacent in global memory) that complete the
 * barrier's transaction count; consumers wait on the stage's phase.
 *
 *   before:    thread 0 initialises S barriers (count 1), fences, barrier
 *   prologue:  if (tile t exists) FILL(t, slot t)              (t < S-1)
 *   loop:      wait(full[i % S], its phase); __syncthreads();
 *              if (tile i+S-1 exists) FILL(i+S-1, slot (i+S-1) % S)
 *              compute slot i % S
 *   FILL:      if (the block is R x C threads, every row 16-byte aligned,
 *                  every guard true for the whole tile)
 *                  thread 0: arrive.expect_tx(bytes of the stage); bulk copies
 *              else
 *                  the original copies (plain loads, guards kept) into the
 *                  slot; thread 0: arrive
 *
 * The __syncthreads() after the wait releases the slot refilled next (its
 * last readers computed in the previous iteration).  A per-stage "empty"
 * mbarrier release instead was built and measured: it was slower, and
 * compute-sanitizer racecheck reported hazards between the bulk writes and
 * the compute's reads on all six bulk samples, so it is not offered.
 *
 * Applies when every copy is `TILE[ty][tx] = P[e]`, or guarded
 * (`= g ? P[e] : 0`, `if (g) ... else ... = 0`), for a two-dimensional
 * tile, ty / tx threadIdx.y / .x (or locals holding them), e affine in
 * them (tx with coefficient 1) and otherwise the same for every thread,
 * rows a multiple of 16 bytes, any element size; a guard must be a
 * conjunction of comparisons of signed values affine in the thread
 * indices (or free of them), so that its corners decide the whole tile.
 * The block shape, the alignment of each tile's rows and the guards are
 * checked at run time, per tile, and a tile that fails takes the plain
 * copies.  Copy loops and vector copies are refused
 * (kpipe-bulk-unavailable).  The tensor-map form (tma) is the second
 * descriptor below: one cp.async.bulk.tensor per tile through maps a host
 * launcher written after the kernel encodes (docs/design.md, "The
 * tensor-map form").
 *
 * Which copies have a bulk form (the index analysis: affine indices, guards
 * decided at a tile's corners) is src/analysis/bulk_index.c; this file
 * renders the rewrite.
 */
#include "host_edits.h"
#include "transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk_index.h"

extern const kp_transform kp_transform_bulk;

/* Why the copies are row copies and not one tensor-map copy per tile. */
#define BULK_TENSOR_NOTE                                                                           \
	"one cp.async.bulk per contiguous row; one copy per tile is --variant tma (cp.async.bulk." \
	"tensor, TMA), where the kernel is launched in its own file"

static void ring_facts(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *x, int tma);

static void bulk_facts(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *x)
{
	ring_facts(f, l, arena, x, 0);
}

static int bulk_match(const kp_file *f, const kp_loop *l, const kp_arch *a, kp_arena *arena,
		      const char **why_not)
{
	(void)a;
	return kp_transform_match_facts(&kp_transform_bulk, f, l, arena, why_not,
					"the copies have no bulk form");
}

/* ---- the tensor-map form (--variant tma): the analysis ---- */

extern const kp_transform kp_transform_tma;

/* Whole-word uses of `name` in the main file's code (comments, string and
 * character literals skipped). */
static int name_uses(const kp_file *f, const char *name)
{
	const char *s = f->src;
	size_t len = f->len, n = strlen(name), i = 0;
	int count = 0;
	while (i < len) {
		char ch = s[i];
		if (ch == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
		} else if (ch == '/' && i + 1 < len && s[i + 1] == '*') {
			i += 2;
			while (i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'))
				i++;
			i += 2;
		} else if (ch == '"' || ch == '\'') {
			for (i++; i < len && s[i] != ch && s[i] != '\n'; i++)
				i += s[i] == '\\';
			i++;
		} else if (ch == '_' || (unsigned)((ch | 32) - 'a') < 26u) {
			size_t b = i;
			while (i < len && (s[i] == '_' || (unsigned)((s[i] | 32) - 'a') < 26u ||
					   (unsigned)(s[i] - '0') < 10u))
				i++;
			count += i - b == n && !strncmp(s + b, name, n);
		} else if ((unsigned)(ch - '0') < 10u) {
			while (i < len && (s[i] == '_' || (unsigned)((s[i] | 32) - 'a') < 26u ||
					   (unsigned)(s[i] - '0') < 10u || s[i] == '.'))
				i++;
		} else
			i++;
	}
	return count;
}

/* Why the kernel's launches cannot make and pass tensor maps, or NULL:
 * the launcher kpipe writes replaces every launch, so the kernel must be
 * a __global__ function of the main file, no template, every parameter
 * named, launched in this file only by <<<>>> launches kpipe can edit,
 * and named nowhere else (a declaration or a use of its address would
 * keep the old parameters). */
static const char *tma_kernel_problem(const kp_file *f, const kp_loop *l, kp_arena *ar)
{
	const kp_kernel *k = l->kernel;
	if (k->is_device)
		return "the loop is in a __device__ function: the tensor maps would be its "
		       "callers' to pass";
	if (f->abs_path || !l->node->in_main)
		return "the kernel is in a header: its launches, which must make the tensor maps, "
		       "are in other files";
	if (k->is_template)
		return "the kernel is a template (not done for the tensor-map form)";
	if (k->nparams <= 0)
		return "the kernel has no parameters";
	for (int i = 0; i < k->nparams; i++)
		if (!k->params[i]->name || !k->params[i]->name[0] || !k->params[i]->in_main)
			return "a parameter of the kernel has no name the launcher can pass on";
	int n = 0;
	for (int i = 0; i < f->nlaunches; i++) {
		const kp_launch *x = &f->launches[i];
		if (x->kernel != k)
			continue;
		const char *why = kp_launch_uneditable(x, ar);
		if (why)
			return why;
		n++;
	}
	if (!n)
		return kp_arena_printf(ar,
				       "'%s' is not launched in this file: the host code that must "
				       "make the tensor maps and pass them is elsewhere",
				       k->name);
	int uses = name_uses(f, k->name);
	if (uses != n + 1)
		return kp_arena_printf(
			ar,
			"'%s' is named %d time%s in this file besides its definition "
			"and its %d launch%s (a declaration, or its address): each "
			"would need the new parameters",
			k->name, uses - n - 1, uses - n - 1 == 1 ? "" : "s", n, n == 1 ? "" : "es");
	return NULL;
}

/* The row stride of a copy's reads in elements, as text the kernel and
 * its launcher both evaluate (a constant, or a constant times an integer
 * parameter the kernel never changes), or NULL with *why. */
static const char *tma_stride(const kp_loop *l, kp_arena *ar, kp_bulk_copy *c, const char **why)
{
	const kp_lin *e = &c->e;
	long long k = e->cyn ? e->cyk : e->cy, v;
	if (!e->ty || e->cyn_bad || (!e->cyn && e->cy_sym)) {
		*why = "has no row stride kpipe can name (threadIdx.y times a constant, or times "
		       "one value)";
		return NULL;
	}
	const kp_node *n = e->cyn ? kp_lin_strip_all(e->cyn) : NULL;
	if (n && kp_eval(n, l->kernel, NULL, &v) == 0) {
		k *= v;
		n = NULL;
	}
	if (k <= 0) {
		*why = "has a row stride that is not positive";
		return NULL;
	}
	c->ldk = k;
	c->ldd = NULL;
	if (!n)
		return kp_arena_printf(ar, "%lldLL", k);
	const kp_decl *d = n->kind == KP_N_DECLREF ? n->decl : NULL;
	c->ldd = d;
	if (!d || d->kind != KP_D_PARM || !kp_lin_int_type(n) || kp_assigned_in(l->kernel, d)) {
		*why = "has a row stride that is neither a constant nor an integer parameter of "
		       "the kernel it never changes (the launcher computes it)";
		return NULL;
	}
	return k == 1 ? kp_arena_printf(ar, "((long long)(%s))", d->name)
		      : kp_arena_printf(ar, "(%lldLL * (long long)(%s))", k, d->name);
}

/* The row stride of a box copy as text (copy_box.h: ldk times the
 * parameter ldd), the stride's fields of c set. */
static const char *box_stride(kp_arena *ar, kp_bulk_copy *c)
{
	c->ldk = c->box->ldk;
	c->ldd = c->box->ldd;
	if (!c->ldd)
		return kp_arena_printf(ar, "%lldLL", c->ldk);
	return c->ldk == 1
		       ? kp_arena_printf(ar, "((long long)(%s))", c->ldd->name)
		       : kp_arena_printf(ar, "(%lldLL * (long long)(%s))", c->ldk, c->ldd->name);
}

/* Why the loop has no tensor-map form, or NULL (copies[] filled, their
 * strides too): the bulk form's copies, each a box of a row-major matrix
 * whose pointer is a parameter of the kernel, 1- to 8-byte elements, at
 * most 256 x 256, a stage a multiple of 128 bytes (where a tensor copy
 * writes), and launches kpipe can give the maps to. */
static const char *tma_problem(const kp_file *f, const kp_loop *l, kp_arena *ar, kp_bulk_copy *cp)
{
	const char *why = kp_bulk_plain_copies_problem(l, ar);
	if (!why)
		why = kp_bulk_problem(f, l, ar, cp, 1);
	if (!why)
		why = tma_kernel_problem(f, l, ar);
	for (int i = 0; i < l->nloads && !why; i++) {
		kp_bulk_copy *c = &cp[i];
		const kp_decl *t = c->tile;
		const kp_node *b = kp_lin_strip_all(c->base);
		const kp_decl *d = b && b->kind == KP_N_DECLREF ? b->decl : NULL;
		const char *w = NULL;
		long long stage = t->dims[0] * t->dims[1] * t->elem_size;
		if (!d || d->kind != KP_D_PARM || !d->is_pointer || kp_assigned_in(l->kernel, d))
			why = kp_arena_printf(ar,
					      "line %d: the copy does not read through a pointer "
					      "parameter of the kernel that it never changes (the "
					      "launcher makes the tensor map from the argument)",
					      l->loads[i].line);
		else if (t->elem_size != 1 && t->elem_size != 2 && t->elem_size != 4 &&
			 t->elem_size != 8)
			why = kp_arena_printf(
				ar,
				"'%s' has %lld-byte elements; a tensor map's are 1 to 8 "
				"bytes",
				t->name, t->elem_size);
		else if (t->dims[0] > 256 || t->dims[1] > 256)
			why = kp_arena_printf(ar,
					      "'%s' is over 256 elements on a side (a tensor "
					      "copy's box is at most 256 x 256)",
					      t->name);
		else if (stage % 128)
			why = kp_arena_printf(
				ar,
				"a stage of '%s' is %lld bytes, not a multiple of 128 "
				"(the alignment a tensor copy writes at)",
				t->name, stage);
		else if (c->box)
			cp[i].ld = box_stride(ar, c);
		else if (!(cp[i].ld = tma_stride(l, ar, c, &w)))
			why = kp_arena_printf(ar, "line %d: the copy's read %s", l->loads[i].line,
					      w);
	}
	return why;
}

#define TMA_NOTE                                                                                   \
	"one cp.async.bulk.tensor per tile through a CUtensorMap that a launcher kpipe writes "    \
	"makes on the host; every launch of the kernel in the file calls it"

/* The facts of the bulk form (tma 0) or the tensor-map form: every copy
 * has the form (tma_problem, else kp_bulk_plain_copies_problem and kp_bulk_problem),
 * and what the written form is. */
static void ring_facts(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *x, int tma)
{
	x->ok = l->nloads > 0;
	x->why_not = NULL;
	x->regs = 0;
	x->regs_inst = NULL;
	x->note = NULL;
	if (!x->ok)
		return;
	kp_bulk_copy *copies = kp_xcalloc((size_t)l->nloads + 1, sizeof(*copies));
	const char *why = tma ? tma_problem(f, l, arena, copies)
			      : kp_bulk_plain_copies_problem(l, arena);
	if (!why && !tma)
		why = kp_bulk_problem(f, l, arena, copies, 0);
	free(copies);
	if (why) {
		x->ok = 0;
		x->why_not = why;
	} else
		x->note = tma ? TMA_NOTE : BULK_TENSOR_NOTE;
}

static void tma_facts(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *x)
{
	ring_facts(f, l, arena, x, 1);
}

static int tma_match(const kp_file *f, const kp_loop *l, const kp_arch *a, kp_arena *arena,
		     const char **why_not)
{
	(void)a;
	return kp_transform_match_facts(&kp_transform_tma, f, l, arena, why_not,
					"the copies have no tensor-map form");
}

static int bulk_buffers(int stages) { return stages; }
/* the full mbarriers, one 8-byte word per stage, static beside the tiles
 * (also when the tiles move to dynamic shared memory) */
static long long bulk_own_smem(int stages) { return 8LL * stages; }

/* ---- rendering ---- */

typedef struct {
	const kp_loop *l;
	kp_subs *s;
	kp_file *f;
	const char *tx, *ty; /* what threadIdx.x / .y become */
	int depth;
	const kp_decl *subd; /* a parameter whose uses become subv, or NULL */
	const char *subv;
} rctx;

static char *render_index(rctx *r, const kp_node *n, int ahead);

/* threadIdx.x / .y become r->tx / r->ty; a local holding a thread index
 * becomes its initialiser, so rendered. */
static int walk_render(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	rctx *r = ud;
	char comp;
	const char *b = kp_lin_builtin_of(r->f, n, &comp);
	if (b && !strcmp(b, "threadIdx")) {
		kp_subs_add(r->s, n->begin, n->end - n->begin, comp == 'x' ? r->tx : r->ty);
		return 0;
	}
	const kp_decl *d = n->kind == KP_N_DECLREF ? n->decl : NULL;
	if (d && d == r->subd && n->name_editable) {
		kp_subs_add(r->s, n->name_off, (unsigned)strlen(n->name), r->subv);
		return 0;
	}
	if (!d || d->kind != KP_D_VAR || !d->init || !n->name_editable || kp_lin_induct_of(r->l, d))
		return 1;
	kp_lin_ctx c = {r->f, r->l, &r->f->arena, 0};
	kp_lin v = kp_lin_of(&c, d->init);
	if (v.bad || !kp_lin_threads(&v) || r->depth > 8)
		return 1;
	r->depth++;
	char *init = render_index(r, d->init, 0);
	r->depth--;
	kp_strbuf sb = KP_STRBUF_INIT;
	/* the local's type, without the qualifiers a cast ignores */
	const char *ty = d->type ? d->type : "int";
	for (int again = 1; again;) {
		again = 0;
		if (!strncmp(ty, "const ", 6) || !strncmp(ty, "volatile ", 9)) {
			ty = strchr(ty, ' ') + 1;
			again = 1;
		}
	}
	kp_strbuf_addf(&sb, "((%s)(%s))", ty, init);
	kp_subs_add(r->s, n->name_off, (unsigned)strlen(n->name), kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	free(init);
	return 1;
}

/* The expression n (in the loop body when ahead > 0) for the tile `ahead`
 * iterations further, with the thread indices replaced. */
static char *render_index(rctx *r, const kp_node *n, int ahead)
{
	kp_subs s = {0};
	kp_subs_ahead(&s, r->l, n->begin, n->end, ahead);
	kp_subs *outer = r->s;
	r->s = &s;
	kp_node_walk((kp_node *)n, NULL, walk_render, r);
	r->s = outer;
	char *txt = kp_render(r->f, n->begin, n->end, &s);
	kp_subs_release(&s);
	return txt;
}

/* An atom of a copy loop's polynomial (copy_box.h), `ahead` tiles on. */
typedef struct {
	rctx *r;
	int ahead;
} atom_ctx;

static char *atom_text(void *ud, const kp_node *n)
{
	atom_ctx *a = ud;
	return render_index(a->r, n, a->ahead);
}

/* The generated names, fresh for the file. */
typedef struct {
	const char *stage, *bar, *phase, *ok, *init, *fence, *expect, *arrive, *wait, *rows_ok,
		*copy, *guard, *mguard;
	/* the tensor-map form's: the kernel's new flag parameter, the device
	 * helpers, the host encoder, their guard, the kernel's launcher */
	const char *tma_ok, *tma_box, *tma_copy, *tma_encode, *tma_guard, *launcher;
} bulk_names;

static void names_of(kp_file *f, bulk_names *n)
{
	n->stage = kp_fresh_name(f, KP_NAME_STAGE);
	n->bar = kp_fresh_name(f, "kp_full");
	n->phase = kp_fresh_name(f, "kp_phase");
	n->ok = kp_fresh_name(f, "kp_bulk_ok");
	n->init = kp_fresh_name(f, "kp_mbar_init");
	n->fence = kp_fresh_name(f, "kp_mbar_fence_init");
	n->expect = kp_fresh_name(f, "kp_mbar_expect_tx");
	n->arrive = kp_fresh_name(f, "kp_mbar_arrive");
	n->wait = kp_fresh_name(f, "kp_mbar_wait");
	n->rows_ok = kp_fresh_name(f, "kp_bulk_rows_ok");
	n->copy = kp_fresh_name(f, "kp_bulk_tile");
	n->guard = kp_fresh_name(f, "kp_bulk_helpers");
	n->mguard = kp_fresh_name(f, "kp_mbar_helpers");
	n->tma_ok = kp_fresh_name(f, "kp_tma_ok");
	n->tma_box = kp_fresh_name(f, "kp_tma_box");
	n->tma_copy = kp_fresh_name(f, "kp_tma_copy");
	n->tma_encode = kp_fresh_name(f, "kp_tma_encode");
	n->tma_guard = kp_fresh_name(f, "kp_tma_helpers");
	n->launcher = NULL;
}

/* The tensor-map form's helpers, once per file: the box test and the copy
 * (device), and the encoder of a tensor map (host, through the driver
 * entry point the runtime hands out, so nothing links libcuda).  A map
 * covers the matrix from the kernel's pointer with rows of `ld` elements
 * and as many rows as 2^40 bytes hold (at most 2^32); a tile is copied
 * through it only when its box lies inside, so no element reads as the
 * out-of-bounds zero. */
static void helpers_tma(kp_strbuf *sb, const bulk_names *n)
{
	kp_strbuf_addf(sb, "#ifndef %s\n#define %s\n#include <cuda.h>\n", n->tma_guard,
		       n->tma_guard);
	kp_strbuf_adds(sb, "// kpipe: tensor-map (TMA) helpers (sm_90+), used by the loops "
			   "rewritten with --variant tma\n");
	kp_strbuf_addf(
		sb,
		"// the rows a tensor map of row stride ld (elements of elt bytes) covers: 2^40 "
		"bytes,\n// at most 2^31 - 1 rows (a row is a signed 32-bit coordinate)\n"
		"static __host__ __forceinline__ unsigned long long %s_rows(long long ld, unsigned "
		"elt)\n{\n"
		"\tconst unsigned long long r = (1ULL << 40) / ((unsigned long long)ld * elt);\n"
		"\treturn r > 0x7fffffffULL ? 0x7fffffffULL : r;\n}\n",
		n->tma_box);
	kp_strbuf_addf(
		sb,
		"// the rows x cols box at element off, column x and row y of a matrix of row "
		"stride\n// ld, lies inside the map (as its rows() says, without dividing)\n"
		"static __device__ __forceinline__ bool %s(long long off, long long x, long long y, "
		"long long ld, unsigned cols, unsigned rows, unsigned elt)\n{\n"
		"\treturn x >= 0 && y >= 0 && x + y * ld == off && x + cols <= ld &&\n"
		"\t       y + rows <= 0x7fffffffLL && (unsigned long long)(y + rows) * "
		"(unsigned long long)ld * elt <= (1ULL << 40);\n}\n",
		n->tma_box);
	kp_strbuf_addf(
		sb,
		"// one tensor copy of the box at column x, row y into dst, completing bar's "
		"bytes\n"
		"static __device__ __forceinline__ void %s(void *dst, const CUtensorMap *map, long "
		"long x, long long y, unsigned long long *bar)\n{\n"
		"\t// the slot's earlier plain stores (a fallback fill) before the async writes\n"
		"\tasm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
		"\tasm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
		"complete_tx::bytes [%%0], [%%1, {%%2, %%3}], [%%4];\" :: "
		"\"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"((unsigned long long)map), "
		"\"r\"((int)x), \"r\"((int)y), "
		"\"r\"((unsigned)__cvta_generic_to_shared(bar)) : \"memory\");\n}\n",
		n->tma_copy);
	kp_strbuf_addf(
		sb,
		"// a tensor map of the matrix at base (row stride ld elements of elt bytes), "
		"boxes of\n"
		"// rows x cols; false when the driver or the arguments do not allow one\n"
		"static bool %s(CUtensorMap *map, const void *base, unsigned elt, long long ld, "
		"unsigned cols, unsigned rows)\n{\n"
		"\ttypedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, "
		"void *, const cuuint64_t *, const cuuint64_t *, const cuuint32_t *, const "
		"cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, "
		"CUtensorMapFloatOOBfill);\n"
		"\tstatic encode_fn encode = 0;\n"
		"\tif (!encode) {\n"
		"\t\tvoid *fn = 0;\n"
		"\t\tcudaDriverEntryPointQueryResult q;\n"
		"\t\tif (cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", &fn, 12000, "
		"cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn)\n"
		"\t\t\treturn false;\n"
		"\t\tencode = (encode_fn)fn;\n"
		"\t}\n"
		"\tif (ld <= 0 || ld >= 2147483647LL || (unsigned long long)ld * elt %% 16 ||\n"
		"\t    (unsigned long long)base %% 16)\n"
		"\t\treturn false;\n"
		"\tconst cuuint64_t dim[2] = {(cuuint64_t)ld, %s_rows(ld, elt)};\n"
		"\tconst cuuint64_t stride[1] = {(cuuint64_t)ld * elt};\n"
		"\tconst cuuint32_t box[2] = {cols, rows}, one[2] = {1, 1};\n"
		"\tconst CUtensorMapDataType type = elt == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : elt == "
		"2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : elt == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : "
		"CU_TENSOR_MAP_DATA_TYPE_UINT64;\n"
		"\treturn encode(map, type, 2, const_cast<void *>(base), dim, stride, box, one, "
		"CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, "
		"CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == "
		"CUDA_SUCCESS;\n}\n",
		n->tma_encode, n->tma_box);
	kp_strbuf_adds(sb, "#endif\n");
}

/* The device functions every bulk loop of the file calls, once per file
 * (the #ifndef keeps a second loop's copy out). */
static void helpers_base(kp_strbuf *sb, const bulk_names *n, int bulk)
{
	kp_strbuf_addf(sb, "#ifndef %s\n#define %s\n", n->mguard, n->mguard);
	kp_strbuf_adds(sb, "// kpipe: mbarrier helpers (sm_90+), used by the loops rewritten "
			   "with --variant bulk or tma\n");
	kp_strbuf_addf(sb,
		       "static __device__ __forceinline__ void %s(unsigned long long *bar, "
		       "unsigned count)\n{\n"
		       "\tasm volatile(\"mbarrier.init.shared::cta.b64 [%%0], %%1;\" :: "
		       "\"r\"((unsigned)__cvta_generic_to_shared(bar)), \"r\"(count) : "
		       "\"memory\");\n}\n",
		       n->init);
	kp_strbuf_addf(sb,
		       "static __device__ __forceinline__ void %s()\n{\n"
		       "\tasm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
		       "\tasm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n}\n",
		       n->fence);
	kp_strbuf_addf(sb,
		       "static __device__ __forceinline__ void %s(unsigned long long *bar, "
		       "unsigned bytes)\n{\n"
		       "\tasm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%%0], "
		       "%%1;\" :: \"r\"((unsigned)__cvta_generic_to_shared(bar)), \"r\"(bytes) : "
		       "\"memory\");\n}\n",
		       n->expect);
	kp_strbuf_addf(sb,
		       "static __device__ __forceinline__ void %s(unsigned long long *bar)\n{\n"
		       "\tasm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%%0];\" :: "
		       "\"r\"((unsigned)__cvta_generic_to_shared(bar)) : \"memory\");\n}\n",
		       n->arrive);
	kp_strbuf_addf(sb,
		       "static __device__ __forceinline__ void %s(unsigned long long *bar, "
		       "unsigned parity)\n{\n"
		       "\tunsigned done;\n"
		       "\tdo {\n"
		       "\t\tasm volatile(\"{\\n\\t.reg .pred p;\\n\\t"
		       "mbarrier.try_wait.parity.shared::cta.b64 p, [%%1], %%2;\\n\\t"
		       "selp.u32 %%0, 1, 0, p;\\n\\t}\" : \"=r\"(done) : "
		       "\"r\"((unsigned)__cvta_generic_to_shared(bar)), \"r\"(parity) : "
		       "\"memory\");\n"
		       "\t} while (!done);\n}\n",
		       n->wait);
	kp_strbuf_adds(sb, "#endif\n");
	if (!bulk)
		return;
	kp_strbuf_addf(sb, "#ifndef %s\n#define %s\n", n->guard, n->guard);
	kp_strbuf_adds(sb, "// kpipe: bulk-copy helpers (sm_90+), used by the loops rewritten "
			   "with --variant bulk\n");
	kp_strbuf_addf(sb,
		       "// every row of a tile 16-byte aligned: the first two rows' sources are\n"
		       "static __device__ __forceinline__ bool %s(const void *row0, const void "
		       "*row1)\n{\n"
		       "\treturn (((unsigned long long)row0 | (unsigned long long)row1) & 15) == "
		       "0;\n}\n",
		       n->rows_ok);
	kp_strbuf_addf(
		sb,
		"// rows rows of row_bytes each from row0, row1, ... (one copy when adjacent);\n"
		"// every thread calls, lane 0 of each warp copies its share of the rows\n"
		"static __device__ __forceinline__ void %s(void *dst, const void *row0, const "
		"void *row1, unsigned row_bytes, unsigned rows, unsigned long long *bar)\n{\n"
		"\tconst unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
		"threadIdx.z);\n"
		"\tif (tid %% 32)\n\t\treturn;\n"
		"\tconst unsigned warps = (blockDim.x * blockDim.y * blockDim.z + 31) / 32;\n"
		"\tconst long long stride = (const char *)row1 - (const char *)row0;\n"
		"\tconst unsigned d = (unsigned)__cvta_generic_to_shared(dst);\n"
		"\tconst unsigned b = (unsigned)__cvta_generic_to_shared(bar);\n"
		"\tconst unsigned n = stride == (long long)row_bytes ? 1 : rows;\n"
		"\tconst unsigned len = n == 1 ? row_bytes * rows : row_bytes;\n"
		"\t// the slot's earlier plain stores (a fallback fill) before the async writes\n"
		"\tasm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
		"\tfor (unsigned r = tid / 32; r < n; r += warps)\n"
		"\t\tasm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
		"bytes [%%0], [%%1], %%2, [%%3];\" :: \"r\"(d + r * row_bytes), "
		"\"l\"((const char *)row0 + r * stride), \"r\"(len), \"r\"(b) : \"memory\");\n}\n",
		n->copy);
	kp_strbuf_adds(sb, "#endif\n");
}

static char *helpers(const bulk_names *n, int tma)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	helpers_base(&sb, n, !tma);
	if (tma)
		helpers_tma(&sb, n);
	return kp_strbuf_detach(&sb);
}

#define KP_ELECTED "threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0"

/* Every copy's address affine in the loop's counters and pointers: the
 * rows of every tile are aligned when those of tile 0 are and tile 1
 * starts a multiple of 16 bytes further, which is checked once. */
static int hoisted(const kp_loop *l, const kp_bulk_copy *cp)
{
	for (int i = 0; i < l->nloads; i++)
		if (!cp[i].affine)
			return 0;
	return 1;
}

/* The source address of row `row` (text) of a copy's tile, `ahead` tiles on. */
static char *row_src(kp_file *f, const kp_loop *l, const kp_bulk_copy *c, const char *row,
		     int ahead)
{
	rctx r = {l, NULL, f, "0u", row, 0, NULL, NULL};
	char *p = render_index(&r, c->base, ahead);
	char *e = render_index(&r, c->index, ahead);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "&(%s)[%s]", p, e);
	free(p);
	free(e);
	return kp_strbuf_detach(&sb);
}

/* The original copies of the load phase into slot `idx`, `ahead` on. */
static char *plain_phase(kp_file *f, const kp_loop *l, const kp_spans *sp, const char *idx,
			 int ahead)
{
	kp_subs s = {0};
	kp_subs_tiles(&s, f, l, sp->load_b, sp->load_e, idx);
	kp_subs_ahead(&s, l, sp->load_b, sp->load_e, ahead);
	char *txt = kp_render(f, sp->load_b, sp->load_e, &s);
	kp_subs_release(&s);
	return txt;
}

/* What a fill renders from. */
typedef struct {
	kp_file *f;
	const kp_loop *l;
	const kp_spans *sp;
	const kp_bulk_copy *cp;
	const bulk_names *nm;
	const char *iu;  /* one indentation unit */
	int tma;         /* the tensor-map form */
	const char **tm; /* its tensor-map parameter per copy */
	const char **co; /* its locals per copy: offset, column, row (kp_o0, kp_x0, kp_y0) */
	/* the kernel may store to global memory before the loop's copies
	 * (global_writes_before):
	 * the bulk copies read through the async proxy, so the setup makes
	 * every thread's earlier generic stores visible to it */
	int global_writes;
} bulk_ctx;

/* Where a store can come before the loop's copies: before the loop, or
 * anywhere inside a loop around it (the next time round); [eb, ee) is
 * the outermost such loop's extent (empty when none). */
typedef struct {
	unsigned loop_b, eb, ee;
} before_loop;

static void outer_extent(const kp_node *n, const kp_node *loop, before_loop *w)
{
	if (!n || n == loop)
		return;
	if ((n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO) && n->in_main &&
	    n->begin <= loop->begin && n->end >= loop->end &&
	    (w->ee <= w->eb || n->begin < w->eb)) {
		w->eb = n->begin;
		w->ee = n->end;
	}
	for (int i = 0; i < n->nkids; i++)
		outer_extent(n->kids[i], loop, w);
}

/* A store in n that can come before the loop's copies (w) and whose
 * target may be global memory: rooted at anything but a __shared__ array
 * or a local of the thread that is no pointer. */
static int writes_global(const kp_node *n, const before_loop *w)
{
	if (!n)
		return 0;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	int before = !n->in_main || n->begin < w->loop_b || (n->begin >= w->eb && n->end <= w->ee);
	if (t && before) {
		kp_node *r = kp_lvalue_root(t);
		const kp_decl *d = r ? r->decl : NULL;
		int thread_local = d && d->kind == KP_D_VAR && !d->is_pointer && !d->ty.is_ref &&
				   !d->is_device_var && !d->is_shared;
		if (!d || !(d->is_shared || thread_local))
			return 1;
	}
	if (before && (n->kind == KP_N_ASM ||
		       (n->kind == KP_N_CALL && n->sync == KP_SYNC_NONE && n->name &&
			(!strncmp(n->name, "atomic", 6) || !strncmp(n->name, "__st", 4)))))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (writes_global(n->kids[i], w))
			return 1;
	return 0;
}

/* Whether the kernel may store to global memory before loop l's copies. */
static int global_writes_before(const kp_loop *l)
{
	before_loop w = {l->node->begin, 0, 0};
	outer_extent(l->kernel->body, l->node, &w);
	return writes_global(l->kernel->body, &w);
}

/* " &&\n(term)" for each term of each guarded copy, at the corners of the
 * tile `ahead` on where it is tightest: an affine function over a box is
 * extreme at its corners, so the guard holds for every thread of the tile
 * (blockDim the tile's shape, which the fill checks too) exactly when each
 * term holds there.  The values are the same for every thread; a term
 * written twice is tested once. */
static void emit_guards(kp_strbuf *sb, const bulk_ctx *c, int ahead, const char *pre)
{
	kp_lin_ctx lc = {c->f, c->l, &c->f->arena, 0};
	char **seen = kp_xcalloc((size_t)c->l->nloads * KP_BULK_GUARD_TERMS * 4 + 1, sizeof(*seen));
	int nseen = 0;
	for (int i = 0; i < c->l->nloads; i++) {
		const kp_bulk_copy *cp = &c->cp[i];
		const kp_node *t[KP_BULK_GUARD_TERMS];
		const kp_cbox *bx = cp->box;
		for (int k = 0; bx && k < bx->nterms; k++) {
			/* a copy loop's guard at its tightest element (copy_box.h) */
			rctx r = {c->l, NULL, c->f, "0", "0", 0, NULL, NULL};
			atom_ctx a = {&r, ahead};
			char *u = kp_cb_poly_text(bx, &bx->term[k].u, atom_text, &a);
			kp_strbuf_addf(sb, " &&\n%s(%s + %lldLL %s 0LL)", pre, u, bx->term[k].kmax,
				       bx->term[k].strict ? "<" : "<=");
			free(u);
		}
		int n = cp->guard ? kp_bulk_guard_terms(cp->guard, t, KP_BULK_GUARD_TERMS, 0) : 0;
		char xs[2][24], ys[2][24];
		snprintf(xs[0], sizeof(xs[0]), "0u");
		snprintf(ys[0], sizeof(ys[0]), "0u");
		snprintf(xs[1], sizeof(xs[1]), "%lldu", cp->tile->dims[1] - 1);
		snprintf(ys[1], sizeof(ys[1]), "%lldu", cp->tile->dims[0] - 1);
		for (int k = 0; k < n; k++) {
			int mx, my;
			if (kp_bulk_term_problem(&lc, t[k], &mx, &my))
				continue; /* refused by the facts: not reached */
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2; b++) {
					if (!(mx >> a & 1) || !(my >> b & 1))
						continue;
					rctx r = {c->l, NULL, c->f, xs[a], ys[b], 0, NULL, NULL};
					char *txt = render_index(&r, t[k], ahead);
					int dup = 0;
					for (int j = 0; j < nseen && !dup; j++)
						dup = !strcmp(seen[j], txt);
					if (!dup)
						kp_strbuf_addf(sb, " &&\n%s(%s)", pre, txt);
					seen[nseen++] = txt;
				}
		}
	}
	for (int j = 0; j < nseen; j++)
		free(seen[j]);
	free(seen);
}

/* The bulk path of a fill: the elected thread arms the barrier with the
 * stage's bytes; each warp's lane 0 issues its share of the rows (a copy
 * that completes before the barrier is armed leaves its transaction count
 * negative, and the phase waits for the arrival).  The slot is free: the
 * prologue's are unused, the loop's released by its __syncthreads(). */
static void emit_bulk_path(kp_strbuf *sb, const bulk_ctx *c, const char *idx, int ahead,
			   const char *I)
{
	const bulk_names *nm = c->nm;
	const char *iu = c->iu;
	kp_strbuf_addf(sb, "%s%sif (" KP_ELECTED ")\n", I, iu);
	kp_strbuf_addf(sb, "%s%s%s%s(&%s[%s], ", I, iu, iu, nm->expect, nm->bar, idx);
	for (int i = 0; i < c->l->nloads; i++)
		kp_strbuf_addf(sb, "%ssizeof(%s[0])", i ? " + " : "", c->cp[i].tile->name);
	kp_strbuf_adds(sb, ");\n");
	for (int i = 0; i < c->l->nloads; i++) {
		const char *t = c->cp[i].tile->name;
		char *r0 = row_src(c->f, c->l, &c->cp[i], "0u", ahead),
		     *r1 = row_src(c->f, c->l, &c->cp[i], "1u", ahead);
		kp_strbuf_addf(sb,
			       "%s%s%s(&%s[%s][0][0], %s, %s, sizeof(%s[0][0]), sizeof(%s[0]) / "
			       "sizeof(%s[0][0]), &%s[%s]",
			       I, iu, nm->copy, t, idx, r0, r1, t, t, t, nm->bar, idx);
		kp_strbuf_adds(sb, ");\n");
		free(r0);
		free(r1);
	}
}

/* Where copy c's tile `ahead` on starts: its thread (0, 0)'s element
 * offset, and the column and row of the tensor map it should be at,
 * without a division where the stride is a parameter: the offset with the
 * parameter read as 0 is the column, and with it read as 1, less the
 * column (over the stride's constant factor), the row.  The box test
 * checks that column + row * stride is the offset (so any index of
 * another form takes the plain copies), each a long long.  Caller frees. */
static void tma_coords(kp_file *f, const kp_loop *l, const kp_bulk_copy *c, int ahead, char **off,
		       char **x, char **y)
{
	rctx r = {l, NULL, f, "0", "0", 0, NULL, NULL};
	if (c->box) {
		/* a copy loop's box: the polynomials of its proof (copy_box.h) */
		atom_ctx a = {&r, ahead};
		kp_strbuf sb = KP_STRBUF_INIT;
		*off = kp_cb_poly_text(c->box, &c->box->base, atom_text, &a);
		if (c->box->ldd) {
			*x = kp_cb_poly_text(c->box, &c->box->bx, atom_text, &a);
			*y = kp_cb_poly_text(c->box, &c->box->by, atom_text, &a);
			return;
		}
		kp_strbuf_addf(&sb, "(%s %% %lldLL)", *off, c->ldk);
		*x = kp_strbuf_detach(&sb);
		kp_strbuf_addf(&sb, "(%s / %lldLL)", *off, c->ldk);
		*y = kp_strbuf_detach(&sb);
		return;
	}
	char *e = render_index(&r, c->index, ahead);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "(long long)(%s)", e);
	*off = kp_strbuf_detach(&sb);
	if (!c->ldd) {
		kp_strbuf_addf(&sb, "(%s %% %lldLL)", *off, c->ldk);
		*x = kp_strbuf_detach(&sb);
		kp_strbuf_addf(&sb, "(%s / %lldLL)", *off, c->ldk);
		*y = kp_strbuf_detach(&sb);
		free(e);
		return;
	}
	r.subd = c->ldd;
	r.subv = "0";
	char *e0 = render_index(&r, c->index, ahead);
	r.subv = "1";
	char *e1 = render_index(&r, c->index, ahead);
	kp_strbuf_addf(&sb, "(long long)(%s)", e0);
	*x = kp_strbuf_detach(&sb);
	if (c->ldk == 1)
		kp_strbuf_addf(&sb, "((long long)(%s) - %s)", e1, *x);
	else
		kp_strbuf_addf(&sb, "(((long long)(%s) - %s) / %lldLL)", e1, *x, c->ldk);
	*y = kp_strbuf_detach(&sb);
	free(e);
	free(e0);
	free(e1);
}

/* The tensor-map path of a fill: the elected thread arms the barrier with
 * the stage's bytes and issues one tensor copy per tile. */
static void emit_tma_path(kp_strbuf *sb, const bulk_ctx *c, const char *idx, const char *I)
{
	const bulk_names *nm = c->nm;
	const char *iu = c->iu;
	kp_strbuf_addf(sb, "%s%sif (" KP_ELECTED ") {\n", I, iu);
	kp_strbuf_addf(sb, "%s%s%s%s(&%s[%s], ", I, iu, iu, nm->expect, nm->bar, idx);
	for (int i = 0; i < c->l->nloads; i++)
		kp_strbuf_addf(sb, "%ssizeof(%s[0])", i ? " + " : "", c->cp[i].tile->name);
	kp_strbuf_adds(sb, ");\n");
	for (int i = 0; i < c->l->nloads; i++)
		kp_strbuf_addf(sb, "%s%s%s%s(&%s[%s][0][0], &%s, %s, %s, &%s[%s]);\n", I, iu, iu,
			       nm->tma_copy, c->cp[i].tile->name, idx, c->tm[i], c->co[3 * i + 1],
			       c->co[3 * i + 2], nm->bar, idx);
	kp_strbuf_addf(sb, "%s%s}\n", I, iu);
}

/* " &&\n(the box of each copy's tile lies inside its map)". */
static void emit_boxes(kp_strbuf *sb, const bulk_ctx *c, const char *pre)
{
	for (int i = 0; i < c->l->nloads; i++) {
		const kp_decl *t = c->cp[i].tile;
		/* a padded tile's box (copy_box.h) is as wide as its rows; only
		 * the columns its copies write must lie in the row, the others
		 * are the map's out-of-bounds zeros past it */
		long long cols = c->cp[i].box ? c->cp[i].box->width : t->dims[1];
		kp_strbuf_addf(sb, " &&\n%s%s(%s, %s, %s, %s, %lldu, %lldu, %lldu)", pre,
			       c->nm->tma_box, c->co[3 * i], c->co[3 * i + 1], c->co[3 * i + 2],
			       c->cp[i].ld, cols, t->dims[0], t->elem_size);
	}
}

/* The offset, column and row of each copy's tile `ahead` on, as locals
 * the tensor-map fill reads (tma_coords). */
static void emit_coords(kp_strbuf *sb, const bulk_ctx *c, int ahead, const char *I)
{
	for (int i = 0; i < c->l->nloads; i++) {
		char *off, *x, *y;
		tma_coords(c->f, c->l, &c->cp[i], ahead, &off, &x, &y);
		kp_strbuf_addf(sb, "%sconst long long %s = %s,\n%s%s%s = %s,\n%s%s%s = %s;\n", I,
			       c->co[3 * i], off, I, c->iu, c->co[3 * i + 1], x, I, c->iu,
			       c->co[3 * i + 2], y);
		free(off);
		free(x);
		free(y);
	}
}

/* FILL(tile `ahead` on, slot `idx`) at indentation I. */
static void emit_fill(kp_strbuf *sb, const bulk_ctx *c, const char *idx, int ahead, const char *I)
{
	const bulk_names *nm = c->nm;
	const char *iu = c->iu;
	if (c->tma)
		emit_coords(sb, c, ahead, I);
	kp_strbuf_addf(sb, "%sif (%s", I, nm->ok);
	for (int i = 0; i < c->l->nloads && !c->tma && !hoisted(c->l, c->cp); i++) {
		char *r0 = row_src(c->f, c->l, &c->cp[i], "0u", ahead),
		     *r1 = row_src(c->f, c->l, &c->cp[i], "1u", ahead);
		kp_strbuf_addf(sb, " &&\n%s%s    %s(%s, %s)", I, iu, nm->rows_ok, r0, r1);
		free(r0);
		free(r1);
	}
	kp_strbuf pre = KP_STRBUF_INIT;
	kp_strbuf_addf(&pre, "%s%s    ", I, iu);
	emit_guards(sb, c, ahead, kp_strbuf_str(&pre));
	if (c->tma)
		emit_boxes(sb, c, kp_strbuf_str(&pre));
	kp_strbuf_release(&pre);
	kp_strbuf_adds(sb, ") {\n");
	if (c->tma)
		emit_tma_path(sb, c, idx, I);
	else
		emit_bulk_path(sb, c, idx, ahead, I);
	kp_strbuf_addf(sb, "%s} else {\n", I);
	/* the load phase is indented as the loop body (the loop's indentation
	 * and one unit); here it is one unit deeper than I */
	char *plain = plain_phase(c->f, c->l, c->sp, idx, ahead);
	char *ind = kp_line_indent(c->f, c->l->node->begin);
	size_t il = strlen(ind);
	char *plain_i = kp_reindent(plain, strlen(I) >= il ? I + il : "");
	kp_strbuf_adds(sb, plain_i);
	kp_strbuf_addf(sb, "%s%sif (" KP_ELECTED ")\n%s%s%s%s(&%s[%s]);\n%s}\n", I, iu, I, iu, iu,
		       nm->arrive, nm->bar, idx, I);
	free(plain_i);
	free(ind);
	free(plain);
}

/* The barriers, the phase bits and the block-shape test, before the prologue. */
static void emit_setup(kp_strbuf *sb, const bulk_ctx *c, int S, const char *I1)
{
	const bulk_names *nm = c->nm;
	const char *iu = c->iu;
	kp_strbuf_addf(sb, "%s__shared__ __align__(8) unsigned long long %s[%d];\n", I1, nm->bar,
		       S);
	kp_strbuf_addf(sb, "%sunsigned %s = 0; // bit s: the phase stage s waits for\n", I1,
		       nm->phase);
	kp_strbuf_addf(sb, "%sconst bool %s = %s%sblockDim.z == 1", I1, nm->ok,
		       c->tma ? nm->tma_ok : "", c->tma ? " != 0u && " : "");
	for (int i = 0; i < c->l->nloads && c->tma; i++) {
		const char *t = c->cp[i].tile->name;
		const kp_cbox *bx = c->cp[i].box;
		if (bx) {
			/* the block the copy loop's box is proven for */
			kp_strbuf_addf(
				sb,
				" &&\n%s%sblockDim.x == %du && blockDim.y == %du &&\n%s%s"
				"((unsigned)__cvta_generic_to_shared(&%s[0][0][0]) & 127u) == 0u",
				I1, iu, bx->block[0], bx->block[1], I1, iu, t);
			continue;
		}
		kp_strbuf_addf(sb,
			       " &&\n%s%sblockDim.x == sizeof(%s[0][0]) / sizeof(%s[0][0][0]) && "
			       "blockDim.y == sizeof(%s[0]) / sizeof(%s[0][0]) &&\n%s%s"
			       "((unsigned)__cvta_generic_to_shared(&%s[0][0][0]) & 127u) == 0u",
			       I1, iu, t, t, t, t, I1, iu, t);
	}
	for (int i = 0; i < c->l->nloads && !c->tma; i++) {
		const char *t = c->cp[i].tile->name;
		kp_strbuf_addf(
			sb,
			" &&\n%s%sblockDim.x == sizeof(%s[0][0]) / sizeof(%s[0][0][0]) && "
			"blockDim.y == sizeof(%s[0]) / sizeof(%s[0][0]) &&\n%s%s%s(&%s[0][0][0], "
			"&%s[0][0][0])",
			I1, iu, t, t, t, t, I1, iu, nm->rows_ok, t, t);
		if (!hoisted(c->l, c->cp))
			continue; /* each tile is checked where it is copied */
		char *r0 = row_src(c->f, c->l, &c->cp[i], "0u", 0),
		     *r1 = row_src(c->f, c->l, &c->cp[i], "1u", 0);
		char *n0 = row_src(c->f, c->l, &c->cp[i], "0u", 1);
		kp_strbuf_addf(sb, " &&\n%s%s%s(%s, %s) &&\n%s%s%s(%s, %s)", I1, iu, nm->rows_ok,
			       r0, r1, I1, iu, nm->rows_ok, r0, n0);
		free(r0);
		free(r1);
		free(n0);
	}
	kp_strbuf_adds(sb, ";\n");
	kp_strbuf_addf(sb, "%sif (" KP_ELECTED ") {\n", I1);
	kp_strbuf_addf(sb, "%s%sfor (int kp_s = 0; kp_s < %d; ++kp_s)\n%s%s%s%s(&%s[kp_s], 1);\n",
		       I1, iu, S, I1, iu, iu, nm->init, nm->bar);
	kp_strbuf_addf(sb, "%s%s%s();\n%s}\n", I1, iu, nm->fence, I1);
	if (c->global_writes)
		kp_strbuf_addf(
			sb,
			"%s// the kernel stores to global memory: make this thread's stores so "
			"far\n%s// visible to the bulk copies (the async proxy) before the "
			"barrier\n%sasm volatile(\"fence.proxy.async.global;\" ::: "
			"\"memory\");\n",
			I1, I1, I1);
	kp_strbuf_addf(sb, "%s__syncthreads();\n", I1);
}

/* The main loop: wait for the stage, barrier, refill the slot the
 * previous iteration computed, compute. */
static void emit_loop(kp_strbuf *sb, const bulk_ctx *c, const kp_frame *fr, const kp_xform_opts *o,
		      int S)
{
	kp_file *f = c->f;
	const kp_loop *l = c->l;
	const bulk_names *nm = c->nm;
	const char *I1 = fr->I1, *I2 = fr->I2;
	if (fr->pragma)
		kp_strbuf_addf(sb, "%s%s\n", I1, fr->pragma);
	char *c0 = kp_cond_ahead(f, l, 0);
	char *inc = kp_render(f, l->inc->begin, l->inc->end, &(kp_subs){0});
	kp_strbuf_addf(sb, "%sfor (; %s; %s) {\n", I1, c0, inc);
	free(inc);
	free(c0);
	kp_strbuf_addf(sb, "%s%s(&%s[%s], (%s >> %s) & 1u);\n", I2, nm->wait, nm->bar, nm->stage,
		       nm->phase, nm->stage);
	kp_strbuf_addf(sb, "%s%s ^= 1u << %s;\n", I2, nm->phase, nm->stage);
	kp_strbuf_addf(sb, "%s__syncthreads(); // and the slot refilled below is free\n", I2);
	char *cn = kp_tile_exists(f, l, 1, S - 1);
	const char *refill =
		S == 2 ? kp_arena_printf(&f->arena, "%s ^ 1", nm->stage)
		       : kp_arena_printf(&f->arena, "(%s + %d) %% %d", nm->stage, S - 1, S);
	kp_strbuf_addf(sb, "%sif (%s) {\n", I2, cn);
	emit_fill(sb, c, refill, S - 1, fr->I3);
	kp_strbuf_addf(sb, "%s}\n", I2);
	free(cn);

	kp_subs cs = {0};
	kp_subs_tiles(&cs, f, l, fr->sp.comp_b, fr->sp.comp_e, nm->stage);
	char *comp = kp_render_compute(f, l, &fr->sp, &cs, o->no_comment);
	char *comp_i = kp_reindent(comp, fr->iu);
	kp_strbuf_adds(sb, comp_i);
	free(comp);
	free(comp_i);
	kp_subs_release(&cs);
	kp_emit_tail(sb, f, &fr->sp, fr->iu);
	kp_emit_last_set(sb, f, l, fr->I2, nm->stage, S);
	kp_emit_ring_close(sb, fr, l, o, nm->stage, S, NULL);
}

/* The kernel's parameter list as a host function's: as written, without
 * __grid_constant__ (nvcc allows it on a __global__ function's parameters
 * only; the launcher passes the value on, and the kernel keeps it). */
static void host_params(const kp_file *f, const kp_kernel *k, kp_strbuf *sb)
{
	static const char gc[] = "__grid_constant__";
	const size_t n = sizeof(gc) - 1;
	unsigned b = k->params[0]->begin, e = k->params[k->nparams - 1]->end;
	for (unsigned p = b; p < e;) {
		int word = p + n <= e && !strncmp(f->src + p, gc, n) &&
			   (p == b || !kp_is_ident_char(f->src[p - 1])) &&
			   (p + n == e || !kp_is_ident_char(f->src[p + n]));
		if (!word) {
			kp_strbuf_addc(sb, f->src[p++]);
			continue;
		}
		p += (unsigned)n;
		while (p < e && (f->src[p] == ' ' || f->src[p] == '\t'))
			p++;
	}
}

/* The tensor-map form's edits outside the loop: the kernel's new
 * parameters (a __grid_constant__ CUtensorMap per copy and the flag that
 * says the maps were made), its launcher after it, and every launch of
 * the kernel in the file turned into a call of the launcher. */
static void tma_outside(kp_file *f, const kp_loop *l, const bulk_ctx *c, const char *iu,
			int comments, kp_edits *out)
{
	const kp_kernel *k = l->kernel;
	const bulk_names *nm = c->nm;
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < l->nloads; i++)
		kp_strbuf_addf(&sb, ", const __grid_constant__ CUtensorMap %s", c->tm[i]);
	kp_strbuf_addf(&sb, ", const unsigned %s", nm->tma_ok);
	const kp_decl *last = k->params[k->nparams - 1];
	kp_edits_add(out, last->end, 0, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);

	const char *g = kp_fresh_name(f, "kp_grid"), *b = kp_fresh_name(f, "kp_block"),
		   *sm = kp_fresh_name(f, "kp_smem"), *st = kp_fresh_name(f, "kp_stream"),
		   *ok = kp_fresh_name(f, "kp_maps_ok");
	kp_strbuf_addf(&sb, "\n\n// kpipe-launch: launcher(%s) = %s\n", k->name, nm->launcher);
	if (comments)
		kp_strbuf_addf(&sb,
			       "// kpipe: every launch of %s in this file calls this: it makes the "
			       "tensor maps of its tiles (--variant tma)\n",
			       k->name);
	kp_strbuf_addf(&sb, "static void %s(dim3 %s, dim3 %s, size_t %s, cudaStream_t %s, ",
		       nm->launcher, g, b, sm, st);
	host_params(f, k, &sb);
	kp_strbuf_adds(&sb, ")\n{\n");
	kp_strbuf_addf(&sb, "%sCUtensorMap ", iu);
	for (int i = 0; i < l->nloads; i++)
		kp_strbuf_addf(&sb, "%s%s = {}", i ? ", " : "", c->tm[i]);
	kp_strbuf_addf(&sb, ";\n%sconst bool %s =", iu, ok);
	for (int i = 0; i < l->nloads; i++) {
		const kp_bulk_copy *cp = &c->cp[i];
		const kp_node *base = kp_lin_strip_all(cp->base);
		kp_strbuf_addf(&sb, "%s\n%s%s%s(&%s, (const void *)(%s), %lldu, %s, %lldu, %lldu)",
			       i ? " &&" : "", iu, iu, nm->tma_encode, c->tm[i], base->decl->name,
			       cp->tile->elem_size, cp->ld, cp->tile->dims[1], cp->tile->dims[0]);
	}
	kp_strbuf_addf(&sb, ";\n%s%s<<<%s, %s, %s, %s>>>(", iu, k->name, g, b, sm, st);
	for (int i = 0; i < k->nparams; i++)
		kp_strbuf_addf(&sb, "%s%s", i ? ", " : "", k->params[i]->name);
	for (int i = 0; i < l->nloads; i++)
		kp_strbuf_addf(&sb, ", %s", c->tm[i]);
	kp_strbuf_addf(&sb, ", %s ? 1u : 0u);\n}", ok);
	kp_edits_add(out, k->end, 0, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);

	for (int i = 0; i < f->nlaunches; i++)
		if (f->launches[i].kernel == k)
			kp_launch_to_call(out, f, &f->launches[i], nm->launcher);
}

/* " __align__(128)" after the __shared__ of each tile's declaration
 * outside the loop (a tensor copy writes 128-byte aligned shared memory;
 * the stages are multiples of 128 bytes).  Where kpipe cannot add it (a
 * declaration in the loop, one without a visible __shared__) the fill
 * checks the alignment and takes the plain copies. */
static void tma_align(const kp_file *f, const kp_loop *l, unsigned start, const kp_bulk_copy *cp,
		      kp_edits *out)
{
	static const char kw[] = "__shared__";
	for (int i = 0; i < l->nloads; i++) {
		const kp_decl *d = cp[i].tile;
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= cp[j].tile == d;
		if (seen || d->align >= 128 || !d->in_main || d->begin >= start ||
		    d->name_off <= d->begin || d->name_off > f->len)
			continue;
		for (unsigned p = d->begin; p + sizeof(kw) - 1 <= d->name_off; p++)
			if (!strncmp(f->src + p, kw, sizeof(kw) - 1)) {
				kp_edits_add(out, p + (unsigned)sizeof(kw) - 1, 0,
					     " __align__(128)");
				break;
			}
	}
}

static int ring_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		      const char **err, int tma)
{
	int S = o->stages < 2 ? 2 : o->stages;
	kp_bulk_copy *cp = kp_xcalloc((size_t)l->nloads + 1, sizeof(*cp));
	const char *why = tma ? tma_problem(f, l, &f->arena, cp)
			      : kp_bulk_problem(f, l, &f->arena, cp, 0);
	if (S > 8 || why || (tma && o->dynamic)) {
		*err = S > 8 ? "at most 8 stages"
		       : why ? (tma ? "the copies have no tensor-map form"
				    : "the copies have no bulk form")
			     : "the tensor-map form keeps its tiles in static shared memory "
			       "(the launches change already)";
		free(cp);
		return -1;
	}
	bulk_names nm;
	names_of(f, &nm);
	kp_frame fr;
	kp_frame_open(&fr, f, l);
	const char **tm = kp_xcalloc((size_t)l->nloads + 1, sizeof(*tm));
	const char **co = kp_xcalloc((size_t)l->nloads * 3 + 1, sizeof(*co));
	for (int i = 0; tma && i < l->nloads; i++)
		for (int k = 0; k < 3; k++)
			co[3 * i + k] = kp_fresh_name(f, kp_arena_printf(&f->arena, "kp_%c%d",
									 "oxy"[k], i));
	if (tma) {
		nm.launcher = kp_fresh_name(f, kp_arena_printf(&f->arena, "kp_tma_launch_%s",
							       l->kernel->name));
		for (int i = 0; i < l->nloads; i++)
			tm[i] = kp_fresh_name(f, kp_arena_printf(&f->arena, "kp_tm_%s",
								 cp[i].tile->name));
	}
	bulk_ctx c = {f, l, &fr.sp, cp, &nm, fr.iu, tma, tm, co, global_writes_before(l)};

	kp_strbuf sb = KP_STRBUF_INIT;
	char *comment =
		o->no_comment ? NULL
		: tma         ? kp_arena_printf(&f->arena,
						"tensor-map copies (cp.async.bulk.tensor + mbarrier), "
							"%d stages: %s",
						S, o->why)
			      : kp_arena_printf(&f->arena,
						"bulk copies (cp.async.bulk + mbarrier), %d stages: %s", S,
						o->why);
	kp_emit_open(&sb, f, l, fr.start, fr.ind, fr.I1, comment, S, o->dynamic, out);
	emit_setup(&sb, &c, S, fr.I1);

	/* prologue: tiles 0 .. S-2 into slots 0 .. S-2, all free */
	for (int t = 0; t < S - 1; t++) {
		char slot[16];
		snprintf(slot, sizeof(slot), "%d", t);
		char *ct = kp_tile_exists(f, l, 0, t);
		kp_strbuf_addf(&sb, "%sif (%s) {\n", fr.I1, ct);
		emit_fill(&sb, &c, slot, t, fr.I2);
		kp_strbuf_addf(&sb, "%s}\n", fr.I1);
		free(ct);
	}
	emit_loop(&sb, &c, &fr, o, S);

	kp_edits_add(out, fr.start, l->node->end - fr.start, kp_strbuf_str(&sb));
	char *h = helpers(&nm, tma);
	kp_edit_file_once(out, f, tma ? "kpipe tensor-map helpers" : "kpipe bulk helpers", h);
	free(h);
	if (tma) {
		tma_align(f, l, fr.start, cp, out);
		tma_outside(f, l, &c, fr.iu, !o->no_comment, out);
	}
	kp_strbuf_release(&sb);
	kp_frame_release(&fr);
	free(tm);
	free(co);
	free(cp);
	return 0;
}

static int bulk_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		      const char **err)
{
	return ring_apply(f, l, o, out, err, 0);
}

static int tma_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		     const char **err)
{
	return ring_apply(f, l, o, out, err, 1);
}

static const kp_tune_cand bulk_tune[] = {
	{"bulk", 2, 70},
	{"bulk-s3", 3, 80},
	{"bulk-s4", 4, 90},
};

const kp_transform kp_transform_bulk = {
	.name = "bulk",
	.label = "cp.async.bulk",
	.summary = "S-stage ring of shared tiles filled with cp.async.bulk row copies "
		   "completing per-stage mbarriers, the slot refilled next released by "
		   "__syncthreads() (sm_90+)",
	.usage = NULL,
	.min_cc = 90,
	.min_stages = 2,
	.max_stages = 8,
	.buffers = bulk_buffers,
	.own_smem = bulk_own_smem,
	.facts = bulk_facts,
	.match = bulk_match,
	.tune = bulk_tune,
	.ntune = KP_ARRAY_LEN(bulk_tune),
	.refuse_id = "kpipe-bulk-unavailable",
	.apply = bulk_apply,
};

static const kp_tune_cand tma_tune[] = {
	{"tma", 2, 100},
	{"tma-s3", 3, 110},
	{"tma-s4", 4, 120},
};

const kp_transform kp_transform_tma = {
	.name = "tma",
	.label = "cp.async.bulk.tensor",
	.summary = "S-stage ring of shared tiles filled with one cp.async.bulk.tensor copy per "
		   "tile through CUtensorMaps a launcher kpipe writes makes on the host, "
		   "completing per-stage mbarriers, the slot refilled next released by "
		   "__syncthreads() (sm_90+; the kernel launched in the same file)",
	.usage = NULL,
	.min_cc = 90,
	.min_stages = 2,
	.max_stages = 8,
	.buffers = bulk_buffers,
	.own_smem = bulk_own_smem,
	.facts = tma_facts,
	.match = tma_match,
	.tune = tma_tune,
	.ntune = KP_ARRAY_LEN(tma_tune),
	.refuse_id = "kpipe-bulk-unavailable",
	.apply = tma_apply,
};
