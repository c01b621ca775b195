/*
 * test_sass.c - the SASS reader and the overlap verdict, on listings
 * captured with cuobjdump/nvdisasm (tests/fixtures/sass/, see regen.sh) and
 * on small hand-written listings for the corner cases; and kpipe validate's
 * static steps end to end with stand-in tools (shell scripts that replay the
 * captured ptxas and cuobjdump output), so no CUDA is needed.
 */
#include "kp_test.h"

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sass.h"
#include "util.h"
#include "validate.h"

#define FIXTURES KP_TEST_FIXTURES "sass/"

static char *fixture_text(const char *name) { return kp_test_fixture("sass", name); }

/* Parses a fixture and finds the main loop of its first function. */
static void load(kp_sass *s, kp_sass_loop *l, const char *name)
{
	char *text = fixture_text(name);
	cr_assert_eq(kp_sass_parse(s, text), 0, "%s: no function", name);
	free(text);
	cr_assert_geq(s->nfuncs, 1);
	kp_sass_main_loop(l, &s->funcs[0]);
}

static void parse_inline(kp_sass *s, kp_sass_loop *l, const char *text)
{
	cr_assert_eq(kp_sass_parse(s, text), 0);
	kp_sass_main_loop(l, &s->funcs[0]);
}

/* ---- classification --------------------------------------------------- */

Test(sass_classify, opcodes)
{
	cr_assert_eq(kp_sass_classify(NULL, "LDGSTS.E.BYPASS.LTC128B.128",
				      "[R5], desc[UR8][R2.64]"),
		     KP_SC_LDGSTS);
	cr_assert_eq(kp_sass_classify("@!P0", "LDGSTS.E", "[R9], desc[UR8][R24.64]"), KP_SC_LDGSTS);
	cr_assert_eq(kp_sass_classify(NULL, "LDG.E.128.CONSTANT", "R4, desc[UR4][R2.64]"),
		     KP_SC_LDG);
	cr_assert_eq(kp_sass_classify(NULL, "LDGDEPBAR", ""), KP_SC_LDGDEPBAR);
	cr_assert_eq(kp_sass_classify(NULL, "DEPBAR.LE", "SB0, 0x0"), KP_SC_DEPBAR);
	cr_assert_eq(kp_sass_classify(NULL, "BAR.SYNC.DEFER_BLOCKING", "0x0"), KP_SC_BAR);
	cr_assert_eq(kp_sass_classify(NULL, "BAR.SYNC", "0x0"), KP_SC_BAR);
	cr_assert_eq(kp_sass_classify(NULL, "BAR", "0x0"), KP_SC_BAR);
	cr_assert_eq(kp_sass_classify(NULL, "BAR.ARV", "0x1, 0x40"), KP_SC_OTHER);
	cr_assert_eq(kp_sass_classify(NULL, "FFMA", "R12, R26, R12, R21"), KP_SC_MATH);
	cr_assert_eq(kp_sass_classify(NULL, "HMMA.16816.F32", "R8, R16, R20, R8"), KP_SC_MATH);
	cr_assert_eq(kp_sass_classify(NULL, "IMMA.16832.S8.S8", "R8, R16, R20, R8"), KP_SC_MATH);
	cr_assert_eq(kp_sass_classify(NULL, "IDP.4A.S8.S8", "R0, R1, R2, R0"), KP_SC_MATH);
	cr_assert_eq(kp_sass_classify(NULL, "DFMA", "R0, R2, R4, R6"), KP_SC_MATH);
	cr_assert_eq(kp_sass_classify(NULL, "HFMA2", "R0, R2, R3, R0"), KP_SC_MATH);
	cr_assert_eq(kp_sass_classify(NULL, "LDL", "R18, [UR29]"), KP_SC_LDL);
	cr_assert_eq(kp_sass_classify(NULL, "STL.128", "[R1], RZ"), KP_SC_STL);
	cr_assert_eq(kp_sass_classify(NULL, "LDS.128", "R12, [R16]"), KP_SC_LDS);
	cr_assert_eq(kp_sass_classify(NULL, "LDSM.16.M88.4", "R4, [R2]"), KP_SC_LDS);
	cr_assert_eq(kp_sass_classify(NULL, "STS", "[R7], R24"), KP_SC_STS);
	cr_assert_eq(kp_sass_classify("@!P0", "BRA", "0x770"), KP_SC_BRA);
	cr_assert_eq(kp_sass_classify(NULL, "IMAD.WIDE", "R18, R3, 0x4, R18"), KP_SC_OTHER);
	/* sm_90+: bulk copies (cp.async.bulk, TMA) load, mbarrier operations fence */
	cr_assert_eq(kp_sass_classify("@P0", "UBLKCP.S.G", "[UR8], [UR4], UR6"), KP_SC_BULK);
	cr_assert_eq(kp_sass_classify(NULL, "UTMALDG.2D", "[UR8], [UR4]"), KP_SC_BULK);
	cr_assert_eq(kp_sass_classify(NULL, "SYNCS.ARRIVE.TRANS64.RED.A1T0", "RZ, [UR4], RZ"),
		     KP_SC_SYNCS);
	cr_assert_eq(kp_sass_classify(NULL, "SYNCS.PHASECHK.TRANS64.TRYWAIT", "P0, [R2+URZ], R3"),
		     KP_SC_SYNCS);
	cr_assert_str_eq(kp_sass_class_name(KP_SC_BULK), "BULK");
	cr_assert_str_eq(kp_sass_class_name(KP_SC_SYNCS), "SYNCS");
	cr_assert_str_eq(kp_sass_class_name(KP_SC_LDGSTS), "LDGSTS");
	cr_assert_str_eq(kp_sass_class_name(KP_SC_MATH), "MATH");
}

Test(sass_classify, moves_and_dead_instructions_are_not_counted)
{
	/* ptxas writes "mov 0" as an FMA with a zero multiplicand */
	cr_assert_eq(kp_sass_classify(NULL, "HFMA2.MMA", "R23, -RZ, RZ, 0, 0"), KP_SC_OTHER);
	cr_assert_eq(kp_sass_classify(NULL, "FFMA", "R0, RZ, R1, R2"), KP_SC_OTHER);
	cr_assert_eq(kp_sass_classify(NULL, "HFMA2.MMA", "R0, R2, R3, R4"), KP_SC_MATH);
	/* padding that never executes */
	cr_assert_eq(kp_sass_classify("@!PT", "LDS", "RZ, [RZ]"), KP_SC_OTHER);
	cr_assert_eq(kp_sass_classify("@PT", "LDS", "R1, [R2]"), KP_SC_LDS);
}

/* ---- parsing ---------------------------------------------------------- */

Test(sass_parse, cuobjdump_listing)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "naive.sass");
	cr_assert_eq(s.nfuncs, 1);
	const kp_sass_func *f = &s.funcs[0];
	cr_assert_str_eq(f->name, "_Z12matmul_tiledPKfS0_Pfi");
	cr_assert_eq(kp_sass_find(&s, "_Z12matmul_tiledPKfS0_Pfi"), f);
	cr_assert_null(kp_sass_find(&s, "nope"));
	cr_assert_gt(f->ninsns, 100);
	cr_assert_eq(f->insns[0].addr, 0u);
	cr_assert_str_eq(f->insns[0].opcode, "LDC");
	cr_assert_str_eq(f->insns[0].operands, "R1, c[0x0][0x28]");
	cr_assert_null(f->insns[0].pred);
	/* addresses step by 16; every branch target is known */
	for (int i = 1; i < f->ninsns; i++) {
		cr_assert_eq(f->insns[i].addr, f->insns[i - 1].addr + 16);
		if (f->insns[i].cls == KP_SC_BRA)
			cr_assert_geq(f->insns[i].target, 0, "branch at %04x", f->insns[i].addr);
	}
	kp_sass_release(&s);
}

Test(sass_parse, nvdisasm_listing_matches_cuobjdump)
{
	kp_sass a, b;
	kp_sass_loop la, lb;
	load(&a, &la, "naive.sass");
	load(&b, &lb, "naive.nvdisasm.sass");
	cr_assert_str_eq(b.funcs[0].name, a.funcs[0].name);
	cr_assert_eq(b.funcs[0].ninsns, a.funcs[0].ninsns);
	/* labels ("`(.L_x_1)") resolve to the same addresses as hex targets */
	for (int i = 0; i < a.funcs[0].ninsns; i++)
		cr_assert_eq(b.funcs[0].insns[i].target, a.funcs[0].insns[i].target, "insn %d", i);
	cr_assert(kp_sass_same_code(&a.funcs[0], &b.funcs[0]));
	cr_assert_eq(lb.begin_addr, la.begin_addr);
	cr_assert_eq(lb.end_addr, la.end_addr);
	cr_assert_eq(lb.overlap, la.overlap);
	kp_sass_release(&a);
	kp_sass_release(&b);
}

Test(sass_parse, several_functions_and_no_loop)
{
	kp_sass s;
	char *text = fixture_text("multi.sass");
	cr_assert_eq(kp_sass_parse(&s, text), 0);
	free(text);
	cr_assert_eq(s.nfuncs, 2);
	cr_assert_not_null(kp_sass_find(&s, "_Z5scaleILi128EEvPff"));
	cr_assert_not_null(kp_sass_find(&s, "_Z4axpyPfPKffi"));
	kp_sass_loop l;
	/* the `BRA self` after EXIT is no loop */
	cr_assert_eq(kp_sass_main_loop(&l, kp_sass_find(&s, "_Z4axpyPfPKffi")), -1);
	cr_assert_eq(l.found, 0);
	cr_assert_eq(l.nbackward, 0);
	cr_assert(strstr(l.reason, "no loop"));
	kp_sass_release(&s);
}

Test(sass_parse, empty_text)
{
	kp_sass s;
	cr_assert_eq(kp_sass_parse(&s, ""), -1);
	cr_assert_eq(s.nfuncs, 0);
	kp_sass_release(&s);
	cr_assert_eq(kp_sass_parse(&s, "\n\tcode for sm_90\n"), -1);
	kp_sass_release(&s);
}

/* ---- verdicts on real listings ----------------------------------------- */

Test(sass_verdict, naive_loads_then_barrier_fails)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "naive.sass");
	cr_assert(l.found);
	cr_assert_eq(l.begin_addr, 0x230u);
	cr_assert_eq(l.end_addr, 0x760u);
	cr_assert_eq(l.nbackward, 1);
	cr_assert_eq(l.counts[KP_SC_MATH], 32);
	cr_assert_eq(l.counts[KP_SC_LDG], 2);
	cr_assert_eq(l.counts[KP_SC_STS], 2);
	cr_assert_eq(l.counts[KP_SC_BAR], 2);
	cr_assert_eq(l.nbars, 2);
	cr_assert_eq(s.funcs[0].insns[l.first_load].addr, 0x230u);
	cr_assert_lt(l.bars[0], l.first_math);
	cr_assert_eq(l.overlap, 0);
	cr_assert(strstr(l.reason, "barrier"), "%s", l.reason);
	kp_sass_release(&s);
}

Test(sass_verdict, cp_async_overlaps)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "cp_async.sass");
	cr_assert(l.found);
	cr_assert_eq(l.counts[KP_SC_LDGSTS], 2);
	cr_assert_eq(l.counts[KP_SC_LDGDEPBAR], 1);
	cr_assert_eq(l.counts[KP_SC_DEPBAR], 1);
	cr_assert_eq(l.counts[KP_SC_BAR], 1);
	cr_assert_eq(l.counts[KP_SC_MATH], 32);
	cr_assert(l.overlap, "%s", l.reason);
	cr_assert_eq(l.overlap_nmath, 32);
	cr_assert_eq(s.funcs[0].insns[l.overlap_load].cls, KP_SC_LDGSTS);
	cr_assert_eq(s.funcs[0].insns[l.overlap_math].cls, KP_SC_MATH);
	cr_assert_lt(l.first_load, l.first_math);
	kp_sass_release(&s);
}

/* kpipe's bulk form of samples/matmul_bulk_float.cu (--variant bulk), sm_90,
 * captured on an H200: the bulk copies of the next tile are in flight over
 * the current tile's math. */
Test(sass_verdict, bulk_copies_overlap)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "bulk.sass");
	cr_assert(l.found);
	cr_assert_gt(l.counts[KP_SC_BULK], 0);
	cr_assert_gt(l.counts[KP_SC_SYNCS], 0);
	cr_assert_eq(l.counts[KP_SC_LDGSTS], 0);
	cr_assert_geq(l.counts[KP_SC_MATH], 32);
	cr_assert(l.overlap, "%s", l.reason);
	kp_sass_release(&s);
}

Test(sass_verdict, register_staging_overlaps)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "reg_staged.sass");
	cr_assert(l.found);
	cr_assert_eq(l.counts[KP_SC_LDG], 2);
	cr_assert_eq(l.counts[KP_SC_LDGSTS], 0);
	cr_assert_eq(l.counts[KP_SC_MATH], 32);
	cr_assert(l.overlap, "%s", l.reason);
	cr_assert_eq(s.funcs[0].insns[l.overlap_load].cls, KP_SC_LDG);
	/* ptxas moved a few FFMAs below the barrier: most still overlap */
	cr_assert_geq(l.overlap_nmath, 16);
	kp_sass_release(&s);
}

Test(sass_verdict, barrier_between_loads_and_math_fails)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "broken_barrier.sass");
	cr_assert(l.found);
	cr_assert_eq(l.counts[KP_SC_LDGSTS], 2);
	cr_assert_eq(l.counts[KP_SC_MATH], 32);
	cr_assert_eq(l.overlap, 0, "%s", l.reason);
	cr_assert_eq(l.overlap_nmath, 0);
	cr_assert(strstr(l.reason, "BAR.SYNC"), "%s", l.reason);
	kp_sass_release(&s);
}

Test(sass_verdict, local_memory_is_counted)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "spill.sass");
	cr_assert(l.found);
	cr_assert_eq(l.counts[KP_SC_LDL], 32);
	cr_assert_eq(l.counts[KP_SC_STL], 32);
	cr_assert_eq(l.counts[KP_SC_MATH], 32);
	kp_sass_release(&s);
}

Test(sass_verdict, outer_loop_around_a_load_loop)
{
	/* wmma.cu: the tile copy stays a loop of its own inside the K-loop;
	 * the main loop is the K-loop, which holds the HMMAs */
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "wmma.sass");
	cr_assert(l.found);
	cr_assert_eq(l.nloops, 2);
	cr_assert_eq(l.counts[KP_SC_MATH], 2);
	cr_assert_str_eq(s.funcs[0].insns[l.first_math].opcode, "HMMA.16816.F32");
	cr_assert_gt(l.counts[KP_SC_LDG], 0);
	cr_assert_eq(l.overlap, 0);
	kp_sass_release(&s);
}

/* ---- verdicts on hand-written listings -------------------------------- */

/* A loop rotated by the compiler: the loads close the body and the math
 * opens it, so the loads overlap the next iteration's math. */
static const char rotated[] = "\tFunction : rot\n"
			      "        /*0000*/  MOV R1, R2 ;\n"
			      "        /*0010*/  FFMA R3, R4, R5, R3 ;\n"
			      "        /*0020*/  FFMA R3, R6, R7, R3 ;\n"
			      "        /*0030*/  LDG.E R4, desc[UR4][R8.64] ;\n"
			      "        /*0040*/  @P0 BRA 0x10 ;\n"
			      "        /*0050*/  EXIT ;\n"
			      "        /*0060*/  BRA 0x60;\n";

Test(sass_verdict, rotated_loop_wraps)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, rotated);
	cr_assert(l.found);
	cr_assert_eq(l.begin_addr, 0x10u);
	cr_assert_eq(l.end_addr, 0x40u);
	cr_assert_eq(l.nbackward, 1);
	cr_assert(l.overlap, "%s", l.reason);
	cr_assert(l.overlap_wraps);
	cr_assert_eq(l.overlap_nmath, 2);
	cr_assert(strstr(l.reason, "next iteration"));
	kp_sass_release(&s);
}

/* The bulk form's loop as sm_90 compiles it: wait on the mbarrier, barrier,
 * the elected thread's bulk copy of the next tile, then the math. */
static const char bulk_loop[] =
	"\tFunction : bulk\n"
	"        /*0000*/  MOV R1, R2 ;\n"
	"        /*0010*/  SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R2+URZ], R3 ;\n"
	"        /*0020*/  BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
	"        /*0030*/  SYNCS.ARRIVE.TRANS64.RED.A1T0 RZ, [UR4], RZ ;\n"
	"        /*0040*/  @P1 UBLKCP.S.G [UR8], [UR10], UR6 ;\n"
	"        /*0050*/  FFMA R3, R4, R5, R3 ;\n"
	"        /*0060*/  FFMA R3, R6, R7, R3 ;\n"
	"        /*0070*/  @P2 BRA 0x10 ;\n"
	"        /*0080*/  EXIT ;\n";

Test(sass_verdict, bulk_copy_overlaps)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, bulk_loop);
	cr_assert(l.found);
	cr_assert_eq(l.counts[KP_SC_BULK], 1);
	cr_assert_eq(l.counts[KP_SC_SYNCS], 2);
	cr_assert(l.has_loads);
	cr_assert(l.overlap, "%s", l.reason);
	cr_assert_eq(l.overlap_nmath, 2);
	cr_assert(strstr(l.reason, "UBLKCP.S.G"), "%s", l.reason);
	kp_sass_release(&s);
}

/* Loads issued after most of the math: only the last FFMA hides them. */
static const char weak[] = "\tFunction : weak\n"
			   "        /*0000*/  FFMA R3, R4, R5, R3 ;\n"
			   "        /*0010*/  FFMA R3, R4, R5, R3 ;\n"
			   "        /*0020*/  FFMA R3, R4, R5, R3 ;\n"
			   "        /*0030*/  LDG.E R4, desc[UR4][R8.64] ;\n"
			   "        /*0040*/  FFMA R3, R4, R5, R3 ;\n"
			   "        /*0050*/  BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
			   "        /*0060*/  @P0 BRA 0x0 ;\n"
			   "        /*0070*/  EXIT ;\n";

Test(sass_verdict, weak_overlap_fails)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, weak);
	cr_assert(l.found);
	cr_assert_eq(l.overlap_nmath, 1);
	cr_assert_eq(l.overlap, 0);
	cr_assert(strstr(l.reason, "only 1 of 4"), "%s", l.reason);
	kp_sass_release(&s);
}

/* BAR.ARV only arrives: it does not separate the loads from the math. */
static const char arrive[] = "\tFunction : arv\n"
			     "        /*0000*/  LDGSTS.E [R1], desc[UR4][R2.64] ;\n"
			     "        /*0010*/  BAR.ARV 0x1, 0x40 ;\n"
			     "        /*0020*/  FFMA R3, R4, R5, R3 ;\n"
			     "        /*0030*/  @P0 BRA 0x0 ;\n"
			     "        /*0040*/  EXIT ;\n";

Test(sass_verdict, arrive_is_no_barrier)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, arrive);
	cr_assert(l.overlap, "%s", l.reason);
	cr_assert_eq(l.nbars, 0);
	kp_sass_release(&s);
}

/* A persistent-tile loop around the K-loop: the K-loop (innermost loop
 * with loads and math) is the main loop, not the outer one. */
static const char persistent[] = "\tFunction : persist\n"
				 "        /*0000*/  MOV R1, R2 ;\n"
				 "        /*0010*/  LDG.E R4, desc[UR4][R8.64] ;\n"
				 "        /*0020*/  FFMA R3, R4, R5, R3 ;\n"
				 "        /*0030*/  FFMA R3, R4, R5, R3 ;\n"
				 "        /*0040*/  @P1 BRA 0x10 ;\n"
				 "        /*0050*/  STG.E desc[UR4][R10.64], R3 ;\n"
				 "        /*0060*/  @P2 BRA 0x0 ;\n"
				 "        /*0070*/  EXIT ;\n";

Test(sass_verdict, innermost_loop_with_loads_and_math)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, persistent);
	cr_assert_eq(l.nloops, 2);
	cr_assert_eq(l.begin_addr, 0x10u);
	cr_assert_eq(l.end_addr, 0x40u);
	cr_assert(l.overlap);
	kp_sass_release(&s);
}

/* An inner compute loop left rolled (no loads): the K-loop around it is
 * the main loop. */
static const char inner_compute[] = "\tFunction : inner\n"
				    "        /*0000*/  LDG.E R4, desc[UR4][R8.64] ;\n"
				    "        /*0010*/  STS [R1], R4 ;\n"
				    "        /*0020*/  BAR.SYNC 0x0 ;\n"
				    "        /*0030*/  LDS R5, [R2] ;\n"
				    "        /*0040*/  FFMA R3, R4, R5, R3 ;\n"
				    "        /*0050*/  @P1 BRA 0x30 ;\n"
				    "        /*0060*/  BAR.SYNC 0x0 ;\n"
				    "        /*0070*/  @P0 BRA 0x0 ;\n"
				    "        /*0080*/  EXIT ;\n";

Test(sass_verdict, outermost_over_inner_compute_loop)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, inner_compute);
	cr_assert_eq(l.nloops, 2);
	cr_assert_eq(l.begin_addr, 0x0u);
	cr_assert_eq(l.end_addr, 0x70u);
	cr_assert_eq(l.overlap, 0);
	kp_sass_release(&s);
}

Test(sass_verdict, loop_without_loads)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l,
		     "\tFunction : noload\n"
		     "        /*0000*/  FFMA R3, R4, R5, R3 ;\n"
		     "        /*0010*/  @P0 BRA 0x0 ;\n");
	cr_assert(l.found);
	cr_assert_eq(l.has_loads, 0);
	cr_assert_eq(l.overlap, 0);
	cr_assert(strstr(l.reason, "no LDG, LDGSTS or bulk copy"));
	kp_sass_release(&s);
}

/* ---- comparison and excerpt ------------------------------------------- */

Test(sass_compare, math_per_iteration)
{
	kp_sass a, b;
	kp_sass_loop la, lb;
	load(&a, &la, "naive.sass");
	load(&b, &lb, "cp_async.sass");
	char msg[256];
	cr_assert(kp_sass_math_equal(&la, &lb, msg, sizeof(msg)));
	cr_assert_str_eq(msg, "");
	cr_assert_not(kp_sass_same_code(&a.funcs[0], &b.funcs[0]));

	kp_sass_loop twice = lb;
	twice.counts[KP_SC_MATH] = 64;
	cr_assert_not(kp_sass_math_equal(&la, &twice, msg, sizeof(msg)));
	cr_assert(strstr(msg, "original 32, rewritten 64"), "%s", msg);
	cr_assert(strstr(msg, "2x"), "%s", msg);
	twice.counts[KP_SC_MATH] = 33;
	cr_assert_not(kp_sass_math_equal(&la, &twice, msg, sizeof(msg)));
	cr_assert(strstr(msg, "x ratio") == NULL, "%s", msg); /* "iteration" holds "ratio" */
	kp_sass_release(&a);
	kp_sass_release(&b);
}

Test(sass_excerpt, marks_and_folds)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "cp_async.sass");
	char *ex = kp_sass_excerpt(&s.funcs[0], &l, 40);
	cr_assert(strstr(ex, "  LOAD  >/*0470*/ @!P0 LDGSTS.E [R9], desc[UR8][R24.64] ;\n"), "%s",
		  ex);
	cr_assert(strstr(ex, "  FENCE  /*0560*/ LDGDEPBAR ;\n"), "%s", ex);
	cr_assert(strstr(ex, "  BAR    /*0330*/ BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"), "%s", ex);
	cr_assert(strstr(ex, "... 31 more math up to /*0960*/"), "%s", ex);
	cr_assert(strstr(ex, "  BRA    /*0970*/ @!P0 BRA 0x2f0 ;\n"), "%s", ex);
	cr_assert(strstr(ex, "LDS") == NULL, "%s", ex);
	free(ex);
	kp_sass_release(&s);
}

Test(sass_excerpt, trimmed_to_max_lines)
{
	kp_sass s;
	kp_sass_loop l;
	load(&s, &l, "spill.sass");
	char *ex = kp_sass_excerpt(&s.funcs[0], &l, 10);
	int lines = 0;
	for (const char *p = ex; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, 11, "%s", ex);
	cr_assert(strstr(ex, "LOCAL"), "%s", ex);
	cr_assert(strstr(ex, "more lines\n"), "%s", ex);
	free(ex);
	kp_sass_release(&s);
}

/* ---- validate, steps 1-2, with stand-in tools ------------------------- */

static char *fake_nvcc, *fake_cuobjdump;

/* nvcc replays X.ptxas.txt for X.cu and writes the name of X.sass into the
 * "cubin"; cuobjdump prints the file named in the cubin. */
static void make_tools(void)
{
	kp_test_tmpdir_make();
	fake_nvcc = kp_test_path("nvcc");
	fake_cuobjdump = kp_test_path("cuobjdump");
	kp_test_write_script(fake_nvcc, "#!/bin/sh\n"
					"out= src=\n"
					"while [ $# -gt 0 ]; do\n"
					"  case \"$1\" in -o) out=$2; shift ;; *) src=$1 ;; esac\n"
					"  shift\n"
					"done\n"
					"cat \"${src%.cu}.ptxas.txt\" || exit 1\n"
					"echo \"${src%.cu}.sass\" > \"$out\"\n");
	kp_test_write_script(fake_cuobjdump, "#!/bin/sh\nexec cat \"$(cat \"$2\")\"\n");
}

static void remove_tools(void)
{
	free(fake_nvcc);
	free(fake_cuobjdump);
	kp_test_tmpdir_remove();
}

static int validate(kp_validate_result *r, const char *orig, const char *rew, int threads,
		    const char *kernel, int with_disassembler)
{
	char po[512], pr[512];
	snprintf(po, sizeof(po), FIXTURES "%s", orig);
	snprintf(pr, sizeof(pr), FIXTURES "%s", rew);
	kp_validate_opts o = {
		.original = po,
		.rewritten = pr,
		.arch = "sm_90",
		.threads = threads,
		.kernel = kernel,
		.nvcc = fake_nvcc,
		.cuobjdump = with_disassembler ? fake_cuobjdump : NULL,
		.cxxfilt = "false", /* names stay mangled: no dependency on binutils */
	};
	return kp_validate_static(r, &o);
}

static int has_finding(const kp_validate_result *r, kp_find_level level, const char *text)
{
	for (int i = 0; i < r->nfindings; i++)
		if (r->findings[i].level == level && strstr(r->findings[i].message, text))
			return 1;
	return 0;
}

TestSuite(validate, .init = make_tools, .fini = remove_tools);

Test(validate, cp_async_passes)
{
	kp_validate_result r;
	cr_assert_eq(validate(&r, "naive.cu", "cp_async.cu", 256, NULL, 1), KP_VALIDATE_OK);
	cr_assert_eq(r.steps[0].status, KP_STEP_PASSED, "%s", r.steps[0].reason);
	cr_assert_eq(r.steps[1].status, KP_STEP_PASSED, "%s", r.steps[1].reason);
	cr_assert_eq(kp_validate_exit_code(&r), 0);
	cr_assert_eq(r.nkernels, 1);
	const kp_validate_kernel *k = &r.kernels[0];
	cr_assert_str_eq(k->name, "_Z12matmul_tiledPKfS0_Pfi");
	cr_assert_str_eq(k->verdict, "PASS");
	cr_assert_eq(k->orig.res.smem, 8192);
	cr_assert_eq(k->rew.res.smem, 16384);
	cr_assert_eq(k->orig.occ.blocks_per_sm, 8);
	cr_assert_eq(k->rew.occ.blocks_per_sm, 8);
	cr_assert(k->rew.loop.overlap);
	cr_assert_not_null(strstr(k->excerpt, "LDGSTS"));
	cr_assert_str_eq(r.disassembler, "cuobjdump");

	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "step 1  resources  PASSED"), "%s", text);
	cr_assert(strstr(text, "step 2  sass       PASSED"), "%s", text);
	cr_assert(strstr(text, "step 3  gpu-run    skipped: " KP_VALIDATE_GPU_SKIP), "%s", text);
	cr_assert(strstr(text, "result: PASSED"), "%s", text);
	free(text);

	char *json = kp_validate_render_json(&r);
	cJSON *root = cJSON_Parse(json);
	cr_assert_not_null(root, "%s", json);
	cr_assert_eq(cJSON_GetObjectItem(root, "exit_code")->valueint, 0);
	cJSON *steps = cJSON_GetObjectItem(root, "steps");
	cr_assert_eq(cJSON_GetArraySize(steps), 5);
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(steps, 1), "status")->valuestring,
			 "PASSED");
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(steps, 2), "status")->valuestring,
			 "SKIPPED");
	cJSON *k0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "kernels"), 0);
	cJSON *loop = cJSON_GetObjectItem(cJSON_GetObjectItem(k0, "rewritten"), "main_loop");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(loop, "overlap")));
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(loop, "counts"), "MATH")->valueint,
		     32);
	cJSON_Delete(root);
	free(json);
	kp_validate_result_release(&r);
}

Test(validate, barrier_between_loads_and_math_fails)
{
	kp_validate_result r;
	cr_assert_eq(validate(&r, "naive.cu", "broken_barrier.cu", 256, NULL, 1), KP_VALIDATE_OK);
	cr_assert_eq(r.steps[0].status, KP_STEP_PASSED);
	cr_assert_eq(r.steps[1].status, KP_STEP_FAILED);
	cr_assert(strstr(r.steps[1].reason, "no overlap"), "%s", r.steps[1].reason);
	cr_assert_str_eq(r.kernels[0].verdict, "FAIL");
	cr_assert_eq(kp_validate_exit_code(&r), 4);
	kp_validate_result_release(&r);
}

Test(validate, local_memory_and_occupancy_cliff)
{
	kp_validate_result r;
	cr_assert_eq(validate(&r, "naive.cu", "spill.cu", 1024, NULL, 1), KP_VALIDATE_OK);
	/* the cliff is a warning, the stack frame too; step 1 still passes */
	cr_assert_eq(r.steps[0].status, KP_STEP_PASSED, "%s", r.steps[0].reason);
	cr_assert(has_finding(&r, KP_FIND_WARNING,
			      "occupancy cliff crossed: 2 -> 1 blocks/SM (registers 32 -> 40; "
			      "limited by registers)"));
	cr_assert(has_finding(&r, KP_FIND_WARNING, "stack frame grew: 0 -> 64 bytes"));
	cr_assert_eq(r.steps[1].status, KP_STEP_FAILED);
	cr_assert(
		has_finding(&r, KP_FIND_ERROR,
			    "new local-memory traffic in the main loop: LDL 0 -> 32, STL 0 -> 32"));
	kp_validate_result_release(&r);
}

Test(validate, new_spills_and_warnings_fail_step_1)
{
	kp_validate_result r;
	/* tile128_spill.ptxas.txt: 2776 bytes of spill stores */
	cr_assert_eq(validate(&r, "tile128.cu", "tile128_spill.cu", 256, NULL, 0), KP_VALIDATE_OK);
	cr_assert_eq(r.steps[0].status, KP_STEP_FAILED);
	cr_assert(has_finding(&r, KP_FIND_ERROR, "new spills: stores 0 -> 2776 bytes"));
	kp_validate_result_release(&r);

	/* multi.ptxas.txt holds a warning that tile128.ptxas.txt lacks */
	cr_assert_eq(validate(&r, "tile128.cu", "multi.cu", 256, NULL, 0), KP_VALIDATE_OK);
	cr_assert(has_finding(&r, KP_FIND_ERROR, "new compiler warning: "));
	cr_assert(has_finding(&r, KP_FIND_ERROR, "kernel missing from the rewritten file"));
	kp_validate_result_release(&r);

	/* the same warning on both sides is not new */
	cr_assert_eq(validate(&r, "multi.cu", "multi.cu", 256, NULL, 0), KP_VALIDATE_OK);
	cr_assert_eq(r.steps[0].status, KP_STEP_PASSED, "%s", r.steps[0].reason);
	cr_assert_eq(r.nkernels, 2);
	kp_validate_result_release(&r);
}

Test(validate, unchanged_kernel_is_not_pipelined)
{
	kp_validate_result r;
	cr_assert_eq(validate(&r, "naive.cu", "naive.cu", 256, NULL, 1), KP_VALIDATE_OK);
	cr_assert_eq(r.steps[1].status, KP_STEP_FAILED);
	cr_assert(strstr(r.steps[1].reason, "nothing was pipelined"), "%s", r.steps[1].reason);
	cr_assert_str_eq(r.kernels[0].verdict, "unchanged");
	kp_validate_result_release(&r);
}

Test(validate, no_disassembler_skips_step_2)
{
	kp_validate_result r;
	cr_assert_eq(validate(&r, "naive.cu", "cp_async.cu", 256, NULL, 0), KP_VALIDATE_OK);
	cr_assert_eq(r.steps[0].status, KP_STEP_PASSED);
	cr_assert_eq(r.steps[1].status, KP_STEP_SKIPPED);
	cr_assert_str_eq(r.steps[1].reason, "no cuobjdump or nvdisasm found");
	cr_assert_eq(kp_validate_exit_code(&r), 6);
	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "result: INCOMPLETE"), "%s", text);
	free(text);
	kp_validate_result_release(&r);
}

Test(validate, kernel_filter)
{
	kp_validate_result r;
	cr_assert_eq(validate(&r, "multi.cu", "multi.cu", 256, "axpy", 0), KP_VALIDATE_OK);
	cr_assert_eq(r.nkernels, 1);
	cr_assert_str_eq(r.kernels[0].name, "_Z4axpyPfPKffi");
	kp_validate_result_release(&r);

	cr_assert_eq(validate(&r, "multi.cu", "multi.cu", 256, "nope", 0), KP_VALIDATE_OK);
	cr_assert_eq(r.nkernels, 0);
	cr_assert_eq(r.steps[0].status, KP_STEP_FAILED);
	cr_assert_str_eq(r.steps[0].reason, "no kernel matches 'nope' in either file");
	cr_assert_eq(r.steps[1].status, KP_STEP_SKIPPED);
	kp_validate_result_release(&r);
}

/* With a cache folder (KPIPE_VALIDATE_CACHE), a cubin of the same bytes
 * is disassembled once: the second run of the same pair, and the original
 * of another variant, come from the cache with the same verdicts. */
Test(validate, cache_disassembles_a_cubin_once)
{
	char *count = kp_test_path("count"), *cache = kp_test_path("cache");
	char *counting = kp_test_path("cuobjdump-counting");
	kp_strbuf body = KP_STRBUF_INIT;
	kp_strbuf_addf(&body, "#!/bin/sh\necho \"$2\" >>%s\nexec cat \"$(cat \"$2\")\"\n", count);
	kp_test_write_script(counting, kp_strbuf_str(&body));
	const char *rews[] = {"cp_async.cu", "cp_async.cu", "reg_staged.cu"};
	const char *want[] = {"PASS", "PASS", NULL};
	int runs_after[] = {2, 2, 3};
	char *first = NULL;
	for (int i = 0; i < 3; i++) {
		char po[512], pr[512];
		snprintf(po, sizeof(po), FIXTURES "naive.cu");
		snprintf(pr, sizeof(pr), FIXTURES "%s", rews[i]);
		kp_validate_opts o = {.original = po,
				      .rewritten = pr,
				      .arch = "sm_90",
				      .threads = 256,
				      .nvcc = fake_nvcc,
				      .cuobjdump = counting,
				      .cxxfilt = "false",
				      .cache_dir = cache};
		kp_validate_result r;
		cr_assert_eq(kp_validate_static(&r, &o), KP_VALIDATE_OK);
		cr_assert_eq(r.nkernels, 1);
		if (want[i])
			cr_assert_str_eq(r.kernels[0].verdict, want[i]);
		char *text = kp_validate_render_text(&r);
		if (i == 0)
			first = text;
		else if (i == 1) {
			cr_assert_str_eq(text, first, "the cached run reports otherwise");
			free(text);
		} else
			free(text);
		kp_validate_result_release(&r);
		char *n = NULL;
		cr_assert_eq(kp_read_file(count, &n, NULL), 0);
		int lines = 0;
		for (const char *c = n; *c; c++)
			lines += *c == '\n';
		cr_assert_eq(lines, runs_after[i], "run %d: %d disassemblies so far:\n%s", i, lines,
			     n);
		free(n);
	}
	free(first);
	kp_strbuf_release(&body);
	free(counting);
	free(cache);
	free(count);
}

Test(validate, compile_failure_and_missing_nvcc)
{
	kp_validate_result r;
	/* no missing.ptxas.txt: the stand-in nvcc fails */
	cr_assert_eq(validate(&r, "naive.cu", "missing.cu", 256, NULL, 1), KP_VALIDATE_OK);
	cr_assert_eq(r.steps[0].status, KP_STEP_FAILED);
	cr_assert(strstr(r.steps[0].reason, "cannot compile"), "%s", r.steps[0].reason);
	cr_assert(strstr(r.steps[0].reason, "missing.cu"), "%s", r.steps[0].reason);
	cr_assert_eq(r.steps[1].status, KP_STEP_SKIPPED);
	cr_assert_eq(kp_validate_exit_code(&r), 4);
	kp_validate_result_release(&r);

	kp_validate_opts o = {.original = "a.cu",
			      .rewritten = "b.cu",
			      .arch = "sm_90",
			      .nvcc = "/nonexistent/nvcc"};
	cr_assert_eq(kp_validate_static(&r, &o), KP_VALIDATE_ENOTOOL);
	cr_assert(strstr(r.steps[0].reason, "cannot run"), "%s", r.steps[0].reason);
	kp_validate_result_release(&r);
}

/* ---- loops ptxas unrolled: one barrier interval per copy --------------- */

/* A cp.async K-loop unrolled twice by ptxas, each copy with its barrier:
 * every load is in flight over all the math of its interval (2 of the 4 in
 * the loop), which is the overlap a pipelined loop gives. */
static const char unrolled[] =
	"\tFunction : unr\n"
	"        /*0000*/  DEPBAR.LE SB0, 0x0 ;\n"
	"        /*0010*/  BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
	"        /*0020*/  @!P0 LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64] ;\n"
	"        /*0030*/  LDGDEPBAR ;\n"
	"        /*0040*/  HMMA.16816.F32 R4, R8, R12, R4 ;\n"
	"        /*0050*/  HMMA.16816.F32 R4, R8, R14, R4 ;\n"
	"        /*0060*/  DEPBAR.LE SB0, 0x0 ;\n"
	"        /*0070*/  BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
	"        /*0080*/  @!P0 LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64+0x40] ;\n"
	"        /*0090*/  LDGDEPBAR ;\n"
	"        /*00a0*/  HMMA.16816.F32 R4, R8, R12, R4 ;\n"
	"        /*00b0*/  HMMA.16816.F32 R4, R8, R14, R4 ;\n"
	"        /*00c0*/  @P1 BRA 0x0 ;\n"
	"        /*00d0*/  EXIT ;\n";

Test(sass_verdict, unrolled_loop_judged_per_barrier_interval)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, unrolled);
	cr_assert(l.found);
	cr_assert_eq(l.counts[KP_SC_MATH], 4);
	cr_assert_eq(l.nbars, 2);
	cr_assert(l.overlap, "%s", l.reason);
	cr_assert_eq(l.overlap_nmath, 2);
	cr_assert(strstr(l.reason, "in flight during 2 of 2 math instructions between its "
				   "barriers (4 in the loop)"),
		  "%s", l.reason);
	kp_sass_release(&s);
}

/* The same with the second copy's load sunk below its math: that interval
 * hides nothing, so the loop fails although the first copy overlaps. */
static const char unrolled_late[] = "\tFunction : unl\n"
				    "        /*0000*/  BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
				    "        /*0010*/  LDG.E R1, desc[UR4][R2.64] ;\n"
				    "        /*0020*/  FFMA R4, R5, R6, R4 ;\n"
				    "        /*0030*/  FFMA R4, R5, R6, R4 ;\n"
				    "        /*0040*/  BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
				    "        /*0050*/  FFMA R4, R5, R6, R4 ;\n"
				    "        /*0060*/  FFMA R4, R5, R6, R4 ;\n"
				    "        /*0070*/  FFMA R4, R5, R6, R4 ;\n"
				    "        /*0080*/  LDG.E R1, desc[UR4][R2.64+0x40] ;\n"
				    "        /*0090*/  FFMA R4, R5, R6, R4 ;\n"
				    "        /*00a0*/  @P1 BRA 0x0 ;\n"
				    "        /*00b0*/  EXIT ;\n";

Test(sass_verdict, unrolled_loop_with_one_late_interval_fails)
{
	kp_sass s;
	kp_sass_loop l;
	parse_inline(&s, &l, unrolled_late);
	cr_assert(l.found);
	cr_assert_eq(l.overlap, 0);
	cr_assert_eq(s.funcs[0].insns[l.overlap_load].addr, 0x80u);
	cr_assert(strstr(l.reason, "only 1 of 4 math instructions between its barriers (6 in the "
				   "loop)"),
		  "%s", l.reason);
	kp_sass_release(&s);
}
