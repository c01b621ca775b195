/*
 * cp_async.c - the cp.async transform: shared tiles become [S][...], the
 * first S-1 tiles are fetched before the loop with __pipeline_memcpy_async,
 * and each iteration waits for its tile, publishes it with one barrier,
 * refills the slot the previous iteration consumed and computes.
 *
 *   prologue:  if (tile t exists) copy t into slot t          (t < S-1)
 *              commit (one group per tile, empty ones included)
 *   loop:      wait_prior(S-2); __syncthreads();
 *              if (tile i+S-1 exists) copy it into slot (i+S-1) % S
 *              commit; compute slot i % S
 *
 * Guarded copies (cond ? src : 0, or if/else 0) become zero-fill copies
 * from a valid address, their guard and source named once (kp_in_As,
 * kp_src_As) where the statement stands in a block.  The prologue's
 * copies of the load phase after the first leave the source's comments
 * out.  A copy through a temporary of the load phase
 * (`float a = A[i]; As[..] = a;`) copies A[i] itself, evaluated where the
 * tile store was (the analysis checked that nothing in between changes
 * what it reads), and the temporary's statements are dropped.  Does not apply to copies that
 * convert values or are not 4, 8 or 16 bytes wide; register staging handles those.
 */
#include "host_edits.h"
#include "transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const kp_transform kp_transform_cp_async;

/* Every copy a plain 4-, 8- or 16-byte global load, into tiles that are
 * not volatile. */
static void cp_facts(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *x)
{
	(void)f;
	x->ok = l->nloads > 0;
	x->why_not = NULL;
	x->regs = 0;
	x->regs_inst = NULL;
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		/* a copy that is no global load says so, whatever came before */
		if (!ld->src) {
			x->ok = 0;
			x->why_not = kp_arena_printf(
				arena, "line %d: the stored value is not a plain global load",
				ld->line);
		} else if (x->ok && ld->via) {
			x->ok = 0;
			x->why_not = kp_arena_printf(
				arena,
				"line %d: '%s' is filled from the register '%s' (the source stages "
				"the copy, e.g. to transpose it); cp.async copies memory unchanged",
				ld->line, ld->tile->name, ld->via->name);
		} else if (x->ok && !ld->pure && ld->guard == KP_G_TERNARY && ld->otherwise &&
			   ld->rhs && kp_node_strip(ld->rhs)->kind == KP_N_CONDOP) {
			x->ok = 0;
			x->why_not = kp_arena_printf(
				arena,
				"line %d: the value stored when the guard fails, '%s', is not a zero "
				"kpipe can prove, and cp.async fills with zeros",
				ld->line, ld->otherwise);
		} else if (x->ok && !ld->pure) {
			x->ok = 0;
			x->why_not = kp_arena_printf(
				arena, "line %d: the copy converts or computes on its way in",
				ld->line);
		} else if (x->ok && ld->bytes != 4 && ld->bytes != 8 && ld->bytes != 16) {
			x->ok = 0;
			x->why_not = kp_arena_printf(
				arena,
				"line %d: %lld-byte copies; cp.async copies 4, 8 or 16 bytes",
				ld->line, ld->bytes);
		} else if (x->ok && ld->async_why) {
			x->ok = 0;
			x->why_not = ld->async_why;
		}
	}
	for (int i = 0; i < l->ntiles && x->ok; i++) {
		const kp_decl *d = l->tiles[i].arr;
		if (l->tiles[i].loaded && KP_TY_ANY_VOLATILE(d->ty)) {
			x->ok = 0;
			x->why_not = kp_arena_printf(
				arena, "'%s' is volatile: cp.async writes it behind the compiler",
				d->name);
		}
	}
}

/* __pipeline_memcpy_async is written with one byte count per copy: the
 * instantiations of a template loop must agree on it. */
static void cp_facts_merged(const kp_loop *l, kp_arena *arena, kp_xfacts *x)
{
	const kp_loop *q = l->per_inst[0];
	for (int i = 0; i < l->nloads && x->ok; i++)
		for (int s = 1; s < l->nper_inst; s++) {
			const kp_loop *p = l->per_inst[s];
			if (p->nloads != l->nloads || q->nloads != l->nloads ||
			    p->loads[i].bytes != q->loads[i].bytes) {
				x->ok = 0;
				x->why_not = kp_arena_printf(
					arena,
					"line %d: the copy is %lld B for instantiation <%s> and %lld B for "
					"<%s>; the cp.async rewrite writes one byte count",
					l->loads[i].line,
					q->nloads == l->nloads ? q->loads[i].bytes : -1, q->inst,
					p->nloads == l->nloads ? p->loads[i].bytes : -1, p->inst);
				break;
			}
		}
}

static int cp_match(const kp_file *f, const kp_loop *l, const kp_arch *a, kp_arena *arena,
		    const char **why_not)
{
	(void)a;
	return kp_transform_match_facts(&kp_transform_cp_async, f, l, arena, why_not,
					"not every copy is cp.async-able");
}

/* A ring of S buffers. */
static int cp_buffers(int stages) { return stages; }

/* The parent of `target` under `root` (kp_node_walk). */
typedef struct {
	const kp_node *target, *parent;
} parent_find;

static int find_parent(kp_node *n, kp_node *parent, void *ud)
{
	parent_find *p = ud;
	if (n == p->target)
		p->parent = parent;
	return !p->parent;
}

static const kp_node *parent_of(const kp_loop *l, const kp_node *n)
{
	parent_find p = {n, NULL};
	kp_node_walk(l->body, NULL, find_parent, &p);
	return p.parent;
}

/* A guarded copy can name its guard when its statement stands in a block
 * (the declarations go before it; not in a switch, whose case labels
 * must not jump over them), on a line of its own, outside a macro. */
static int can_declare_before(const kp_file *f, const kp_loop *l, const kp_node *stmt)
{
	const kp_node *p = parent_of(l, stmt);
	if (!p || p->kind != KP_N_COMPOUND || stmt->from_macro)
		return 0;
	const kp_node *pp = parent_of(l, p);
	if (pp && pp->kind == KP_N_SWITCH)
		return 0;
	for (unsigned b = stmt->begin; b > 0 && f->src[b - 1] != '\n'; b--)
		if (f->src[b - 1] != ' ' && f->src[b - 1] != '\t')
			return 0;
	return 1;
}

/* 1 when `t` is one parenthesised group: "(a && b)", not "(a) && (b)". */
static int parenthesised(const char *t)
{
	int depth = 0;
	if (*t != '(')
		return 0;
	for (const char *p = t; *p; p++)
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return !p[1];
	return 0;
}

/* The length of the kernel's longest line, at least 80. */
static size_t kernel_width(const kp_file *f, const kp_loop *l)
{
	const kp_node *b = l->kernel && l->kernel->body ? l->kernel->body : l->node;
	size_t w = 80, col = 0;
	for (unsigned i = b->begin; i < b->end && i < f->len; i++) {
		col = f->src[i] == '\n' ? 0 : col + (f->src[i] == '\t' ? 8 : 1);
		if (col > w)
			w = col;
	}
	return w;
}

/* The names of a guarded copy's guard and source: kp_in_As and kp_src_As
 * (a number after the tile when several copies fill it). */
static void guard_names(kp_file *f, const kp_loop *l, const kp_load *ld, const char **in,
			const char **src)
{
	int same = 0, nth = 0;
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i].tile == ld->tile) {
			if (&l->loads[i] == ld)
				nth = same;
			same++;
		}
	char num[16] = "";
	if (same > 1)
		snprintf(num, sizeof(num), "%d", nth);
	*in = kp_fresh_name(f, kp_arena_printf(&f->arena, "kp_in_%s%s", ld->tile->name, num));
	*src = kp_fresh_name(f, kp_arena_printf(&f->arena, "kp_src_%s%s", ld->tile->name, num));
}

/* Where a guarded copy loads, rendered with s: its condition, or `!(c)`
 * for an inverted if/else (`if (c) zero; else load;`).  Caller frees. */
static char *guard_text(kp_file *f, const kp_load *ld, const kp_subs *s)
{
	char *c = kp_render(f, ld->cond->begin, ld->cond->end, s);
	if (!ld->guard_inverted)
		return c;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "!(%s)", c);
	free(c);
	return kp_strbuf_detach(&sb);
}

/* The cp.async statement replacing one copy; subs already hold the tile
 * index and induction substitutions for this phase.  A guarded copy
 * (cond ? src : 0) becomes a zero-fill copy from a valid address; where
 * its statement allows, the guard and the source are named first:
 *
 *   const bool kp_in_As = cond;
 *   const void *kp_src_As = kp_in_As ? (const void *)&src : (const void *)A;
 *   __pipeline_memcpy_async(&As[..], kp_src_As, 4, kp_in_As ? 0 : 4)
 *
 * (cond evaluated once, as in the source), else it is written inline. */
/* The source pointer as written (`A`, or `a.data` for a pointer member):
 * the address a failed guard's zero-fill copy points at. */
static const char *base_text(kp_file *f, const kp_load *ld)
{
	return ld->src_base->kind == KP_N_MEMBER ? kp_node_text(f, ld->src_base)
						 : ld->src_base->name;
}

static char *copy_stmt(kp_file *f, const kp_loop *l, const kp_load *ld, const kp_subs *s)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	char *lhs = kp_render(f, ld->lhs->begin, ld->lhs->end, s);
	char *rhs = kp_render(f, ld->rhs->begin, ld->rhs->end, s);
	char *dst = kp_addr_of(lhs), *src = kp_addr_of(rhs);
	long long bytes = ld->bytes;
	if (ld->guard == KP_G_NONE) {
		kp_strbuf_addf(&sb, "__pipeline_memcpy_async(%s, %s, %lld)", dst, src, bytes);
	} else if (can_declare_before(f, l, ld->stmt)) {
		char *cond = guard_text(f, ld, s);
		char *ind = kp_line_indent(f, ld->stmt->begin);
		const char *in, *sv;
		guard_names(f, l, ld, &in, &sv);
		kp_strbuf_addf(&sb, "const bool %s = %s;\n", in, cond);
		/* the ternary on two lines where one would pass the kernel's
		 * widest line (the loop's block adds about two levels) */
		kp_strbuf decl = KP_STRBUF_INIT;
		kp_strbuf_addf(&decl, "const void *%s = %s ? (const void *)%s", sv, in, src);
		const char *d = kp_strbuf_str(&decl), *base = base_text(f, ld);
		size_t one = strlen(ind) + 8 + strlen(d) + strlen(base) + 18;
		if (one > kernel_width(f, l) && !strchr(src, '\n'))
			kp_strbuf_addf(&sb, "%s%s\n%s%*s: (const void *)%s;\n", ind, d, ind,
				       (int)(strlen(sv) + strlen(in) + 16), "", base);
		else
			kp_strbuf_addf(&sb, "%s%s : (const void *)%s;\n", ind, d, base);
		kp_strbuf_release(&decl);
		kp_strbuf_addf(&sb, "%s__pipeline_memcpy_async(%s, %s, %lld, %s ? 0 : %lld)", ind,
			       dst, sv, bytes, in, bytes);
		free(ind);
		free(cond);
	} else {
		char *cond = guard_text(f, ld, s);
		const char *o = parenthesised(cond) ? "" : "(", *c = *o ? ")" : "";
		kp_strbuf_addf(
			&sb,
			"__pipeline_memcpy_async(%s, %s%s%s ? (const void *)%s : (const void "
			"*)%s, %lld, %s%s%s ? 0 : %lld)",
			dst, o, cond, c, src, base_text(f, ld), bytes, o, cond, c, bytes);
		free(cond);
	}
	free(lhs);
	free(rhs);
	free(dst);
	free(src);
	return kp_strbuf_detach(&sb);
}

/* Renders the load phase for one tile slot (`idx`), `ahead` iterations
 * ahead of the current one. */
static char *load_phase(kp_file *f, const kp_loop *l, const kp_spans *sp, const char *idx,
			int ahead)
{
	kp_subs s = {0};
	kp_subs_tiles(&s, f, l, sp->load_b, sp->load_e, idx);
	kp_subs_ahead(&s, l, sp->load_b, sp->load_e, ahead);
	kp_subs outer = {0};
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		char *c = copy_stmt(f, l, ld, &s);
		unsigned e = ld->stmt->end;
		/* an if/else whose else branch is a block has no trailing ';' */
		if (ld->guard == KP_G_IFELSE) {
			unsigned p = e;
			while (p < f->len && (f->src[p] == ' ' || f->src[p] == '\t'))
				p++;
			if (p >= f->len || f->src[p] != ';') {
				char *t = c;
				kp_strbuf sb = KP_STRBUF_INIT;
				kp_strbuf_addf(&sb, "%s;", t);
				c = kp_strbuf_detach(&sb);
				free(t);
			}
		}
		kp_subs_add(&outer, ld->stmt->begin, e - ld->stmt->begin, c);
		free(c);
		/* a copy through a temporary: the copy reads the value itself,
		 * the temporary (a synchronous load) goes */
		kp_subs_drop_stmt(&outer, f, ld->tmp_decl);
		kp_subs_drop_stmt(&outer, f, ld->tmp_set);
	}
	for (int i = 0; i < s.n; i++)
		kp_subs_add(&outer, s.v[i].off, s.v[i].len, s.v[i].text);
	char *txt = kp_render(f, sp->load_b, sp->load_e, &outer);
	kp_subs_release(&s);
	kp_subs_release(&outer);
	return txt;
}

/* `#include <cuda_pipeline.h>`, with every function-like macro of the
 * file's that the header uses as a name saved, undefined and restored
 * around it (a library's `#define max(a, b)` breaks cuda_awbarrier.h's
 * `max()`).  The names: the functions, methods and types that
 * cuda_pipeline.h and the headers it includes (CUDA 12 and 13) call or
 * construct.  Caller frees. */
static char *pipeline_include(const kp_file *f)
{
	static const char *const used[] = {"arrival_token",
					   "arrive",
					   "arrive_and_drop",
					   "arrive_and_wait",
					   "arrive_on",
					   "atomicAdd_block",
					   "awbarrier",
					   "clock64",
					   "commit",
					   "commit_and_wait",
					   "cp_async",
					   "current_batch",
					   "init",
					   "int2",
					   "int4",
					   "inval",
					   "max",
					   "memcpy_async",
					   "min",
					   "pending_count",
					   "pipeline",
					   "segment",
					   "timed_wait",
					   "timed_wait_parity",
					   "token",
					   "try_wait",
					   "try_wait_parity",
					   "wait",
					   "wait_prior"};
	kp_strbuf pre = KP_STRBUF_INIT, post = KP_STRBUF_INIT;
	for (int i = 0; i < f->nfn_macros; i++) {
		const char *m = f->fn_macros[i];
		int hit = !strncmp(m, "awbarrier_", 10) || !strncmp(m, "pipeline_", 9);
		for (size_t k = 0; k < KP_ARRAY_LEN(used) && !hit; k++)
			hit = !strcmp(m, used[k]);
		if (!hit)
			continue;
		kp_strbuf_addf(&pre, "#pragma push_macro(\"%s\")\n#undef %s\n", m, m);
		kp_strbuf_addf(&post, "#pragma pop_macro(\"%s\")\n", m);
	}
	kp_strbuf_adds(&pre, "#include <cuda_pipeline.h>\n");
	kp_strbuf_adds(&pre, kp_strbuf_str(&post));
	kp_strbuf_release(&post);
	return kp_strbuf_detach(&pre);
}

static int cp_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		    const char **err)
{
	int S = o->stages < 2 ? 2 : o->stages;
	if (S > 8) {
		*err = "at most 8 stages";
		return -1;
	}
	kp_frame fr;
	kp_frame_open(&fr, f, l);
	const char *ind = fr.ind, *iu = fr.iu, *I1 = fr.I1, *I2 = fr.I2;

	const char *stage = kp_fresh_name(f, KP_NAME_STAGE);
	kp_strbuf sb = KP_STRBUF_INIT;
	char *comment = o->no_comment
				? NULL
				: kp_arena_printf(&f->arena, "cp.async, %d stages: %s", S, o->why);
	kp_emit_open(&sb, f, l, fr.start, ind, I1, comment, S, o->dynamic, out);

	/* prologue: tiles 0 .. S-2 into slots 0 .. S-2, one group each */
	char *c0 = kp_cond_ahead(f, l, 0);
	for (int t = 0; t < S - 1; t++) {
		char slot[16];
		snprintf(slot, sizeof(slot), "%d", t);
		char *ct = kp_tile_exists(f, l, 0, t);
		char *pro = load_phase(f, l, &fr.sp, slot, t);
		if (t > 0) { /* the source's comments once, with tile 0 */
			char *bare = kp_strip_comments(pro);
			free(pro);
			pro = bare;
		}
		char *pro_i = kp_reindent(pro, iu);
		kp_strbuf_addf(&sb, "%sif (%s) {\n%s%s}\n", I1, ct, pro_i, I1);
		kp_strbuf_addf(&sb, "%s__pipeline_commit();\n", I1);
		free(pro);
		free(pro_i);
		free(ct);
	}

	/* main loop */
	if (fr.pragma)
		kp_strbuf_addf(&sb, "%s%s\n", I1, fr.pragma);
	char *inc = kp_render(f, l->inc->begin, l->inc->end, &(kp_subs){0});
	kp_strbuf_addf(&sb, "%sfor (; %s; %s) {\n", I1, c0, inc);
	free(inc);
	kp_strbuf_addf(&sb, "%s__pipeline_wait_prior(%d);\n", I2, S - 2);
	kp_strbuf_addf(&sb, "%s__syncthreads();\n", I2);
	char *cn = kp_tile_exists(f, l, 1, S - 1);
	const char *refill =
		S == 2 ? kp_arena_printf(&f->arena, "%s ^ 1", stage)
		       : kp_arena_printf(&f->arena, "(%s + %d) %% %d", stage, S - 1, S);
	char *nxt = load_phase(f, l, &fr.sp, refill, S - 1);
	char *nxt_i = kp_reindent(nxt, I1 + strlen(ind));
	char *nxt_ii = kp_reindent(nxt_i, iu);
	kp_strbuf_addf(&sb, "%sif (%s) {\n%s%s}\n", I2, cn, nxt_ii, I2);
	kp_strbuf_addf(&sb, "%s__pipeline_commit();\n", I2);
	free(nxt);
	free(nxt_i);
	free(nxt_ii);
	free(cn);

	kp_subs cs = {0};
	kp_subs_tiles(&cs, f, l, fr.sp.comp_b, fr.sp.comp_e, stage);
	char *comp = kp_render_compute(f, l, &fr.sp, &cs, o->no_comment);
	char *comp_i = kp_reindent(comp, iu);
	kp_strbuf_adds(&sb, comp_i);
	free(comp);
	free(comp_i);
	kp_subs_release(&cs);
	kp_emit_tail(&sb, f, &fr.sp, iu);
	kp_emit_last_set(&sb, f, l, fr.I2, stage, S);
	/* drain: the last groups are empty, but leave none pending */
	kp_emit_ring_close(&sb, &fr, l, o, stage, S, S > 2 ? "__pipeline_wait_prior(0);" : NULL);
	free(c0);

	kp_edits_add(out, fr.start, l->node->end - fr.start, kp_strbuf_str(&sb));
	if (!f->includes_pipeline) {
		char *inc = pipeline_include(f);
		kp_edit_file_once(out, f, "cuda_pipeline.h", inc);
		free(inc);
	}
	kp_strbuf_release(&sb);
	kp_frame_release(&fr);
	(void)err;
	return 0;
}

static const kp_tune_cand cp_tune[] = {
	{"cp-async", 2, 40},
	{"cp-async-s3", 3, 50},
	{"cp-async-s4", 4, 60},
};

const kp_transform kp_transform_cp_async = {
	.name = "cp-async",
	.label = "cp.async",
	.summary = "double-buffered shared tiles filled with cp.async (LDGSTS), one barrier per "
		   "iteration",
	.min_cc = 80,
	.min_stages = 2,
	.max_stages = 8,
	.buffers = cp_buffers,
	.facts = cp_facts,
	.facts_merged = cp_facts_merged,
	.match = cp_match,
	.tune = cp_tune,
	.ntune = KP_ARRAY_LEN(cp_tune),
	.apply = cp_apply,
};
