/*
 * test_plan.c - kp_plan_loop on parsed snippets: which transform auto
 * picks (register staging for a few staging registers, cp.async above 16
 * per thread or for more than 2 stages, register-2bar when only one
 * buffer of the tiles fits), what an explicit --variant gets, and the
 * refusals (2-byte copies and cp.async, cp.async before sm_80, register
 * staging with 3 stages, shared memory over the static limit for the
 * transform's buffers, a loop that is not eligible); auto's calibrated
 * rule on four samples (tensor-core tiles, 16-byte copies, compute/load
 * >= 8, and ptxas's resident warps through a fake probe); the registry's
 * invariants, and a transform registered at run time that the plan, the
 * command line, tune's list and analyze pick up; the bulk-copy transform's
 * conditions (sm_90, whole rows of 16-byte multiples, one copy per thread
 * and tile, affine indices) and its text; tiles of a template's element
 * type in dynamic shared memory, sized for the largest instantiation.
 */
#define _GNU_SOURCE
#include "analyze.h"
#include "arch.h"
#include "cli.h"
#include "parse.h"
#include "transform.h"
#include "plan.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A 2-D tile GEMM whose copy loops run TRIPS times each: 2 * TRIPS staging
 * registers per thread (mmr: 10 + 10 copies per thread and tile, 20). */
#define COPY_LOOPS_SRC(NAME, BM, BK, TRIPS)                                                        \
	"#define BM " BM "\n"                                                                      \
	"#define BK " BK "\n"                                                                      \
	"__global__ void " NAME "(const float *A, const float *B, float *C, int N, int K)\n"       \
	"{\n"                                                                                      \
	"    __shared__ float As[BM][BK];\n"                                                       \
	"    __shared__ float Bs[BK][BM];\n"                                                       \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BM;\n"                                \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += BK) {\n"                                               \
	"        for (int i = 0; i < " TRIPS "; ++i)\n"                                            \
	"            As[i * 8 + ty][tx] = A[(row0 + i * 8 + ty) * K + k0 + tx];\n"                 \
	"        for (int i = 0; i < " TRIPS "; ++i)\n"                                            \
	"            Bs[ty][i * 8 + tx] = B[(k0 + ty) * N + col0 + i * 8 + tx];\n"                 \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < BK; ++kk)\n"                                                \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[(row0 + ty) * N + col0 + tx] = acc;\n"                                              \
	"}\n"

static const char many_regs_src[] = COPY_LOOPS_SRC("mmr", "80", "32", "10");

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

/* two float[64][64] tiles, 32 KB: they fit the 48 KB static limit once,
 * not twice; 2 staging registers per thread */
#define BIG_TILES_SRC(n)                                                                           \
	"#define TILE " #n "\n"                                                                    \
	"__global__ void mmb(const float *A, const float *B, float *C, int N, int K)\n"            \
	"{\n"                                                                                      \
	"    __shared__ float As[TILE][TILE];\n"                                                   \
	"    __shared__ float Bs[TILE][TILE];\n"                                                   \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"                    \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"                                             \
	"        As[ty][tx] = A[row * K + k0 + tx];\n"                                             \
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"                                           \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < TILE; ++kk)\n"                                              \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[row * N + col] = acc;\n"                                                            \
	"}\n"
static const char fits_once_src[] = BIG_TILES_SRC(64);
/* the 64x64 kernel with other tile declarations (`decls`) and host code
 * after it (`host`); static storage, one at a time */
static const char *big_src(const char *decls, const char *host)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "#define TILE 64\n"
		 "extern __shared__ float ext_other[];\n"
		 "__global__ void mmb(const float *A, const float *B, float *C, int N, int K)\n"
		 "{\n"
		 "%s"
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
		 "}\n"
		 "__global__ void other(float *o) { o[threadIdx.x] = ext_other[threadIdx.x]; }\n"
		 "%s",
		 decls, host);
	return buf;
}
#define BIG_DECLS "    __shared__ float As[TILE][TILE];\n    __shared__ float Bs[TILE][TILE];\n"
/* two float[96][96] tiles, 72 KB: not even once */
static const char fits_never_src[] = BIG_TILES_SRC(96);

/* --- helpers ------------------------------------------------------------------ */

static kp_file F;
static kp_analysis AN;
static char *ERRMSG;

/* A transform's facts for the loop, as analyze reports them. */
static kp_xfacts facts(const kp_loop *l, const char *name)
{
	const kp_transform *t = kp_transform_find(name);
	cr_assert_not_null(t, "no transform %s", name);
	kp_xfacts x;
	kp_transform_facts(t, &F, l, &F.arena, &x);
	return x;
}
#define CP(l) facts((l), "cp-async")
#define RG(l) facts((l), "register")

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
	release(); /* a test that parses twice: the first file's model */
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
	cr_assert_not_null(p->xform, "refused [%s]: %s, expected %s",
			   p->refuse_id ? p->refuse_id : "", p->refuse_msg ? p->refuse_msg : "",
			   name);
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
	cr_expect_eq(RG(l).regs, 2);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
	cr_expect_eq(p.stages, 2);
	cr_expect(strstr(p.why, "2 staging registers") != NULL, "%s", p.why);
}

/* A kernel template with tiles sized by its parameters; INST is appended
 * (an instantiation, or nothing). */
#define TPL_TILES_SRC(INST)                                                                        \
	"template <int BM, int BK>\n"                                                              \
	"__global__ void tpl(const float *A, const float *B, float *C, int N, int K)\n"            \
	"{\n"                                                                                      \
	"    __shared__ float As[BM][BK];\n"                                                       \
	"    __shared__ float Bs[BK][BM];\n"                                                       \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row = blockIdx.y * BM + ty, col = blockIdx.x * BM + tx;\n"                        \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += BK) {\n"                                               \
	"        As[ty][tx] = A[row * K + k0 + tx];\n"                                             \
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"                                           \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < BK; ++kk)\n"                                                \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[row * N + col] = acc;\n"                                                            \
	"}\n" INST

/* auto's rule 0: nothing instantiates the template and its tiles are sized
 * by its parameters: nothing to weigh, the loop is left alone; a forced
 * variant still pipelines it */
Test(plan, uninstantiated_template_tiles_are_left_alone)
{
	kp_loop *l = loop_of(TPL_TILES_SRC(""), "sm_90");
	cr_assert(l->eligible);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_refused(&p, "kpipe-no-predicted-gain", "nothing in this file instantiates");
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_xform(&p, "cp-async");
}

/* the same template instantiated in the file: auto picks */
Test(plan, instantiated_template_tiles_are_planned)
{
	kp_loop *l = loop_of(TPL_TILES_SRC("template __global__ void tpl<16, 16>(const float *, "
					   "const float *, float *, int, int);\n"),
			     "sm_90");
	cr_assert(l->eligible);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	cr_assert_not_null(p.xform, "refused [%s]: %s", p.refuse_id ? p.refuse_id : "",
			   p.refuse_msg ? p.refuse_msg : "");
}

/* a template whose tiles have fixed sizes (only the element type is a
 * parameter) is not blind: auto picks even with nothing instantiating it */
Test(plan, uninstantiated_template_of_fixed_tiles_is_planned)
{
	static const char src[] =
		"#define TILE 16\n"
		"template <typename T>\n"
		"__global__ void tt(const T *A, const T *B, float *C, int N, int K)\n"
		"{\n"
		"    __shared__ float As[TILE][TILE];\n"
		"    __shared__ float Bs[TILE][TILE];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
		"        As[ty][tx] = (float)A[row * K + k0 + tx];\n"
		"        Bs[ty][tx] = (float)B[(k0 + ty) * N + col];\n"
		"        __syncthreads();\n"
		"        for (int kk = 0; kk < TILE; ++kk)\n"
		"            acc += As[ty][kk] * Bs[kk][tx];\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[row * N + col] = acc;\n"
		"}\n";
	kp_loop *l = loop_of(src, "sm_90");
	cr_assert(l->eligible);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
}

Test(plan, sixteen_registers_are_still_register_staging)
{
	kp_loop *l = loop_of(sixteen_regs_src, "sm_90");
	cr_assert(l->eligible);
	cr_expect_eq(RG(l).regs, 16);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
}

/* 17 to 32 staging registers: the one-buffer form (register-2bar), ahead of
 * cp.async on 7 of the 9 such loops timed (docs/tune.md, rule 5) */
/* auto's pick for a loop both forms apply to, with `regs` staging
 * registers; the loop, and the plan in *p */
static kp_loop *auto_for_regs(const char *src, int regs, kp_plan *p, const char *xform,
			      const char *why)
{
	kp_loop *l = loop_of(src, "sm_90");
	cr_assert(l->eligible);
	cr_expect(RG(l).ok);
	cr_expect(CP(l).ok);
	cr_expect_eq(RG(l).regs, regs);
	plan(p, l, "sm_90", "auto", 2);
	expect_xform(p, xform);
	cr_expect(strstr(p->why, why) != NULL, "%s", p->why);
	return l;
}

Test(plan, twenty_registers_get_the_one_buffer_form)
{
	kp_plan p;
	kp_loop *l = auto_for_regs(many_regs_src, 20, &p, "register-2bar",
				   "20 staging registers per thread (17 to 32)");
	/* cp.async can still be asked for */
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_xform(&p, "cp-async");
}

/* 40 staging registers: cp.async (attention_dynamic_smem, 64: register
 * staging 0.750x, register-2bar 0.865x, cp.async 1.136x) */
static const char forty_regs_src[] = COPY_LOOPS_SRC("mmr40", "160", "8", "20");

Test(plan, more_than_thirty_two_registers_get_cp_async)
{
	kp_plan p;
	kp_loop *l =
		auto_for_regs(forty_regs_src, 40, &p, "cp-async", "40 registers per thread (> 32)");
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

/* A K-loop of the textbook shape whose trip count is LO..HI by STEP. */
#define TRIPS_SRC(TPL, HEAD, INST)                                                                 \
	"#define TILE 16\n" TPL                                                                    \
	"__global__ void once(const float *A, const float *B, float *C, int N)\n"                  \
	"{\n"                                                                                      \
	"    __shared__ float As[TILE][TILE];\n"                                                   \
	"    __shared__ float Bs[TILE][TILE];\n"                                                   \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"                    \
	"    float acc = 0.0f;\n"                                                                  \
	"    " HEAD " {\n"                                                                         \
	"        As[ty][tx] = A[row * N + k0 + tx];\n"                                             \
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"                                           \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < TILE; ++kk)\n"                                              \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[row * N + col] = acc;\n"                                                            \
	"}\n" INST

/* A loop that runs once has no next tile to fetch: auto leaves it alone
 * (conv_weight_acts_c_kepler_sw: one trip per instantiation, register-2bar
 * 0.671x on one of them); a forced variant still pipelines it */
Test(plan, a_loop_that_runs_once_is_left_alone)
{
	kp_loop *l = loop_of(TRIPS_SRC("", "for (int k0 = 0; k0 < TILE; k0 += TILE)", ""), "sm_90");
	cr_assert(l->eligible);
	cr_expect_eq(l->trips, 1);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_refused(&p, "kpipe-no-predicted-gain", "the loop runs once");
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
}

/* two trips: one load to overlap, planned; a run-time bound: planned */
Test(plan, a_loop_of_two_trips_or_a_run_time_bound_is_planned)
{
	kp_loop *l =
		loop_of(TRIPS_SRC("", "for (int k0 = 0; k0 < 2 * TILE; k0 += TILE)", ""), "sm_90");
	cr_assert(l->eligible);
	cr_expect_eq(l->trips, 2);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	cr_expect_not_null(p.xform, "refused: %s", p.refuse_msg ? p.refuse_msg : "");
	l = loop_of(TRIPS_SRC("", "for (int k0 = 0; k0 < N; k0 += TILE)", ""), "sm_90");
	cr_expect_eq(l->trips, -1);
	plan(&p, l, "sm_90", "auto", 2);
	cr_expect_not_null(p.xform, "refused: %s", p.refuse_msg ? p.refuse_msg : "");
}

/* a template: left alone only when every instantiation runs the loop once */
Test(plan, a_template_loop_is_left_alone_only_if_every_instantiation_runs_it_once)
{
	kp_loop *l = loop_of(TRIPS_SRC("template <int P, int S>\n",
				       "for (int k0 = 0; k0 < P * TILE; k0 += S * TILE)",
				       "template __global__ void once<2, 2>(const float *, const "
				       "float *, float *, int);\n"
				       "template __global__ void once<1, 1>(const float *, const "
				       "float *, float *, int);\n"),
			     "sm_90");
	cr_assert(l->eligible);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_refused(&p, "kpipe-no-predicted-gain", "runs once in every instantiation");
	l = loop_of(TRIPS_SRC("template <int P, int S>\n",
			      "for (int k0 = 0; k0 < P * TILE; k0 += S * TILE)",
			      "template __global__ void once<2, 2>(const float *, const "
			      "float *, float *, int);\n"
			      "template __global__ void once<4, 2>(const float *, const "
			      "float *, float *, int);\n"),
		    "sm_90");
	cr_assert(l->eligible);
	cr_expect_eq(l->trips, 2);
	plan(&p, l, "sm_90", "auto", 2);
	cr_expect_not_null(p.xform, "refused: %s", p.refuse_msg ? p.refuse_msg : "");
}

/* A few compile-time trips inside another loop: the pipeline is filled
 * again at every outer iteration; auto leaves it alone
 * (cuda-convnet2's conv_weight_acts_c_kepler, 2 and 8 trips inside its
 * loop over cases: every variant 0.68x-0.89x).  Longer, or not inside a
 * loop: planned; a forced variant still pipelines it. */
Test(plan, a_short_loop_inside_another_loop_is_left_alone)
{
	kp_loop *l = loop_of(TRIPS_SRC("",
				       "for (int b = 0; b < N; b += 4 * TILE)\n"
				       "    for (int k0 = b; k0 < b + 4 * TILE; k0 += TILE)",
				       ""),
			     "sm_90");
	cr_assert(l->eligible);
	cr_expect_eq(l->trips, 4);
	cr_expect_eq(l->within_line, 9);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_refused(&p, "kpipe-no-predicted-gain",
		       "runs at most 4 times (its bounds and step are compile-time constants) "
		       "inside the loop at line 9");
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	l = loop_of(TRIPS_SRC("",
			      "for (int b = 0; b < N; b += 16 * TILE)\n"
			      "    for (int k0 = b; k0 < b + 16 * TILE; k0 += TILE)",
			      ""),
		    "sm_90");
	cr_expect_eq(l->trips, 16);
	plan(&p, l, "sm_90", "auto", 2);
	cr_expect_not_null(p.xform, "refused: %s", p.refuse_msg ? p.refuse_msg : "");
	l = loop_of(TRIPS_SRC("", "for (int k0 = 0; k0 < 4 * TILE; k0 += TILE)", ""), "sm_90");
	cr_expect_eq(l->trips, 4);
	cr_expect_eq(l->within_line, 0);
	plan(&p, l, "sm_90", "auto", 2);
	cr_expect_not_null(p.xform, "refused: %s", p.refuse_msg ? p.refuse_msg : "");
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
	cr_expect_not(RG(l).ok);
	cr_expect_eq(RG(l).regs, -1);
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
	cr_expect_not(CP(l).ok);
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
	const char *srcs[] = {float_src, half_src, many_regs_src, sixteen_regs_src,
			      runtime_trip_src};
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
				cr_expect(
					kp_transform_match(p.xform, &F, l, kp_arch_find(archs[a]),
							   &F.arena, &why),
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
	plan(&p, l, "sm_90", "cp-async", 9);
	cr_expect_null(p.xform);
	/* 0: --stages not given; a named variant gets 2 */
	plan(&p, l, "sm_90", "cp-async", 0);
	cr_assert_not_null(p.xform);
	cr_expect_eq(p.stages, 2);
}

Test(plan, stages_that_overflow_shared_memory_are_refused)
{
	/* 16 KB of tiles per stage: 3 stages are exactly 48 KB, 4 are over */
	kp_loop *l = loop_of(sixteen_regs_src, "sm_90");
	cr_assert_eq(l->tile_bytes, 16384);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 3);
	expect_xform(&p, "cp-async");
	/* 4 stages move the tiles to dynamic shared memory (64 KB) */
	plan(&p, l, "sm_90", "auto", 4);
	expect_xform(&p, "cp-async");
	cr_expect(p.dynamic);
	cr_expect_eq(p.dyn_bytes, 65536);
	/* sm_86's opt-in limit is 99 KB: 8 stages of 16 KB are over it */
	plan(&p, l, "sm_86", "auto", 8);
	expect_refused(&p, "kpipe-smem-over-limit", "opt-in limit of sm_86");
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

/* --- bulk copies (sm_90+) ------------------------------------------------------------ */

/* float_src with one copy changed (`As[ty][tx] = A[...]` -> `stmt`) */
static char *float_src_with(const char *stmt)
{
	const char *old = "As[ty][tx] = A[row * K + k0 + tx];";
	const char *at = strstr(float_src, old);
	cr_assert_not_null(at);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, float_src, (size_t)(at - float_src));
	kp_strbuf_adds(&sb, stmt);
	kp_strbuf_adds(&sb, at + strlen(old));
	return kp_strbuf_detach(&sb);
}

#define BK(l) facts((l), "bulk")

Test(plan, bulk_applies_to_whole_rows_on_sm90)
{
	kp_loop *l = loop_of(float_src, "sm_90");
	cr_expect(BK(l).ok, "%s", BK(l).why_not);
	kp_plan p;
	plan(&p, l, "sm_90", "bulk", 3);
	expect_xform(&p, "bulk");
	plan(&p, l, "sm_100", "bulk", 2);
	expect_xform(&p, "bulk");
	/* never chosen by auto */
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
}

/* bulk's full mbarriers (8 B a stage) count with the tiles: 6 stages of
 * two 32x32 float tiles fill the 48 KB static limit exactly, so bulk's
 * tiles move to dynamic shared memory where cp.async's stay static
 * (wmma_bulk_half at 8 stages was 64 B over and did not compile) */
Test(plan, bulk_barriers_count_against_the_static_limit)
{
	const char *at = strstr(float_src, "#define TILE 16");
	cr_assert_not_null(at);
	char *src = kp_xstrdup(float_src);
	memcpy(src + (at - float_src), "#define TILE 32", 15);
	kp_loop *l = loop_of(src, "sm_90");
	cr_assert_eq(l->tile_bytes, 8192);
	cr_assert(BK(l).ok, "%s", BK(l).why_not);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 6);
	expect_xform(&p, "cp-async");
	cr_expect_not(p.dynamic);
	plan(&p, l, "sm_90", "bulk", 6);
	expect_xform(&p, "bulk");
	cr_expect(p.dynamic);
	cr_expect_eq(p.dyn_bytes, 49152);
	plan(&p, l, "sm_90", "bulk", 5);
	expect_xform(&p, "bulk");
	cr_expect_not(p.dynamic);
	free(src);
}

Test(plan, bulk_needs_sm90)
{
	kp_loop *l = loop_of(float_src, "sm_80");
	kp_plan p;
	plan(&p, l, "sm_80", "bulk", 2);
	expect_refused(&p, "kpipe-bulk-unavailable", "needs sm_90 or newer");
	plan(&p, l, "sm_80", "cp-async", 2);
	expect_xform(&p, "cp-async");
}

/* --- the tensor-map form (--variant tma) --------------------------------------------- */

/* float_src's kernel and the host code that launches it */
static char *tma_src(const char *before, const char *stmt)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, before);
	char *k = stmt ? float_src_with(stmt) : kp_xstrdup(float_src);
	kp_strbuf_adds(&sb, k);
	free(k);
	kp_strbuf_adds(&sb, "void run(const float *A, const float *B, float *C, int N, int K)\n"
			    "{\n"
			    "    mm<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(A, B, C, N, K);\n"
			    "}\n");
	return kp_strbuf_detach(&sb);
}

Test(plan, tma_needs_the_launch_in_the_file)
{
	/* launched in the file: the launcher kpipe writes can make the maps */
	char *src = tma_src("", NULL);
	kp_loop *l = loop_of(src, "sm_90");
	kp_xfacts x = facts(l, "tma");
	cr_expect(x.ok, "%s", x.why_not);
	kp_plan p;
	plan(&p, l, "sm_90", "tma", 3);
	expect_xform(&p, "tma");
	plan(&p, l, "sm_80", "tma", 2);
	expect_refused(&p, "kpipe-bulk-unavailable", "needs sm_90 or newer");
	/* never chosen by auto */
	plan(&p, l, "sm_90", "auto", 2);
	cr_expect(p.xform && strcmp(p.xform->name, "tma"), "auto picked tma");
	release();
	free(src);
	/* not launched here: the host code that must make the maps is elsewhere */
	l = loop_of(float_src, "sm_90");
	plan(&p, l, "sm_90", "tma", 2);
	expect_refused(&p, "kpipe-bulk-unavailable", "'mm' is not launched in this file");
	plan(&p, l, "sm_90", "bulk", 2);
	expect_xform(&p, "bulk");
	release();
	/* a declaration would keep the old parameters */
	src = tma_src(
		"__global__ void mm(const float *A, const float *B, float *C, int N, int K);\n",
		NULL);
	l = loop_of(src, "sm_90");
	plan(&p, l, "sm_90", "tma", 2);
	expect_refused(&p, "kpipe-bulk-unavailable",
		       "'mm' is named 1 time in this file besides its definition and its 1 launch");
	release();
	free(src);
}

/* the row stride must be something the launcher can compute */
Test(plan, tma_row_strides)
{
	static const struct {
		const char *stmt, *why; /* why NULL: applies */
	} cases[] = {
		{"As[ty][tx] = A[(blockIdx.y * TILE + ty) * K + k0 + tx];", NULL},
		{"As[ty][tx] = A[ty * 64 + k0 + tx];", NULL},
		{"As[ty][tx] = A[row * (K + 0) + k0 + tx];",
		 "neither a constant nor an integer parameter"},
		{"As[ty][tx] = A[row * K + ty * N + k0 + tx];", "has no row stride kpipe can name"},
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(cases); i++) {
		char *src = tma_src("", cases[i].stmt);
		kp_loop *l = loop_of(src, "sm_90");
		kp_plan p;
		plan(&p, l, "sm_90", "tma", 2);
		if (cases[i].why)
			expect_refused(&p, "kpipe-bulk-unavailable", cases[i].why);
		else
			expect_xform(&p, "tma");
		release();
		free(src);
	}
}

/* A 64x16 fp32 tile filled by the copy loop `loop` (v, r, c free to use),
 * 128 threads, launched in the file. */
static char *tma_loop_src(const char *loop)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb,
		       "#define ST4(p) (reinterpret_cast<float4 *>(&(p))[0])\n"
		       "#define LD4(p) (reinterpret_cast<const float4 *>(&(p))[0])\n"
		       "__global__ void __launch_bounds__(128) ml(const float *A, float *C, int M, "
		       "int K)\n"
		       "{\n"
		       "    __shared__ __align__(16) float As[64][16];\n"
		       "    const int tid = threadIdx.x;\n"
		       "    const int bm = blockIdx.x * 64;\n"
		       "    float acc = 0.0f;\n"
		       "    for (int k0 = 0; k0 < K; k0 += 16) {\n"
		       "        %s\n"
		       "        __syncthreads();\n"
		       "        for (int kk = 0; kk < 16; ++kk)\n"
		       "            acc += As[tid %% 64][kk];\n"
		       "        __syncthreads();\n"
		       "    }\n"
		       "    C[blockIdx.x * 128 + tid] = acc;\n"
		       "}\n"
		       "void run(const float *A, float *C, int M, int K)\n"
		       "{\n"
		       "    ml<<<M / 64, 128>>>(A, C, M, K);\n"
		       "}\n",
		       loop);
	return kp_strbuf_detach(&sb);
}

/* the tensor-map form of copy loops: an element-set proof over the block,
 * whatever the loop's spelling; each near miss refused with the element
 * that fails */
Test(plan, tma_copy_loops_fill_one_box)
{
#define V4 "*reinterpret_cast<float4 *>(&As[r][c]) = *reinterpret_cast<const float4 *>"
	static const struct {
		const char *loop, *why; /* why NULL: applies */
	} cases[] = {
		/* float4 vectors, the loop strided by the block */
		{"for (int v = tid; v < 256; v += 128) { const int r = v / 4, c = v % 4 * 4; " V4
		 "(&A[(bm + r) * K + k0 + c]); }",
		 NULL},
		/* 16-byte copies through macros, at their real width */
		{"for (int v = tid; v < 256; v += 128) { const int r = v / 4, c = v % 4 * 4; "
		 "ST4(As[r][c]) = LD4(A[(bm + r) * K + k0 + c]); }",
		 NULL},
		/* counted trips, column-major order: the same set of elements */
		{"for (int i = 0; i < 2; ++i) { const int v = tid + i * 128; const int r = v % 64, "
		 "c = v / 64 * 4; " V4 "(&A[(bm + r) * K + k0 + c]); }",
		 NULL},
		/* scalar copies in two nested loops */
		{"for (int i = 0; i < 8; ++i) for (int j = 0; j < 1; ++j) { const int v = tid + "
		 "(i + j) * 128; As[v / 16][v % 16] = A[(bm + v / 16) * K + k0 + v % 16]; }",
		 NULL},
		{"for (int v = tid; v < 252; v += 128) { const int r = v / 4, c = v % 4 * 4; " V4
		 "(&A[(bm + r) * K + k0 + c]); }",
		 "'As[63][0]' is written by no copy"},
		{"for (int v = tid; v < 256; v += 128) { const int r = v / 4 - (v / 4 == 63), c = v "
		 "% 4 * 4; " V4 "(&A[(bm + r) * K + k0 + c]); }",
		 "'As[62][0]' is written twice"},
		{"for (int v = tid; v < 1024; v += 128) As[v % 64][v / 64] = A[(bm + v % 64) + (k0 + "
		 "v / 64) * M];",
		 "'As[0][1]' reads the global index"},
		{"for (int v = tid; v < 256; v += 128) { const int r = v / 4, c = v % 4 * 4; " V4
		 "(&A[(bm + r) * K + k0 + (c ^ 4)]); }",
		 "'As[0][4]' reads the global index"},
		{"for (int v = tid; v < 256; v += 128) { const int r = v / 4, c = v % 4 * 4; " V4
		 "(&A[(bm + r) * K + k0 / 2 * 2 + c]); }",
		 "computes 'k0 / 2' from a value that is not known"},
		{"for (int v = tid; v < 256; v += 128) { const int r = v / 4, c = v % 4 * 4; " V4
		 "(&A[(bm + r) * (K + 1) + k0 + c]); }",
		 "row stride is neither a positive constant nor"},
		/* a guard tested at its tightest element */
		{"for (int v = tid; v < 1024; v += 128) As[v / 16][v % 16] = bm + v / 16 < M ? A[(bm + "
		 "v / 16) * K + k0 + v % 16] : 0.0f;",
		 NULL},
		{"for (int v = tid; v < 1024; v += 128) As[v / 16][v % 16] = v % 16 < 8 ? A[(bm + "
		 "v / 16) * K + k0 + v % 16] : 0.0f;",
		 "is false for some element in every tile"},
		{"for (int v = tid; v < 1024; v += 128) As[v / 16][v % 16] = (bm + v / 16) * K < M * K ? "
		 "A[(bm + v / 16) * K + k0 + v % 16] : 0.0f;",
		 "differs between the elements by more than a number"},
		{"for (int v = tid; v < 1024; v += 128) As[v / 16][v % 16] = (unsigned)(bm + v / 16) < "
		 "(unsigned)M ? A[(bm + v / 16) * K + k0 + v % 16] : 0.0f;",
		 "not signed integers"},
		/* which copies run depends on more than the counters */
		{"for (int v = tid; v < 256; v += 128) { if (v >= K) break; const int r = v / 4, c = "
		 "v % 4 * 4; " V4 "(&A[(bm + r) * K + k0 + c]); }",
		 "the copy loop holds a break, continue, return or goto"},
	};
#undef V4
	for (size_t i = 0; i < KP_ARRAY_LEN(cases); i++) {
		char *src = tma_loop_src(cases[i].loop);
		kp_loop *l = loop_of(src, "sm_90");
		kp_plan p;
		plan(&p, l, "sm_90", "tma", 2);
		if (!cases[i].why)
			expect_xform(&p, "tma");
		else
			expect_refused(&p, "kpipe-bulk-unavailable", cases[i].why);
		release();
		free(src);
	}
}

/* each copy the bulk form cannot carry, and the reason given */
Test(plan, bulk_refusals_name_the_copy)
{
	static const struct {
		const char *stmt, *why;
	} cases[] = {
		{"As[ty][tx] = A[tx * K + k0 + ty];", "does not step by one element"},
		{"As[tx][ty] = A[row * K + k0 + tx];",
		 "does not store 'As[threadIdx.y][threadIdx.x]'"},
		{"As[ty][tx] = A[row * K + k0 + 2 * tx];", "does not step by one element"},
		{"As[ty][tx] = A[(row * K + k0 + tx) % 7];", "divides, shifts or masks"},
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(cases); i++) {
		char *src = float_src_with(cases[i].stmt);
		kp_loop *l = loop_of(src, "sm_90");
		cr_assert(l->eligible, "%s", cases[i].stmt);
		kp_plan p;
		plan(&p, l, "sm_90", "bulk", 2);
		expect_refused(&p, "kpipe-bulk-unavailable", cases[i].why);
		release();
		free(src);
	}
	/* copy loops */
	kp_loop *l = loop_of(many_regs_src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "bulk", 2);
	expect_refused(&p, "kpipe-bulk-unavailable", "copy loop");
}

/* a bulk copy moves rows: 2-byte elements are fine (rows of 16 halfs are
 * 32 bytes), where cp.async moves 4, 8 or 16 bytes per thread */
Test(plan, bulk_copies_half_rows)
{
	kp_loop *l = loop_of(half_src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "bulk", 2);
	expect_xform(&p, "bulk");
	plan(&p, l, "sm_90", "bulk", 3);
	expect_xform(&p, "bulk");
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_refused(&p, "kpipe-variant-unavailable", "2-byte copies");
}

/* guards the corners of a tile decide, and those they do not */
Test(plan, bulk_guards)
{
	static const char *const ok[] = {
		"As[ty][tx] = (row < N && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;",
		"if (row < N && k0 + tx < K) As[ty][tx] = A[row * K + k0 + tx]; else As[ty][tx] = "
		"0;",
		"As[ty][tx] = (N > row && -tx + K > k0 && K > 5) ? A[row * K + k0 + tx] : 0.0f;",
		"As[ty][tx] = (tx * N < K) ? A[row * K + k0 + tx] : 0.0f;",
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(ok); i++) {
		char *src = float_src_with(ok[i]);
		kp_loop *l = loop_of(src, "sm_90");
		kp_plan p;
		plan(&p, l, "sm_90", "bulk", 2);
		expect_xform(&p, "bulk");
		release();
		free(src);
	}
	static const struct {
		const char *stmt, *why;
	} bad[] = {
		{"As[ty][tx] = (row < N || k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;",
		 "a term of the copy's guard is a disjunction"},
		{"As[ty][tx] = (row != N) ? A[row * K + k0 + tx] : 0.0f;", "with == or !="},
		{"As[ty][tx] = (threadIdx.x + k0 < K) ? A[row * K + k0 + tx] : 0.0f;",
		 "compares unsigned values"},
		{"As[ty][tx] = ((unsigned)row < (unsigned)N) ? A[row * K + k0 + tx] : 0.0f;",
		 "compares unsigned values"},
		{"As[ty][tx] = (row * tx < N) ? A[row * K + k0 + tx] : 0.0f;",
		 "multiplies thread indices"},
		{"As[ty][tx] = (A[0] > 0.0f) ? A[row * K + k0 + tx] : 0.0f;",
		 "a term of the copy's guard is not an affine index"},
		{"As[ty][tx] = !(row >= N) ? A[row * K + k0 + tx] : 0.0f;", "negates a condition"},
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(bad); i++) {
		char *src = float_src_with(bad[i].stmt);
		kp_loop *l = loop_of(src, "sm_90");
		cr_assert(l->eligible, "%s", bad[i].stmt);
		kp_plan p;
		plan(&p, l, "sm_90", "bulk", 2);
		expect_refused(&p, "kpipe-bulk-unavailable", bad[i].why);
		release();
		free(src);
	}
}

/* rows of 16 floats are 64 bytes; rows of 2 floats (8 bytes) cannot be
 * bulk-copied */
Test(plan, bulk_rows_are_multiples_of_16_bytes)
{
	char *src = kp_xstrdup(float_src);
	char *d = strstr(src, "#define TILE 16");
	cr_assert_not_null(d);
	d[14] = ' '; /* "#define TILE 1 " */
	kp_loop *l = loop_of(src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "bulk", 2);
	expect_refused(&p, "kpipe-bulk-unavailable", "4 bytes; bulk copies move multiples of 16");
	release();
	free(src);
}

/* addresses affine in the counter: the rows' alignment is checked once,
 * before the loop; k0 / 2 * 2 is not affine: each tile is checked */
static char *bulk_text_of(const char *src, const char *variant, int stages)
{
	kp_loop *l = loop_of(src, "sm_90");
	const kp_transform *t = kp_transform_find(variant);
	cr_assert_not_null(t, "%s", variant);
	kp_xform_opts o = {kp_arch_find("sm_90"), stages, "test", 0, 0};
	kp_edits e = {0};
	const char *err = NULL;
	cr_assert_eq(t->apply(&F, l, &o, &e, &err), 0, "%s", err ? err : "");
	char *out = NULL;
	size_t len = 0;
	cr_assert_eq(kp_edits_apply(&e, F.src, F.len, &out, &len), 0);
	kp_edits_release(&e);
	return out;
}
#define bulk_text(src, stages) bulk_text_of((src), "bulk", (stages))

Test(plan, bulk_alignment_checked_once_when_affine)
{
	char *out = bulk_text(float_src, 2);
	cr_expect(strstr(out, "if (kp_bulk_ok) {") != NULL, "%s", out);
	/* tile 1's first row, checked before the loop */
	cr_expect(strstr(out, "kp_bulk_rows_ok(&(A)[((int)(blockIdx.y * TILE + ((int)(0u)))) * K + "
			      "k0 + ((int)(0u))], &(A)[((int)(blockIdx.y * TILE + ((int)(0u)))) * "
			      "K + (k0 + TILE) + ((int)(0u))])") != NULL,
		  "%s", out);
	free(out);
	release();
	char *src = float_src_with("As[ty][tx] = A[row * K + k0 / 2 * 2 + tx];");
	out = bulk_text(src, 2);
	cr_expect(strstr(out, "if (kp_bulk_ok) {") == NULL, "%s", out);
	cr_expect(strstr(out, "if (kp_bulk_ok &&\n") != NULL, "%s", out);
	free(out);
	free(src);
}

/* a local holding a thread index is inlined into the copies: one that reads
 * a pointer changed after it would read the new value there */
Test(plan, bulk_refuses_a_thread_local_of_a_changed_pointer)
{
	static const char src[] = "#define TILE 16\n"
				  "__global__ void mm(const float *A, float *C, int K)\n"
				  "{\n"
				  "    __shared__ float As[TILE][TILE];\n"
				  "    int tx = threadIdx.x, ty = threadIdx.y;\n"
				  "    const float *q = A;\n"
				  "    const float *p = q + ty * K;\n"
				  "    q += TILE;\n"
				  "    float acc = 0.0f;\n"
				  "    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
				  "        As[ty][tx] = p[k0 + tx];\n"
				  "        __syncthreads();\n"
				  "        for (int kk = 0; kk < TILE; ++kk)\n"
				  "            acc += As[ty][kk];\n"
				  "        __syncthreads();\n"
				  "    }\n"
				  "    C[ty * TILE + tx] = acc + q[0];\n"
				  "}\n";
	kp_loop *l = loop_of(src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "bulk", 2);
	expect_refused(&p, "kpipe-bulk-unavailable", "uses 'p', whose initialiser reads");
}

/* The rewrite: barriers, the elected thread's copies with the row sources
 * of threadIdx.y = 0 and 1 (locals holding thread indices inlined), the
 * plain copies as the fallback, the three-stage ring. */
Test(plan, bulk_rewrite_text)
{
	kp_loop *l = loop_of(float_src, "sm_90");
	const kp_transform *t = kp_transform_find("bulk");
	cr_assert_not_null(t);
	kp_xform_opts o = {kp_arch_find("sm_90"), 3, "test", 0, 0};
	kp_edits e = {0};
	const char *err = NULL;
	cr_assert_eq(t->apply(&F, l, &o, &e, &err), 0, "%s", err ? err : "");
	char *out = NULL;
	size_t len = 0;
	cr_assert_eq(kp_edits_apply(&e, F.src, F.len, &out, &len), 0);
	static const char *const want[] = {
		"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
		"mbarrier.try_wait.parity.shared::cta.b64",
		"mbarrier.arrive.expect_tx.shared::cta.b64",
		"fence.mbarrier_init.release.cluster;",
		"__shared__ __align__(8) unsigned long long kp_full[3];",
		"kp_mbar_init(&kp_full[kp_s], 1);",
		"kp_mbar_wait(&kp_full[kp_stage], (kp_phase >> kp_stage) & 1u);",
		"kp_phase ^= 1u << kp_stage;",
		"kp_mbar_expect_tx(&kp_full[(kp_stage + 2) % 3], sizeof(As[0]) + sizeof(Bs[0]));",
		"kp_bulk_tile(&As[(kp_stage + 2) % 3][0][0], "
		"&(A)[((int)(blockIdx.y * TILE + ((int)(0u)))) * K + (k0 + 2 * (TILE)) + ((int)(0u))], "
		"&(A)[((int)(blockIdx.y * TILE + ((int)(1u)))) * K + (k0 + 2 * (TILE)) + ((int)(0u))]",
		"As[(kp_stage + 2) % 3][ty][tx] = A[row * K + (k0 + 2 * (TILE)) + tx];",
		"kp_mbar_arrive(&kp_full[(kp_stage + 2) % 3]);",
		"blockDim.x == sizeof(As[0][0]) / sizeof(As[0][0][0])",
		"__shared__ float As[3][TILE][TILE];",
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(want); i++)
		cr_expect(strstr(out, want[i]) != NULL, "no '%s' in\n%s", want[i], out);
	free(out);
	kp_edits_release(&e);
}

/* The main loop of a rewrite: from its header to the end of its body. */
static char *main_loop(const char *out)
{
	const char *b = strstr(out, "for (; k0 < K; k0 += TILE) {");
	cr_assert_not_null(b, "%s", out);
	const char *e = strstr(b, "\n        }\n");
	cr_assert_not_null(e, "%s", b);
	return kp_xstrndup(b, (size_t)(e - b));
}

static int count_of(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* bulk, 3 stages: the slot refilled next is released by the loop's one
 * __syncthreads(), after the wait for the stage and before the refill;
 * no other barrier in the loop (the fallback's stores are published by
 * the next iteration's) */
Test(plan, bulk_release_is_the_block_barrier)
{
	char *out = bulk_text(float_src, 3);
	char *loop = main_loop(out);
	cr_expect_eq(count_of(loop, "__syncthreads();"), 1, "%s", loop);
	const char *wait =
		strstr(loop, "kp_mbar_wait(&kp_full[kp_stage], (kp_phase >> kp_stage) & 1u);");
	const char *bar = strstr(loop, "__syncthreads(); // and the slot refilled below is free");
	const char *fill = strstr(loop, "kp_mbar_expect_tx(&kp_full[(kp_stage + 2) % 3], ");
	const char *comp = strstr(loop, "acc += As[kp_stage][ty][kk]");
	cr_expect(wait && bar && fill && comp && wait < bar && bar < fill && fill < comp, "%s",
		  loop);
	free(loop);
	free(out);
}

/* A guarded copy: the bulk path is taken when the guard holds at the
 * tile's corners where each term is tightest (row = blockIdx.y * 16 + 15
 * for `row < N`; tx = 15 for `k0 + tx < K` and for `-tx + K > k0`, tx = 0
 * for `k0 + tx >= 0`), evaluated for the tile being filled; otherwise the
 * guarded copies run. */
Test(plan, bulk_guard_at_the_corners)
{
	char *src = float_src_with(
		"As[ty][tx] = (row < N && k0 + tx < K && -tx + K > k0 && k0 + tx >= 0) ? A[row * K + "
		"k0 + tx] : 0.0f;");
	char *out = bulk_text(src, 2);
	char *loop = main_loop(out);
	static const char *const want[] = {
		"if (kp_bulk_ok &&\n",
		"(((int)(blockIdx.y * TILE + ((int)(15u)))) < N) &&\n",
		"((k0 + TILE) + ((int)(15u)) < K) &&\n",
		"(-((int)(15u)) + K > (k0 + TILE)) &&\n",
		"((k0 + TILE) + ((int)(0u)) >= 0)) {\n",
		"As[kp_stage ^ 1][ty][tx] = (row < N && (k0 + TILE) + tx < K && -tx + K > (k0 + "
		"TILE) && (k0 + TILE) + tx >= 0) ? A[row * K + (k0 + TILE) + tx] : 0.0f;",
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(want); i++)
		cr_expect(strstr(loop, want[i]) != NULL, "no '%s' in\n%s", want[i], loop);
	/* the low corners of the first two terms are not tested */
	cr_expect(strstr(loop, "((int)(0u)))) < N)") == NULL, "%s", loop);
	cr_expect(strstr(loop, "((int)(0u)) < K)") == NULL, "%s", loop);
	/* the prologue tests tile 0 */
	cr_expect(strstr(out, "(k0 + ((int)(15u)) < K) &&\n"), "%s", out);
	free(loop);
	free(out);
	free(src);
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

/* --- shared memory: each transform's buffers ------------------------------------------- */

/* Issue #15/#17: --variant register-2bar keeps one buffer, and was refused
 * because two did not fit. */
Test(plan, one_buffer_fits_where_two_do_not)
{
	kp_loop *l = loop_of(fits_once_src, "sm_90");
	cr_assert(l->eligible, "legal: the shared memory is the plan's question");
	cr_assert_eq(l->tile_bytes, 32768);
	kp_plan p;
	plan(&p, l, "sm_90", "register-2bar", 2);
	expect_xform(&p, "register-2bar");
	cr_expect_str_eq(p.why, "requested with --variant register-2bar");
	/* two buffers go to dynamic shared memory */
	static const char *const two[] = {"cp-async", "register", "register-ca"};
	for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
		plan(&p, l, "sm_90", two[i], 2);
		expect_xform(&p, two[i]);
		cr_expect(p.dynamic);
		cr_expect_eq(p.dyn_bytes, 65536);
	}
	/* auto: the only static form that fits, whose launches need no change */
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register-2bar");
	cr_expect_not(p.dynamic);
	cr_expect_str_eq(p.why, "two buffers of the tiles need 65536 B of shared memory, over the "
				"49152 B static limit of sm_90; one fits");
	/* more stages are cp.async's, in dynamic shared memory */
	plan(&p, l, "sm_90", "auto", 3);
	expect_xform(&p, "cp-async");
	cr_expect(p.dynamic);
	cr_expect_eq(p.dyn_bytes, 98304);
	/* sm_75 has an opt-in limit of 64 KB: the same bytes do not fit */
	plan(&p, l, "sm_75", "register", 2);
	cr_expect(p.xform == NULL || !p.dynamic || p.dyn_bytes <= 65536);
	plan(&p, l, "sm_90", "register-2bar", 3);
	expect_refused(&p, "kpipe-variant-unavailable", "register-2bar builds 2 stages only");
}

Test(plan, one_buffer_on_sm75)
{
	/* no cp.async there: register-2bar all the same */
	kp_loop *l = loop_of(fits_once_src, "sm_75");
	kp_plan p;
	plan(&p, l, "sm_75", "auto", 2);
	expect_xform(&p, "register-2bar");
}

Test(plan, not_even_one_buffer_fits)
{
	kp_loop *l = loop_of(fits_never_src, "sm_90");
	cr_assert(l->eligible);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 2);
	expect_refused(&p, "kpipe-smem-over-limit", "2 stages need 147456 B");
	plan(&p, l, "sm_90", "register-2bar", 2);
	expect_refused(&p, "kpipe-smem-over-limit", "2 stages with 1 buffer need 73728 B");
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_refused(&p, "kpipe-smem-over-limit", "147456 B");
}

/* --- dynamic shared memory: when the tiles may move -------------------------------------- */

static void expect_no_dynamic(const char *src, const char *why_part)
{
	kp_loop *l = loop_of(src, "sm_90");
	cr_assert(l->eligible);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_refused(&p, "kpipe-smem-over-limit", why_part);
}

Test(plan, dynamic_counts_the_launches_of_the_kernel)
{
	kp_loop *l = loop_of(big_src(BIG_DECLS,
				     "void run(const float *A, const float *B, float *C, "
				     "int N, int K, cudaStream_t s)\n{\n"
				     "    mmb<<<dim3(N / 64, N / 64), dim3(64, 64)>>>(A, B, C, "
				     "N, K);\n"
				     "    mmb<<<1, dim3(64, 64), 0, s>>>(A, B, C, N, K);\n"
				     "    other<<<1, 32, 4096>>>(C);\n}\n"),
			     "sm_90");
	cr_assert_eq(F.nlaunches, 3);
	cr_expect_eq(kp_plan_launches(&F, l), 2);
	cr_expect_eq(F.launches[0].nconfig, 2);
	cr_expect_eq(F.launches[1].nconfig, 4);
	cr_expect(F.launches[0].editable && F.launches[1].editable);
	cr_expect_eq(F.launches[0].line, 23);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_xform(&p, "cp-async");
	cr_expect(p.dynamic);
	cr_expect_eq(p.dyn_bytes, 65536);
	/* auto: kpipe edits both launches, so two buffers in dynamic shared
	 * memory rather than register-2bar's one static buffer */
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
	cr_expect(p.dynamic);
}

Test(plan, dynamic_refused_for_a_launch_written_by_a_macro)
{
	expect_no_dynamic(big_src(BIG_DECLS,
				  "#define LAUNCH(k, ...) k<<<1, 256>>>(__VA_ARGS__)\n"
				  "void run(const float *A, const float *B, float *C, int N, "
				  "int K) { LAUNCH(mmb, A, B, C, N, K); }\n"),
			  "no <<<>>> launch kpipe can edit");
}

Test(plan, dynamic_refused_for_a_launch_with_its_own_dynamic_memory)
{
	expect_no_dynamic(big_src(BIG_DECLS,
				  "void run(const float *A, const float *B, float *C, "
				  "int N, int K) { mmb<<<1, 256, 1024>>>(A, B, C, N, K); }\n"),
			  "passes dynamic shared memory of its own");
}

Test(plan, dynamic_refused_when_the_kernel_has_extern_shared_memory)
{
	expect_no_dynamic(big_src(BIG_DECLS "    extern __shared__ float dyn[];\n"
					    "    if (threadIdx.x == 999) dyn[0] = 1.0f;\n",
				  ""),
			  "already uses dynamic shared memory ('dyn')");
}

Test(plan, dynamic_refused_for_a_declaration_shared_with_another_array)
{
	expect_no_dynamic(big_src("    __shared__ float As[TILE][TILE], flag[4];\n"
				  "    __shared__ float Bs[TILE][TILE];\n"
				  "    if (threadIdx.x == 999) flag[0] = 1.0f;\n",
				  ""),
			  "'flag' is declared with the tile 'As' in one statement");
}

Test(plan, dynamic_refused_for_a_tile_declared_in_the_loop)
{
	const char *src = "#define TILE 64\n"
			  "__global__ void mmb(const float *A, float *C, int K)\n"
			  "{\n"
			  "    float acc = 0.0f;\n"
			  "    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
			  "        __shared__ float As[TILE][TILE];\n"
			  "        __shared__ float Bs[TILE][TILE];\n"
			  "        As[threadIdx.y][threadIdx.x] = A[k0 + threadIdx.x];\n"
			  "        Bs[threadIdx.y][threadIdx.x] = A[k0 + threadIdx.y];\n"
			  "        __syncthreads();\n"
			  "        for (int kk = 0; kk < TILE; ++kk)\n"
			  "            acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];\n"
			  "        __syncthreads();\n"
			  "    }\n"
			  "    C[threadIdx.x] = acc;\n"
			  "}\n";
	expect_no_dynamic(src, "the tile 'As' is declared inside the loop");
}

/* A template kernel whose tiles have the element type T, launched from a
 * function template with `0U` dynamic bytes and instantiated for float
 * and double (32 KB of double tiles: two buffers, 64 KB, are over the
 * static limit).  The launch, visited again in each instantiation of the
 * host function, is one launch; `0U` passes none; the region is sized
 * for the largest instantiation (double), as for a template whose tile
 * sizes are parameters, and auto takes it (two buffers in dynamic shared
 * memory rather than register-2bar's one static buffer). */
static const char template_dyn_src[] =
	"#include <cuda_runtime.h>\n"
	"template <typename T, int BM, int BK>\n"
	"__global__ void kt(const T *A, const T *B, T *C, int n)\n"
	"{\n"
	"    __shared__ T As[BM][BK];\n"
	"    __shared__ T Bs[BK][BM];\n"
	"    T sum = 0;\n"
	"    for (int t = 0; t < n / BK; ++t) {\n"
	"        for (int i = 0; i < BM * BK / 256; ++i)\n"
	"            As[(threadIdx.x + i * 256) / BK][(threadIdx.x + i * 256) % BK] =\n"
	"                A[t * BK + threadIdx.x + i * 256];\n"
	"        for (int i = 0; i < BM * BK / 256; ++i)\n"
	"            Bs[(threadIdx.x + i * 256) / BM][(threadIdx.x + i * 256) % BM] =\n"
	"                B[t * BK + threadIdx.x + i * 256];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < BK; ++kk)\n"
	"            sum += As[threadIdx.x % BM][kk] * Bs[kk][threadIdx.x % BM];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[threadIdx.x] = sum;\n"
	"}\n"
	"template <typename T>\n"
	"void launch(const T *A, const T *B, T *C, int n, cudaStream_t s)\n"
	"{\n"
	"    kt<T, 128, 16><<<1, 256, 0U, s>>>(A, B, C, n);\n"
	"}\n"
	"template void launch<float>(const float *, const float *, float *, int, cudaStream_t);\n"
	"template void launch<double>(const double *, const double *, double *, int, "
	"cudaStream_t);\n";

Test(plan, dynamic_for_tiles_of_a_template_type)
{
	kp_loop *l = loop_of(template_dyn_src, "sm_90");
	cr_assert(l->eligible);
	cr_assert_eq(l->nper_inst, 2);
	cr_expect_eq(F.nlaunches, 1);
	cr_expect_eq(kp_plan_launches(&F, l), 1);
	kp_plan p;
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	cr_expect(p.dynamic);
	cr_expect_eq(p.dyn_bytes, 65536); /* double's two buffers */
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
	cr_expect(p.dynamic);
}

/* The same tiles with no instantiation in the file: no size to give the
 * region, which kp_dynamic_problem says. */
Test(plan, dynamic_refused_for_a_template_type_without_instantiations)
{
	const char *end = strstr(template_dyn_src, "template <typename T>\nvoid launch");
	cr_assert_not_null(end);
	char src[4096];
	snprintf(src, sizeof(src), "%.*s", (int)(end - template_dyn_src), template_dyn_src);
	kp_loop *l = loop_of(src, "sm_90");
	cr_assert(l->eligible);
	cr_assert_eq(l->nper_inst, 0);
	const char *why = kp_dynamic_problem(&F, l);
	cr_assert_not_null(why);
	cr_expect(strstr(why, "the element type of 'As' has no size kpipe knows"), "%s", why);
	/* with them, nothing stands in the way */
	release();
	l = loop_of(template_dyn_src, "sm_90");
	cr_expect_null(kp_dynamic_problem(&F, l));
}

/* --- extern tiles: a copy of the region per stage --------------------------------------- */

/* carve-outs of `extern __shared__ float sm[]` (decls), loaded as As and
 * Bs; static storage, one at a time */
static const char *extern_src(const char *decls, const char *host)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "#define T 16\n"
		 "__global__ void mme(const float *A, const float *B, float *C, int N, int K)\n"
		 "{\n"
		 "    extern __shared__ float sm[];\n"
		 "%s"
		 "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		 "    float acc = 0.0f;\n"
		 "    for (int k0 = 0; k0 < K; k0 += T) {\n"
		 "        As[ty * T + tx] = A[ty * K + k0 + tx];\n"
		 "        Bs[ty * T + tx] = B[(k0 + ty) * N + tx];\n"
		 "        __syncthreads();\n"
		 "        for (int kk = 0; kk < T; ++kk)\n"
		 "            acc += As[ty * T + kk] * Bs[kk * T + tx];\n"
		 "        __syncthreads();\n"
		 "    }\n"
		 "    C[ty * N + tx] = acc;\n"
		 "}\n%s",
		 decls, host);
	return buf;
}

static const char *dyn_reason(const kp_loop *l)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, "kpipe-dynamic-smem"))
			return l->reasons[i].message;
	return NULL;
}

Test(plan, extern_carve_outs_are_tiles)
{
	kp_loop *l = loop_of(extern_src("    float *As = sm;\n    float *Bs = &sm[T * T];\n", ""),
			     "sm_90");
	cr_expect(l->eligible, "%s", dyn_reason(l) ? dyn_reason(l) : "");
	cr_expect_eq(l->dyn_tiles, 2);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 3);
	expect_xform(&p, "cp-async");
	cr_expect_not(p.dynamic, "the region is copied per stage, not moved");
}

Test(plan, extern_carve_outs_that_alias_are_refused)
{
	/* the same offset spelled twice, and 0 against the array itself */
	const char *decls[] = {"    float *As = &sm[T];\n    float *Bs = &sm[T];\n",
			       "    float *As = sm;\n    float *Bs = sm + 0;\n"};
	for (int i = 0; i < 2; i++) {
		kp_loop *l = loop_of(extern_src(decls[i], ""), "sm_90");
		cr_expect_not(l->eligible);
		const char *why = dyn_reason(l);
		cr_assert_not_null(why);
		cr_expect(strstr(why, "start at the same offset: they alias"), "%s", why);
		release();
	}
}

Test(plan, extern_region_used_besides_its_carve_outs_is_refused)
{
	kp_loop *l = loop_of(extern_src("    float *As = sm;\n    float *Bs = sm + T * T;\n"
					"    if (threadIdx.x == 999) sm[5] = 1.0f;\n",
					""),
			     "sm_90");
	cr_expect_not(l->eligible);
	const char *why = dyn_reason(l);
	cr_assert_not_null(why);
	cr_expect(strstr(why, "'sm' is used at line 7 besides its carve-outs"), "%s", why);
}

Test(plan, two_extern_arrays_are_refused)
{
	kp_loop *l = loop_of(extern_src("    extern __shared__ float other[];\n"
					"    float *As = sm;\n    float *Bs = other;\n",
					""),
			     "sm_90");
	cr_expect_not(l->eligible);
	const char *why = dyn_reason(l);
	cr_assert_not_null(why);
	cr_expect(strstr(why, "two extern __shared__ arrays"), "%s", why);
}

Test(plan, reassigned_carve_out_is_not_a_tile)
{
	/* As moves: no carve-out, and not rewritten */
	kp_loop *l = loop_of(extern_src("    float *As = sm;\n    float *Bs = sm + T * T;\n"
					"    if (threadIdx.x == 999) As = Bs;\n",
					""),
			     "sm_90");
	cr_expect_not(l->eligible);
}

/* --- the registry ------------------------------------------------------------------------ */

Test(plan, registry)
{
	int n = 0;
	const kp_transform *const *all = kp_transform_all(&n);
	cr_assert_geq(n, 4);
	static const char *const builtin[] = {"cp-async", "register", "register-ca",
					      "register-2bar"};
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		cr_expect_not_null(kp_transform_find(builtin[i]), "%s", builtin[i]);
	cr_expect_null(kp_transform_find("bogus"));
	cr_expect_null(kp_transform_find("auto"), "auto is the rule, not a transform");
	for (int i = 0; i < n; i++) {
		const kp_transform *t = all[i];
		cr_expect_eq(kp_transform_find(t->name), t, "%s: names are unique", t->name);
		cr_expect(t->label && t->label[0], "%s", t->name);
		cr_expect(t->summary && t->summary[0], "%s", t->name);
		cr_expect_not_null(t->facts, "%s", t->name);
		cr_expect_not_null(t->match, "%s", t->name);
		cr_expect_not_null(t->apply, "%s", t->name);
		cr_assert_not_null(t->buffers, "%s", t->name);
		cr_expect(t->min_stages >= 2 && t->min_stages <= t->max_stages &&
				  t->max_stages <= 8,
			  "%s: stages %d..%d", t->name, t->min_stages, t->max_stages);
		for (int s = t->min_stages; s <= t->max_stages; s++)
			cr_expect(t->buffers(s) >= 1 && t->buffers(s) <= s,
				  "%s: %d buffers for %d stages", t->name, t->buffers(s), s);
		for (int k = 0; k < t->ntune; k++)
			cr_expect(t->tune[k].stages >= t->min_stages &&
					  t->tune[k].stages <= t->max_stages,
				  "%s: tune candidate %s", t->name, t->tune[k].name);
		if (t->tune_base) {
			const kp_tune_cand *c[64];
			const kp_transform *x[64];
			int nc = kp_transform_tune_list(c, x, 64), found = 0;
			for (int k = 0; k < nc; k++)
				found |= !strcmp(c[k]->name, t->tune_base);
			cr_expect(found, "%s: tune_base %s is no tune candidate", t->name,
				  t->tune_base);
		}
	}
	/* the facts analyze reports once each: cp.async's, register staging's,
	 * bulk copies', tensor-map copies' */
	int reported = 0;
	for (int i = 0; i < n; i++)
		reported += kp_transform_reports_facts(all[i]);
	cr_expect_eq(reported, 4);
	/* tune's table: register staging first, the deeper rings last */
	const kp_tune_cand *c[64];
	const kp_transform *x[64];
	int nc = kp_transform_tune_list(c, x, 64);
	static const char *const order[] = {"register", "register-ca", "register-2bar",
					    "cp-async", "cp-async-s3", "cp-async-s4",
					    "bulk",     "bulk-s3",     "bulk-s4",
					    "tma",      "tma-s3",      "tma-s4"};
	cr_assert_eq(nc, 12);
	for (int k = 0; k < nc; k++) {
		cr_expect_str_eq(c[k]->name, order[k]);
		cr_expect_eq(kp_transform_find(x[k]->name), x[k]);
	}
}

/* --- a transform registered at run time ----------------------------------------------------- */

/* The smallest transform there is: applies to every loop with copies,
 * keeps one buffer, and marks the loop with a comment. */
static void noop_facts(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *x)
{
	(void)f;
	(void)arena;
	x->ok = l->nloads > 0;
	x->why_not = NULL;
	x->regs = 0;
	x->regs_inst = NULL;
}

static int noop_match(const kp_file *f, const kp_loop *l, const kp_arch *a, kp_arena *arena,
		      const char **why)
{
	(void)a;
	kp_xfacts x;
	noop_facts(f, l, arena, &x);
	if (!x.ok)
		*why = "no copies";
	return x.ok;
}

static int noop_buffers(int stages)
{
	(void)stages;
	return 1;
}

static int noop_apply(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		      const char **err)
{
	(void)f;
	(void)o;
	(void)err;
	kp_edits_add(out, l->node->begin, 0, "/* noop */ ");
	return 0;
}

static const kp_tune_cand noop_tune[] = {{"test-noop", 2, 35}};

static const kp_transform noop = {
	.name = "test-noop",
	.label = "no-op",
	.summary = "marks the loop and changes nothing",
	.usage = "a test",
	.min_stages = 2,
	.max_stages = 2,
	.buffers = noop_buffers,
	.facts = noop_facts,
	.match = noop_match,
	.tune = noop_tune,
	.ntune = 1,
	.apply = noop_apply,
};

int cmd_analyze(int argc, char **argv);

/* Runs fn with stdout (fd 1) and stderr (fd 2) going to `path`; returns
 * fn's result. */
static int captured(const char *path, int (*fn)(int, char **), int argc, char **argv)
{
	fflush(stdout);
	fflush(stderr);
	int o = dup(1), e = dup(2);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	int rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(o, 1);
	dup2(e, 2);
	close(o);
	close(e);
	return rc;
}

static int parse_rewrite(int argc, char **argv)
{
	static const char *const opts[] = {"--variant", NULL};
	kp_cli o;
	int rc = kp_cli_parse(&o, argc, argv, "rewrite", opts);
	if (!rc)
		kp_cli_release(&o);
	return rc;
}

Test(plan, a_registered_transform_is_picked_up)
{
	int n0, n1;
	kp_transform_all(&n0);
	cr_assert_eq(kp_transform_register_for_test(&noop), 0);
	cr_expect_eq(kp_transform_register_for_test(&noop), -1, "a name is registered once");
	const kp_transform *const *all = kp_transform_all(&n1);
	cr_assert_eq(n1, n0 + 1);
	cr_expect_eq(all[n0], &noop);
	cr_expect_eq(kp_transform_find("test-noop"), &noop);
	/* the plan: --variant test-noop, its buffers, its stages; auto ignores it */
	kp_loop *l = loop_of(float_src, "sm_90");
	kp_plan p;
	plan(&p, l, "sm_90", "test-noop", 2);
	expect_xform(&p, "test-noop");
	cr_expect_str_eq(p.why, "requested with --variant test-noop");
	plan(&p, l, "sm_90", "test-noop", 3);
	expect_refused(&p, "kpipe-variant-unavailable", "test-noop builds 2 stages only");
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "register");
	release();
	l = loop_of(fits_once_src, "sm_90");
	plan(&p, l, "sm_90", "test-noop", 2);
	expect_xform(&p, "test-noop");
	release();
	/* tune tries it, in its place */
	const kp_tune_cand *c[64];
	const kp_transform *x[64];
	int nc = kp_transform_tune_list(c, x, 64);
	cr_assert_eq(nc, 13);
	cr_expect_str_eq(c[3]->name, "test-noop");
	cr_expect_eq(x[3], &noop);
	/* the command line takes the name, and lists it for a bad one */
	char dir[] = "/tmp/kpipe-test-plan-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char out[128];
	snprintf(out, sizeof(out), "%s/out", dir);
	char *ok_argv[] = {"rewrite", "--variant", "test-noop", "x.cu", NULL};
	cr_expect_eq(captured(out, parse_rewrite, 4, ok_argv), 0);
	char *bad_argv[] = {"rewrite", "--variant", "bogus", "x.cu", NULL};
	cr_expect_eq(captured(out, parse_rewrite, 4, bad_argv), 2);
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(kp_read_file(out, &text, &len), 0);
	cr_expect(strstr(text, "(auto, cp-async, register, register-ca, register-2bar, bulk, tma "
			       "or test-noop)"),
		  "%s", text);
	free(text);
	/* analyze reports its facts under its label */
	char src[128];
	snprintf(src, sizeof(src), "%s/k.cu", dir);
	FILE *fp = fopen(src, "w");
	cr_assert_not_null(fp);
	fputs(float_src, fp);
	fclose(fp);
	char *an_argv[] = {"analyze", "--variant", "test-noop", src, NULL};
	cr_expect_eq(captured(out, cmd_analyze, 4, an_argv), 0);
	cr_assert_eq(kp_read_file(out, &text, &len), 0);
	cr_expect(
		strstr(text,
		       "\n    cp.async: possible\n    register staging: possible (2 registers "
		       "per thread)\n    cp.async.bulk: possible (one cp.async.bulk per contiguous "
		       "row; one copy per tile is --variant tma (cp.async.bulk.tensor, TMA), "
		       "where the kernel is launched in its own file)\n    cp.async.bulk.tensor: "
		       "'mm' is not launched in this file: the host code that must make the "
		       "tensor maps and pass them is elsewhere\n    no-op: possible\n"),
		"%s", text);
	cr_expect(strstr(text, "plan: test-noop, 2 stages: requested with --variant test-noop"),
		  "%s", text);
	free(text);
	unlink(src);
	unlink(out);
	rmdir(dir);
}

/* --- auto's calibrated rule (src/plan/auto.c; docs/tune.md) ----------------- */

static char SAMPLE_PATH[4096];

/* The first K-loop of DIR/NAME.cu (DIR relative to the source tree),
 * analysed with `threads` per block (the launch description's block). */
static kp_loop *loop_of_source(const char *dir, const char *name, int threads)
{
	const char *root = getenv("KPIPE_SOURCE_DIR");
	release(); /* a second sample in the same test */
	snprintf(SAMPLE_PATH, sizeof(SAMPLE_PATH), "%s/%s/%s.cu", root ? root : ".", dir, name);
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = "sm_90";
	o.no_compdb = 1;
	int rc = kp_parse(&F, SAMPLE_PATH, &o, &ERRMSG);
	cr_assert_eq(rc, KP_PARSE_OK, "kp_parse %s: %d", SAMPLE_PATH, rc);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	ao.threads = threads;
	kp_analyze(&AN, &F, &ao);
	cr_assert_geq(AN.nloops, 1, "%s: no loop", name);
	return AN.loops[0];
}

/* The first K-loop of samples/NAME.cu */
static kp_loop *loop_of_sample(const char *name, int threads)
{
	return loop_of_source("samples", name, threads);
}

/* A probe that answers without nvcc: what ptxas said on the H200 run. */
typedef struct {
	kp_auto_probe base;
	int regs, warps, ok, asked;
} fake_probe;

static int fake_facts(const kp_auto_probe *self, const kp_file *f, const kp_loop *l,
		      const kp_arch *a, kp_auto_facts *out)
{
	(void)f;
	(void)l;
	(void)a;
	fake_probe *p = (fake_probe *)self;
	p->asked++;
	memset(out, 0, sizeof(*out));
	out->regs = p->regs;
	out->warps = p->warps;
	out->threads = 256;
	out->why = p->ok ? NULL : "nvcc: error: test";
	return p->ok;
}

Test(plan, auto_tensor_core_tiles_get_the_deepest_cp_async_ring_that_fits)
{
	/* wmma 64x64x32: 4 stages (38912 B) fit the static limit; measured
	 * cp-async-s4 1.151x, the best of six (register 1.109x) */
	kp_loop *l = loop_of_sample("wmma_fp16_64x64x32", 128);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "cp-async");
	cr_expect_eq(p.stages, 4);
	cr_expect(strstr(p.why, "tensor-core") != NULL, "%s", p.why);
	/* --stages given: kept */
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "cp-async");
	cr_expect_eq(p.stages, 2);
}

Test(plan, auto_sixteen_byte_copies_take_cp_async)
{
	/* every copy a float4: measured cp-async 1.093x, register 0.965x */
	kp_loop *l = loop_of_sample("sgemm_float4_macro", 256);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "cp-async");
	cr_expect_eq(p.stages, 2);
	cr_expect(strstr(p.why, "16 bytes") != NULL, "%s", p.why);
}

Test(plan, auto_compute_heavy_register_tiles_take_the_one_buffer_form)
{
	/* compute/load 8 FLOP/B: register-2bar 1.127x, register 1.113x */
	kp_loop *l = loop_of_sample("matmul_32x32", 1024);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
	cr_expect_eq(p.stages, 2);
	/* compute/load 4 FLOP/B: register 1.020x, register-2bar 1.002x */
	l = loop_of_sample("matmul_guarded", 256);
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register");
}

Test(plan, auto_without_cp_async_takes_the_two_buffer_register_form)
{
	/* cp.async does not apply (the source is staged through registers
	 * already): the two-buffer form at any compute/load; measured
	 * sgemm_stride_local (16 FLOP/B) register 1.037x, register-2bar 1.012x;
	 * sgemm_transpose_staged (32 FLOP/B) 1.191x against 1.172x */
	static const char *const samples[] = {"sgemm_stride_local", "sgemm_transpose_staged"};
	for (size_t i = 0; i < KP_ARRAY_LEN(samples); i++) {
		kp_loop *l = loop_of_sample(samples[i], 256);
		kp_plan p;
		plan(&p, l, "sm_90", "auto", 0);
		expect_xform(&p, "register");
		cr_expect_eq(p.stages, 2);
		cr_expect(strstr(p.why, "cp.async does not apply") != NULL, "%s", p.why);
		cr_expect(strstr(p.why, "two buffers all the same") != NULL, "%s", p.why);
		cr_expect(l->ratio >= 8, "%s: %.1f FLOP/B", samples[i], l->ratio);
	}
}

/* ptxas on the register-staged rewrite: `vwarps` resident warps */
typedef struct {
	fake_probe fp;
	int vregs, vwarps, vasked;
	const char *vname;
	int vsmem;      /* the rewrite's static shared memory (0: not reported) */
	long long vdyn; /* the dynamic shared memory variant() was told of */
	/* register-2bar's answer where r2warps > 0 (else vregs, vwarps) */
	int r2regs, r2warps;
} fake_probe2;

static int fake_variant(const kp_auto_probe *self, kp_file *f, const kp_loop *l, const kp_arch *a,
			const kp_transform *t, int stages, long long dyn_bytes, kp_auto_facts *out)
{
	(void)f;
	(void)a;
	fake_probe2 *p = (fake_probe2 *)self;
	p->vasked++;
	if (strcmp(t->name, "register-2bar") || p->vasked == 1)
		p->vdyn = dyn_bytes; /* the plan's own rewrite, not the one-buffer retry */
	p->vname = t->name;
	cr_expect_eq(stages, 2);
	memset(out, 0, sizeof(*out));
	int two_bar = p->r2warps > 0 && !strcmp(t->name, "register-2bar");
	out->regs = two_bar ? p->r2regs : p->vregs;
	out->warps = two_bar ? p->r2warps : p->vwarps;
	out->threads = l->threads > 0 ? l->threads : 256;
	out->smem = p->vsmem;
	return 1;
}

/* A zlanhe-style row norm over complex doubles: the tile stored
 * transposed (each lane's 16-byte element in another row), the compute
 * loop from ty * 8 to ty * 8 + 8; launched in the file with a 32x4 block. */
#define ZROW_SRC(COLS, STORE)                                                                      \
	"typedef double2 zc;\n"                                                                    \
	"__global__ void zrow(int n, const zc *A, int lda, double *out) {\n"                       \
	"  __shared__ zc tile[32][" COLS "];\n"                                                    \
	"  int tx = threadIdx.x, ty = threadIdx.y;\n"                                              \
	"  const zc *a = A + blockIdx.x * 32 + tx;\n"                                              \
	"  double sum = 0.0;\n"                                                                    \
	"  for (int c0 = 0; c0 < n; c0 += 32) {\n"                                                 \
	"    for (int j = 0; j < 32; j += 4)\n"                                                    \
	"      " STORE " = a[(c0 + ty + j) * lda];\n"                                              \
	"    __syncthreads();\n"                                                                   \
	"    for (int j = ty * 8; j < ty * 8 + 8; j++) {\n"                                        \
	"      zc z = tile[tx][j];\n"                                                              \
	"      sum += sqrt(z.x * z.x + z.y * z.y);\n"                                              \
	"    }\n"                                                                                  \
	"    __syncthreads();\n"                                                                   \
	"  }\n"                                                                                    \
	"  out[blockIdx.x * 128 + ty * 32 + tx] = sum;\n"                                          \
	"}\n"                                                                                      \
	"void run(int n, const zc *A, double *o) { zrow<<<n / 32, dim3(32, 4)>>>(n, A, n, o); }\n"

Test(plan, auto_sixteen_byte_copies_spread_over_shared_memory_take_register_staging)
{
	/* zrow_abs on the H100: register 1.408x, cp.async 0.866x; MAGMA
	 * zlanhe_inf: register 1.716x, cp.async 1.252x */
	kp_loop *l = loop_of(ZROW_SRC("33", "tile[tx][ty + j]"), "sm_90");
	/* the compute loop runs 8 times: counted (it was "not counted") */
	cr_expect_eq(l->flops_uncounted, 0);
	cr_expect(l->flops_thread > 7.9 && l->flops_thread < 8.1, "flops %g", l->flops_thread);
	cr_expect_eq(l->threads, 128, "threads from the launch: %d", l->threads);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register");
	cr_expect_eq(p.stages, 2);
	cr_expect(strstr(p.why, "lands in 32 sectors of shared memory where its bytes fill 16") !=
			  NULL,
		  "%s", p.why);
	/* the same copy stored in the global layout: contiguous, a
	 * memory-bound tile (0.1 FLOP/B) whose three buffers (50688 B) do not
	 * fit the static limit: register staging all the same, for that */
	release(); /* a second file in the same test */
	l = loop_of(ZROW_SRC("33", "tile[ty + j][tx]"), "sm_90");
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register");
	cr_expect(strstr(p.why, "memory-bound tile, where 3 cp.async stages do not fit") != NULL,
		  "%s", p.why);
	/* 16 columns: three buffers (24576 B) fit: a 3-stage ring */
	release();
	l = loop_of(ZROW_SRC("16", "tile[ty + j][tx % 16]"), "sm_90");
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "cp-async");
	cr_expect_eq(p.stages, 3);
	cr_expect(strstr(p.why, "a memory-bound tile, 3 stages") != NULL, "%s", p.why);
	/* --stages 2 given: kept */
	plan(&p, l, "sm_90", "auto", 2);
	expect_xform(&p, "cp-async");
	cr_expect_eq(p.stages, 2);
}

Test(plan, auto_loop_bound_above_a_changing_first_value_is_not_counted)
{
	/* `j < x + 8` with x changed in the loop: not 8 trips */
	kp_loop *l = loop_of("__global__ void k(const float *a, float *o, int n) {\n"
			     "  __shared__ float t[128];\n"
			     "  float acc = 0.f;\n"
			     "  int x = threadIdx.x % 8;\n"
			     "  for (int k0 = 0; k0 < n; k0 += 128) {\n"
			     "    t[threadIdx.x] = a[k0 + threadIdx.x];\n"
			     "    __syncthreads();\n"
			     "    for (int j = x; j < x + 8; j++) { acc += t[j] * 2.f; x += 0; }\n"
			     "    __syncthreads();\n"
			     "  }\n"
			     "  o[threadIdx.x] = acc;\n"
			     "}\n",
			     "sm_90");
	cr_expect_eq(l->flops_uncounted, 1);
}

Test(plan, auto_occupancy_check_compares_with_the_warps_cp_async_keeps)
{
	/* zrow_abs: the two buffers' 34816 B leave 6 blocks of 128 threads
	 * (24 warps) with either variant; register staging's 34 -> 58
	 * registers are not what halves the original's 48 warps */
	kp_loop *l = loop_of(ZROW_SRC("33", "tile[tx][ty + j]"), "sm_90");
	kp_plan p;
	fake_probe2 smem = {{{fake_facts, fake_variant, NULL, NULL}, 34, 48, 1, 0},
			    58,
			    24,
			    0,
			    NULL,
			    34816,
			    0,
			    0,
			    0};
	F.auto_probe = &smem.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register");
	cr_expect(strstr(p.why, "48 -> 24 resident warps per SM (24 with cp.async's buffers)") !=
			  NULL,
		  "%s", p.why);
	/* without the rewrite's shared memory reported: the original's
	 * warps, as before: cp.async */
	fake_probe2 nosmem = {{{fake_facts, fake_variant, NULL, NULL}, 34, 48, 1, 0},
			      58,
			      24,
			      0,
			      NULL,
			      0,
			      0,
			      0,
			      0};
	F.auto_probe = &nosmem.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "cp-async");
	F.auto_probe = NULL;
}

Test(plan, auto_register_staging_that_halves_the_resident_warps_takes_cp_async)
{
	/* wangzyon's kernels 4 and 5: register staging 128 -> 148 registers,
	 * 16 -> 8 warps per SM, measured 0.953x; cp.async 1.123x */
	kp_loop *l = loop_of_sample("matmul_guarded", 256);
	kp_plan p;
	fake_probe2 halves = {{{fake_facts, fake_variant, NULL, NULL}, 128, 16, 1, 0},
			      148,
			      8,
			      0,
			      NULL,
			      0,
			      0,
			      0,
			      0};
	F.auto_probe = &halves.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "cp-async");
	cr_expect_eq(halves.vasked, 1);
	cr_expect_str_eq(halves.vname, "register");
	cr_expect(strstr(p.why, "register would halve the resident warps (ptxas: 128 -> 148 "
				"registers, 16 -> 8 warps per SM") != NULL,
		  "%s", p.why);
	/* a smaller drop (matmul_ptr_bump: 48 -> 40, register 1.032x against
	 * cp.async's 0.985x) keeps register staging, and says what ptxas said */
	fake_probe2 keeps = {{{fake_facts, fake_variant, NULL, NULL}, 40, 48, 1, 0},
			     44,
			     40,
			     0,
			     NULL,
			     0,
			     0,
			     0,
			     0};
	F.auto_probe = &keeps.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register");
	cr_expect(strstr(p.why, "ptxas: 40 -> 44 registers, 48 -> 40 resident warps") != NULL, "%s",
		  p.why);
	/* a named variant is never second-guessed */
	halves.vasked = 0;
	F.auto_probe = &halves.fp.base;
	plan(&p, l, "sm_90", "register", 0);
	expect_xform(&p, "register");
	cr_expect_eq(halves.vasked, 0);
	F.auto_probe = NULL;
}

/* Two float[64][64] tiles converted from double on their way in (cp.async
 * does not apply), launched in the file: auto's register staging keeps two
 * buffers, which go to 64 KB of dynamic shared memory.  BIG_TILES_SRC(64)
 * with double inputs, the casts and a launch; static storage. */
static const char *converted_big_src(void)
{
	static char buf[2048];
	static const char *const edits[][2] = {
		{"const float *A, const float *B", "const double *A, const double *B"},
		{"= A[", "= (float)A["},
		{"= B[", "= (float)B["},
	};
	const char *src = fits_once_src;
	size_t n = 0;
	while (*src && n + 64 < sizeof(buf)) {
		size_t i = 0;
		for (; i < sizeof(edits) / sizeof(edits[0]); i++)
			if (!strncmp(src, edits[i][0], strlen(edits[i][0])))
				break;
		if (i < sizeof(edits) / sizeof(edits[0])) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", edits[i][1]);
			src += strlen(edits[i][0]);
		} else
			buf[n++] = *src++;
	}
	snprintf(buf + n, sizeof(buf) - n,
		 "void run(const double *A, const double *B, float *C, int N, int K)\n"
		 "{ mmb<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(A, B, C, N, K); }\n");
	return buf;
}

Test(plan, auto_occupancy_check_covers_tiles_moved_to_dynamic_shared_memory)
{
	/* leimao's gemm_v05_vectorized (H100, 2026-12-07): register staging in
	 * 64 KB of dynamic shared memory, 121 -> 147 registers, 16 -> 8 warps
	 * per SM, 0.718x; the check used to skip plans whose tiles moved to
	 * dynamic shared memory, and the loop was rewritten */
	kp_loop *l = loop_of(converted_big_src(), "sm_90");
	cr_assert(strstr(F.src, "(float)B[(k0 + ty) * N + col]"), "%s", F.src);
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 0);
	cr_assert_not_null(p.xform, "%s", p.refuse_msg ? p.refuse_msg : "");
	cr_assert(p.dynamic, "auto planned %s in static shared memory: %s", p.xform->name, p.why);
	long long bytes = p.dyn_bytes;
	fake_probe2 halves = {{{fake_facts, fake_variant, NULL, NULL}, 121, 16, 1, 0},
			      147,
			      8,
			      0,
			      NULL,
			      0,
			      0,
			      0,
			      0};
	F.auto_probe = &halves.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	/* asked about the dynamic rewrite, then about register-2bar (which
	 * halves them too here) */
	cr_expect_eq(halves.vasked, 2, "ptxas asked about the dynamic rewrite and register-2bar");
	cr_expect_eq(halves.vdyn, bytes, "told of its %lld bytes: %lld", bytes, halves.vdyn);
	expect_refused(&p, "kpipe-no-predicted-gain", "would halve the resident warps");
	/* a drop short of half keeps the rewrite and says what ptxas said */
	fake_probe2 keeps = {{{fake_facts, fake_variant, NULL, NULL}, 121, 16, 1, 0},
			     126,
			     16,
			     0,
			     NULL,
			     0,
			     0,
			     0,
			     0};
	F.auto_probe = &keeps.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	cr_assert_not_null(p.xform);
	cr_expect(p.dynamic);
	cr_expect(strstr(p.why, "ptxas: 121 -> 126 registers, 16 -> 16 resident warps") != NULL,
		  "%s", p.why);
	F.auto_probe = NULL;
}

Test(plan, auto_asks_ptxas_about_busy_kernels)
{
	/* int8 dp4a, 31.5 FLOP/B: ptxas's 48 resident warps -> no gain
	 * predicted (measured: every variant 0.95-0.999x) */
	kp_loop *l = loop_of_sample("int8_dp4a", 256);
	kp_plan p;
	fake_probe busy = {{fake_facts, NULL, NULL, NULL}, 40, 48, 1, 0};
	F.auto_probe = &busy.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_refused(&p, "kpipe-no-predicted-gain", "48 resident warps");
	cr_expect_eq(busy.asked, 1);
	/* the same loop with 16 warps (sgemm_128x128x8's count): pipelined */
	fake_probe few = {{fake_facts, NULL, NULL, NULL}, 119, 16, 1, 0};
	F.auto_probe = &few.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
	cr_expect(strstr(p.why, "ptxas: 119 registers, 16 resident warps") != NULL, "%s", p.why);
	/* 32 warps (one 1024-thread block per SM: sgemm_at_bulk register-2bar
	 * 1.393x, wmma_bulk_half register 1.127x): pipelined too */
	fake_probe one_block = {{fake_facts, NULL, NULL, NULL}, 64, 32, 1, 0};
	F.auto_probe = &one_block.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
	cr_expect(strstr(p.why, "ptxas: 64 registers, 32 resident warps per SM (< 48)") != NULL,
		  "%s", p.why);
	/* nvcc failed, or no probe: the rule's choice, called a guess */
	fake_probe failed = {{fake_facts, NULL, NULL, NULL}, 0, 0, 0, 0};
	F.auto_probe = &failed.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
	cr_expect(strstr(p.why, "a guess") && strstr(p.why, "nvcc: error: test"), "%s", p.why);
	F.auto_probe = NULL;
	plan(&p, l, "sm_90", "auto", 0);
	cr_expect(strstr(p.why, "a guess") && strstr(p.why, "nvcc not used"), "%s", p.why);
	/* a named variant is never second-guessed, and a light loop never asks */
	F.auto_probe = &busy.base;
	plan(&p, l, "sm_90", "register", 0);
	expect_xform(&p, "register");
	l = loop_of_sample("matmul_guarded", 256);
	F.auto_probe = &busy.base;
	busy.asked = 0;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register");
	cr_expect_eq(busy.asked, 0);
	F.auto_probe = NULL;
}

/* a busy kernel from 32 warps whose register-staged rewrite costs some of
 * them is left alone (leimao's 07_vec, 113 FLOP/B, 32 -> 24: every
 * version 0.847x-0.865x, H100); one that keeps them is pipelined
 * (sgemm_at_bulk, 32 -> 32: register-2bar 1.393x) */
Test(plan, auto_leaves_a_busy_kernel_alone_where_register_staging_costs_warps)
{
	kp_loop *l = loop_of_sample("int8_dp4a", 256);
	kp_plan p;
	fake_probe2 drops = {{{fake_facts, fake_variant, NULL, NULL}, 64, 32, 1, 0},
			     74,
			     24,
			     0,
			     NULL,
			     0,
			     0,
			     0,
			     0};
	F.auto_probe = &drops.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_refused(&p, "kpipe-no-predicted-gain",
		       "register staging costs resident warps (ptxas: 32 -> 24 per SM");
	cr_expect_eq(drops.vasked, 1);
	fake_probe2 keeps = {{{fake_facts, fake_variant, NULL, NULL}, 64, 32, 1, 0},
			     64,
			     32,
			     0,
			     NULL,
			     0,
			     0,
			     0,
			     0};
	F.auto_probe = &keeps.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
	/* below 32 warps a drop stands (sgemm_128x128x8 keeps 16 of 16; a
	 * kernel at 24 that loses 4 is pipelined) */
	fake_probe2 few = {{{fake_facts, fake_variant, NULL, NULL}, 80, 24, 1, 0},
			   96,
			   20,
			   0,
			   NULL,
			   0,
			   0,
			   0,
			   0};
	F.auto_probe = &few.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
	F.auto_probe = NULL;
}

Test(plan, auto_register_staging_that_halves_the_resident_warps_without_cp_async_is_left_alone)
{
	/* matmul_staged_loader: 1024-thread blocks, 2 -> 1 per SM with every
	 * register variant (0.926x-0.939x on the H200), cp.async not possible
	 * (converted copies): no gain predicted */
	kp_loop *l = loop_of_sample("sgemm_transpose_staged", 256);
	kp_plan p;
	fake_probe2 halves = {{{fake_facts, fake_variant, NULL, NULL}, 32, 64, 1, 0},
			      40,
			      32,
			      0,
			      NULL,
			      0,
			      0,
			      0,
			      0};
	F.auto_probe = &halves.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_refused(&p, "kpipe-no-predicted-gain", "would halve the resident warps");
	cr_expect_eq(halves.vasked, 2, "register, then register-2bar");
	cr_expect_str_eq(halves.vname, "register-2bar");
	cr_expect(strstr(p.refuse_msg, "cp.async, which holds no staging registers, does not "
				       "apply") != NULL,
		  "%s", p.refuse_msg);
	/* register-2bar, one buffer, keeps every warp of the original:
	 * taken (leimao's gemm_v05 float and __half, H100 2026-12-07:
	 * register-2bar 1.341x and 1.011x where register lost 0.926x on
	 * __half) */
	fake_probe2 one_keeps = {{{fake_facts, fake_variant, NULL, NULL}, 32, 24, 1, 0},
				 40,
				 12,
				 0,
				 NULL,
				 0,
				 0,
				 32,
				 24};
	F.auto_probe = &one_keeps.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
	cr_expect_eq(p.stages, 2);
	cr_expect(!p.dynamic);
	/* the warps busy_kernel() weighs are those of the form written */
	cr_expect_eq(p.warps_before, 24);
	cr_expect_eq(p.warps_after, 24);
	cr_expect(strstr(p.why, "register-2bar, whose one buffer keeps them (ptxas: 32 -> 32 "
				"registers, 24 -> 24 warps") != NULL,
		  "%s", p.why);
	/* ... but one that loses some (3 -> 2 blocks: leimao's gemm_v06
	 * vectorized __half, 0.907x) is not */
	fake_probe2 one_loses = {{{fake_facts, fake_variant, NULL, NULL}, 32, 24, 1, 0},
				 40,
				 12,
				 0,
				 NULL,
				 0,
				 0,
				 36,
				 16};
	F.auto_probe = &one_loses.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_refused(&p, "kpipe-no-predicted-gain", "would halve the resident warps");
	/* a smaller drop keeps register staging */
	fake_probe2 keeps = {{{fake_facts, fake_variant, NULL, NULL}, 32, 24, 1, 0},
			     36,
			     16,
			     0,
			     NULL,
			     0,
			     0,
			     0,
			     0};
	F.auto_probe = &keeps.fp.base;
	plan(&p, l, "sm_90", "auto", 0);
	cr_expect_null(p.refuse_id, "%s", p.refuse_msg ? p.refuse_msg : "");
	cr_expect_not_null(p.xform);
	cr_expect(strstr(p.why, "ptxas: 32 -> 36 registers, 24 -> 16 resident warps") != NULL, "%s",
		  p.why);
	F.auto_probe = NULL;
}

/* The one K-loop of REPO/REL (a golden case's kernel), analysed with its
 * __launch_bounds__ or launches. */
static kp_loop *loop_of_file(const char *rel)
{
	const char *root = getenv("KPIPE_SOURCE_DIR");
	release();
	snprintf(SAMPLE_PATH, sizeof(SAMPLE_PATH), "%s/%s", root ? root : ".", rel);
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = "sm_90";
	o.no_compdb = 1;
	cr_assert_eq(kp_parse(&F, SAMPLE_PATH, &o, &ERRMSG), KP_PARSE_OK, "kp_parse %s", rel);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	kp_analyze(&AN, &F, &ao);
	cr_assert_geq(AN.nloops, 1, "%s: no loop", rel);
	return AN.loops[0];
}

#define MMA_LDSM "tests/golden/cases/rewrite-mma_ldmatrix/kernel.cu"

Test(plan, inline_ptx_mma_is_tensor_core_math)
{
	/* mma.sync m16n8k16 in an asm macro: 2*16*8*16/32 = 128 FLOPs per
	 * thread each, 8 per warp tile and k-step (2x4 tiles, BK 16) */
	kp_loop *l = loop_of_file(MMA_LDSM);
	cr_expect_eq(l->math, KP_MATH_HMMA, "%s", kp_math_name(l->math));
	cr_expect_eq(l->flops_thread, 1024.0, "%.1f", l->flops_thread);
	/* integer operands make it IMMA; the FLOPs follow the shape */
	/* integer operands make it IMMA, the FLOPs follow the shape (an
	 * unreadable shape: tensor-core math without FLOPs); the wmma PTX
	 * form counts too, and a .s32 accumulator alone is no IMMA */
	static const struct {
		const char *op;
		kp_math math;
		double flops;
	} mmas[] = {
		{"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", KP_MATH_IMMA,
		 2.0 * 16 * 8 * 32 / 32},
		{"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", KP_MATH_HMMA,
		 2.0 * 16 * 8 * 8 / 32},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", KP_MATH_HMMA,
		 2.0 * 16 * 16 * 16 / 32},
		{"mma.sync.aligned.SHAPE.row.col.f16.f16.f16.f16", KP_MATH_HMMA, 0},
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(mmas); i++) {
		char src[1024];
		snprintf(src, sizeof(src),
			 "__global__ void __launch_bounds__(128) im(const int4 *A, int *C, int K)\n"
			 "{\n"
			 "    __shared__ int4 As[128];\n"
			 "    int acc[4] = {0, 0, 0, 0};\n"
			 "    for (int k0 = 0; k0 < K; k0 += 128) {\n"
			 "        As[threadIdx.x] = A[k0 + threadIdx.x];\n"
			 "        __syncthreads();\n"
			 "        int4 a = As[threadIdx.x ^ 1];\n"
			 "        asm volatile(\"%s {%%0,%%1,%%2,%%3}, {%%4,%%5}, {%%6}, "
			 "{%%0,%%1,%%2,%%3};\\n\"\n"
			 "                     : \"+r\"(acc[0]), \"+r\"(acc[1]), \"+r\"(acc[2]), "
			 "\"+r\"(acc[3])\n"
			 "                     : \"r\"(a.x), \"r\"(a.y), \"r\"(a.z));\n"
			 "        __syncthreads();\n"
			 "    }\n"
			 "    C[threadIdx.x] = acc[0] + acc[1] + acc[2] + acc[3];\n"
			 "}\n",
			 mmas[i].op);
		release();
		l = loop_of(src, "sm_90");
		cr_expect_eq(l->math, mmas[i].math, "%s: %s", mmas[i].op, kp_math_name(l->math));
		cr_expect_eq(l->flops_thread, mmas[i].flops, "%s: %.1f", mmas[i].op,
			     l->flops_thread);
	}
}

/* auto's plan for l with `probe` answering for ptxas (NULL: no nvcc) */
static void plan_probed(kp_plan *p, kp_loop *l, fake_probe *probe, int stages)
{
	F.auto_probe = probe ? &probe->base : NULL;
	plan(p, l, "sm_90", "auto", stages);
	F.auto_probe = NULL;
	cr_assert_not_null(p->xform, "refused: %s", p->refuse_msg ? p->refuse_msg : "");
}

Test(plan, auto_tensor_core_tiles_with_many_resident_warps_take_register_staging)
{
	/* our ldmatrix/mma.sync kernel, 64 registers, 32 warps per SM, no
	 * conflicted read (H100: cp.async 0.912x-0.990x, register 1.087x) */
	kp_loop *l = loop_of_file(MMA_LDSM);
	kp_plan p;
	fake_probe many = {{fake_facts, NULL, NULL, NULL}, 64, 32, 1, 0};
	fake_probe few = {{fake_facts, NULL, NULL, NULL}, 80, 28, 1, 0};
	plan_probed(&p, l, &many, 0);
	cr_expect_str_eq(p.xform->name, "register");
	cr_expect_eq(p.stages, 2);
	cr_expect(strstr(p.why,
			 "tensor-core tiles (HMMA), but ptxas gives the kernel 64 registers, "
			 "32 resident warps per SM (>= 32)") != NULL,
		  "%s", p.why);
	/* 28 warps and fewer (where the ring won): the deepest ring */
	plan_probed(&p, l, &few, 0);
	cr_expect_str_eq(p.xform->name, "cp-async");
	cr_expect_eq(p.stages, 4);
	/* without ptxas the ring stands */
	plan_probed(&p, l, NULL, 0);
	cr_expect_str_eq(p.xform->name, "cp-async");
	cr_expect(strstr(p.why, "tensor-core tiles (HMMA)") != NULL, "%s", p.why);
	/* --stages 3 is never second-guessed */
	plan_probed(&p, l, &many, 3);
	cr_expect_str_eq(p.xform->name, "cp-async");
	cr_expect_eq(p.stages, 3);
}

Test(plan, auto_tensor_core_tiles_with_a_conflicted_read_keep_the_ring)
{
	/* hgemm_wmma_template's fragment reads conflict 8 ways (auto pads
	 * them; LeetCUDA's mma4x2, 64 warps, padded: 4 stages 1.408x against
	 * register 1.249x): the ring even at 32 warps */
	kp_loop *l = loop_of_sample("hgemm_wmma_template", 256);
	kp_plan p;
	fake_probe many = {{fake_facts, NULL, NULL, NULL}, 64, 32, 1, 0};
	plan_probed(&p, l, &many, 0);
	cr_expect_str_eq(p.xform->name, "cp-async");
	cr_expect(strstr(p.why, "tensor-core tiles") != NULL, "%s", p.why);
	cr_expect_geq(many.asked, 1, "ptxas not asked");
}

Test(plan, auto_leaves_a_loop_whose_compute_work_is_not_counted_to_ptxas)
{
	/* matmul_ragged's compute loop runs to min(16, K - k0), a count known
	 * only at run time; eff_dep_compare's math (`T p = a * b; if (..) acc +=
	 * p;`) is none kpipe counts.  At 64 resident warps every variant lost
	 * on the H100 (0.872x-0.970x and 0.889x-0.983x): left alone */
	static const char *const kernels[] = {"matmul_ragged", "eff_dep_compare"};
	static const char *const why[] = {"known only at run time", "no arithmetic kpipe counts"};
	for (size_t i = 0; i < KP_ARRAY_LEN(kernels); i++) {
		kp_loop *l = loop_of_source("tests/cpudiff/kernels", kernels[i], 256);
		cr_expect(l->flops_uncounted, "%s: counted", kernels[i]);
		kp_plan p;
		fake_probe full = {{fake_facts, NULL, NULL, NULL}, 31, 64, 1, 0};
		F.auto_probe = &full.base;
		plan(&p, l, "sm_90", "auto", 0);
		expect_refused(&p, "kpipe-no-predicted-gain", why[i]);
		cr_expect_eq(full.asked, 1, "%s: ptxas asked %d times", kernels[i], full.asked);
		/* fewer than 48 warps: pipelined as before */
		fake_probe few = {{fake_facts, NULL, NULL, NULL}, 31, 40, 1, 0};
		F.auto_probe = &few.base;
		plan(&p, l, "sm_90", "auto", 0);
		expect_xform(&p, "register");
		/* without ptxas the rule's choice stands, as it did */
		F.auto_probe = NULL;
		plan(&p, l, "sm_90", "auto", 0);
		expect_xform(&p, "register");
		cr_expect(!strstr(p.why, "guess"), "%s", p.why);
	}
	/* a counted loop of the same shape is not asked */
	kp_loop *l = loop_of_source("tests/cpudiff/kernels", "eff_pure_bound", 256);
	cr_expect(!l->flops_uncounted);
	fake_probe full = {{fake_facts, NULL, NULL, NULL}, 32, 64, 1, 0};
	F.auto_probe = &full.base;
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 0);
	F.auto_probe = NULL;
	expect_xform(&p, "register");
	cr_expect_eq(full.asked, 0);
}

Test(plan, auto_counts_the_math_of_compute_helpers)
{
	/* `acc += tile_dot(As, Bs, ty, tx)`: the helper's 32 multiply-adds
	 * count (64 FLOPs and the += of the call), compute/load 8.1 FLOP/B;
	 * auto then takes the one-buffer form (H200: register-2bar 1.121x,
	 * register 1.108x) */
	kp_loop *l = loop_of_sample("matmul_compute_helper", 1024);
	cr_expect_eq(l->flops_thread, 65, "%.1f", l->flops_thread);
	cr_expect(!l->flops_uncounted);
	cr_expect_str_eq(kp_math_name(l->math), "FFMA");
	kp_plan p;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register-2bar");
}

Test(plan, auto_leaves_padded_compute_heavy_tiles_alone_from_32_warps)
{
	/* wmma_bulk_half: 42.7 FLOP/B, 2-byte copies (no cp.async), fragment
	 * reads conflicting 8 ways (auto pads them), 32 warps at 1024 threads.
	 * H200: the padded original 2.778x, padded register staging 2.205x:
	 * left alone, padded */
	kp_loop *l = loop_of_sample("wmma_bulk_half", 1024);
	kp_plan p;
	cr_expect(l->ratio >= 20, "%.1f", l->ratio);
	fake_probe one_block = {{fake_facts, NULL, NULL, NULL}, 56, 32, 1, 0};
	F.auto_probe = &one_block.base;
	plan(&p, l, "sm_90", "auto", 0);
	expect_refused(&p, "kpipe-no-predicted-gain", "is padded");
	/* the rewrite plans on the padded text, where the conflicts are gone:
	 * the pad pass's lines say which tiles it padded */
	for (int t = 0; t < l->ntiles; t++)
		cr_expect(l->tiles[t].arr->line > 0);
	int lines[1] = {l->tiles[0].arr->line};
	F.padded_lines = lines;
	F.npadded = 1;
	F.pad_known = 1;
	plan(&p, l, "sm_90", "auto", 0);
	expect_refused(&p, "kpipe-no-predicted-gain", "is padded");
	/* a rewrite that padded nothing (--no-pad): 48 warps needed */
	F.npadded = 0;
	plan(&p, l, "sm_90", "auto", 0);
	expect_xform(&p, "register");
	F.padded_lines = NULL;
	F.pad_known = 0;
	/* 28 warps: pipelined */
	fake_probe fewer = {{fake_facts, NULL, NULL, NULL}, 72, 28, 1, 0};
	F.auto_probe = &fewer.base;
	plan(&p, l, "sm_90", "auto", 0);
	F.auto_probe = NULL;
	expect_xform(&p, "register");
	/* where cp.async applies (the ring, or register staging picked over it,
	 * as sgemm_at_bulk's register-2bar 1.393x at 32 warps) the rule does not:
	 * the padded ring won on LeetCUDA's mma4x2 (1.408x) */
	l = loop_of_sample("sgemm_at_bulk", 1024);
	F.auto_probe = &one_block.base;
	plan(&p, l, "sm_90", "auto", 0);
	F.auto_probe = NULL;
	expect_xform(&p, "register-2bar");
}

/* --- launch-level resources (src/plan/launch_check.c) ----------------------------------- */

/* fp32 32x32 tiles (8 KB) in a kernel that also uses dynamic shared
 * memory; `host` launches it */
static const char *scratch_src(const char *bounds, const char *host)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "#define TS 32\n"
		 "__global__ void %s mms(const float *A, const float *B, float *C, int N, int K)\n"
		 "{\n"
		 "    __shared__ float As[TS][TS];\n"
		 "    __shared__ float Bs[TS][TS];\n"
		 "    extern __shared__ float scratch[];\n"
		 "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		 "    int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;\n"
		 "    float acc = 0.0f;\n"
		 "    for (int k0 = 0; k0 < K; k0 += TS) {\n"
		 "        As[ty][tx] = A[row * K + k0 + tx];\n"
		 "        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
		 "        __syncthreads();\n"
		 "        for (int kk = 0; kk < TS; ++kk)\n"
		 "            acc += As[ty][kk] * Bs[kk][tx];\n"
		 "        __syncthreads();\n"
		 "    }\n"
		 "    scratch[ty * TS + tx] = acc;\n"
		 "    __syncthreads();\n"
		 "    C[row * N + col] = scratch[tx * TS + ty];\n"
		 "}\n"
		 "%s",
		 bounds, host);
	return buf;
}

#define SCRATCH_HOST(stmt)                                                                         \
	"void run(const float *A, const float *B, float *C, int N, int K, size_t bytes,\n"         \
	"         cudaStream_t s)\n{\n"                                                            \
	"    dim3 g(N / TS, N / TS), b(TS, TS);\n"                                                 \
	"    void *args[] = {&A, &B, &C, &N, &K};\n" stmt "\n}\n"

Test(plan, static_plus_dynamic_over_the_static_limit_is_refused)
{
	/* 8 KB of tiles + 40 KB passed: 48 KB; two buffers: 56 KB */
	kp_loop *l = loop_of(
		scratch_src("", SCRATCH_HOST("    mms<<<g, b, 40 * 1024, s>>>(A, B, C, N, K);")),
		"sm_90");
	cr_assert(l->eligible);
	cr_assert_eq(F.launches[0].dyn_smem, 40960);
	kp_plan p;
	for (int v = 0; v < 2; v++) {
		plan(&p, l, "sm_90", v ? "register" : "cp-async", 2);
		expect_refused(&p, "kpipe-smem-over-limit",
			       "the launch at plan.cu:27 passes 40960 B of dynamic shared memory, "
			       "and the rewrite takes 16384 B of static shared memory (8192 B "
			       "before): 57344 B in all, over the 49152 B static limit of sm_90");
	}
	/* one buffer (register-2bar) takes no more than the original */
	plan(&p, l, "sm_90", "register-2bar", 2);
	expect_xform(&p, "register-2bar");
	plan(&p, l, "sm_90", "auto", 0);
	cr_expect(!p.xform || !strcmp(p.xform->name, "register-2bar"));
}

Test(plan, static_plus_dynamic_within_the_limit_is_rewritten)
{
	/* 16 KB passed (a constexpr-like const and sizeof): 32 KB after */
	kp_loop *l = loop_of(
		scratch_src("", "static const size_t kBytes = 16 * 1024;\n" SCRATCH_HOST(
					"    mms<<<g, b, kBytes, s>>>(A, B, C, N, K);\n"
					"    cudaLaunchKernel((const void *)mms, g, b, args, "
					"sizeof(float) * 4096, s);")),
		"sm_90");
	cr_assert_eq(F.nlaunches, 2);
	cr_expect_eq(F.launches[0].dyn_smem, 16384);
	cr_expect_str_eq(F.launches[1].api, "cudaLaunchKernel");
	cr_expect_eq(F.launches[1].dyn_smem, 16384);
	cr_expect(!F.launches[1].editable);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_xform(&p, "cp-async");
}

Test(plan, the_opt_in_attribute_raises_the_limit)
{
	kp_loop *l = loop_of(
		scratch_src("", SCRATCH_HOST(
					"    cudaFuncSetAttribute(mms, "
					"cudaFuncAttributeMaxDynamicSharedMemorySize, 40 * 1024);\n"
					"    mms<<<g, b, 40 * 1024, s>>>(A, B, C, N, K);")),
		"sm_90");
	cr_assert_eq(F.nraises, 1);
	cr_expect_eq(F.raises[0].value, 40960);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_xform(&p, "cp-async");
}

Test(plan, a_dynamic_size_kpipe_cannot_evaluate_is_refused)
{
	static const char *const hosts[] = {
		SCRATCH_HOST("    mms<<<g, b, bytes, s>>>(A, B, C, N, K);"),
		SCRATCH_HOST("    size_t n = 40960;\n    mms<<<g, b, n, s>>>(A, B, C, N, K);"),
		SCRATCH_HOST("    cudaLaunchKernel((const void *)mms, g, b, args, bytes, s);"),
		SCRATCH_HOST(
			"    cudaLaunchCooperativeKernel((const void *)mms, g, b, args, bytes, "
			"s);"),
		SCRATCH_HOST("    cudaLaunchConfig_t cfg = {};\n    cfg.gridDim = g;\n"
			     "    cfg.blockDim = b;\n    cfg.dynamicSmemBytes = bytes;\n"
			     "    cudaLaunchKernelEx(&cfg, mms, A, B, C, N, K);"),
		/* the address taken: what is launched through it is not seen */
		SCRATCH_HOST(
			"    void (*fp)(const float *, const float *, float *, int, int) = mms;\n"
			"    fp<<<g, b, 0, s>>>(A, B, C, N, K);"),
	};
	static const char *const why[] = {
		"cannot evaluate ('bytes')",
		"cannot evaluate ('n')",
		"cannot evaluate ('bytes')",
		"cannot evaluate ('bytes')",
		"cannot evaluate (set in the configuration of cudaLaunchKernelEx)",
		"its address is taken at plan.cu:",
	};
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		kp_loop *l = loop_of(scratch_src("", hosts[i]), "sm_90");
		kp_plan p;
		plan(&p, l, "sm_90", "cp-async", 2);
		expect_refused(&p, "kpipe-smem-over-limit", why[i]);
		release();
	}
}

Test(plan, tiles_cannot_move_to_dynamic_memory_past_a_runtime_api_launch)
{
	/* two 16 KB tiles: two buffers only in dynamic shared memory, and the
	 * cudaLaunchKernel launch (or the address taken) would not pass it */
	expect_no_dynamic(
		big_src(BIG_DECLS,
			"void run(const float *A, const float *B, float *C, int N, int K) {\n"
			"    mmb<<<1, 256>>>(A, B, C, N, K);\n"
			"    void *args[] = {&A, &B, &C, &N, &K};\n"
			"    cudaLaunchKernel((const void *)mmb, 1, 256, args, 0, 0);\n}\n"),
		"is a cudaLaunchKernel call, which kpipe does not edit");
	release();
	expect_no_dynamic(
		big_src(BIG_DECLS,
			"void *table[] = {(void *)mmb};\n"
			"void run(const float *A, const float *B, float *C, int N, int K) {\n"
			"    mmb<<<1, 256>>>(A, B, C, N, K);\n}\n"),
		"'mmb' is named at line 21 outside a <<<>>> launch (its address taken)");
}

/* a K-loop in a __device__ function with 2 KB of tiles; the caller holds
 * `words` floats of its own */
static const char *device_src(int words)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "#define T 16\n"
		 "__device__ float dot(const float *A, const float *B, int N, int K, int row, "
		 "int col)\n"
		 "{\n"
		 "    __shared__ float As[T][T];\n"
		 "    __shared__ float Bs[T][T];\n"
		 "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		 "    float acc = 0.0f;\n"
		 "    for (int k0 = 0; k0 < K; k0 += T) {\n"
		 "        As[ty][tx] = A[row * K + k0 + tx];\n"
		 "        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
		 "        __syncthreads();\n"
		 "        for (int kk = 0; kk < T; ++kk)\n"
		 "            acc += As[ty][kk] * Bs[kk][tx];\n"
		 "        __syncthreads();\n"
		 "    }\n"
		 "    return acc;\n"
		 "}\n"
		 "__global__ void hog(const float *A, const float *B, float *C, int N, int K)\n"
		 "{\n"
		 "    __shared__ float table[%d];\n"
		 "    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;\n"
		 "    table[threadIdx.x] = 1.0f;\n"
		 "    __syncthreads();\n"
		 "    C[row * N + col] = dot(A, B, N, K, row, col) + table[col %% %d];\n"
		 "}\n",
		 words, words);
	return buf;
}

Test(plan, a_device_k_loop_counts_its_callers_shared_memory)
{
	kp_loop *l = loop_of(device_src(46 * 256), "sm_90");
	cr_assert(l->kernel->is_device);
	cr_assert_eq(l->kernel->ncallers, 1);
	kp_plan p;
	plan(&p, l, "sm_90", "register", 2);
	expect_refused(
		&p, "kpipe-smem-over-limit",
		"its caller 'hog' (line 18) holds 47104 B of static shared memory of its own "
		"and the function's 4096 B (2048 B before): 51200 B, over the 49152 B");
	release();
	l = loop_of(device_src(8 * 256), "sm_90");
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
}

/* a fake ptxas: the original's and the rewrite's registers */
typedef struct {
	kp_auto_probe base;
	int oregs, vregs, ecompile;
} regs_probe;

static int regs_facts(const kp_auto_probe *self, const kp_file *f, const kp_loop *l,
		      const kp_arch *a, kp_auto_facts *out)
{
	(void)f, (void)l, (void)a;
	const regs_probe *p = (const regs_probe *)self;
	memset(out, 0, sizeof(*out));
	out->regs = p->oregs;
	out->warps = 32;
	out->threads = 1024;
	return 1;
}

static int regs_variant(const kp_auto_probe *self, kp_file *f, const kp_loop *l, const kp_arch *a,
			const kp_transform *t, int stages, long long dyn_bytes, kp_auto_facts *out)
{
	(void)f, (void)l, (void)a, (void)t, (void)stages, (void)dyn_bytes;
	const regs_probe *p = (const regs_probe *)self;
	memset(out, 0, sizeof(*out));
	if (p->ecompile) {
		out->why = "nvcc: rewrite.cu(12): error: static assertion failed";
		out->compile_error = 1;
		return 0;
	}
	out->regs = p->vregs;
	out->warps = 32;
	out->threads = 1024;
	return 1;
}

Test(plan, registers_past_what_1024_threads_allow_are_refused)
{
	/* no launch, no __launch_bounds__: up to 1024 threads, 64 registers */
	kp_loop *l = loop_of(float_src, "sm_90");
	regs_probe rp = {{regs_facts, regs_variant, NULL, NULL}, 64, 74, 0};
	F.auto_probe = &rp.base;
	kp_plan p;
	plan(&p, l, "sm_90", "register", 2);
	expect_refused(
		&p, "kpipe-registers-over-limit",
		"the rewrite takes 'mm' from 64 to 74 registers per thread (ptxas), and with "
		"a block size kpipe does not know (up to 1024 threads) and no "
		"__launch_bounds__ a block may use at most 64");
	/* within the 64 */
	rp.vregs = 64;
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	cr_expect_null(p.unchecked);
	/* without ptxas the check cannot run, and says so */
	F.auto_probe = NULL;
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	cr_assert_not_null(p.unchecked);
	cr_expect(strstr(p.unchecked, "registers per thread not checked") != NULL, "%s",
		  p.unchecked);
	release();
	/* __launch_bounds__(1024): ptxas keeps the rewrite within 64 */
	l = loop_of(scratch_src("__launch_bounds__(1024)", ""), "sm_90");
	rp.vregs = 74;
	F.auto_probe = &rp.base;
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	release();
	/* a known block of 256 threads may use 255 registers */
	l = loop_of(scratch_src("", SCRATCH_HOST("    mms<<<g, 256, 0, s>>>(A, B, C, N, K);")),
		    "sm_90");
	F.auto_probe = &rp.base;
	plan(&p, l, "sm_90", "register", 2);
	expect_xform(&p, "register");
	cr_expect_null(p.unchecked);
}

Test(plan, a_compiler_error_in_the_probe_stops_the_output)
{
	kp_loop *l = loop_of(float_src, "sm_90");
	regs_probe rp = {{regs_facts, regs_variant, NULL, NULL}, 64, 74, 1};
	F.auto_probe = &rp.base;
	kp_plan p;
	plan(&p, l, "sm_90", "register", 2);
	expect_refused(&p, "kpipe-compiler-error", "static assertion failed");
	cr_expect(p.fatal);
	/* --variant auto asks the same probe about register staging */
	plan(&p, l, "sm_90", "auto", 0);
	expect_refused(&p, "kpipe-compiler-error", "static assertion failed");
	cr_expect(p.fatal);
}

Test(plan, copies_of_dynamic_tiles_past_the_opt_in_limit_are_refused)
{
	/* 120 KB passed, two copies: 240 KB, over sm_90's 227 KB opt-in
	 * limit; 64 KB: 128 KB, within it */
	kp_loop *l = loop_of(extern_src("    float *As = sm;\n    float *Bs = &sm[T * T];\n",
					"void run(const float *A, const float *B, float *C, int N, "
					"int K) { mme<<<1, dim3(16, 16), 120 * 1024>>>(A, B, C, N, "
					"K); }\n"),
			     "sm_90");
	cr_assert(l->dyn_tiles);
	kp_plan p;
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_refused(&p, "kpipe-smem-over-limit",
		       "passes 122880 B of dynamic shared memory, and 2 copies of it");
	release();
	l = loop_of(extern_src("    float *As = sm;\n    float *Bs = &sm[T * T];\n",
			       "void run(const float *A, const float *B, float *C, int N, "
			       "int K) { mme<<<1, dim3(16, 16), 64 * 1024>>>(A, B, C, N, K); }\n"),
		    "sm_90");
	plan(&p, l, "sm_90", "cp-async", 2);
	expect_xform(&p, "cp-async");
}
