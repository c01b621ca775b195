/*
 * test_plan.c - kp_plan_loop on parsed snippets: which transform auto
 * picks (register staging for a few staging registers, cp.async above 16
 * per thread or for more than 2 stages), what an explicit --variant gets,
 * and the refusals (2-byte copies and cp.async, cp.async before sm_80,
 * register staging with 3 stages, a loop that is not eligible).
 */
#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "plan.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- snippets -------------------------------------------------------------- */

/* fp32 16x16 tiles, one 4-byte copy per tile and thread: 2 staging registers */
static const char float_src[] =
	"#define TILE 16\n"
	"__global__ void mm(const float *A, const float *B, float *C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[TILE][TILE];\n"
	"    __shared__ float Bs[TILE][TILE];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
	"        As[ty][tx] = A[row * K + k0 + tx];\n"
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[row * N + col] = acc;\n"
	"}\n";

/* the same with __half tiles: 2-byte scalar copies */
static const char half_src[] =
	"#include <cuda_fp16.h>\n"
	"#define TILE 16\n"
	"__global__ void mmh(const __half *A, const __half *B, float *C, int N, int K)\n"
	"{\n"
	"    __shared__ __half As[TILE][TILE];\n"
	"    __shared__ __half Bs[TILE][TILE];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
	"        As[ty][tx] = A[row * K + k0 + tx];\n"
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            acc += __half2float(As[ty][kk]) * __half2float(Bs[kk][tx]);\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[row * N + col] = acc;\n"
	"}\n";

/* 10 + 10 copies per thread and tile through constant-trip copy loops:
 * 20 staging registers */
static const char many_regs_src[] =
	"#define BM 80\n"
	"#define BK 32\n"
	"__global__ void mmr(const float *A, const float *B, float *C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[BM][BK];\n"
	"    __shared__ float Bs[BK][BM];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BM;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += BK) {\n"
	"        for (int i = 0; i < 10; ++i)\n"
	"            As[i * 8 + ty][tx] = A[(row0 + i * 8 + ty) * K + k0 + tx];\n"
	"        for (int i = 0; i < 10; ++i)\n"
	"            Bs[ty][i * 8 + tx] = B[(k0 + ty) * N + col0 + i * 8 + tx];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < BK; ++kk)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[(row0 + ty) * N + col0 + tx] = acc;\n"
	"}\n";

/* exactly 16 staging registers: 8 + 8 */
static const char sixteen_regs_src[] =
	"#define BM 64\n"
	"#define BK 32\n"
	"__global__ void mm16(const float *A, const float *B, float *C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[BM][BK];\n"
	"    __shared__ float Bs[BK][BM];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BM;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += BK) {\n"
	"        for (int i = 0; i < 8; ++i)\n"
	"            As[i * 8 + ty][tx] = A[(row0 + i * 8 + ty) * K + k0 + tx];\n"
	"        for (int i = 0; i < 8; ++i)\n"
	"            Bs[ty][i * 8 + tx] = B[(k0 + ty) * N + col0 + i * 8 + tx];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < BK; ++kk)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[(row0 + ty) * N + col0 + tx] = acc;\n"
	"}\n";

/* a copy loop with a run-time trip count: no register staging */
static const char runtime_trip_src[] =
	"#define TILE 16\n"
	"__global__ void mmt(const float *A, const float *B, float *C, int N, int K, int reps)\n"
	"{\n"
	"    __shared__ float As[TILE][TILE];\n"
	"    __shared__ float Bs[TILE][TILE];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
	"        for (int i = 0; i < reps; ++i)\n"
	"            As[ty][tx] = A[row * K + k0 + tx];\n"
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[row * N + col] = acc;\n"
	"}\n";

/* not eligible: the compute writes a loaded tile */
static const char refused_src[] =
	"#define TILE 16\n"
	"__global__ void mmx(const float *A, const float *B, float *C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[TILE][TILE];\n"
	"    __shared__ float Bs[TILE][TILE];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
	"        As[ty][tx] = A[row * K + k0 + tx];\n"
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
	"        As[ty][tx] = acc;\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[row * N + col] = acc;\n"
	"}\n";

/* --- helpers ------------------------------------------------------------------ */

static kp_file F;
static kp_analysis AN;
static char *ERRMSG;

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
	free(ERRMSG);
	ERRMSG = NULL;
}

TestSuite(plan, .fini = release);

/* Parses and analyses for `arch`; returns the only loop. */
static kp_loop *loop_of(const char *src, const char *arch)
{
	memset(&F, 0, sizeof(F));
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = arch;
	o.contents = src;
	o.contents_len = strlen(src);
	o.no_compdb = 1;
	int rc = kp_parse(&F, "plan.cu", &o, &ERRMSG);
	for (int i = 0; rc && i < F.ndiags; i++)
		cr_log_info("%d:%d: %s: %s", F.diags[i].line, F.diags[i].col, F.diags[i].severity,
			    F.diags[i].message);
	cr_assert_eq(rc, KP_PARSE_OK, "kp_parse: %d (%s)", rc, ERRMSG ? ERRMSG : "compile errors");
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find(arch);
	cr_assert_not_null(ao.arch, "unknown arch %s", arch);
	kp_analyze(&AN, &F, &ao);
	cr_assert_eq(AN.nloops, 1, "expected one loop, found %d", AN.nloops);
	return AN.loops[0];
}

static void plan(kp_plan *p, kp_loop *l, const char *arch, const char *variant, int stages)
{
	kp_plan_loop(p, &F, l, kp_arch_find(arch), variant, stages);
	if (p->xform)
		cr_log_info("plan: %s, %d stages: %s", p->xform->name, p->stages, p->why);
	else
		cr_log_info("refused [%s]: %s", p->refuse_id, p->refuse_msg);
}

static void expect_xform(const kp_plan *p, const char *name)
{
	cr_assert_not_null(p->xform, "refused [%s]: %s, expected %s", p->refuse_id ? p->refuse_id : "",
			   p->refuse_msg ? p->refuse_msg : "", name);
	cr_expect_str_eq(p->xform->name, name);
	cr_expect_not_null(p->why);
	cr_expect(p->why && p->why[0]);
	cr_expect_null(p->refuse_id);
}

static void expect_refused(const kp_plan *p, const char *id, const char *msg_part)
{
	cr_assert_null(p->xform, "expected a refusal, got %s", p->xform ? p->xform->name : "");
	cr_assert_not_null(p->refuse_id);
	cr_expect_str_eq(p->refuse_id, id);
	cr_assert_not_null(p->refuse_msg);
	if (msg_part)
		cr_expect(strstr(p->refuse_msg, msg_part) != NULL, "'%s' lacks '%s'", p->refuse_msg,
			  msg_part);
}

/* --- auto ----------------------------------------------------------------------- */

Test(plan, small_float_tiles_get_register_staging)
{
	kp_loop *l = loop_of(float_src, "sm_90");
	cr_assert(l->eligible);
	cr_expect_eq(l->reg_per_thread, 2);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
	cr_expect_eq(p.stages, 2);
	cr_expect(strstr(p.why, "2 staging registers") != NULL, "%s", p.why);
}

Test(plan, sixteen_registers_are_still_register_staging)
{
	kp_loop *l = loop_of(sixteen_regs_src, "sm_90");
	cr_assert(l->eligible);
	cr_expect_eq(l->reg_per_thread, 16);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
}

Test(plan, more_than_sixteen_registers_get_cp_async)
{
	kp_loop *l = loop_of(many_regs_src, "sm_90");
	cr_assert(l->eligible);
	cr_expect(l->reg_ok);
	cr_expect(l->cp_async_ok);
	cr_expect_eq(l->reg_per_thread, 20);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "cp-async");
	cr_expect(strstr(p.why, "20 registers") != NULL, "%s", p.why);
	/* register staging can still be asked for */
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	cr_expect_str_eq(p.why, "requested with --variant register");
	/* and its __ldca form, which auto never picks */
	plan(&p, l, "sm_90", "register-ca", 2);
	expect_xform(&p, "register-ca");
	cr_expect_str_eq(p.why, "requested with --variant register-ca");
	plan(&p, l, "sm_90", "register-2bar", 2);
	expect_xform(&p, "register-2bar");
	cr_expect_str_eq(p.why, "requested with --variant register-2bar");
}

Test(plan, three_stages_need_cp_async)
{
	kp_loop *l = loop_of(float_src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 3);
	expect_xform(&p, "cp-async");
	cr_expect_eq(p.stages, 3);
	cr_expect(strstr(p.why, "3 stages") != NULL, "%s", p.why);
	plan(&p, l, "sm_90", "register", 3);
	expect_refused(&p, "kpipe-variant-unavailable", "2 buffers");
}

Test(plan, runtime_copy_loop_gets_cp_async)
{
	kp_loop *l = loop_of(runtime_trip_src, "sm_90");
	cr_assert(l->eligible);
	cr_expect_not(l->reg_ok);
	cr_expect_eq(l->reg_per_thread, -1);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "cp-async");
	cr_expect(strstr(p.why, "register staging does not apply") != NULL, "%s", p.why);
	plan(&p, l, "sm_90", "register", 2);
	expect_refused(&p, "kpipe-variant-unavailable", "register staging was requested");
}

/* --- 2-byte copies ----------------------------------------------------------------- */

Test(plan, half_copies_refuse_cp_async)
{
	kp_loop *l = loop_of(half_src, "sm_90");
	cr_assert(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].bytes, 2);
	cr_expect_not(l->cp_async_ok);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_refused(&p, "kpipe-variant-unavailable", "2-byte");
	cr_expect(strstr(p.refuse_msg, "cp.async was requested") != NULL, "%s", p.refuse_msg);
}

Test(plan, half_copies_auto_is_register)
{
	kp_loop *l = loop_of(half_src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
	cr_expect(strstr(p.why, "cp.async does not apply") != NULL, "%s", p.why);
}

/* Regression: with stages != 2, auto used to fall through to cp.async
 * without checking that cp.async matched (2-byte copies, sm_75). */
Test(plan, auto_never_plans_a_transform_that_does_not_match)
{
	kp_loop *l = loop_of(half_src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 3);
	cr_expect_null(p.xform, "3 stages of 2-byte copies: %s", p.xform ? p.xform->name : "");
	if (!p.xform) {
		cr_expect_str_eq(p.refuse_id, "kpipe-variant-unavailable");
		cr_expect(strstr(p.refuse_msg, "2-byte") != NULL, "%s", p.refuse_msg);
	}
	release();
	l = loop_of(float_src, "sm_75");
	plan(&p, l, "sm_75", "auto", 3);
	cr_expect_null(p.xform, "3 stages on sm_75: %s", p.xform ? p.xform->name : "");
	if (!p.xform)
		cr_expect(strstr(p.refuse_msg, "sm_80") != NULL, "%s", p.refuse_msg);
	/* whatever auto plans, its transform matches */
	const char *srcs[] = {float_src, half_src, many_regs_src, sixteen_regs_src, runtime_trip_src};
	const char *archs[] = {"sm_75", "sm_80", "sm_90"};
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++)
		for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++)
			for (int st = 2; st <= 4; st++) {
				release();
				l = loop_of(srcs[i], archs[a]);
				plan(&p, l, archs[a], "auto", st);
				if (!p.xform)
					continue;
				const char *why = NULL;
				cr_expect(p.xform->match(l, kp_arch_find(archs[a]), &why),
					  "snippet %zu, %s, %d stages: planned %s, which does not match (%s)",
					  i, archs[a], st, p.xform->name, why ? why : "");
			}
}

Test(plan, stage_count_out_of_range_is_refused)
{
	kp_loop *l = loop_of(float_src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 1);
	cr_expect_null(p.xform);
	cr_expect_str_eq(p.refuse_id, "kpipe-variant-unavailable");
	plan(&p, l, "sm_90", "cp-async", 0);
	cr_expect_null(p.xform);
}

Test(plan, stages_that_overflow_shared_memory_are_refused)
{
	/* 16 KB of tiles per stage: 3 stages are exactly 48 KB, 4 are over */
	kp_loop *l = loop_of(sixteen_regs_src, "sm_90");
	cr_assert_eq(l->tile_bytes, 16384);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 3);
	expect_xform(&p, "cp-async");
	plan(&p, l, "sm_90", "auto", 4);
	expect_refused(&p, "kpipe-smem-over-limit", "65536");
}

/* --- architecture -------------------------------------------------------------------- */

Test(plan, sm75_has_no_cp_async)
{
	kp_loop *l = loop_of(float_src, "sm_75");
	cr_assert(l->eligible);
	const kp_arch *a = kp_arch_find("sm_75");
	cr_assert_not_null(a);
	cr_expect_not(a->has_cp_async);
	kp_plan p;
	plan(&p, l, "sm_75", "cp-async", 2);
	expect_refused(&p, "kpipe-variant-unavailable", "sm_80");
	plan(&p, l, "sm_75", "auto", 2);
	expect_xform(&p, "register");
	plan(&p, l, "sm_75", "register", 2);
	expect_xform(&p, "register");
}

Test(plan, sm75_many_registers_falls_back_to_register)
{
	/* auto would pick cp.async for 20 registers, but sm_75 has none */
	kp_loop *l = loop_of(many_regs_src, "sm_75");
	kp_plan p;
	plan(&p, l, "sm_75", "auto", 2);
	expect_xform(&p, "register");
	cr_expect(strstr(p.why, "sm_80") != NULL, "%s", p.why);
}

Test(plan, sm80_has_cp_async)
{
	kp_loop *l = loop_of(float_src, "sm_80");
	kp_plan p;
	plan(&p, l, "sm_80", "cp-async", 2);
	expect_xform(&p, "cp-async");
	cr_expect_str_eq(p.why, "requested with --variant cp-async");
}

/* --- not eligible ---------------------------------------------------------------------- */

Test(plan, ineligible_loop_is_refused_by_every_variant)
{
	kp_loop *l = loop_of(refused_src, "sm_90");
	cr_assert_not(l->eligible);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_refused(&p, "kpipe-variant-unavailable", "no variant applies");
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_refused(&p, "kpipe-variant-unavailable", "not eligible");
	plan(&p, l, "sm_90", "register", 2);
	expect_refused(&p, "kpipe-variant-unavailable", "not eligible");
}

/* --- the registry ------------------------------------------------------------------------ */

Test(plan, registry)
{
	int n = 0;
	const kp_transform *const *all = kp_transform_all(&n);
	cr_expect_eq(n, 4);
	cr_expect_eq(kp_transform_find("cp-async"), all[0]);
	cr_expect_eq(kp_transform_find("register"), all[1]);
	cr_expect_eq(kp_transform_find("register-ca"), all[2]);
	cr_expect_eq(kp_transform_find("register-2bar"), all[3]);
	cr_expect_null(kp_transform_find("bogus"));
	for (int i = 0; i < n; i++) {
		cr_expect_not_null(all[i]->match);
		cr_expect_not_null(all[i]->apply);
		cr_expect(all[i]->summary && all[i]->summary[0]);
	}
}
