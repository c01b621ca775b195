/*
 * occ_bound.c - `rewrite --keep-occupancy` (issue 35): where a pipelined
 * loop's rewrite loses resident blocks per SM to registers (ptxas on the
 * original and on the rewrite, through f->auto_probe), the kernel gets
 * __launch_bounds__(THREADS, MINBLOCKS): MINBLOCKS the blocks the original
 * reached, capped by what the rewrite's shared memory and threads allow;
 * THREADS the kernel's own bound, else the block every launch kpipe sees
 * uses.  ptxas is asked again with the bound: where the bounded kernel
 * spills and the unbounded did not, the bound is dropped.  Every outcome
 * is a kpipe-keep-occupancy note; the loop is pipelined either way.
 * Measured on LeetCUDA's mma HGEMM (docs/benchmarks.md): the 2-stage
 * cp.async rewrite at 72 registers, 3 blocks of 256 threads, 1.28x; with
 * __launch_bounds__(256, 4), 1.41x.
 */
#include "occ_bound.h"

#include "banks.h"
#include "plan.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

/* The offset of k's name in its declaration (where a new bound goes), or
 * 0 when the parser did not place it or it is not followed by '('. */
static unsigned name_offset(const kp_file *f, const kp_kernel *k)
{
	unsigned q = k->name_off + (unsigned)strlen(k->name);
	unsigned e = k->body ? k->body->begin : k->end;
	if (!k->name_off)
		return 0;
	while (q < e && (f->src[q] == ' ' || f->src[q] == '\t' || f->src[q] == '\n'))
		q++;
	return q < e && f->src[q] == '(' ? k->name_off : 0;
}

/* What the bound is made of; why: NULL, or why there is none. */
typedef struct {
	int threads;
	const char *from;
	unsigned off;    /* where the edit goes */
	int has_one;     /* the kernel's own __launch_bounds__(T): ", M" is added */
	const char *why; /* no bound: why not */
} occ_where;

static void where_bound(kp_pass_ctx *c, const kp_loop *l, occ_where *w)
{
	kp_file *f = c->f;
	const kp_kernel *k = l->kernel;
	memset(w, 0, sizeof(*w));
	if (k->is_device) {
		w->why = "the K-loop is in a __device__ function; the bound would go on the "
			 "kernels that call it";
		return;
	}
	unsigned close = k->launch_bounds_close;
	int nb = k->launch_bounds_args;
	if (nb >= 2) {
		w->why = "the kernel already has __launch_bounds__ with a minimum of blocks "
			 "per SM, left as written";
		return;
	}
	if (nb < 0 || (nb == 1 && k->launch_bounds <= 0)) {
		w->why = "the kernel's __launch_bounds__ is not one kpipe reads (its first "
			 "argument is not a constant it evaluates)";
		return;
	}
	if (nb == 1) {
		w->threads = k->launch_bounds;
		w->from = "the kernel's __launch_bounds__";
		w->off = close;
		w->has_one = 1;
		return;
	}
	if (f->includer) {
		w->why = "the kernel is in a header, whose launches are in the files that "
			 "include it";
		return;
	}
	kp_analyze_opts ao;
	char *sk = NULL;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	kp_bk_block b;
	kp_bk_block_of(f, k, &ao, &b);
	free(sk);
	int t = b.x > 0 ? b.x * (b.y > 0 ? b.y : 1) * (b.z > 0 ? b.z : 1) : 0;
	if (t <= 0) {
		w->why = "the block size is not known (no launch in the file gives a constant "
			 "block, and no --block, --threads or launch description)";
		return;
	}
	int line = 0, bad = kp_bk_launches_within(f, k, t, &line);
	if (bad) {
		w->why = kp_arena_printf(
			&f->arena,
			bad < 0 ? "the launch at line %d has a block kpipe does not read: a bound of "
				  "%d threads could make it fail"
				: "the launch at line %d uses more than the %d threads per block "
				  "(%s) the bound would allow",
			line, t, b.from ? b.from : "the block given");
		return;
	}
	w->off = name_offset(f, k);
	if (!w->off) {
		w->why = "the kernel's name is not found in its declaration";
		return;
	}
	w->threads = t;
	w->from = b.from;
}

/* The text ptxas is asked about: f's text with `mine` (NULL: none) and,
 * when bound, the bound's edit applied, then `tail`; NULL when the edits
 * overlap. */
static char *with_edits(const kp_file *f, const kp_edits *mine, const kp_edit *bound,
			const char *tail, size_t *len)
{
	kp_edits all = {0};
	for (int i = 0; mine && i < mine->n; i++)
		kp_edits_add(&all, mine->v[i].off, mine->v[i].len, mine->v[i].text);
	if (bound)
		kp_edits_add(&all, bound->off, bound->len, bound->text);
	if (tail)
		kp_edits_add(&all, (unsigned)f->len, 0, tail);
	char *text = NULL;
	if (kp_edits_apply(&all, f->src, f->len, &text, len)) {
		free(text);
		text = NULL;
	}
	kp_edits_release(&all);
	return text;
}

/* ptxas's facts on f with mine (and bound, and tail); 0 with out->why
 * when not known. */
static int facts_of(kp_pass_ctx *c, const kp_loop *l, const kp_edits *mine, const kp_edit *bound,
		    const char *tail, kp_auto_facts *out)
{
	const kp_auto_probe *pr = c->f->auto_probe;
	size_t len = 0;
	char *text = with_edits(c->f, mine, bound, tail, &len);
	memset(out, 0, sizeof(*out));
	if (!text) {
		out->why = "the edits overlap";
		return 0;
	}
	int ok = pr->text(pr, c->f, l, c->o->arch, text, len, out);
	free(text);
	return ok;
}

/* A kernel template the file does not instantiate: a reference to the
 * instantiation the launch description names, added to every text
 * ptxas compiles (else it compiles no kernel); NULL otherwise. */
static const char *probe_tail(kp_pass_ctx *c, const kp_kernel *k)
{
	if (!k->is_template || k->ninst > 0)
		return NULL;
	char *targs = kp_rw_spec_targs(c->o, c->tu->path, k->name);
	if (!targs)
		return NULL;
	const char *t = kp_arena_printf(&c->f->arena,
					"\nstatic void *kp_occ_probe_ref = (void *)&%s%s;\n",
					k->qualified ? k->qualified : k->name, targs);
	free(targs);
	return t;
}

static int blocks_at(const kp_arch *a, int threads, int regs, int smem)
{
	return kp_arch_occupancy(a, threads, regs, smem).blocks_per_sm;
}

/* MINBLOCKS in *minblocks and the figures behind it (the text the note
 * quotes), or *minblocks 0 and the note's text.  dyn: the bytes of
 * dynamic shared memory the rewrite moved the tiles to (ptxas does not
 * count them). */
static const char *bound_minblocks(kp_pass_ctx *c, const kp_loop *l, const kp_edits *mine,
				   const occ_where *w, const char *tail, long long dyn,
				   int *minblocks)
{
	kp_file *f = c->f;
	const kp_arch *a = c->o->arch;
	const kp_auto_probe *pr = f->auto_probe;
	kp_auto_facts o, v;
	memset(&o, 0, sizeof(o));
	memset(&v, 0, sizeof(v));
	if (!pr || !pr->text)
		return "not added: ptxas was not asked (nvcc not used)";
	int known = tail ? facts_of(c, l, NULL, NULL, tail, &o) : pr->facts(pr, f, l, a, &o);
	if (!known || !facts_of(c, l, mine, NULL, tail, &v))
		return kp_arena_printf(&f->arena, "not added: ptxas could not be asked (%s)",
				       o.why   ? o.why
				       : v.why ? v.why
					       : "no reason given");
	int oregs = v.base_regs > 0 ? v.base_regs : o.regs;
	int osmem = v.base_regs > 0 ? v.base_smem : o.smem;
	int vsmem = v.smem + (int)dyn;
	int ob = blocks_at(a, w->threads, oregs, osmem);
	int vb = blocks_at(a, w->threads, v.regs, vsmem);
	int cap = blocks_at(a, w->threads, 0, vsmem); /* shared memory and threads */
	int raise = c->o->keep_occupancy == 2;
	int want = raise ? vb + 1 : ob;
	int m = want < cap ? want : cap;
	const char *fig =
		kp_arena_printf(&f->arena,
				"ptxas: %d -> %d registers, %d -> %d blocks of %d threads "
				"per SM; the rewrite's %d B of shared memory and its threads "
				"allow %d",
				oregs, v.regs, ob, vb, w->threads, vsmem, cap);
	if (m <= vb)
		return kp_arena_printf(&f->arena,
				       raise ? "not needed: registers do not limit the rewrite's "
					       "blocks per SM (%s); nothing added"
					     : "not needed: the rewrite loses no blocks per SM to "
					       "registers (%s); nothing added",
				       fig);
	*minblocks = m;
	return fig;
}

int kp_occ_bound(kp_pass_ctx *c, const kp_loop *l, kp_edits *mine, long long dyn, int line, int col)
{
	kp_file *f = c->f;
	occ_where w;
	where_bound(c, l, &w);
	if (w.why) {
		kp_pass_diag(c, line, col, "note", "kpipe-keep-occupancy",
			     kp_arena_printf(&f->arena, "no __launch_bounds__ added: %s", w.why));
		return 0;
	}
	for (int i = 0; i < c->ed.n; i++)
		if (c->ed.v[i].off == w.off && c->ed.v[i].text &&
		    (strstr(c->ed.v[i].text, "__launch_bounds__") || c->ed.v[i].text[0] == ','))
			return 0; /* an earlier K-loop of the kernel added it */
	int m = 0;
	const char *tail = probe_tail(c, l->kernel);
	const char *fig = bound_minblocks(c, l, mine, &w, tail, dyn, &m);
	if (!m) {
		kp_pass_diag(c, line, col, "note", "kpipe-keep-occupancy", fig);
		return 0;
	}
	kp_edit bound = {.off = w.off,
			 .text = w.has_one
					 ? kp_arena_printf(&f->arena, ", %d", m)
					 : kp_arena_printf(&f->arena, "__launch_bounds__(%d, %d) ",
							   w.threads, m)};
	const char *bs = kp_arena_printf(&f->arena, "__launch_bounds__(%d, %d)", w.threads, m);
	kp_auto_facts v, b;
	int okv = facts_of(c, l, mine, NULL, tail, &v); /* cached: the same text */
	if (!okv || !facts_of(c, l, mine, &bound, tail, &b)) {
		kp_pass_diag(
			c, line, col, "note", "kpipe-keep-occupancy",
			kp_arena_printf(&f->arena,
					"not added: ptxas could not compile the kernel with %s "
					"(%s)",
					bs, okv ? b.why : v.why));
		return 0;
	}
	int raise = c->o->keep_occupancy == 2;
	if (b.spills > 0 && v.spills == 0 && !raise) {
		kp_pass_diag(
			c, line, col, "note", "kpipe-keep-occupancy",
			kp_arena_printf(&f->arena,
					"dropped: %s (%s), but with it ptxas spills (%d registers, "
					"%d B of spill stores and loads) where it spilled nothing",
					bs, fig, b.regs, b.spills));
		return 0;
	}
	kp_edits_add(mine, bound.off, 0, bound.text);
	mine->v[mine->n - 1].once = kp_arena_printf(&f->arena, "kpipe-keep-occupancy@%u", w.off);
	const char *sp =
		b.spills <= v.spills
			? "no more spills"
			: kp_arena_printf(&f->arena,
					  "%d B of spill stores and loads where it had %d "
					  "(--raise-occupancy keeps it: kpipe tune measures it)",
					  b.spills, v.spills);
	kp_pass_diag(c, line, col, "note", "kpipe-keep-occupancy",
		     kp_arena_printf(&f->arena,
				     "%s added (%s; THREADS from %s): with it %d registers, %d "
				     "blocks per SM, %s",
				     bs, fig, w.from, b.regs,
				     blocks_at(c->o->arch, w.threads, b.regs, b.smem + (int)dyn),
				     sp));
	return 1;
}
