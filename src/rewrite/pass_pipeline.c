/*
 * pass_pipeline.c - the "pipeline" pass (pass.h): analyse the K-loops of
 * one model, plan each, and let its transform produce the edits, one
 * kpipe-pipelined note per loop owning them; every loop not pipelined gets
 * its reasons.  The driver (rewrite.c) applies the edits and checks them.
 */
#include "pass.h"
#include "pass_targets.h"

#include "findings.h"
#include "host_edits.h"
#include "occ_bound.h"
#include "plan.h"
#include "rewrite.h"
#include "transform.h"

#include <stdlib.h>
#include <string.h>

/* The loops of one model so far: the tiles already pipelined (a tile two
 * loops load is pipelined in the first only), and the loops pipelined
 * with the buffers their transform declared. */
typedef struct {
	kp_decl **done;
	int ndone;
	const kp_loop **piped;
	int *bufs;
	int npiped;
	const kp_kernel **dyn; /* kernels whose tiles a loop moved to dynamic shared memory */
	int ndyn;
	const char **once; /* the names of the text added once per file (kp_edit.once) */
	int nonce;
	kp_analysis *an;
	/* later loops over tiles an earlier pipelined loop shares with them
	 * (analysis/earlier_use.h): the loop, that first loop, its stages */
	kp_loop **cont, **cont_of;
	int *cont_bufs;
	int ncont;
} pipeline_state;

/* Whether every tile p loads is one l loads too. */
static int all_shared(const kp_loop *p, const kp_loop *l)
{
	for (int i = 0; i < p->ntiles; i++) {
		int found = !p->tiles[i].loaded;
		for (int j = 0; j < l->ntiles && !found; j++)
			found = l->tiles[j].loaded && l->tiles[j].arr == p->tiles[i].arr;
		if (!found)
			return 0;
	}
	return 1;
}

/* The analysis counts the tiles of the kernel's other K-loops once, among
 * a loop's other shared memory; a loop pipelined before it declared them
 * `buffers` times.  Adds the difference (for each instantiation of a
 * template kernel) so that the plan checks what the kernel will hold, and
 * returns it (the shown instantiation's). */
static long long add_earlier_buffers(const pipeline_state *s, kp_loop *l)
{
	long long added = 0;
	for (int i = 0; i < s->npiped; i++) {
		const kp_loop *p = s->piped[i];
		long long more = s->bufs[i] - 1;
		if (p->kernel != l->kernel || more <= 0 || all_shared(p, l))
			continue; /* shared tiles: their stages are counted once */
		if (p->tile_bytes > 0) {
			l->other_smem += p->tile_bytes * more;
			added += p->tile_bytes * more;
		}
		for (int q = 0; q < l->nper_inst && q < p->nper_inst; q++)
			if (p->per_inst[q]->tile_bytes > 0)
				l->per_inst[q]->other_smem += p->per_inst[q]->tile_bytes * more;
	}
	return added;
}

/* Whether later loop m loads a tile that l loads, used before m in a way
 * earlier_use.h proved, and nothing else of l's. */
static int shares_tiles(const kp_loop *l, const kp_loop *m)
{
	int any = 0;
	for (int i = 0; i < m->ntiles; i++)
		for (int j = 0; j < l->ntiles; j++)
			if (m->tiles[i].loaded && l->tiles[j].loaded &&
			    m->tiles[i].arr == l->tiles[j].arr) {
				if (!m->tiles[i].used_before)
					return 0;
				any = 1;
			}
	return any;
}

/* Registers the later eligible loops of l's kernel over tiles l shares
 * with them: l's uses outside it skip their ranges, and they index the
 * stages l declares (kp_loop.skip_b, .last_name). */
static void register_later(kp_pass_ctx *c, pipeline_state *s, kp_loop *l, int bufs)
{
	l->nskip = 0;
	for (int i = 0; s->an && i < s->an->nloops; i++) {
		kp_loop *m = s->an->loops[i];
		if (m->kernel != l->kernel || m->node->begin <= l->node->end || !m->eligible ||
		    l->nskip >= 4 || !shares_tiles(l, m) || !kp_pass_loop_wanted(c, m))
			continue;
		l->skip_b[l->nskip] = m->node->begin;
		l->skip_e[l->nskip++] = m->node->end;
		s->cont = kp_xrealloc(s->cont, sizeof(*s->cont) * (size_t)(s->ncont + 1));
		s->cont_of = kp_xrealloc(s->cont_of, sizeof(*s->cont_of) * (size_t)(s->ncont + 1));
		s->cont_bufs =
			kp_xrealloc(s->cont_bufs, sizeof(*s->cont_bufs) * (size_t)(s->ncont + 1));
		s->cont[s->ncont] = m;
		s->cont_of[s->ncont] = l;
		s->cont_bufs[s->ncont++] = bufs;
	}
}

static int cont_index(const pipeline_state *s, const kp_loop *m)
{
	for (int i = 0; i < s->ncont; i++)
		if (s->cont[i] == m)
			return i;
	return -1;
}

/* Whether a tile loop l loads was pipelined in an earlier loop. */
static int tile_clash(const pipeline_state *s, const kp_loop *l)
{
	for (int t = 0; t < l->ntiles; t++)
		for (int d = 0; d < s->ndone; d++)
			if (l->tiles[t].loaded && s->done[d] == l->tiles[t].arr)
				return 1;
	return 0;
}

/* The launches of a loop whose tiles use dynamic shared memory, in one of
 * the plan's two forms: tiles moved there (`bytes` > 0: every launch
 * passes that many) or extern tiles with a copy of the region per buffer
 * (`copies` > 0: every launch passes copies x its own bytes, rounded up to
 * 16 so that every copy keeps the alignment of the first).  Each <<<>>>
 * launch of the kernel in the file gets the bytes as its third argument,
 * in one expression that first raises the opt-in attribute, so it works
 * wherever the launch is written; a `// kpipe-launch: dynamic_smem(KERNEL)`
 * line above the kernel tells kpipe validate and tune (in the launch spec's
 * terms); without a launch in the file, a warning says what the callers
 * must pass. */
static void launch_edits(kp_pass_ctx *c, const kp_loop *l, long long bytes, int copies, int di)
{
	kp_file *f = c->f;
	kp_arena *ar = &f->arena;
	const kp_kernel *k = l->kernel;
	int n = 0;
	kp_edits ed = {0};
	for (int i = 0; i < f->nlaunches; i++) {
		const kp_launch *x = &f->launches[i];
		if (x->kernel != k)
			continue;
		unsigned cb, ce, ab = 0, ae = 0;
		kp_launch_span(f, x, -1, &cb, &ce);
		if (x->nconfig >= 3)
			kp_launch_span(f, x, 2, &ab, &ae);
		const char *pass, *attr;
		if (copies) {
			pass = kp_arena_printf(ar, "(size_t)%d * (((%.*s) + 15) / 16 * 16)", copies,
					       (int)(ae - ab), f->src + ab);
			attr = kp_arena_printf(ar, "(int)(%s)", pass);
		} else
			pass = attr = kp_arena_printf(ar, "%lld", bytes);
		const char *e = kp_arena_printf(
			ar,
			"(cudaFuncSetAttribute(%.*s, cudaFuncAttributeMaxDynamicSharedMemorySize, %s), %s)",
			(int)(ce - cb), f->src + cb, attr, pass);
		kp_launch_set_config(&ed, f, x, 2, e);
		n++;
	}
	for (int i = 0; i < ed.n; i++)
		kp_pass_edit(c, ed.v[i].off, ed.v[i].len, ed.v[i].text, di);
	kp_edits_release(&ed);
	unsigned kb = k->begin;
	while (kb > 0 && f->src[kb - 1] != '\n')
		kb--;
	/* the kpipe-launch line is read by kpipe validate: --no-comment keeps it */
	const char *why =
		c->o->no_comment ? ""
		: copies         ? kp_arena_printf(
                                   ar,
                                   "// kpipe: '%s' keeps %d copies of its dynamic shared memory: "
					   "every launch passes %d x its bytes, rounded up to 16\n",
                                   k->name, copies, copies)
			 : kp_arena_printf(
				   ar,
				   "// kpipe: the tiles of '%s' are in dynamic shared memory: "
				   "every launch passes %lld bytes\n",
				   k->name, bytes);
	kp_pass_edit(
		c, kb, 0,
		copies ? kp_arena_printf(
				 ar,
				 "%s// kpipe-launch: dynamic_smem(%s) = %d * ((kpipe_spec_smem + "
				 "15) / 16 * 16)\n",
				 why, k->name, copies)
		       : kp_arena_printf(ar, "%s// kpipe-launch: dynamic_smem(%s) = %lld\n", why,
					 k->name, bytes),
		di);
	if (n)
		return;
	kp_pass_diag(
		c, l->node->line, l->node->col, "warning", "kpipe-dynamic-smem-launch",
		copies ? kp_arena_printf(ar,
					 "the dynamic shared memory of '%s' now holds %d copies "
					 "of the region and no launch of it is in this file: every "
					 "launch must pass %d x its bytes rounded up to 16 (%d * "
					 "((bytes + 15) / 16 * 16)), after raising "
					 "cudaFuncAttributeMaxDynamicSharedMemorySize to that",
					 k->name, copies, copies, copies)
		       : kp_arena_printf(ar,
					 "the tiles of '%s' are now in dynamic shared memory and "
					 "no launch of it is in this file: every launch must pass "
					 "%lld as its third <<<>>> argument, after "
					 "cudaFuncSetAttribute(%s, "
					 "cudaFuncAttributeMaxDynamicSharedMemorySize, %lld)",
					 k->name, bytes, k->name, bytes));
}

/* A loop registered to share tiles with an earlier one, which left a
 * last-stage variable: its index in s->cont, else -1. */
static int continuation(pipeline_state *s, kp_file *f, kp_loop *l)
{
	int ci = cont_index(s, l);
	return ci >= 0 && kp_last_var(f, s->cont_of[ci], s->cont_bufs[ci]) ? ci : -1;
}

/* Once planned (the ptxas probe rewrote it alone): its shared tiles
 * already have their stages (kp_tile.cont) and it sets the earlier loop's
 * last-stage variable. */
static void as_continuation(pipeline_state *s, kp_file *f, kp_loop *l, int ci)
{
	for (int t = 0; t < l->ntiles; t++)
		for (int d = 0; d < s->ndone; d++)
			if (l->tiles[t].loaded && s->done[d] == l->tiles[t].arr)
				l->tiles[t].cont = 1;
	l->last_name = kp_last_var(f, s->cont_of[ci], s->cont_bufs[ci]);
}

/* Forgets the later loops registered with l (l was not pipelined). */
static void unregister(pipeline_state *s, kp_loop *l)
{
	int n = 0;
	for (int i = 0; i < s->ncont; i++)
		if (s->cont_of[i] != l) {
			s->cont[n] = s->cont[i];
			s->cont_of[n] = s->cont_of[i];
			s->cont_bufs[n++] = s->cont_bufs[i];
		}
	s->ncont = n;
	l->nskip = 0;
}

/* Whether the plan indexes static tiles by stage, [S][...] with S of 2 or
 * more, for every target alike: what loops that share tiles can agree on. */
static int plain_stages(int split, const kp_tplan *tp, const kp_plan *p)
{
	if (p->dynamic || p->stages < 2 || p->xform->buffers(p->stages) != p->stages)
		return 0;
	return !split || (tp->lo.xform && !tp->lo.dynamic && tp->lo.stages == p->stages &&
			  tp->lo.xform->buffers(tp->lo.stages) == tp->lo.stages);
}

/* Plans and transforms one eligible loop: its edits, owned by its note.
 * Returns the name of the transform that pipelined it, NULL when it was
 * not pipelined. */
static const char *pipeline_loop(kp_pass_ctx *c, pipeline_state *s, kp_loop *l)
{
	const kp_rw_opts *o = c->o;
	kp_file *f = c->f;
	kp_rw_result *r = c->r;
	int line = l->node->line, col = l->node->col;
	int ci = -1;
	if (tile_clash(s, l) && (ci = continuation(s, f, l)) < 0) {
		kp_pass_refuse(c, line, col, "kpipe-tile-shared-by-loops",
			       "a tile of this loop was already pipelined in an earlier loop");
		return NULL;
	}
	long long added = add_earlier_buffers(s, l);
	kp_plan p;
	kp_tplan tp; /* several targets (rw_opts.h): pass_targets.c */
	int split = kp_pass_plan(c, l, &tp, &p);
	if (!p.xform) {
		const char *msg = p.refuse_msg;
		if (added > 0 && !strcmp(p.refuse_id, "kpipe-smem-over-limit"))
			msg = kp_arena_printf(&f->arena,
					      "%s; this counts the %lld B the K-loops pipelined "
					      "before it in the kernel added",
					      msg, added);
		kp_pass_refuse(c, line, col, p.refuse_id, msg);
		return NULL;
	}
	/* one extern array per kernel: a second loop's tiles would alias the
	 * first's (and its launches would be edited twice) */
	int buffers = p.xform->buffers(p.stages);
	int stage_major = l->dyn_tiles && buffers > 1; /* the plan checked the launches */
	int clash = 0;
	for (int i = 0; (p.dynamic || stage_major) && i < s->ndyn; i++)
		clash |= s->dyn[i] == l->kernel;
	if (clash && p.dynamic) {
		kp_pass_refuse(c, line, col, "kpipe-smem-over-limit",
			       kp_arena_printf(&f->arena,
					       "%d stages need %lld B of shared memory beyond "
					       "the static limit, and an earlier K-loop of '%s' "
					       "already moved its tiles to dynamic shared memory "
					       "(kpipe moves one loop's per kernel)",
					       p.stages, p.dyn_bytes, l->kernel->name));
		return NULL;
	}
	if (clash) {
		kp_pass_refuse(
			c, line, col, "kpipe-dynamic-smem",
			kp_arena_printf(&f->arena,
					"the tiles are dynamic shared memory and %d "
					"buffers need %d copies of the region, but an earlier "
					"K-loop of the kernel already has stages in dynamic "
					"shared memory",
					buffers, buffers));
		return NULL;
	}
	int plain = plain_stages(split, &tp, &p) && !stage_major;
	if (ci >= 0 && (!plain || p.stages > s->cont_bufs[ci])) {
		kp_pass_refuse(
			c, line, col, "kpipe-tile-shared-by-loops",
			kp_arena_printf(&f->arena,
					"the K-loop at line %d pipelined this loop's tiles "
					"first (%d stages); this loop's plan (%s, %d stages) "
					"cannot index the same stages",
					s->cont_of[ci]->node->line, s->cont_bufs[ci], p.xform->name,
					p.stages));
		return NULL;
	}
	if (ci >= 0)
		as_continuation(s, f, l, ci);
	if (ci < 0 && plain)
		register_later(c, s, l, buffers);
	kp_xform_opts xo = {o->arch, p.stages, p.why, p.dynamic, o->no_comment};
	const char *xerr = NULL;
	kp_edits mine = {0};
	if (split ? kp_pass_split_apply(c, l, &tp, &mine, &xerr)
		  : p.xform->apply(f, l, &xo, &mine, &xerr)) {
		kp_pass_refuse(c, line, col, "kpipe-transform-failed",
			       xerr ? xerr : "the transform failed");
		kp_edits_release(&mine);
		unregister(s, l);
		return NULL;
	}
	kp_strbuf note = KP_STRBUF_INIT;
	if (split)
		kp_pass_split_note(&note, &tp);
	else
		kp_strbuf_addf(&note, "pipelined with %s (%d stages): %s", p.xform->name, p.stages,
			       p.why);
	int nl = p.dynamic ? kp_plan_launches(f, l) : 0;
	if (p.dynamic)
		kp_strbuf_addf(&note,
			       "; the tiles moved to dynamic shared memory (%lld B per block), %d "
			       "launch%s in this file edited",
			       p.dyn_bytes, nl, nl == 1 ? "" : "es");
	int di = kp_pass_diag(c, line, col, "note", "kpipe-pipelined", kp_strbuf_str(&note));
	kp_strbuf_release(&note);
	if (p.unchecked)
		kp_pass_diag(c, line, col, "note", "kpipe-registers-over-limit", p.unchecked);
	const char *tt = p.dynamic ? NULL : kp_plan_template_tiles(f, l, o->arch, buffers);
	if (tt)
		kp_pass_diag(c, line, col, "warning", "kpipe-template-tiles", tt);
	if (o->keep_occupancy && (split || l->dyn_tiles))
		kp_pass_diag(c, line, col, "note", "kpipe-keep-occupancy",
			     split ? "no __launch_bounds__ added: the targets have a loop each, "
				     "whose blocks per SM differ"
				   : "no __launch_bounds__ added: the tiles are dynamic shared "
				     "memory of the kernel's own, whose size ptxas does not see");
	else if (o->keep_occupancy)
		kp_occ_bound(c, l, &mine, p.dynamic ? p.dyn_bytes : 0, line, col);
	if (p.dynamic || stage_major) {
		launch_edits(c, l, p.dynamic ? p.dyn_bytes : 0, stage_major ? buffers : 0, di);
		s->dyn = kp_xrealloc(s->dyn, sizeof(*s->dyn) * (size_t)(s->ndyn + 1));
		s->dyn[s->ndyn++] = l->kernel;
	}
	for (int e = 0; e < mine.n; e++) {
		/* what the file needs once (an #include, helpers): the first loop's */
		const kp_edit *m = &mine.v[e];
		int dup = 0;
		for (int k = 0; m->once && k < s->nonce; k++)
			dup |= !strcmp(s->once[k], m->once);
		if (dup)
			continue;
		if (m->once) {
			s->once = kp_xrealloc(s->once, sizeof(*s->once) * (size_t)(s->nonce + 1));
			s->once[s->nonce++] = m->once;
		}
		kp_pass_edit(c, m->off, m->len, m->text, di);
	}
	kp_edits_release(&mine);
	for (int t = 0; t < l->ntiles; t++)
		if (l->tiles[t].loaded) {
			s->done = kp_xrealloc(s->done, sizeof(*s->done) * (size_t)(s->ndone + 1));
			s->done[s->ndone++] = l->tiles[t].arr;
		}
	s->piped = kp_xrealloc(s->piped, sizeof(*s->piped) * (size_t)(s->npiped + 1));
	s->bufs = kp_xrealloc(s->bufs, sizeof(*s->bufs) * (size_t)(s->npiped + 1));
	s->piped[s->npiped] = l;
	s->bufs[s->npiped++] = p.xform->buffers(p.stages);
	r->pipelined++;
	kp_counts_add(&r->by_variant, p.xform->name, 1);
	return p.xform->name;
}

/* A later loop registered with an earlier one that was not pipelined
 * after all: the earlier loop's walk skipped its range, so its uses of the
 * shared tiles take that loop's index here. */
static void index_as_before(kp_pass_ctx *c, pipeline_state *s, int ci)
{
	kp_loop *m = s->cont[ci], *o = s->cont_of[ci];
	const char *v = kp_last_var(c->f, o, s->cont_bufs[ci]);
	kp_edits ed = {0};
	for (int t = 0; t < m->ntiles; t++)
		for (int d = 0; d < s->ndone; d++)
			if (m->tiles[t].loaded && s->done[d] == m->tiles[t].arr)
				kp_tile_index_range(
					m->kernel, m->tiles[t].arr, m->node->begin, m->node->end,
					kp_arena_printf(&c->f->arena, "[%s]", v ? v : "0"), &ed);
	for (int e = 0; e < ed.n; e++)
		kp_pass_edit(c, ed.v[e].off, ed.v[e].len, ed.v[e].text, -1);
	kp_edits_release(&ed);
}

static void pipeline_run(kp_pass_ctx *c)
{
	kp_rw_result *r = c->r;
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	/* the arrays the pad pass padded: --variant auto plans on their
	 * padded text, where the conflicts it padded for are gone
	 * (auto.c, busy_kernel()) */
	int *padded = NULL, npadded = 0;
	for (int i = 0; i < r->ndiags; i++)
		if (r->diags[i].id && !strcmp(r->diags[i].id, "kpipe-padded")) {
			padded = kp_xrealloc(padded, sizeof(*padded) * (size_t)(npadded + 1));
			padded[npadded++] = r->diags[i].line;
		}
	c->f->padded_lines = padded;
	c->f->npadded = npadded;
	c->f->pad_known = 1;
	kp_analysis an;
	kp_analyze(&an, c->f, &ao);
	r->kernels += an.nkernels;
	pipeline_state s = {0};
	s.an = &an;
	for (int i = 0; i < an.nloops; i++) {
		kp_loop *l = an.loops[i];
		if (!kp_pass_loop_wanted(c, l))
			continue;
		r->loops++;
		c->loop_begin = l->node->begin; /* "// kpipe: ignore" there counts */
		int d0 = r->ndiags;
		if (l->eligible) {
			int ci = cont_index(&s, l);
			const char *variant = pipeline_loop(c, &s, l);
			if (!variant && ci >= 0)
				index_as_before(c, &s, ci);
			kp_rw_verdict_add(r, l->kernel->name, l->node->line, l->node->col, 1,
					  variant, d0);
			continue;
		}
		kp_rw_loop_refusals(r, c->f, l);
		r->refused++;
		if (l->nreasons && !strcmp(kp_rw_loop_level(l, l->reasons[0].id), "remark"))
			r->left_alone++;
		kp_rw_verdict_add(r, l->kernel->name, l->node->line, l->node->col, 0, NULL, d0);
	}
	c->loop_begin = 0;
	c->f->padded_lines = NULL;
	c->f->npadded = 0;
	c->f->pad_known = 0;
	free(padded);
	free(s.done);
	free(s.piped);
	free(s.bufs);
	free(s.dyn);
	free(s.once);
	free(s.cont);
	free(s.cont_of);
	free(s.cont_bufs);
	free(sk);
}

const kp_pass kp_pass_pipeline = {
	"pipeline",
	"pipelines the K-loops of every kernel (the transforms of transforms/)",
	pipeline_run,
};
