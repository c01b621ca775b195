/*
 * auto.c - the --variant auto rule (the plan layer's policy), the one
 * place outside transforms/ that names transforms: it weighs cp.async against register
 * staging by measurements, so a new transform joins it only with
 * measurements of its own (docs/design.md, "Adding a transform").  Also
 * the compute/load rule of thumb, which analyze prints for comparison.
 *
 * The rule is calibrated on every sample measured on the H200 (the table
 * bench/calibration.tsv, made by bench/calibrate.py from the tune run in
 * bench/results/2026-12-02-h200-tune-all; docs/tune.md, "What auto
 * predicts"), in this order:
 *  1. tensor-core math (wmma, mma; inline PTX mma.sync too) with cp.async
 *     possible: a cp.async ring, the deepest of at most 4 stages that fits
 *     the static limit when --stages is not given (wmma 64x64x32: s4
 *     1.151x, register 1.109x); but where ptxas gives the kernel >= 32
 *     resident warps and no tile read conflicts >= 4 ways, register
 *     staging (tensor_many_warps());
 *  2. every copy a 16-byte vector: cp.async, one LDGSTS.128 per copy
 *     (float4 SGEMM: 1.093x; register staging held 4 registers per copy
 *     and lost, 0.965x); but register staging where a warp's copy writes
 *     shared memory spread out (spread_store(): zrow_abs 1.41x against
 *     cp.async's 0.87x, MAGMA zlanhe 1.72x against 1.25x), and for a
 *     memory-bound tile (compute/load < KP_AUTO_STREAM_RATIO) a 3-stage
 *     ring where three buffers fit the static limit, else register
 *     staging (H100, docs/benchmarks.md "Memory-bound tiles": within
 *     3.1% of the best variant on 7 kernels, 2 of them held out);
 *  3. cp.async does not apply (the original already stages the copy
 *     through registers: a transposing or masked vector store): register
 *     staging in its two-buffer form, whose stores of those registers run
 *     while other warps compute instead of between two barriers
 *     (sgemm_stride_local 1.037x against register-2bar's 1.012x,
 *     sgemm_transpose_staged 1.191x against 1.172x, matmul_masked_vec
 *     1.014x against 0.983x);
 *  3b. at most 16 staging registers: register staging, in its one-buffer
 *     form (register-2bar) from compute/load 8 FLOP/B up (32x32: 1.127x
 *     against 1.113x; below 8 the two-buffer form wins by 1-2%);
 *  3c. 17 to 32 staging registers (two buffers within the static limit):
 *     register-2bar too (held-out and cuda-convnet2 loops of 20 to 32
 *     registers, H100: ahead of cp.async on 7 of 9, within 3% on the
 *     other two);
 *  4. otherwise cp.async (attention, 64 staging registers: 1.136x, while
 *     register staging needed 168 registers and lost, 0.750x, and
 *     register-2bar 0.865x).
 * Then ptxas checks register staging where cp.async would also do
 * (staging_occupancy()): a rewrite whose registers halve the resident
 * warps per SM (against those cp.async would keep with the same buffers)
 * takes cp.async instead (wangzyon's kernels 4 and 5, 16 ->
 * 8 warps: register 0.953x, cp.async 1.123x; sgemm_float4_macro, 16 -> 8:
 * 0.965x against 1.093x; smaller drops, such as matmul_ptr_bump's 48 ->
 * 40, lose nothing: 1.032x against cp.async's 0.985x); where cp.async
 * does not apply, register-2bar is written where ptxas shows its one
 * buffer keeping every warp (one_buffer_keeps(): leimao's gemm_v05,
 * 1.341x), else the loop is left alone (kpipe-no-predicted-gain;
 * matmul_staged_loader, 2 -> 1 blocks per SM: every variant 0.93-0.94x).
 * From compute/load 20 FLOP/B up, ptxas decides (busy_kernel()):
 * a kernel whose registers leave >= 48 warps resident per SM is left
 * alone (kpipe-no-predicted-gain); without nvcc the choice stands and
 * says it is a guess.  So is one from 32 warps whose tiles auto pads
 * where cp.async does not apply, and one from 48 warps whose compute
 * phase's work kpipe does not count (busy_kernel()).
 * Before all of these: a kernel template nothing in the file instantiates,
 * whose loaded tiles are sized by its parameters, is left alone
 * (blind_template(): nothing is known to weigh; cuda-convnet2's templates
 * lost on half of their instantiations with the blind pick), and so is a
 * loop that runs at most once in every instantiation (runs_once(): no
 * next tile to fetch), and one of a few compile-time trips inside another
 * loop (short_inner(): its pipeline is filled again at every outer
 * iteration).
 *
 * When two buffers of the tiles do not fit the static shared-memory limit
 * but one does, auto picks register-2bar (single tiles, two barriers)
 * where register staging applies (whatever its register count): it is
 * the only form that fits, the alternative is leaving the loop alone, and
 * on the H200 it was the fastest variant of 4 of the 12 samples
 * (docs/benchmarks.md), and it needs no change to the callers.  When
 * every launch of the kernel is in the file, or register-2bar does not
 * apply (or for more than 2 stages), the S buffers move to dynamic shared
 * memory instead, where they fit the opt-in limit (plan.h,
 * kp_plan_dynamic): kpipe edits those launches itself, and on the H200
 * two buffers in dynamic shared memory beat one static buffer
 * (wmma_fp16_128x128x64: cp.async 1.717x, register staging 1.471x,
 * register-2bar 1.437x; bench/results/2026-12-01-h200-dynamic).
 * Otherwise the loop is refused with kpipe-smem-over-limit.
 */
#include "banks.h"
#include "plan.h"

#include <string.h>

/* Below this compute/load (FLOP/B), a tile of 16-byte copies is
 * memory-bound: a 3-stage cp.async ring (docs/benchmarks.md, "Memory-bound tiles") */
#define KP_AUTO_STREAM_RATIO 5
/* busy_kernel()'s thresholds, calibrated on the H200 (docs/tune.md) */
#define KP_AUTO_BUSY_RATIO 20
#define KP_AUTO_BUSY_WARPS 48
/* tensor_many_warps()'s: the resident warps per SM from which tensor-core
 * tiles take register staging, and the read conflict auto's padding fixes */
#define KP_AUTO_TENSOR_WARPS 32
#define KP_AUTO_PAD_DEGREE 4
/* busy_kernel()'s warps from which a compute-heavy loop is left alone when
 * register staging costs some of them */
#define KP_AUTO_DROP_WARPS 32
/* busy_kernel()'s warps for a compute-heavy loop whose tile reads auto pads */
#define KP_AUTO_PAD_WARPS 32
/* pick()'s: up to this many staging registers per thread (above 16)
 * register-2bar, past it cp.async (held-out and cuda-convnet2 kernels of
 * 20 to 32 registers: register-2bar ahead of cp.async on 7 of 9, H100
 * 2026-12-07; attention_dynamic_smem, 64: cp.async 1.136x, register-2bar
 * 0.865x, H200) */
#define KP_AUTO_2BAR_REGS 32
/* short_inner()'s: the most compile-time trips of a loop inside another
 * loop that auto leaves alone (the longest such loop measured ran 8) */
#define KP_AUTO_SHORT_TRIPS 8

/* Two buffers over the limit, one within it: register-2bar, or NULL. */
static const char *single_buffer(kp_file *f, const kp_loop *l, const kp_arch *a,
				 const kp_transform *two, const kp_transform *one)
{
	long long need1, need2;
	const char *inst1, *inst2, *no = NULL;
	if (!kp_plan_smem(l, a, one->buffers(2), 0, &need1, &inst1) ||
	    !kp_transform_match(one, f, l, a, &f->arena, &no))
		return NULL;
	kp_plan_smem(l, a, two->buffers(2), 0, &need2, &inst2);
	return kp_arena_printf(&f->arena,
			       "%s%s%stwo buffers of the tiles need %lld B of shared memory, "
			       "over the %d B static limit of %s; one fits",
			       inst2 ? "for instantiation <" : "", inst2 ? inst2 : "",
			       inst2 ? ">: " : "", need2, a->smem_static_per_block, a->name);
}

/* The math runs on tensor cores (wmma, mma). */
static int tensor_math(const kp_loop *l)
{
	return l->math == KP_MATH_HMMA || l->math == KP_MATH_IMMA;
}

/* Every global->shared copy moves a 16-byte vector (float4, int4, 8
 * halves): one LDGSTS.128 each with cp.async, four staging registers
 * each with register staging. */
static int all_16_byte(const kp_loop *l)
{
	int n = 0;
	for (int i = 0; i < l->nloads; i++) {
		if (l->loads[i].bytes != 16)
			return 0;
		n++;
	}
	return n > 0;
}

/* A copy of l whose warp writes shared memory spread out: its lanes'
 * 16-byte elements each in 32-byte sectors of their own (at least twice
 * the sectors its bytes need, for the block the file or the launch
 * description gives: kp_loop.block), as a transposed store (`tile[tx][ty + j] = a[...]`)
 * does.  Returns that store's access (its line and sectors) or NULL. */
static const kp_bk_access *spread_store(kp_file *f, const kp_loop *l)
{
	kp_bk_block b = {l->block[0], l->block[1], l->block[2], l->block_from};
	kp_bk_result r;
	if (!b.x)
		return NULL;
	kp_bk_analyze(f, l->kernel, &b, NULL, 0, &r);
	for (int i = 0; i < r.n; i++) {
		const kp_bk_access *x = &r.acc[i];
		if (x->space != KP_BK_SHARED || !x->store || x->not_analysed || !x->ideal ||
		    x->sectors < 2 * x->ideal || !x->node)
			continue;
		for (int k = 0; k < l->nloads; k++) {
			const kp_node *t = l->loads[k].lhs;
			if (t && l->loads[k].tile == x->arr && x->node->begin >= t->begin &&
			    x->node->end <= t->end)
				return x;
		}
	}
	return NULL;
}

/* A memory-bound tile of 16-byte copies (compute/load below
 * KP_AUTO_STREAM_RATIO FLOP/B): 3 stages where they fit the static
 * limit, else 2. */
static int stream_stages(const kp_loop *l, const kp_arch *a, const kp_transform *cp)
{
	long long need;
	const char *inst;
	return kp_plan_smem(l, a, cp->buffers(3), 0, &need, &inst) ? 3 : 2;
}

/* Tensor-core tiles: the deepest cp.async ring of at most 4 stages whose
 * buffers fit the static limit (2 when none deeper does). */
static int tensor_stages(const kp_loop *l, const kp_arch *a, const kp_transform *cp)
{
	long long need;
	const char *inst;
	for (int s = 4; s > 2; s--)
		if (kp_plan_smem(l, a, cp->buffers(s), 0, &need, &inst))
			return s;
	return 2;
}

/* The rule between cp.async and the register forms once S buffers fit
 * (the calibration behind each branch: docs/tune.md, "What auto
 * predicts"). */
static void pick(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, int stages,
		 const kp_transform *cp, const kp_transform *rg, const kp_transform *r2)
{
	kp_arena *ar = &f->arena;
	const char *cp_no = NULL, *rg_no = NULL, *r2_no = NULL;
	int chosen = stages > 0;
	if (!chosen)
		stages = p->stages = 2;
	int cp_ok = kp_transform_match(cp, f, l, a, ar, &cp_no);
	int rg_ok = kp_transform_match(rg, f, l, a, ar, &rg_no);
	if (stages > 2 && !cp_ok) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg =
			kp_arena_printf(ar, "%d stages need cp.async, but %s", stages, cp_no);
		return;
	}
	if (!cp_ok && !rg_ok) {
		p->refuse_id = "kpipe-variant-unavailable";
		p->refuse_msg = kp_arena_printf(ar,
						"no variant applies: cp.async: %s; register "
						"staging: %s",
						cp_no, rg_no);
		return;
	}
	p->xform = cp;
	if (stages != 2) {
		p->why = kp_arena_printf(ar, "%d stages need cp.async", stages);
		return;
	}
	if (cp_ok && tensor_math(l)) {
		if (!chosen)
			p->stages = tensor_stages(l, a, cp);
		p->why = kp_arena_printf(ar,
					 "tensor-core tiles (%s): a cp.async ring, %d stages (the "
					 "deepest of at most 4 that fits the static limit)",
					 kp_math_name(l->math), p->stages);
		return;
	}
	const kp_bk_access *spread = cp_ok && rg_ok && all_16_byte(l) ? spread_store(f, l) : NULL;
	if (spread) {
		p->xform = rg;
		p->why = kp_arena_printf(
			ar,
			"every copy moves 16 bytes, but a warp's copy at line %d lands in %d "
			"sectors of shared memory where its bytes fill %d: register staging, "
			"whose stores of its registers are the original's (such copies: "
			"cp.async 0.87x and 1.24x, register staging 1.41x and 1.70x)",
			spread->line, spread->sectors, spread->ideal);
		return;
	}
	if (cp_ok && all_16_byte(l)) {
		if (!chosen && l->ratio >= 0 && l->ratio < KP_AUTO_STREAM_RATIO) {
			p->stages = stream_stages(l, a, cp);
			if (p->stages == 2 && rg_ok) {
				p->xform = rg;
				p->why = kp_arena_printf(
					ar,
					"every copy moves 16 bytes, compute/load %.1f FLOP/B < "
					"%d: a memory-bound tile, where 3 cp.async stages do not "
					"fit the static limit: register staging",
					l->ratio, KP_AUTO_STREAM_RATIO);
				return;
			}
			p->why = kp_arena_printf(
				ar,
				"every copy moves 16 bytes: one cp.async each; compute/load "
				"%.1f FLOP/B < %d: a memory-bound tile, %d stages%s",
				l->ratio, KP_AUTO_STREAM_RATIO, p->stages,
				p->stages == 3 ? "" : " (3 do not fit the static limit)");
			return;
		}
		p->why = "every copy moves 16 bytes: one cp.async each, where register staging "
			 "would hold four registers per copy";
		return;
	}
	kp_xfacts rx;
	kp_transform_facts(rg, f, l, ar, &rx);
	int regs = rx.regs;
	double ratio = l->ratio;
	if (rg_ok && (!cp_ok || (regs >= 0 && regs <= 16))) {
		const char *base =
			!cp_ok ? kp_arena_printf(ar, "cp.async does not apply (%s)", cp_no)
			       : kp_arena_printf(ar, "%d staging register%s per thread (<= 16)",
						 regs, regs == 1 ? "" : "s");
		p->xform = rg;
		if (!cp_ok && ratio >= 8)
			p->why = kp_arena_printf(
				ar,
				"%s, compute/load %.1f FLOP/B: two buffers all the "
				"same (without cp.async, ahead of register-2bar on every "
				"sample measured)",
				base, ratio);
		else if (cp_ok && ratio >= 8 && !p->dynamic &&
			 kp_transform_match(r2, f, l, a, ar, &r2_no)) {
			/* (not where the two buffers went to dynamic shared memory
			 * because they do not fit the static limit: kp_plan_auto()) */
			p->xform = r2;
			p->why =
				kp_arena_printf(ar,
						"%s, compute/load %.1f FLOP/B >= 8: the one-buffer "
						"form, registers stored between two barriers",
						base, ratio);
		} else if (ratio >= 0)
			p->why = kp_arena_printf(ar, "%s, compute/load %.1f FLOP/B", base, ratio);
		else
			p->why = base;
		return;
	}
	if (rg_ok && cp_ok && regs > 16 && regs <= KP_AUTO_2BAR_REGS && !p->dynamic &&
	    kp_transform_match(r2, f, l, a, ar, &r2_no)) {
		p->xform = r2;
		p->why = kp_arena_printf(
			ar,
			"%d staging registers per thread (17 to %d): the one-buffer form, "
			"registers stored between two barriers (ahead of cp.async on 7 of the 9 "
			"such loops measured)",
			regs, KP_AUTO_2BAR_REGS);
		return;
	}
	if (!rg_ok)
		p->why = kp_arena_printf(ar, "register staging does not apply (%s)", rg_no);
	else if (regs > KP_AUTO_2BAR_REGS)
		p->why = kp_arena_printf(
			ar,
			"staging would need %d registers per thread (> %d); cp.async "
			"needs none",
			regs, KP_AUTO_2BAR_REGS);
	else if (regs > 16)
		p->why = kp_arena_printf(
			ar,
			"staging would need %d registers per thread (> 16), and the one-buffer "
			"form does not apply (%s); cp.async needs none",
			regs, r2_no ? r2_no : "the tiles moved to dynamic shared memory");
	else
		p->why = "staging register count unknown; cp.async needs none";
}

/* The worst bank conflict of a read of one of l's loaded tiles (a
 * fragment load, an ldmatrix, a column read), for the block the file or
 * __launch_bounds__ gives (wmma fragment loads without one): what
 * --variant auto pads from KP_AUTO_PAD_DEGREE ways up (pass_pad.c). */
static int tile_read_conflict(kp_file *f, const kp_loop *l)
{
	kp_analyze_opts o;
	kp_bk_block b;
	kp_bk_result r;
	memset(&o, 0, sizeof(o));
	kp_bk_block_of(f, l->kernel, &o, &b);
	kp_bk_analyze(f, l->kernel, &b, NULL, 0, &r);
	int worst = 0;
	for (int i = 0; i < r.n; i++) {
		const kp_bk_access *x = &r.acc[i];
		if (x->space != KP_BK_SHARED || x->store || x->not_analysed || x->degree <= worst)
			continue;
		for (int t = 0; t < l->ntiles; t++)
			if (l->tiles[t].loaded && l->tiles[t].arr == x->arr)
				worst = x->degree;
	}
	return worst;
}

/* A loaded tile of l that the rewrite's pad pass padded (kp_file.padded_lines):
 * the rewrite plans on the padded text, where tile_read_conflict() finds
 * the conflicts gone.  Outside a rewrite (analyze), a tile read that
 * conflicts as much as the pad pass pads for. */
static int tiles_padded(kp_file *f, const kp_loop *l)
{
	if (!f->pad_known) /* analyze: what the pad pass will pad */
		return tile_read_conflict(f, l) >= KP_AUTO_PAD_DEGREE;
	for (int i = 0; i < f->npadded; i++)
		for (int t = 0; t < l->ntiles; t++)
			if (l->tiles[t].loaded && l->tiles[t].arr->line == f->padded_lines[i])
				return 1;
	return 0;
}

/* A compute-heavy tile (compute/load >= KP_AUTO_BUSY_RATIO FLOP/B) in a
 * kernel whose warps already fill the SM (>= KP_AUTO_BUSY_WARPS resident,
 * by ptxas's registers) gains nothing from pipelining: the warp scheduler
 * already hides the loads behind other warps' math (measured: int8_dp4a,
 * 31.5 FLOP/B, 48 warps: every variant 0.95-0.999x; sgemm_128x128x8, 32
 * FLOP/B but 16 warps: 1.16x).  32 warps is not enough: the 1024-thread
 * samples at one block per SM gain (sgemm_at_bulk register-2bar 1.393x,
 * sgemm_bulk_guarded 1.394x, wmma_bulk_half register 1.127x,
 * wmma_tma_half 1.054x; the threshold was 32 and left them alone); 40 is
 * not measured.  Without ptxas that cannot be told apart: the choice
 * stands and says it is a guess.
 *
 * Two more loops count as busy:
 *  - one whose tile reads auto pads (a read conflicts >= KP_AUTO_PAD_DEGREE
 *    ways), from KP_AUTO_PAD_WARPS warps: the two wmma samples above gained
 *    at 32 warps unpadded, where 8-way conflicted fragment reads stretched
 *    the compute phase; padded, the original alone is 2.778x and 2.766x,
 *    padded register staging 2.205x and 2.188x (H200): the padding is
 *    kept and the loop left alone;
 *  - one whose compute phase's work kpipe does not count
 *    (kp_loop.flops_uncounted: a loop of it with a trip count that is not a
 *    compile-time constant, or no arithmetic counted), from
 *    KP_AUTO_BUSY_WARPS warps: its compute/load says nothing, so the tile
 *    may be as busy as the first kind; at 48-64 resident warps every
 *    variant lost on two such kernels (H100: matmul_ragged, a compute loop
 *    to min(16, K - k0), 0.872x-0.970x; eff_dep_compare, no multiply-add
 *    kpipe counts, 0.889x-0.983x) and register staging on a third
 *    (guarded_partial 0.879x).  Without ptxas the choice stands, as it
 *    did. */
static void busy_kernel(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			const kp_transform *cp)
{
	kp_auto_facts fx;
	const kp_auto_probe *pr = f->auto_probe;
	const char *no = NULL;
	double ratio = l->ratio;
	int heavy = ratio >= KP_AUTO_BUSY_RATIO;
	int padded = heavy && p->xform != cp && !kp_transform_match(cp, f, l, a, &f->arena, &no) &&
		     tiles_padded(f, l);
	int warps_needed = padded ? KP_AUTO_PAD_WARPS : KP_AUTO_BUSY_WARPS;
	memset(&fx, 0, sizeof(fx));
	/* an original nvcc does not compile (a header only the project's
	 * build finds, an #ifdef __NVCC__ clang never saw) leaves ptxas
	 * without an answer, as without nvcc: not kpipe's error */
	int known = pr && pr->facts(pr, f, l, a, &fx);
	if (!known) {
		if (heavy)
			p->why = kp_arena_printf(
				&f->arena,
				"%s; a guess: compute/load is %.1f FLOP/B (>= %d), where "
				"only the kernel's resident warps tell whether pipelining "
				"gains, and ptxas could not be asked (%s)",
				p->why, ratio, KP_AUTO_BUSY_RATIO, pr ? fx.why : "nvcc not used");
		return;
	}
	/* a busy kernel from 32 warps whose register-staged rewrite costs
	 * some of them: fewer warps' math to hide the loads, and nothing to
	 * say the pipelining makes up for it (leimao's 07_vec, 32 -> 24: every
	 * version 0.847x-0.865x, H100 2026-12-07) */
	if (heavy && !padded && p->xform != cp && fx.warps >= KP_AUTO_DROP_WARPS &&
	    p->warps_after > 0 && p->warps_before == fx.warps && p->warps_after < fx.warps) {
		p->xform = NULL;
		p->refuse_id = "kpipe-no-predicted-gain";
		p->refuse_msg = kp_arena_printf(
			&f->arena,
			"no gain predicted: compute/load %.1f FLOP/B (>= %d), and register staging "
			"costs resident warps (ptxas: %d -> %d per SM at %d threads) in a kernel "
			"whose other warps' math hides part of the loads; --variant NAME pipelines "
			"it anyway",
			ratio, KP_AUTO_BUSY_RATIO, fx.warps, p->warps_after, fx.threads);
		return;
	}
	if (fx.warps < warps_needed) {
		if (heavy)
			p->why = kp_arena_printf(
				&f->arena,
				"%s; ptxas: %d registers, %d resident warps per SM (< %d)", p->why,
				fx.regs, fx.warps, warps_needed);
		return;
	}
	p->xform = NULL;
	p->refuse_id = "kpipe-no-predicted-gain";
	if (padded)
		p->refuse_msg = kp_arena_printf(
			&f->arena,
			"no gain predicted: compute/load %.1f FLOP/B (>= %d), a read of the tiles "
			"conflicts %d ways or more and is padded, and ptxas gives the kernel %d "
			"registers, %d resident warps per SM at %d threads (>= %d): with "
			"conflict-free reads other warps' math hides the loads; the padding "
			"stays; --variant NAME pipelines it anyway",
			ratio, KP_AUTO_BUSY_RATIO, KP_AUTO_PAD_DEGREE, fx.regs, fx.warps,
			fx.threads, KP_AUTO_PAD_WARPS);
	else if (heavy)
		p->refuse_msg = kp_arena_printf(
			&f->arena,
			"no gain predicted: compute/load %.1f FLOP/B (>= %d) and ptxas gives the "
			"kernel %d registers, %d resident warps per SM at %d threads (>= %d): other "
			"warps' math already hides the loads; --variant NAME pipelines it anyway",
			ratio, KP_AUTO_BUSY_RATIO, fx.regs, fx.warps, fx.threads,
			KP_AUTO_BUSY_WARPS);
	else
		p->refuse_msg = kp_arena_printf(
			&f->arena,
			"no gain predicted: the compute phase's work is not counted (%s), so "
			"compute/load says nothing, and ptxas gives the kernel %d registers, %d "
			"resident warps per SM at %d threads (>= %d): other warps may already "
			"hide the loads; --variant NAME pipelines it anyway",
			l->flops_thread == 0 ? "no arithmetic kpipe counts"
					     : "a loop of it runs a number of times known only at "
					       "run time",
			fx.regs, fx.warps, fx.threads, KP_AUTO_BUSY_WARPS);
}

/* A kernel template that nothing in its file instantiates, whose loaded
 * tiles are sized by its parameters (so compute/load is unknown too): no
 * tile size, block, trip count or ptxas answer is known, so no rule has
 * anything to weigh and the loop is left alone (kpipe-no-predicted-gain; --variant NAME still
 * pipelines it).  Measured on cuda-convnet2's four such templates, two instantiations each (H100,
 * docs/benchmarks.md): the blind pick lost on four of the eight (cp.async 0.805x-0.969x), register
 * staging on four (0.685x-0.971x), and conv_weight_acts_c_kepler with every variant. NULL where
 * something is known. */
static const char *blind_template(const kp_loop *l, kp_arena *ar)
{
	const kp_kernel *k = l->kernel;
	int sized_by_params = 0;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].loaded && l->tiles[i].bytes < 0)
			sized_by_params = 1;
	if (!k || k->is_device || !k->is_template || k->ninst > 0 || l->ratio >= 0 ||
	    !sized_by_params)
		return NULL;
	return kp_arena_printf(
		ar,
		"no gain predicted: %s is a template that nothing in this file instantiates, "
		"with tiles sized by its template parameters, so tile sizes, compute/load, the "
		"copy loops' counts and the kernel's registers are all unknown: "
		"the variants' gains and losses cannot be told apart (on four such library "
		"templates the pick lost on half of the instantiations measured); --variant "
		"NAME pipelines it anyway, and `kpipe tune` on a file that instantiates it "
		"measures",
		k->name);
}

/* A loop that runs at most once (its bounds and step compile-time
 * constants, in every instantiation): there is no next tile to fetch
 * while one is computed, and the pipelined form is the original plus
 * its overhead.  The refusal message, or NULL.  (cuda-convnet2's
 * conv_weight_acts_c_kepler_sw: one trip in both instantiations timed,
 * register-2bar 1.020x and 0.671x, H100 2026-12-07.) */
static const char *runs_once(const kp_loop *l, kp_arena *ar)
{
	if (l->trips < 0 || l->trips > 1)
		return NULL;
	return kp_arena_printf(ar,
			       "no gain predicted: the loop %s%s (its bounds and step are "
			       "compile-time constants): there is no next tile to load while one "
			       "is computed; --variant NAME pipelines it anyway",
			       l->trips == 0 ? "never runs" : "runs once",
			       l->nper_inst > 1 ? " in every instantiation" : "");
}

/* A loop of at most KP_AUTO_SHORT_TRIPS trips (its bounds and step
 * compile-time constants, in every instantiation) inside another loop of
 * the kernel: the pipeline drains at the end of each run and is filled
 * again, with its first load exposed, at each of the outer loop's
 * iterations, so at most a few loads per fill overlap.  The refusal
 * message, or NULL.  Measured: cuda-convnet2's two templates of this shape
 * (H100, 2026-12-07; their K-loops run 2 and 8 times, and 1 and 2, inside
 * a loop over cases or filters that loads a tile of its own): no variant
 * gained more than 3% in any of the four runs, auto's pick lost in all of
 * them (conv_weight_acts_c_kepler 0.888x and 0.676x, best 0.893x and
 * 0.822x; conv_img_acts_manycolor_kepler 0.999x and 0.975x).  No measured
 * loop of this shape gained. */
static const char *short_inner(const kp_loop *l, kp_arena *ar)
{
	if (l->trips < 2 || l->trips > KP_AUTO_SHORT_TRIPS || !l->within_line)
		return NULL;
	return kp_arena_printf(
		ar,
		"no gain predicted: the loop runs at most %.0f times (its bounds and step are "
		"compile-time constants%s) inside the loop at line %d, so its pipeline is "
		"filled again, with the first tile's load exposed, at each iteration of that "
		"loop (on the loops of this shape measured no variant gained); --variant NAME "
		"pipelines it anyway",
		l->trips, l->nper_inst > 1 ? ", in every instantiation" : "", l->within_line);
}

/* Tensor-core tiles on the cp.async ring (rule 1) in a kernel whose
 * registers already keep >= KP_AUTO_TENSOR_WARPS warps resident per SM
 * (ptxas), whose tile reads have no conflict for auto's padding to fix:
 * register staging, where it applies with at most 16 staging registers.
 * Measured: our ldmatrix/mma.sync kernel (tests/golden/cases/
 * rewrite-mma_ldmatrix, H100; 32 warps, conflict-free reads): cp.async
 * 0.912x with 2 stages, 0.990x with 3, 0.985x with 4, register staging
 * 1.087x; LeetCUDA's wmma mma4x2 kernel (H200; 64 warps) unpadded:
 * cp.async 0.967x-0.978x, register 1.021x, but its fragment reads conflict
 * 4 ways (s_b) and padded the ring wins (4 stages 1.408x, register 1.249x), so
 * a conflicted read keeps the ring.  Every tensor-core kernel where the
 * ring won unpadded had at most 28 warps (wmma_persistent_staged 28,
 * wmma_fp16_64x64x32 24, LeetCUDA's mma2x4 24).  Without ptxas the ring
 * stands. */
static void tensor_many_warps(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			      const kp_transform *rg)
{
	const kp_auto_probe *pr = f->auto_probe;
	const char *no = NULL;
	kp_auto_facts fx;
	kp_xfacts rx;
	memset(&fx, 0, sizeof(fx));
	if (!pr || p->dynamic || !pr->facts(pr, f, l, a, &fx) || fx.warps < KP_AUTO_TENSOR_WARPS ||
	    !kp_transform_match(rg, f, l, a, &f->arena, &no))
		return;
	kp_transform_facts(rg, f, l, &f->arena, &rx);
	int worst = rx.regs >= 0 && rx.regs <= 16 ? tile_read_conflict(f, l) : KP_AUTO_PAD_DEGREE;
	if (worst >= KP_AUTO_PAD_DEGREE)
		return;
	p->xform = rg;
	p->stages = 2;
	p->why = kp_arena_printf(
		&f->arena,
		"tensor-core tiles (%s), but ptxas gives the kernel %d registers, %d resident "
		"warps per SM (>= %d) and no read of the tiles conflicts %d ways or more: "
		"register staging, %d staging register%s per thread (<= 16), where the "
		"cp.async ring lost on the one such kernel measured",
		kp_math_name(l->math), fx.regs, fx.warps, KP_AUTO_TENSOR_WARPS, KP_AUTO_PAD_DEGREE,
		rx.regs, rx.regs == 1 ? "" : "s");
}

/* Register staging with two buffers that halves the resident warps (o:
 * the original, v: the rewrite), where cp.async does not apply (why not:
 * `no`): register-2bar, whose one buffer holds the original's shared
 * memory, where ptxas shows it keeps every resident warp of the original
 * in every instantiation (the one that loses the most is compared).  1
 * with p set, else 0.  Measured (H100, 2026-12-07, leimao's GEMM series,
 * float and __half instantiations): register-2bar where it kept the
 * original's blocks per SM 1.089x, 1.341x, 1.011x, 1.324x, 1.050x; where
 * it lost some, 0.854x, 0.954x, 0.907x, 0.788x, and matmul_staged_loader's
 * 0.939x (H200, 2 -> 1 blocks). */
static int one_buffer_keeps(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			    const kp_auto_facts *o, const kp_auto_facts *v, const char *no)
{
	const kp_auto_probe *pr = f->auto_probe;
	const kp_transform *r2 = kp_transform_find("register-2bar");
	const char *no2 = NULL;
	kp_auto_facts w;
	memset(&w, 0, sizeof(w));
	if (!r2 || p->xform == r2 || !kp_transform_match(r2, f, l, a, &f->arena, &no2) ||
	    !pr->variant(pr, f, l, a, r2, 2, 0, &w) || w.warps <= 0)
		return 0;
	int base = w.base_warps > 0 ? w.base_warps : o->warps;
	int base_regs = w.base_warps > 0 ? w.base_regs : o->regs;
	if (w.warps < base)
		return 0;
	p->why = kp_arena_printf(
		&f->arena,
		"%s would halve the resident warps (ptxas: %d -> %d registers, %d -> %d warps per "
		"SM at %d threads) and cp.async does not apply (%s): register-2bar, whose one "
		"buffer keeps them (ptxas: %d -> %d registers, %d -> %d warps; one-buffer "
		"register staging that kept the original's blocks per SM gained on every kernel "
		"measured)",
		p->xform->name, o->regs, v->regs, o->warps, v->warps, v->threads,
		no ? no : "no reason given", base_regs, w.regs, base, w.warps);
	p->xform = r2;
	p->stages = 2;
	p->dynamic = 0;         /* one buffer: the original's static tiles */
	p->warps_before = base; /* the figures of the form written (busy_kernel()) */
	p->warps_after = w.warps;
	return 1;
}

/* Register staging that halves the kernel's resident warps per SM, by
 * ptxas on the rewrite, where cp.async (which holds no staging registers)
 * applies and fits: cp.async.  Where cp.async does not apply, the loop is
 * left alone (kpipe-no-predicted-gain): matmul_staged_loader's 1024-thread
 * blocks, 2 -> 1 per SM, lost with every register variant (0.926x-0.939x
 * on the H200).  Tiles moved to dynamic shared memory are compiled so,
 * and their bytes (every launch passes them) count in the warps: leimao's
 * gemm_v05_vectorized, 121 -> 147 registers, 16 -> 8 warps, lost 0.718x
 * on the H100, and its __half siblings of the other kernels lose 0.89x-
 * 0.93x where only they halve.  Without a probe the choice stands. */
static void staging_occupancy(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a,
			      const kp_transform *cp)
{
	const kp_auto_probe *pr = f->auto_probe;
	const char *no = NULL;
	kp_auto_facts o, v;
	if (!pr || !pr->variant || p->stages != 2)
		return;
	long long dyn = p->dynamic ? p->dyn_bytes : 0;
	int cp_ok = kp_transform_match(cp, f, l, a, &f->arena, &no);
	memset(&o, 0, sizeof(o));
	memset(&v, 0, sizeof(v));
	if (pr->pair)
		pr->pair(pr, f, l, a, p->xform, 2, dyn);
	if (!pr->facts(pr, f, l, a, &o) || !pr->variant(pr, f, l, a, p->xform, 2, dyn, &v) ||
	    o.warps <= 0) {
		/* the rewrite fails where the original compiles: kpipe's
		 * error, which stops the output */
		if (v.compile_error && !o.compile_error) {
			kp_plan_compile_error(p, f, v.why);
			return;
		}
		const char *why = o.why ? o.why : v.why;
		if (why)
			p->why = kp_arena_printf(&f->arena,
						 "%s; whether it costs resident warps is not "
						 "checked: ptxas could not be asked (%s)",
						 p->why, why);
		return;
	}
	if (v.base_warps > 0) { /* the same instantiation's figures */
		o.regs = v.base_regs;
		o.warps = v.base_warps;
	}
	/* where the S buffers' shared memory already limits the blocks per
	 * SM, cp.async keeps no more warps than register staging: compare
	 * with the warps it would keep (the original's registers, the same
	 * buffers) */
	int keep = o.warps;
	if (v.smem + dyn > 0 && v.threads > 0 && o.regs > 0) {
		kp_occupancy oc = kp_arch_occupancy(a, v.threads, o.regs, (int)(v.smem + dyn));
		if (oc.warps_per_sm > 0 && oc.warps_per_sm < keep)
			keep = oc.warps_per_sm;
	}
	p->warps_before = o.warps;
	p->warps_after = v.warps;
	if (v.warps * 2 > keep) {
		p->why = kp_arena_printf(
			&f->arena,
			"%s; ptxas: %d -> %d registers, %d -> %d resident warps per "
			"SM%s",
			p->why, o.regs, v.regs, o.warps, v.warps,
			keep < o.warps
				? kp_arena_printf(&f->arena, " (%d with cp.async's buffers)", keep)
				: "");
		return;
	}
	if (!cp_ok && one_buffer_keeps(p, f, l, a, &o, &v, no))
		return;
	if (!cp_ok) {
		p->refuse_id = "kpipe-no-predicted-gain";
		p->refuse_msg = kp_arena_printf(
			&f->arena,
			"no gain predicted: %s would halve the resident warps (ptxas: %d -> %d "
			"registers, %d -> %d warps per SM at %d threads), and cp.async, which holds "
			"no staging registers, does not apply (%s); --variant NAME pipelines it "
			"anyway",
			p->xform->name, o.regs, v.regs, o.warps, v.warps, v.threads,
			no ? no : "no reason given");
		p->xform = NULL;
		return;
	}
	p->why = kp_arena_printf(
		&f->arena,
		"%s would halve the resident warps (ptxas: %d -> %d registers, %d "
		"-> %d warps per SM at %d threads): cp.async, which holds no staging "
		"registers",
		p->xform->name, o.regs, v.regs, o.warps, v.warps, v.threads);
	p->xform = cp;
}

void kp_plan_auto(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, int stages)
{
	const kp_transform *cp = kp_transform_find("cp-async");
	const kp_transform *rg = kp_transform_find("register");
	const kp_transform *r2 = kp_transform_find("register-2bar");
	const char *blind = blind_template(l, &f->arena);
	if (!blind)
		blind = runs_once(l, &f->arena);
	if (!blind)
		blind = short_inner(l, &f->arena);
	if (blind) {
		p->xform = NULL;
		p->refuse_id = "kpipe-no-predicted-gain";
		p->refuse_msg = blind;
		return;
	}
	/* S buffers of the tiles: cp.async's ring, register staging's pair;
	 * in dynamic shared memory when kpipe edits every launch (they are in
	 * the file) or no single-buffer form applies */
	int fits = kp_plan_fits(p, f, l, a, cp, stages > 0 ? stages : 2);
	if (!fits || (p->dynamic && !kp_plan_launches(f, l))) {
		const char *why = stages <= 2 ? single_buffer(f, l, a, rg, r2) : NULL;
		if (why) {
			p->refuse_id = p->refuse_msg = NULL;
			p->dynamic = 0;
			p->xform = r2;
			p->stages = 2;
			p->why = why;
			return;
		}
		if (!fits)
			return;
	}
	if (p->dynamic && stages <= 0)
		stages = 2; /* the dynamic ring was sized for 2 stages */
	pick(p, f, l, a, stages, cp, rg, r2);
	if (p->xform == cp && tensor_math(l) && stages <= 2)
		tensor_many_warps(p, f, l, a, rg);
	if (p->xform == rg || p->xform == r2)
		staging_occupancy(p, f, l, a, cp);
	if (p->xform && (l->ratio >= KP_AUTO_BUSY_RATIO || l->flops_uncounted))
		busy_kernel(p, f, l, a, cp);
}

const char *kp_ratio_rule(const kp_loop *l, kp_arena *arena, const char **why)
{
	double ratio = l->ratio;
	if (ratio < 0) {
		*why = "compute/load ratio unknown (threads per block or tile sizes not known)";
		return "cp-async";
	}
	if (ratio < 5) {
		*why = kp_arena_printf(
			arena, "%.1f FLOP/B < 5: memory-bound tile, cp.async preferred", ratio);
		return "cp-async";
	}
	if (ratio <= 20) {
		*why = kp_arena_printf(arena,
				       "%.1f FLOP/B in 5..20: build both and measure (register "
				       "staging first)",
				       ratio);
		return "register";
	}
	*why = kp_arena_printf(arena,
			       "%.1f FLOP/B > 20: little gain expected (warp interleaving "
			       "already hides latency)",
			       ratio);
	return "none";
}
