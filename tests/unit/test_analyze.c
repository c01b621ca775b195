/*
 * test_analyze.c - kp_parse + kp_analyze on small in-memory kernels: the
 * facts found for a minimal eligible 16x16 tiled matmul (loop, induction,
 * copies, tiles, math, variants), one near miss per legality id with the
 * exact id and its position (and the shapes of tests/mutants that once
 * slipped through), parse errors, template instantiations, and
 * tile sizes from constexpr variables and -D, the for-statement slots
 * (a ';' in a comment or string of the header, absent parts) and the copy
 * loops read as counted loops (trip counts, register staging's text).
 *
 * Sources are parsed from memory (kp_parse_opts.contents) under a path
 * ending in .cu, for sm_90.  Every snippet is the same kernel with one
 * thing changed, so the line numbers below count from its layout:
 *   1 #define TILE 16        (+ extra lines of `defs`)
 *   2 __global__ void mm(...)
 *   3 {
 *   4     __shared__ float As...
 *   5     __shared__ float Bs...  (+ extra lines of `extra`)
 *   6     int tx, ty
 *   7     int row, col
 *   8     float acc
 *   9     for (int k0 = 0; k0 < K; k0 += TILE) {
 *  10         As[ty][tx] = A[...];
 *  11         Bs[ty][tx] = B[...];
 *  12         __syncthreads();
 *  13         for (int kk ...)
 *  14             acc += As[ty][kk] * Bs[kk][tx];
 *  15         __syncthreads();
 *  16     }
 *  17     C[row * N + col] = acc;
 *  18 }
 */
#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "plan.h"
#include "transform.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- sources -------------------------------------------------------------- */

#define HEAD_X(defs, aty, as_dims, bs_dims, extra)                                                 \
	"#define TILE 16\n" defs "__global__ void mm(" aty                                         \
	" *A, const float *B, float *C, int N, int K)\n"                                           \
	"{\n"                                                                                      \
	"    __shared__ float As" as_dims ";\n"                                                    \
	"    __shared__ float Bs" bs_dims ";\n" extra                                              \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"                    \
	"    float acc = 0.0f;\n"
#define HEAD HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]", "")

#define FOR "    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
#define LOAD_A "        As[ty][tx] = A[row * K + k0 + tx];\n"
#define LOAD_B "        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
#define LOAD LOAD_A LOAD_B
#define SYNC "        __syncthreads();\n"
#define COMP                                                                                       \
	"        for (int kk = 0; kk < TILE; ++kk)\n"                                              \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
#define END "    }\n"
#define TAIL                                                                                       \
	"    C[row * N + col] = acc;\n"                                                            \
	"}\n"

#define ELIGIBLE HEAD FOR LOAD SYNC COMP SYNC END TAIL

/* --- parsing ---------------------------------------------------------------- */

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

static int parse_as(const char *path, const char *src, const char *arch, const char **args,
		    int nargs)
{
	memset(&F, 0, sizeof(F));
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = arch;
	o.contents = src;
	o.contents_len = strlen(src);
	o.args = args;
	o.nargs = nargs;
	o.no_compdb = 1;
	free(ERRMSG);
	ERRMSG = NULL;
	return kp_parse(&F, path, &o, &ERRMSG);
}

static void print_diags(void)
{
	for (int i = 0; i < F.ndiags; i++)
		cr_log_info("%s:%d:%d: %s: %s", F.diags[i].file, F.diags[i].line, F.diags[i].col,
			    F.diags[i].severity, F.diags[i].message);
}

/* Parses and analyses `src` (asserting a clean parse); the analysis is in AN. */
static void analyze_args(const char *src, const char *arch, const char **args, int nargs,
			 int threads)
{
	int rc = parse_as("snippet.cu", src, arch, args, nargs);
	if (rc != KP_PARSE_OK)
		print_diags();
	cr_assert_eq(rc, KP_PARSE_OK, "kp_parse: %d (%s)", rc, ERRMSG ? ERRMSG : "compile errors");
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find(arch);
	cr_assert_not_null(ao.arch);
	ao.threads = threads;
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
}

static void analyze_src(const char *src) { analyze_args(src, "sm_90", NULL, 0, 0); }

static kp_loop *only_loop(void)
{
	cr_assert_eq(AN.nloops, 1, "expected 1 candidate loop, found %d", AN.nloops);
	return AN.loops[0];
}

static const kp_reason *find_reason(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return &l->reasons[i];
	return NULL;
}

static void log_reasons(const kp_loop *l)
{
	for (int i = 0; i < l->nreasons; i++)
		cr_log_info("  %d:%d %s [%s]", l->reasons[i].line, l->reasons[i].col,
			    l->reasons[i].message, l->reasons[i].id);
}

TestSuite(analyze, .fini = release);
TestSuite(analyze_sizes, .fini = release);
TestSuite(parse, .fini = release);

/* --- the eligible kernel ----------------------------------------------------- */

/* Checks everything the minimal 16x16 kernel must yield. */
static void check_eligible_16x16(const kp_loop *l, const char *kernel)
{
	log_reasons(l);
	cr_expect(l->eligible, "the 16x16 kernel should be eligible");
	cr_expect_eq(l->nreasons, 0);
	cr_expect_str_eq(l->kernel->name, kernel);
	cr_expect_eq(l->index, 1);
	cr_expect_eq(l->node->line, 9);
	cr_expect_eq(l->node->col, 5);
	cr_expect_eq(l->nbarriers, 2);
	cr_expect_eq(l->form, KP_FORM_BOTTOM);
	cr_expect(l->bar1 >= 0 && l->bar2 > l->bar1);
	cr_expect_eq(l->already_pipelined, 0);
	/* induction */
	cr_assert_eq(l->nind, 1);
	cr_expect_str_eq(l->ind[0].var->name, "k0");
	cr_expect_eq(l->ind[0].sign, 1);
	cr_expect_eq(l->ind[0].in_header, 1);
	cr_expect_eq(l->ind[0].is_pointer, 0);
	cr_expect_eq(l->tile_count, 0);
	/* copies */
	cr_assert_eq(l->nloads, 2);
	cr_expect_str_eq(l->loads[0].tile->name, "As");
	cr_expect_str_eq(l->loads[1].tile->name, "Bs");
	cr_assert_not_null(l->loads[0].src);
	cr_assert_not_null(l->loads[1].src);
	cr_expect_str_eq(l->loads[0].src->name, "A");
	cr_expect_str_eq(l->loads[1].src->name, "B");
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(l->loads[i].bytes, 4);
		cr_expect_eq(l->loads[i].vector, 1);
		cr_expect_eq(l->loads[i].guard, KP_G_NONE);
		cr_expect(l->loads[i].pure);
		cr_expect_eq(l->loads[i].depth, 0);
		cr_expect_eq(l->loads[i].line, 10 + i);
	}
	cr_expect_eq(l->loads_in_helper, 0);
	/* tiles */
	cr_expect_eq(l->ntiles, 2);
	for (int i = 0; i < l->ntiles; i++) {
		cr_expect(l->tiles[i].loaded);
		cr_expect_eq(l->tiles[i].elems, 256);
		cr_expect_eq(l->tiles[i].bytes, 1024);
		cr_expect_eq(l->tiles[i].in_loop, 0);
	}
	cr_expect_eq(l->tile_bytes, 2048);
	cr_expect_eq(l->other_smem, 0);
	/* math: 16 multiply-adds per tile, 2 FLOP each */
	cr_expect_eq(l->math, KP_MATH_FFMA);
	cr_expect_str_eq(kp_math_name(l->math), "FFMA");
	cr_expect(l->flops_thread > 31.9 && l->flops_thread < 32.1, "flops %g", l->flops_thread);
	/* variants */
	cr_expect(CP(l).ok, "cp.async: %s", CP(l).why_not ? CP(l).why_not : "");
	cr_expect(RG(l).ok, "register: %s", RG(l).why_not ? RG(l).why_not : "");
	cr_expect_eq(RG(l).regs, 2);
}

Test(analyze, eligible_16x16)
{
	analyze_src(ELIGIBLE);
	cr_expect_eq(AN.nkernels, 1);
	kp_loop *l = only_loop();
	check_eligible_16x16(l, "mm");
	cr_expect_str_eq(l->ind[0].step, "TILE");
	cr_expect_null(l->inst);
	/* no thread count known: no per-tile FLOP, no ratio */
	cr_expect_eq(l->threads, 0);
	cr_expect(l->ratio < 0);
}

Test(analyze, threads_give_the_ratio)
{
	analyze_args(ELIGIBLE, "sm_90", NULL, 0, 256);
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_expect_eq(l->threads, 256);
	cr_expect_str_eq(l->threads_from, "--threads");
	/* 32 FLOP x 256 threads / 2048 B */
	cr_expect(l->flops_tile > 8191.9 && l->flops_tile < 8192.1, "%g", l->flops_tile);
	cr_expect(l->ratio > 3.99 && l->ratio < 4.01, "%g", l->ratio);
}

Test(analyze, launch_bounds_give_the_threads)
{
	/* the same kernel, with __launch_bounds__ */
	static const char src[] =
		"#define TILE 16\n"
		"__global__ void __launch_bounds__(256) mm(const float *A, const float *B, float *C, "
		"int N, int K)\n"
		"{\n"
		"    __shared__ float As[TILE][TILE];\n"
		"    __shared__ float Bs[TILE][TILE];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
		"    float acc = 0.0f;\n" FOR LOAD SYNC COMP SYNC END TAIL;
	analyze_src(src);
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_expect_eq(l->kernel->launch_bounds, 256);
	cr_expect_eq(l->threads, 256);
	cr_expect_str_eq(l->threads_from, "__launch_bounds__");
}

/* __launch_bounds__'s argument evaluated (it was read with atoi, so a
 * name gave 0 and the analysis assumed 256 threads): constexpr and static
 * constexpr variables, #defines, enumerators and -D; a template parameter,
 * a name with two values or a call leave it unknown. */
struct lb_case {
	char defs[160]; /* before the kernel (after #define TILE 16) */
	char bound[64]; /* the attribute's arguments */
	char targ[24];  /* a -D argument, or "" */
	int expected;   /* kp_kernel.launch_bounds */
};

ParameterizedTestParameters(analyze, launch_bounds_expressions)
{
	static struct lb_case params[] = {
		{"constexpr int BLOCK = 16;\n", "BLOCK * BLOCK", "", 256},
		{"constexpr int BLOCK = 32;\n", "BLOCK * BLOCK", "", 1024},
		{"static constexpr int BLOCK = 32;\n", "BLOCK * BLOCK, 1", "", 1024},
		{"#define T 32\n", "T * T", "", 1024},
		{"#define T 16\n#define NT (T * T / 2)\n", "NT", "", 128},
		{"namespace cfg { constexpr unsigned W = 8; }\nusing namespace cfg;\n", "W * 32u",
		 "", 256},
		{"enum { WARPS = 4 };\n", "WARPS << 5", "", 128},
		{"", "NT", "-DNT=64", 64},
		{"", "(256)", "", 256},
		/* not known: two values, not a plain name */
		{"#define NT 128\n", "NT", "-DNT=256", 0},
		{"#ifdef BIG\n#define NT 512\n#else\n#define NT 128\n#endif\n", "NT", "", 0},
		{"__host__ __device__ constexpr int nt() { return 128; }\n", "nt()", "", 0},
		{"namespace a { constexpr int NT = 64; }\nnamespace b { constexpr int NT = 128; }\n"
		 "using namespace b;\n",
		 "b::NT", "", 0},
	};
	return cr_make_param_array(struct lb_case, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct lb_case *p, analyze, launch_bounds_expressions, .fini = release)
{
	char src[2048];
	snprintf(src, sizeof(src),
		 "#define TILE 16\n%s"
		 "__global__ void __launch_bounds__(%s) mm(const float *A, const float *B, "
		 "float *C, int N, int K)\n"
		 "{\n"
		 "    __shared__ float As[TILE][TILE];\n"
		 "    __shared__ float Bs[TILE][TILE];\n"
		 "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		 "    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
		 "    float acc = 0.0f;\n" FOR LOAD SYNC COMP SYNC END TAIL,
		 p->defs, p->bound);
	const char *args[] = {p->targ};
	int rc = parse_as("snippet.cu", src, "sm_90", args, p->targ[0] ? 1 : 0);
	if (rc != KP_PARSE_OK)
		print_diags();
	cr_assert_eq(rc, KP_PARSE_OK, "%s", src);
	cr_assert_eq(F.nkernels, 1);
	cr_expect_eq(F.kernels[0]->launch_bounds, p->expected,
		     "__launch_bounds__(%s) with %s%s: %d", p->bound, p->defs, p->targ,
		     F.kernels[0]->launch_bounds);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	kp_loop *l = only_loop();
	cr_expect_eq(l->threads, p->expected);
	if (p->expected)
		cr_expect_str_eq(l->threads_from, "__launch_bounds__");
}

/* A template kernel's bound that names a parameter is not one number. */
Test(analyze_sizes, template_launch_bounds_unknown)
{
	static const char src[] =
		"template <int T>\n"
		"__global__ void __launch_bounds__(T * T) k(const float *A, const float *B, float *C, "
		"int N, int K)\n"
		"{\n"
		"    __shared__ float As[T][T];\n"
		"    __shared__ float Bs[T][T];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < K; k0 += T) {\n" LOAD SYNC
		"        for (int kk = 0; kk < T; ++kk)\n"
		"            acc += As[ty][kk] * Bs[kk][tx];\n" SYNC END TAIL
		"constexpr int T = 32;\n"
		"template __global__ void k<16>(const float *, const float *, float *, int, int);\n";
	analyze_src(src);
	cr_assert_eq(F.nkernels, 1);
	cr_expect_eq(F.kernels[0]->launch_bounds, 0);
}

Test(analyze, budget_rows)
{
	analyze_src(ELIGIBLE);
	kp_loop *l = only_loop();
	const kp_arch *a = kp_arch_find("sm_90");
	kp_budget b;
	kp_loop_budget(l, a, 2, &b);
	cr_expect_eq(b.stages, 2);
	cr_expect_eq(b.bytes, 4096);
	cr_expect(b.fits_static);
	cr_expect(b.fits_optin);
	kp_loop_budget(l, a, 4, &b);
	cr_expect_eq(b.bytes, 8192);
}

Test(analyze, kernel_filter)
{
	static const char src[] = ELIGIBLE "__global__ void other(float *p) { p[0] = 1.0f; }\n";
	int rc = parse_as("snippet.cu", src, "sm_90", NULL, 0);
	cr_assert_eq(rc, KP_PARSE_OK);
	cr_expect_eq(F.nkernels, 2);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	ao.kernel = "other";
	kp_analyze(&AN, &F, &ao);
	cr_expect_eq(AN.nkernels, 1);
	cr_expect_eq(AN.nloops, 0);
	ao.kernel = "mm";
	kp_analyze(&AN, &F, &ao);
	cr_expect_eq(AN.nkernels, 1);
	cr_expect_eq(AN.nloops, 1);
	ao.kernel = NULL;
	kp_analyze(&AN, &F, &ao);
	cr_expect_eq(AN.nkernels, 2);
	cr_expect_eq(AN.nloops, 1);
}

Test(analyze, no_loop_no_candidate)
{
	analyze_src("__global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }\n");
	cr_expect_eq(AN.nkernels, 1);
	cr_expect_eq(AN.nloops, 0);
}

Test(analyze, host_code_is_not_a_kernel)
{
	analyze_src("void host(float *p, int n) { for (int i = 0; i < n; ++i) p[i] = 0; }\n"
		    "__device__ float dev(float x) { return x * 2.0f; }\n");
	cr_expect_eq(F.nkernels, 0);
	cr_expect_eq(AN.nloops, 0);
}

/* --- one near miss per legality id ------------------------------------------- */

static const char *const near_src[] = {
	/* 0 kpipe-divergent-barrier */
	HEAD FOR LOAD "        if (threadIdx.x < 8)\n"
		      "            __syncthreads();\n" COMP SYNC END TAIL,
	/* 1 kpipe-no-barrier: copies to shared, no barrier at all */
	HEAD FOR LOAD COMP END TAIL,
	/* 2 kpipe-compute-writes-tile */
	HEAD FOR LOAD SYNC COMP "        As[ty][tx] = acc;\n" SYNC END TAIL,
	/* 3 kpipe-smem-carried: a shared array the compute updates and the
	 * next tile's loads read */
	HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]",
	       "    __shared__ float sum[TILE];\n") FOR
	"        As[ty][tx] = A[row * K + k0 + tx] * sum[tx];\n" LOAD_B SYNC COMP
	"        sum[tx] += acc;\n" SYNC END TAIL,
	/* 4 kpipe-load-depends-on-compute: the address uses the accumulator */
	HEAD FOR
	"        As[ty][tx] = A[row * K + k0 + tx + (int)acc];\n" LOAD_B SYNC COMP SYNC END TAIL,
	/* 5 kpipe-memory-order: atomicAdd in the loop */
	HEAD FOR LOAD SYNC COMP "        atomicAdd(&C[row], acc);\n" SYNC END TAIL,
	/* 6 kpipe-memory-order: a store through the pointer the loads read */
	HEAD_X("", "float", "[TILE][TILE]", "[TILE][TILE]", "") FOR LOAD SYNC COMP
	"        A[row * K + k0 + tx] = acc;\n" SYNC END TAIL,
	/* 7 kpipe-already-pipelined */
	"#include <cuda_pipeline.h>\n" HEAD FOR
	"        __pipeline_memcpy_async(&As[ty][tx], &A[row * K + k0 + tx], 4);\n"
	"        __pipeline_memcpy_async(&Bs[ty][tx], &B[(k0 + ty) * N + col], 4);\n"
	"        __pipeline_commit();\n"
	"        __pipeline_wait_prior(0);\n" SYNC COMP SYNC END TAIL,
	/* 8 kpipe-partial-tile-write: a copy without else under a guard that
	 * changes from tile to tile */
	HEAD FOR "        if (k0 + tx < K)\n"
		 "            As[ty][tx] = A[row * K + k0 + tx];\n" LOAD_B SYNC COMP SYNC END TAIL,
	/* 9 kpipe-tile-read-after-loop: the tile read after the loop inside a
	 * macro body, which no edit can index with the last tile's stage (a
	 * read spelled in the source is accepted: test_last_tile.c) */
	"#define AT0 As[0][tx]\n" HEAD FOR LOAD SYNC COMP SYNC END "    acc += AT0;\n" TAIL,
	/* 10 (eligible: the plan checks the limit) two float[96][96] (72 KB, 144 KB doubled) */
	HEAD_X("", "const float", "[96][96]", "[96][96]", "") FOR LOAD SYNC COMP SYNC END TAIL,
	/* 11 (eligible: the plan checks the limit) two float[64][64] fit once (32 KB), not twice */
	HEAD_X("", "const float", "[64][64]", "[64][64]", "") FOR LOAD SYNC COMP SYNC END TAIL,
	/* 12 kpipe-load-in-helper */
	HEAD_X("__device__ void fill(float (*t)[TILE], const float *p, int ty, int tx) "
	       "{ t[ty][tx] = p[tx]; }\n",
	       "const float", "[TILE][TILE]", "[TILE][TILE]", "") FOR
	"        fill(As, A + row * K + k0, ty, tx);\n" LOAD_B SYNC COMP SYNC END TAIL,
	/* 13 kpipe-loop-shape: a while loop */
	HEAD "    int k0 = 0;\n"
	     "    while (k0 < K) {\n" LOAD SYNC COMP SYNC "        k0 += TILE;\n" END TAIL,
	/* 14 kpipe-load-decl-used-later: a local of the load phase the compute
	 * reads, whose value is no pure function (clock()): no tile value */
	HEAD FOR "        int off = k0 + tx + (int)(clock() & 1);\n"
		 "        As[ty][tx] = A[row * K + off];\n" LOAD_B SYNC COMP
		 "        acc += off;\n" SYNC END TAIL,
	/* 15 kpipe-macro-array: the tile used inside a macro body */
	HEAD_X("#define AS(i, j) As[i][j]\n", "const float", "[TILE][TILE]", "[TILE][TILE]", "")
		FOR LOAD SYNC "        for (int kk = 0; kk < TILE; ++kk)\n"
			      "            acc += AS(ty, kk) * Bs[kk][tx];\n" SYNC END TAIL,
	/* 16 kpipe-loop-shape: a for loop with no increment */
	HEAD "    int k0 = 0;\n"
	     "    for (; k0 < K;) {\n" LOAD SYNC COMP SYNC "        k0 += TILE;\n" END TAIL,
	/* 17 kpipe-memory-order: __threadfence in the loop */
	HEAD FOR LOAD SYNC COMP "        __threadfence();\n" SYNC END TAIL,
	/* 18 kpipe-no-barrier: the closing barrier removed (legality mutant) */
	HEAD FOR LOAD SYNC COMP END TAIL,
	/* 19 kpipe-no-barrier: the barrier after the copies removed */
	HEAD FOR LOAD COMP SYNC END TAIL,
	/* 20 kpipe-no-barrier: guarded copies and no barrier: still a candidate */
	HEAD FOR "        As[ty][tx] = row < N ? A[row * K + k0 + tx] : 0.0f;\n"
		 "        Bs[ty][tx] = col < N ? B[(k0 + ty) * N + col] : 0.0f;\n" COMP END TAIL,
	/* 21 kpipe-memory-order: the store to A comes after one to the output */
	HEAD_X("", "float", "[TILE][TILE]", "[TILE][TILE]", "") FOR LOAD SYNC COMP
	"        C[row * N + col] = acc;\n"
	"        A[row * K + k0 + tx] = acc;\n" SYNC END TAIL,
	/* 22 kpipe-load-depends-on-compute: the accumulator is written through a
	 * reference parameter (as wmma::mma_sync writes its fragment) */
	HEAD_X("__device__ void mac(float &s, float a, float b) { s += a * b; }\n", "const float",
	       "[TILE][TILE]", "[TILE][TILE]", "") FOR
	"        As[ty][tx] = A[row * K + k0 + tx + ((int)acc & 1)];\n" LOAD_B SYNC
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            mac(acc, As[ty][kk], Bs[kk][tx]);\n" SYNC END TAIL,
	/* 23 kpipe-loop-shape: a per-tile partial sum whose accumulator the
	 * loads read: then it is a bump, and its step changes */
	HEAD FOR "        As[ty][tx] = A[row * K + k0 + tx + ((int)acc & 1)];\n" LOAD_B SYNC
		 "        float v = 0.0f;\n"
		 "        for (int kk = 0; kk < TILE; ++kk)\n"
		 "            v += As[ty][kk] * Bs[kk][tx];\n"
		 "        acc += v;\n" SYNC END TAIL,
	/* 24 kpipe-loop-shape: the same accumulator read by the condition */
	HEAD "    for (int k0 = 0; k0 < K && acc < 1e30f; k0 += TILE) {\n" LOAD SYNC
	     "        float v = 0.0f;\n"
	     "        for (int kk = 0; kk < TILE; ++kk)\n"
	     "            v += As[ty][kk] * Bs[kk][tx];\n"
	     "        acc += v;\n" SYNC END TAIL,
	/* 25 kpipe-load-decl-used-later: a temporary holding A's element is
	 * also read by the compute phase (which would see the next tile's) */
	HEAD FOR "        float a = A[row * K + k0 + tx];\n"
		 "        As[ty][tx] = a;\n" LOAD_B SYNC COMP "        acc += a;\n" SYNC END TAIL,
};

/* Parameters are copied into a freshly exec'd worker: strings inline. */
struct near_miss {
	int src;       /* index into near_src */
	char id[40];   /* the legality id that must be reported */
	int line, col; /* where (0: not checked) */
	char msg[48];  /* a piece of the message (empty: not checked) */
};

ParameterizedTestParameters(analyze, near_miss)
{
	static struct near_miss params[] = {
		{0, "kpipe-divergent-barrier", 13, 13, "__syncthreads()"},
		{1, "kpipe-no-barrier", 9, 5, ""},
		{2, "kpipe-compute-writes-tile", 9, 5, "'As'"},
		{3, "kpipe-smem-carried", 16, 9, "'sum'"},
		{4, "kpipe-load-depends-on-compute", 9, 5, "'acc'"},
		{5, "kpipe-memory-order", 15, 9, "atomicAdd"},
		{6, "kpipe-memory-order", 15, 9, "stores to 'A'"},
		{7, "kpipe-already-pipelined", 11, 9, "__pipeline_memcpy_async"},
		{8, "kpipe-partial-tile-write", 10, 9, "'As'"},
		{9, "kpipe-tile-read-after-loop", 18, 12, "'As'"},
		{12, "kpipe-load-in-helper", 11, 9, "'fill'"},
		{13, "kpipe-loop-shape", 10, 5, "for-loop"},
		{14, "kpipe-load-decl-used-later", 9, 5, "'off'"},
		{15, "kpipe-macro-array", 15, 20, "macro body"},
		{16, "kpipe-loop-shape", 10, 5, "increment"},
		{17, "kpipe-memory-order", 15, 9, "__threadfence"},
		{18, "kpipe-no-barrier", 9, 5, "only one"},
		{19, "kpipe-no-barrier", 9, 5, "only one"},
		{20, "kpipe-no-barrier", 9, 5, "no __syncthreads()"},
		{21, "kpipe-memory-order", 16, 9, "stores to 'A'"},
		{22, "kpipe-load-depends-on-compute", 10, 5, "'acc'"},
		{23, "kpipe-loop-shape", 16, 9, "the step of 'acc' uses 'v'"},
		{24, "kpipe-loop-shape", 16, 9, "the step of 'acc' uses 'v'"},
		{25, "kpipe-load-decl-used-later", 9, 5, "'a' holds a value the load phase reads"},
	};
	return cr_make_param_array(struct near_miss, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct near_miss *p, analyze, near_miss, .fini = release)
{
	cr_assert(p->src >= 0 && (size_t)p->src < sizeof(near_src) / sizeof(near_src[0]));
	analyze_src(near_src[p->src]);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible, "case %d (%s) should not be eligible", p->src, p->id);
	const kp_reason *r = find_reason(l, p->id);
	cr_assert_not_null(r, "case %d: no [%s] among %d reasons", p->src, p->id, l->nreasons);
	if (p->line) {
		cr_expect_eq(r->line, p->line, "case %d [%s]: line %d, expected %d", p->src, p->id,
			     r->line, p->line);
		cr_expect_eq(r->col, p->col, "case %d [%s]: column %d, expected %d", p->src, p->id,
			     r->col, p->col);
	}
	if (p->msg[0])
		cr_expect(strstr(r->message, p->msg) != NULL,
			  "case %d [%s]: message '%s' lacks '%s'", p->src, p->id, r->message,
			  p->msg);
	/* every reason has a message and a position */
	for (int i = 0; i < l->nreasons; i++) {
		cr_expect(l->reasons[i].message && l->reasons[i].message[0]);
		cr_expect_gt(l->reasons[i].line, 0);
		cr_expect_gt(l->reasons[i].col, 0);
		/* one entry per id */
		for (int j = 0; j < i; j++)
			cr_expect(strcmp(l->reasons[i].id, l->reasons[j].id), "[%s] twice",
				  l->reasons[i].id);
	}
}

/* A per-tile partial sum added to the accumulator, in the compute phase or
 * after the closing barrier, is compute: the loads do not read `acc`, so
 * `acc += v` is no bump (it was taken for one, whose step `v` changes). */
Test(analyze, partial_sum_is_not_a_bump)
{
	static const char *const srcs[] = {
		HEAD FOR LOAD SYNC "        float v = 0.0f;\n"
				   "        for (int kk = 0; kk < TILE; ++kk)\n"
				   "            v += As[ty][kk] * Bs[kk][tx];\n"
				   "        acc += v;\n" SYNC END TAIL,
		HEAD FOR LOAD SYNC "        float v = 0.0f;\n"
				   "        for (int kk = 0; kk < TILE; ++kk)\n"
				   "            v += As[ty][kk] * Bs[kk][tx];\n" SYNC
				   "        acc += v;\n" END TAIL,
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(srcs); i++) {
		analyze_src(srcs[i]);
		kp_loop *l = only_loop();
		log_reasons(l);
		cr_expect(l->eligible, "case %zu", i);
		cr_expect_eq(l->nind, 1, "case %zu: %d induction variables", i, l->nind);
		cr_expect_str_eq(l->ind[0].var->name, "k0");
		cr_expect(CP(l).ok);
		cr_expect(RG(l).ok);
		release();
	}
}

/* A copy through a temporary of the load phase is the copy of the
 * temporary's value (it was "the stored value is not a plain global
 * load"): initialised or assigned, guarded or not, with other statements
 * in between that leave the value's inputs alone. */
ParameterizedTestParameters(analyze, copy_through_a_temporary)
{
	static char params[][256] = {
		"        float a = A[row * K + k0 + tx];\n"
		"        As[ty][tx] = a;\n",
		"        float a;\n"
		"        a = A[row * K + k0 + tx];\n"
		"        As[ty][tx] = a;\n",
		"        const float a = row < N ? A[row * K + k0 + tx] : 0.0f;\n"
		"        int unused = 0;\n"
		"        As[ty][tx] = a;\n",
		"        float a = A[row * K + k0 + tx];\n"
		"        float b;\n"
		"        b = B[(k0 + ty) * N + col];\n"
		"        As[ty][tx] = a;\n"
		"        Bs[ty][tx] = b;\n",
	};
	return cr_make_param_array(char[256], params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(char (*p)[256], analyze, copy_through_a_temporary, .fini = release)
{
	char src[4096];
	snprintf(src, sizeof(src), "%s%s%s", HEAD FOR, *p,
		 strstr(*p, "Bs[") ? SYNC COMP SYNC END TAIL : LOAD_B SYNC COMP SYNC END TAIL);
	analyze_src(src);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible, "%s", *p);
	cr_assert_eq(l->nloads, 2);
	const kp_load *ld = &l->loads[0];
	cr_assert_not_null(ld->src);
	cr_expect_str_eq(ld->src->name, "A");
	cr_expect(ld->pure);
	cr_assert_not_null(ld->tmp_decl);
	cr_expect_eq(ld->tmp_set != NULL, strstr(*p, "float a;\n") != NULL);
	cr_expect_eq(ld->guard, strchr(*p, '?') ? KP_G_TERNARY : KP_G_NONE);
	cr_expect(CP(l).ok, "cp.async: %s", CP(l).why_not ? CP(l).why_not : "");
	cr_expect(RG(l).ok, "register: %s", RG(l).why_not ? RG(l).why_not : "");
}

/* Temporaries kpipe does not take for a copy's value: one of another type
 * (the copy converts: register staging only), one changed before its copy
 * or whose value's inputs change in between (neither transform). */
Test(analyze, copy_through_a_temporary_near_misses)
{
	analyze_src(HEAD FOR "        double a = A[row * K + k0 + tx];\n"
			     "        As[ty][tx] = a;\n" LOAD_B SYNC COMP SYNC END TAIL);
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_expect_not(l->loads[0].pure);
	cr_expect_not(CP(l).ok);
	cr_expect(strstr(CP(l).why_not, "line 11: the copy converts"), "%s", CP(l).why_not);
	cr_expect(RG(l).ok);
	release();
	static const char *const not_temps[] = {
		HEAD FOR "        float a = A[row * K + k0 + tx];\n"
			 "        a *= 2.0f;\n"
			 "        As[ty][tx] = a;\n" LOAD_B SYNC COMP SYNC END TAIL,
		HEAD FOR "        int off = row * K + k0 + tx;\n"
			 "        float a = A[off];\n"
			 "        off += 1;\n"
			 "        As[ty][tx] = a;\n" LOAD_B SYNC COMP SYNC END TAIL,
	};
	for (size_t i = 0; i < KP_ARRAY_LEN(not_temps); i++) {
		analyze_src(not_temps[i]);
		l = only_loop();
		cr_expect_null(l->loads[0].src, "case %zu", i);
		cr_expect_null(l->loads[0].tmp_decl, "case %zu", i);
		cr_expect_not(CP(l).ok);
		cr_expect_not(RG(l).ok);
		cr_expect(strstr(RG(l).why_not, "the stored value is not a plain global load"),
			  "%s", RG(l).why_not);
		release();
	}
}

/* Copies through temporaries set under a condition, in copy loops (the
 * shape the canon pass rewrites; register staging does not take it as it
 * is): without barriers the loop is still a candidate (kpipe-no-barrier,
 * as for plain copies), and a store into the memory they read is a
 * kpipe-memory-order problem although the copies have no source of their
 * own. */
#define TEMP_COPIES                                                                                \
	"        for (int i = 0; i < 1; ++i) {\n"                                                  \
	"            float a = 0.0f;\n"                                                            \
	"            if (row < N && k0 + tx < K)\n"                                                \
	"                a = A[row * K + k0 + tx];\n"                                              \
	"            As[ty][tx] = a;\n"                                                            \
	"        }\n"                                                                              \
	"        for (int i = 0; i < 1; ++i) {\n"                                                  \
	"            float b = 0.0f;\n"                                                            \
	"            if (k0 + ty < K && col < N)\n"                                                \
	"                b = B[(k0 + ty) * N + col];\n"                                            \
	"            Bs[ty][tx] = b;\n"                                                            \
	"        }\n"
Test(analyze, copies_through_temporaries)
{
	analyze_src(HEAD FOR TEMP_COPIES COMP END TAIL);
	cr_assert_geq(AN.nloops, 1, "a loop copying through temporaries is a candidate");
	cr_expect_not_null(find_reason(AN.loops[0], "kpipe-no-barrier"));
	release();
	analyze_src(HEAD FOR TEMP_COPIES SYNC COMP SYNC END TAIL);
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_expect_null(l->loads[0].src);
	release();
	analyze_src(HEAD_X("", "float", "[TILE][TILE]", "[TILE][TILE]", "")
			    FOR TEMP_COPIES SYNC COMP
		    "        A[row * K + k0 + tx] = acc;\n" SYNC END TAIL);
	l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-memory-order"));
}

/* Tiles over the static limit are legal: whether their buffers fit is the
 * plan's question, which depends on the transform (test_plan.c). */
Test(analyze, shared_memory_over_the_limit_is_no_legality_reason)
{
	static const long long tiles[] = {2 * 96 * 96 * 4, 2 * 64 * 64 * 4};
	for (int i = 0; i < 2; i++) {
		analyze_src(near_src[10 + i]);
		kp_loop *l = only_loop();
		log_reasons(l);
		cr_expect(l->eligible, "case %d", 10 + i);
		cr_expect_null(find_reason(l, "kpipe-smem-over-limit"));
		cr_expect_eq(l->tile_bytes, tiles[i]);
		release();
	}
}

/* KNOWN ISSUE (reported, not fixed here): the store in near miss 6 only
 * writes *through* A; the pointer itself never changes, so the next tile's
 * addresses are known.  analyze.c's collect_rw records the store as a
 * write of the declaration A, and kpipe-load-depends-on-compute then says
 * "the tile loads read 'A', which the loop body modifies".  The honest
 * reason is kpipe-memory-order alone.  Enable when fixed. */
Test(analyze, store_through_load_pointer_is_only_a_memory_order_problem)
{
	analyze_src(near_src[6]);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not_null(find_reason(l, "kpipe-memory-order"));
	cr_expect_null(find_reason(l, "kpipe-load-depends-on-compute"));
}

/* `src` with its first `from` replaced by `to` (static buffer). */
static const char *replace_once(const char *src, const char *from, const char *to)
{
	static char buf[8192];
	const char *p = strstr(src, from);
	cr_assert_not_null(p, "'%s' not in the source", from);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - src), src, to, p + strlen(from));
	return buf;
}

#define STORE_C HEAD FOR LOAD SYNC COMP "        C[row * N + k0 / TILE] = acc;\n" SYNC END TAIL

/* A store through an output pointer that may alias a loaded array (no
 * __restrict__ anywhere) is refused: the prefetch would overtake it. */
Test(analyze, store_to_output_pointer_that_may_alias)
{
	analyze_src(STORE_C);
	kp_loop *l = only_loop();
	log_reasons(l);
	const kp_reason *r = find_reason(l, "kpipe-memory-order");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "'C'") && strstr(r->message, "__restrict__"), "%s",
		  r->message);
	cr_expect_eq(r->line, 15);
	cr_expect_not(l->eligible);
}

/* ... and accepted when the output pointer is __restrict__, or when every
 * load source is. */
Test(analyze, store_to_restrict_output_pointer_in_loop)
{
	analyze_src(replace_once(STORE_C, "float *C", "float *__restrict__ C"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_null(find_reason(l, "kpipe-memory-order"));
	cr_expect_null(find_reason(l, "kpipe-load-depends-on-compute"));
	cr_expect(l->eligible);
	release();
	char both[8192];
	snprintf(both, sizeof(both), "%s",
		 replace_once(STORE_C, "const float *A, const float *B",
			      "const float *__restrict__ A, const float *__restrict__ B"));
	analyze_src(both);
	l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
}

/* --- wrong-code classes: what the text rewrite could not follow -------------- */

static const char *const wrong_src[] = {
	/* 0 a store to the next tile through a local copy of the pointer */
	HEAD_X("", "float", "[TILE][TILE]", "[TILE][TILE]", "    float *W = A;\n")
		FOR LOAD SYNC COMP "        W[row * K + k0 + TILE + tx] += acc;\n" SYNC END TAIL,
	/* 1 ... through a __device__ helper */
	HEAD_X("__device__ void emit(float *p, float v) { *p += v; }\n", "float", "[TILE][TILE]",
	       "[TILE][TILE]", "") FOR LOAD SYNC COMP
	"        emit(&A[row * K + k0 + TILE + tx], acc);\n" SYNC END TAIL,
	/* 2 the counter inside a macro body */
	HEAD_X("#define AIDX(r, c) ((r) * K + k0 + (c))\n", "const float", "[TILE][TILE]",
	       "[TILE][TILE]", "") FOR
	"        As[ty][tx] = A[AIDX(row, tx)];\n" LOAD_B SYNC COMP SYNC END TAIL,
	/* 3 the counter read through a reference */
	HEAD FOR "        int &kr = k0;\n"
		 "        As[ty][tx] = A[row * K + kr + tx];\n" LOAD_B SYNC COMP SYNC END TAIL,
	/* 4 ... through a pointer */
	HEAD FOR "        const int *pk = &k0;\n"
		 "        As[ty][tx] = A[row * K + *pk + tx];\n" LOAD_B SYNC COMP SYNC END TAIL,
	/* 5 a bump whose step reads a variable the compute writes ('s' inside 'ss') */
	HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]",
	       "    const float *pa = A;\n"
	       "    int s = TILE, ss = 0;\n") FOR
	"        As[ty][tx] = pa[row * K + tx];\n" LOAD_B SYNC COMP
	"        s = TILE + (int)acc;\n" SYNC "        pa += ss + s;\n" END TAIL,
	/* 6 a condition with a side effect */
	HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]",
	       "    int it = 0;\n") "    for (int k0 = 0; k0 < K && it++ < 3; k0 += TILE) {\n" LOAD
		SYNC COMP SYNC END TAIL,
	/* 7 a condition that calls a function with side effects */
	HEAD_X("__device__ int nextK(int *k) { return atomicAdd(k, 0); }\n", "const float",
	       "[TILE][TILE]", "[TILE][TILE]",
	       "") "    for (int k0 = 0; k0 < nextK(&K); k0 += TILE) {\n" LOAD SYNC COMP SYNC END
		TAIL,
	/* 8 a pointer to the tile taken before the loop, read other than as
	 * p[i] (read as p[i], it is a tile pointer the pipelined loop
	 * rebases: analyze.tile_pointer_aliases) */
	HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]", "    float *p = (float *)As;\n")
		FOR LOAD SYNC
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            acc += *(p + ty * TILE + kk) * Bs[kk][tx];\n" SYNC END TAIL,
	/* 9 a reference to the tile bound before the loop */
	HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]",
	       "    float (&T)[TILE][TILE] = As;\n") FOR LOAD SYNC
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            acc += T[ty][kk] * Bs[kk][tx];\n" SYNC END TAIL,
	/* 10 the tile's size taken before the loop */
	HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]",
	       "    const int n = sizeof(As) / sizeof(As[0]);\n") FOR LOAD SYNC
	"        for (int kk = 0; kk < n; ++kk)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n" SYNC END TAIL,
	/* 11 a lambda that reads the tile */
	HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]",
	       "    auto at = [&](int i, int j) { return As[i][j]; };\n") FOR LOAD SYNC
	"        for (int kk = 0; kk < TILE; ++kk)\n"
	"            acc += at(ty, kk) * Bs[kk][tx];\n" SYNC END TAIL,
	/* 12 a file-scope tile */
	"#define TILE 16\n"
	"__shared__ float As[TILE][TILE];\n"
	"__global__ void mm(const float *A, const float *B, float *C, int N, int K)\n"
	"{\n"
	"    __shared__ float Bs[TILE][TILE];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
	"    float acc = 0.0f;\n" FOR LOAD SYNC COMP SYNC END TAIL,
	/* 13 the load phase reads the tile it refills */
	HEAD FOR "        As[ty][tx] = As[ty][tx] * 0.5f + A[row * K + k0 + tx];\n" LOAD_B SYNC COMP
		SYNC END TAIL,
	/* 14 two K-loops share the tiles, the second loading As transposed
	 * (the second is the candidate checked; the first is eligible: the
	 * second reads its tiles after it, as the last tile's stage,
	 * analysis/last_tile.c).  With the same copies both are pipelined
	 * (analysis/earlier_use.c, test_earlier_use.c); transposed, an element
	 * the first loop stored and the second does not could be read */
	HEAD FOR LOAD SYNC COMP SYNC END FOR
	"        As[tx][ty] = A[row * K + k0 + tx];\n" LOAD_B SYNC COMP SYNC END TAIL,
};

struct wrong_case {
	int src;
	char id[40];
	int line;     /* 0: not checked */
	char msg[48]; /* a piece of the message */
	int loop;     /* which candidate (1-based) */
};

ParameterizedTestParameters(analyze, wrong_code)
{
	static struct wrong_case params[] = {
		{0, "kpipe-memory-order", 16, "through 'W'", 1},
		{1, "kpipe-memory-order", 16, "'A'", 1},
		{2, "kpipe-hidden-induction", 11, "macro body", 1},
		{3, "kpipe-hidden-induction", 10, "'k0'", 1},
		{4, "kpipe-hidden-induction", 10, "'k0'", 1},
		{5, "kpipe-loop-shape", 19, "uses 's'", 1},
		{6, "kpipe-cond-side-effect", 10, "it++", 1},
		{7, "kpipe-cond-side-effect", 10, "'nextK'", 1},
		{8, "kpipe-tile-escapes", 6, "before the loop", 1},
		{9, "kpipe-tile-escapes", 6, "before the loop", 1},
		{10, "kpipe-tile-escapes", 6, "before the loop", 1},
		{11, "kpipe-tile-escapes", 6, "lambda", 1},
		{12, "kpipe-tile-escapes", 9, "outside the kernel", 1},
		{13, "kpipe-load-depends-on-compute", 10, "refills", 1},
		{14, "kpipe-tile-escapes", 0, "before the loop", 2},
	};
	return cr_make_param_array(struct wrong_case, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct wrong_case *p, analyze, wrong_code, .fini = release)
{
	analyze_src(wrong_src[p->src]);
	cr_assert(AN.nloops >= p->loop, "case %d: %d loops", p->src, AN.nloops);
	kp_loop *l = AN.loops[p->loop - 1];
	log_reasons(l);
	cr_expect_not(l->eligible, "case %d should not be eligible", p->src);
	const kp_reason *r = find_reason(l, p->id);
	cr_assert_not_null(r, "case %d: no [%s]", p->src, p->id);
	if (p->line)
		cr_expect_eq(r->line, p->line, "case %d [%s]: line %d, expected %d", p->src, p->id,
			     r->line, p->line);
	cr_expect(strstr(r->message, p->msg) != NULL, "case %d [%s]: '%s' lacks '%s'", p->src,
		  p->id, r->message, p->msg);
	for (int i = 0; i < AN.nloops; i++)
		cr_expect(!AN.loops[i]->eligible || (p->src == 14 && i == 0),
			  "case %d: loop %d eligible", p->src, i + 1);
}

/* A volatile tile is never filled by cp.async; register staging still applies. */
Test(analyze, volatile_tile_is_not_cp_async)
{
	analyze_src(HEAD_X("", "const float", "[TILE][TILE]", "[TILE][TILE]", "")
			    FOR LOAD SYNC COMP SYNC END TAIL);
	cr_expect(CP(only_loop()).ok);
	release();
	analyze_src(replace_once(ELIGIBLE, "__shared__ float As", "__shared__ volatile float As"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(CP(l).ok);
	cr_assert_not_null(CP(l).why_not);
	cr_expect(strstr(CP(l).why_not, "volatile"), "%s", CP(l).why_not);
	cr_expect(RG(l).ok);
}

/* A const reference parameter is read, not written: passing tile elements to
 * it is no kpipe-compute-writes-tile (near miss 22 with the load restored). */
Test(analyze, const_reference_argument_is_not_a_write)
{
	analyze_src(HEAD_X("__device__ void mac(float &s, const float &a, const float &b) "
			   "{ s += a * b; }\n",
			   "const float", "[TILE][TILE]", "[TILE][TILE]", "") FOR LOAD SYNC
		    "        for (int kk = 0; kk < TILE; ++kk)\n"
		    "            mac(acc, As[ty][kk], Bs[kk][tx]);\n" SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
}

/* A tile element bound to a non-const reference may be written. */
Test(analyze, tile_element_to_reference_parameter_is_a_write)
{
	analyze_src(HEAD_X("__device__ void bump(float &s) { s += 1.0f; }\n", "const float",
			   "[TILE][TILE]", "[TILE][TILE]", "") FOR LOAD SYNC COMP
		    "        bump(As[ty][tx]);\n" SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not_null(find_reason(l, "kpipe-compute-writes-tile"));
}

Test(analyze, already_pipelined_flag)
{
	analyze_src(near_src[7]);
	kp_loop *l = only_loop();
	cr_expect(l->already_pipelined);
	cr_expect_eq(l->nreasons, 1);
}

Test(analyze, no_barrier_loop_is_still_a_candidate)
{
	analyze_src(near_src[1]);
	kp_loop *l = only_loop();
	cr_expect_eq(l->nbarriers, 0);
	cr_expect_eq(l->nreasons, 1);
}

Test(analyze, partial_write_with_else_is_a_guarded_copy)
{
	/* the same guard with an else that zero-fills: eligible */
	analyze_src(HEAD FOR "        if (row < N)\n"
			     "            As[ty][tx] = A[row * K + k0 + tx];\n"
			     "        else\n"
			     "            As[ty][tx] = 0.0f;\n" LOAD_B SYNC COMP SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].guard, KP_G_IFELSE);
	cr_expect(l->loads[0].pure);
	cr_expect_str_eq(l->loads[0].otherwise, "0.0f");
}

Test(analyze, inverted_if_else_is_a_guarded_copy)
{
	/* the zero in the if branch and the load in the else (MAGMA's first
	 * block column): the same copy, loading where the condition is false */
	analyze_src(
		HEAD FOR
		"        if (k0 == 0 && tx < 3)\n"
		"            As[ty][tx] = 0.0f;\n"
		"        else\n"
		"            As[ty][tx] = A[row * K + k0 + tx];\n" LOAD_B SYNC COMP SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].guard, KP_G_IFELSE);
	cr_expect(l->loads[0].guard_inverted);
	cr_expect(l->loads[0].pure);
	cr_expect_str_eq(l->loads[0].src->name, "A");
	cr_expect_str_eq(l->loads[0].otherwise, "0.0f");
	cr_expect(CP(l).ok, "cp.async: %s", CP(l).why_not ? CP(l).why_not : "");
}

Test(analyze, complex_zero_of_cucomplex)
{
	/* cuComplex.h's make_cuDoubleComplex(0.0, 0.0), MAGMA_Z_ZERO: a zero */
	analyze_src(
		"#include <cuComplex.h>\n"
		"#define TILE 16\n"
		"__global__ void z(const cuDoubleComplex *A, cuDoubleComplex *C, int N, int K)\n"
		"{\n"
		"    __shared__ cuDoubleComplex As[TILE];\n"
		"    int tx = threadIdx.x;\n"
		"    cuDoubleComplex acc = make_cuDoubleComplex(0.0, 0.0);\n"
		"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
		"        if (k0 + tx < N)\n"
		"            As[tx] = A[k0 + tx];\n"
		"        else\n"
		"            As[tx] = make_cuDoubleComplex(0.0, 0.0);\n"
		"        __syncthreads();\n"
		"        for (int kk = 0; kk < TILE; ++kk)\n"
		"            acc = cuCadd(acc, As[kk]);\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[tx] = acc;\n"
		"}\n");
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 1);
	cr_expect_eq(l->loads[0].guard, KP_G_IFELSE);
	cr_expect_not(l->loads[0].guard_inverted);
	cr_expect(l->loads[0].pure, "the complex zero taken for a conversion");
	cr_expect(CP(l).ok, "cp.async: %s", CP(l).why_not ? CP(l).why_not : "");
}

Test(analyze, ternary_guard)
{
	analyze_src(HEAD FOR
		    "        As[ty][tx] = row < N ? A[row * K + k0 + tx] : 0.0f;\n" LOAD_B SYNC COMP
			    SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].guard, KP_G_TERNARY);
	cr_expect(l->loads[0].pure);
	cr_expect(CP(l).ok);
}

Test(analyze, converting_copy_is_not_cp_async)
{
	analyze_src(HEAD FOR "        As[ty][tx] = 2.0f * A[row * K + k0 + tx];\n" LOAD_B SYNC COMP
			    SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(CP(l).ok);
	cr_expect_not_null(CP(l).why_not);
}

Test(analyze, tile_declared_in_the_loop)
{
	analyze_src("#define TILE 16\n"
		    "__global__ void mm(const float *A, const float *B, float *C, int N, int K)\n"
		    "{\n"
		    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		    "    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
		    "    float acc = 0.0f;\n"
		    "    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
		    "        __shared__ float As[TILE][TILE], Bs[TILE][TILE];\n" LOAD SYNC COMP SYNC
			    END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->ntiles, 2);
	for (int i = 0; i < 2; i++) {
		cr_expect(l->tiles[i].in_loop);
		cr_expect(l->tiles[i].loaded);
		cr_expect_not_null(l->tiles[i].decl_stmt);
	}
	cr_expect_eq(l->tile_bytes, 2048);
}

Test(analyze, pointer_bumps_are_induction)
{
	analyze_src("#define TILE 16\n"
		    "__global__ void mm(const float *A, const float *B, float *C, int N, int K)\n"
		    "{\n"
		    "    __shared__ float As[TILE][TILE];\n"
		    "    __shared__ float Bs[TILE][TILE];\n"
		    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		    "    const float *a = A + (blockIdx.y * TILE + ty) * K + tx;\n"
		    "    const float *b = B + ty * N + blockIdx.x * TILE + tx;\n"
		    "    float acc = 0.0f;\n"
		    "    for (int t = 0; t < K / TILE; ++t) {\n"
		    "        As[ty][tx] = *a;\n"
		    "        Bs[ty][tx] = *b;\n"
		    "        a += TILE;\n"
		    "        b += TILE * N;\n" SYNC COMP SYNC END
		    "    C[(blockIdx.y * TILE + ty) * N + blockIdx.x * TILE + tx] = acc;\n"
		    "}\n");
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect(l->tile_count);
	cr_assert_eq(l->nind, 3);
	int ptrs = 0;
	for (int i = 0; i < l->nind; i++)
		ptrs += l->ind[i].is_pointer;
	cr_expect_eq(ptrs, 2);
	cr_expect_eq(l->bump_e - l->bump_b, 2);
}

Test(analyze, two_kernels_two_loops)
{
	static const char src[] = ELIGIBLE
		"__global__ void mm2(const float *A, const float *B, float *C, int N, int K)\n"
		"{\n"
		"    __shared__ float As[TILE][TILE];\n"
		"    __shared__ float Bs[TILE][TILE];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
		"    float acc = 0.0f;\n" FOR LOAD SYNC COMP SYNC END TAIL;
	analyze_src(src);
	cr_expect_eq(AN.nkernels, 2);
	cr_assert_eq(AN.nloops, 2);
	cr_expect_str_eq(AN.loops[0]->kernel->name, "mm");
	cr_expect_str_eq(AN.loops[1]->kernel->name, "mm2");
	cr_expect(AN.loops[0]->eligible);
	cr_expect(AN.loops[1]->eligible);
}

/* --- parse errors --------------------------------------------------------------- */

Test(parse, error_reported_at_its_line)
{
	static const char src[] = "__global__ void k(float *a)\n"
				  "{\n"
				  "    int i = threadIdx.x;\n"
				  "    a[i] = 1.0f\n"
				  "}\n";
	int rc = parse_as("broken.cu", src, "sm_90", NULL, 0);
	cr_assert_eq(rc, KP_PARSE_ERRORS);
	cr_expect_geq(F.nerrors, 1);
	int found = 0;
	for (int i = 0; i < F.ndiags; i++) {
		const kp_parse_diag *d = &F.diags[i];
		if (strcmp(d->severity, "error"))
			continue;
		cr_expect_str_eq(d->file, "broken.cu");
		if (d->line == 4) {
			found = 1;
			cr_expect_eq(d->col, 16);
			cr_expect(strstr(d->message, "';'") != NULL, "%s", d->message);
		}
	}
	cr_expect(found, "no error at line 4");
	/* the file is still filled */
	cr_expect_eq(F.len, strlen(src));
	cr_expect_str_eq(F.path, "broken.cu");
}

Test(parse, undeclared_tile_size)
{
	/* the kernel without its #define: every TILE is an error */
	static const char src[] = "__global__ void k(float *a)\n"
				  "{\n"
				  "    __shared__ float As[TILE];\n"
				  "    As[threadIdx.x] = a[threadIdx.x];\n"
				  "}\n";
	int rc = parse_as("undeclared.cu", src, "sm_90", NULL, 0);
	cr_assert_eq(rc, KP_PARSE_ERRORS);
	cr_assert_gt(F.ndiags, 0);
	cr_expect_eq(F.diags[0].line, 3);
	cr_expect_eq(F.diags[0].col, 25);
	cr_expect(strstr(F.diags[0].message, "TILE") != NULL);
}

Test(parse, missing_file_is_an_io_error)
{
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = "sm_90";
	o.no_compdb = 1;
	int rc = kp_parse(&F, "/nonexistent/dir/k.cu", &o, &ERRMSG);
	cr_expect_eq(rc, KP_PARSE_IO);
	cr_expect_not_null(ERRMSG);
}

Test(parse, nul_bytes_are_an_io_error)
{
	static const char src[] = "__global__ void k() {}\n\0garbage";
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = "sm_90";
	o.contents = src;
	o.contents_len = sizeof(src) - 1;
	o.no_compdb = 1;
	int rc = kp_parse(&F, "nul.cu", &o, &ERRMSG);
	cr_expect_eq(rc, KP_PARSE_IO);
	cr_assert_not_null(ERRMSG);
	cr_expect(strstr(ERRMSG, "NUL") != NULL, "%s", ERRMSG);
}

Test(parse, empty_source)
{
	int rc = parse_as("empty.cu", "", "sm_90", NULL, 0);
	cr_expect_eq(rc, KP_PARSE_OK);
	cr_expect_eq(F.nkernels, 0);
	cr_expect_eq(F.len, 0);
}

Test(parse, bom_is_noticed)
{
	int rc = parse_as("bom.cu", "\xEF\xBB\xBF" ELIGIBLE, "sm_90", NULL, 0);
	cr_expect_eq(rc, KP_PARSE_OK);
	cr_expect(F.has_bom);
	cr_expect_eq(F.nkernels, 1);
}

/* --- tile sizes: templates, constexpr, -D ---------------------------------------- */

static const char template_src[] =
	"template <int T>\n"
	"__global__ void k(const float *A, const float *B, float *C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[T][T];\n"
	"    __shared__ float Bs[T][T];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += T) {\n" LOAD SYNC
	"        for (int kk = 0; kk < T; ++kk)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n" SYNC END TAIL
	"template __global__ void k<16>(const float *, const float *, float *, int, int);\n";

Test(analyze_sizes, template_explicit_instantiation)
{
	analyze_src(template_src);
	cr_assert_eq(F.nkernels, 1);
	kp_kernel *k = F.kernels[0];
	cr_expect(k->is_template);
	cr_expect_eq(k->ntparams, 1);
	cr_expect_str_eq(k->tparam_names[0], "T");
	cr_assert_eq(k->ninst, 1);
	cr_expect_str_eq(k->inst_args[0], "16");
	cr_expect_eq(k->inst_values[0][0], 16);
	kp_loop *l = only_loop();
	check_eligible_16x16(l, "k");
	cr_expect_str_eq(l->ind[0].step, "T");
	cr_assert_not_null(l->inst);
	cr_expect_str_eq(l->inst, "16");
}

Test(analyze_sizes, template_without_instantiation_has_unknown_sizes)
{
	/* drop the explicit instantiation line */
	char *src = kp_xstrdup(template_src);
	char *p = strstr(src, "template __global__");
	cr_assert_not_null(p);
	*p = '\0';
	analyze_src(src);
	free(src);
	cr_assert_eq(F.nkernels, 1);
	cr_expect_eq(F.kernels[0]->ninst, 0);
	kp_loop *l = only_loop();
	cr_expect_null(l->inst);
	cr_expect_eq(l->tile_bytes, -1);
}

/* --- every instantiation is checked ---------------------------------------- */

/* template <int T> with float tiles [T][T]; `insts` follows the kernel
 * (launches or explicit instantiations). */
#define TILE_TEMPLATE(insts)                                                                       \
	"template <int T>\n"                                                                       \
	"__global__ void k(const float *A, const float *B, float *C, int N, int K)\n"              \
	"{\n"                                                                                      \
	"    __shared__ float As[T][T];\n"                                                         \
	"    __shared__ float Bs[T][T];\n"                                                         \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"                          \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += T) {\n" LOAD SYNC                                      \
	"        for (int kk = 0; kk < T; ++kk)\n"                                                 \
	"            acc += As[ty][kk] * Bs[kk][tx];\n" SYNC END TAIL insts

#define LAUNCH(n) "    k<" #n "><<<1, 1>>>(A, B, C, N, K);\n"
#define LAUNCHER(body)                                                                             \
	"void launch(const float *A, const float *B, float *C, int N, int K)\n"                    \
	"{\n" body "}\n"

Test(analyze_sizes, template_two_instantiations_worst_case_shown)
{
	static const char src[] = TILE_TEMPLATE(
		"template __global__ void k<8>(const float *, const float *, float *, int, int);\n"
		"template __global__ void k<32>(const float *, const float *, float *, int, int);\n");
	analyze_src(src);
	cr_assert_eq(F.nkernels, 1);
	cr_assert_eq(F.kernels[0]->ninst, 2);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_not_null(l->inst);
	cr_expect_str_eq(l->inst, "32");
	cr_expect_eq(l->tile_bytes, 2 * 32 * 32 * 4);
	cr_assert_eq(l->nper_inst, 2);
	cr_expect_str_eq(l->per_inst[0]->inst, "8");
	cr_expect_eq(l->per_inst[0]->tile_bytes, 2 * 8 * 8 * 4);
	cr_expect_str_eq(l->per_inst[1]->inst, "32");
	cr_expect(l->per_inst[0]->eligible && l->per_inst[1]->eligible);
}

/* A bound that is a literal beside one that is a parameter (`As[32][BK]`):
 * each dimension keeps its own bound in every instantiation (clang visits
 * the inner bound first; <64> was sized as 32 x 32). */
Test(analyze_sizes, template_literal_and_parameter_bounds)
{
	static const char src[] =
		"template <int BK>\n"
		"__global__ void k(const float *A, const float *B, float *C, int N, int K)\n"
		"{\n"
		"    __shared__ float As[32][BK];\n"
		"    __shared__ float Bs[BK][32];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < K; k0 += BK) {\n"
		"#pragma unroll\n"
		"        for (int i = 0; i < BK / 32; ++i) {\n"
		"            As[ty][tx + 32 * i] = A[row * K + k0 + tx + 32 * i];\n"
		"            Bs[ty + 32 * i][tx] = B[(k0 + ty + 32 * i) * N + col];\n"
		"        }\n"
		"        __syncthreads();\n"
		"        for (int kk = 0; kk < BK; ++kk)\n"
		"            acc += As[ty][kk] * Bs[kk][tx];\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[row * N + col] = acc;\n"
		"}\n"
		"template __global__ void k<32>(const float *, const float *, float *, int, int);\n"
		"template __global__ void k<64>(const float *, const float *, float *, int, int);\n";
	analyze_src(src);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->nper_inst, 2);
	cr_expect_str_eq(l->per_inst[0]->inst, "32");
	cr_expect_eq(l->per_inst[0]->tile_bytes, 2 * 32 * 32 * 4);
	cr_expect_str_eq(l->per_inst[1]->inst, "64");
	cr_expect_eq(l->per_inst[1]->tile_bytes, 2 * 32 * 64 * 4);
	cr_assert_not_null(l->inst);
	cr_expect_str_eq(l->inst, "64");
	cr_expect_eq(l->tile_bytes, 2 * 32 * 64 * 4);
}

/* <32> fits (16384 B double-buffered), <64> does not (65536 B): refused,
 * naming <64>, whichever launch comes first. */
static const char *const over_budget_src[] = {
	TILE_TEMPLATE(LAUNCHER(LAUNCH(32) LAUNCH(64))),
	TILE_TEMPLATE(LAUNCHER(LAUNCH(64) LAUNCH(32))),
};

static void check_over_budget(kp_loop *l)
{
	/* legal everywhere: the shared memory is the plan's question */
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect_eq(l->nreasons, 0);
	cr_expect_str_eq(l->inst, "64");
	cr_expect_eq(l->tile_bytes, 2 * 64 * 64 * 4);
	cr_assert_eq(l->nper_inst, 2);
	cr_expect_str_eq(l->per_inst[0]->inst, "32");
	cr_expect(l->per_inst[0]->eligible);
	cr_expect_str_eq(l->per_inst[1]->inst, "64");
	cr_expect(l->per_inst[1]->eligible);
	/* two buffers of <64> do not fit, one does */
	const kp_arch *a = kp_arch_find("sm_90");
	long long need;
	const char *inst;
	cr_expect_not(kp_plan_smem(l, a, 2, 0, &need, &inst));
	cr_expect_eq(need, 65536);
	cr_assert_not_null(inst);
	cr_expect_str_eq(inst, "64");
	cr_expect(kp_plan_smem(l, a, 1, 0, &need, &inst));
	kp_plan p;
	/* both launches are in the file: the tiles move to dynamic shared
	 * memory, sized for the largest instantiation */
	kp_plan_loop(&p, &F, l, a, "cp-async", 2);
	cr_assert_not_null(p.xform, "%s", p.refuse_msg);
	cr_expect(p.dynamic);
	cr_expect_eq(p.dyn_bytes, 65536);
	cr_expect_eq(kp_plan_launches(&F, l), 2);
	/* sm_86 holds 99 KB with the opt-in: 4 stages of <64> (128 KB) do not fit */
	kp_plan_loop(&p, &F, l, kp_arch_find("sm_86"), "cp-async", 4);
	cr_expect_null(p.xform);
	cr_assert_not_null(p.refuse_id);
	cr_expect_str_eq(p.refuse_id, "kpipe-smem-over-limit");
	cr_expect_str_eq(
		p.refuse_msg,
		"for instantiation <64>: 4 stages need 131072 B of shared memory per block, "
		"over the 49152 B static limit of sm_86, and the tiles cannot move to "
		"dynamic shared memory: for instantiation <64>: 131072 B of tiles and 0 B of "
		"other shared memory exceed the 101376 B opt-in limit of sm_86");
	kp_plan_loop(&p, &F, l, a, "register-2bar", 2);
	cr_assert_not_null(p.xform, "%s", p.refuse_msg);
	cr_expect_str_eq(p.xform->name, "register-2bar");
}

Test(analyze_sizes, template_second_instantiation_over_budget)
{
	analyze_src(over_budget_src[0]);
	cr_assert_eq(F.kernels[0]->ninst, 2);
	cr_expect_str_eq(F.kernels[0]->inst_args[0], "32");
	check_over_budget(only_loop());
}

Test(analyze_sizes, template_first_instantiation_over_budget)
{
	analyze_src(over_budget_src[1]);
	cr_assert_eq(F.kernels[0]->ninst, 2);
	/* listed in a fixed order, not in the order of the launches */
	cr_expect_str_eq(F.kernels[0]->inst_args[0], "32");
	check_over_budget(only_loop());
}

Test(analyze_sizes, template_explicit_instantiation_through_a_macro_is_not_counted_twice)
{
	static const char src[] = "#define SMALL 16\n" TILE_TEMPLATE(
		"template __global__ void k<SMALL>(const float *, const float *, float *, int, int);\n" LAUNCHER(
			LAUNCH(SMALL)));
	analyze_src(src);
	cr_assert_eq(F.kernels[0]->ninst, 1);
	cr_expect_str_eq(F.kernels[0]->inst_args[0], "16");
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_expect_eq(l->tile_bytes, 2 * 16 * 16 * 4);
}

/* A bool template argument is printed as written and bound as 0 / 1 (it
 * was shown as -1, the value of its sign-extended bit), and an explicit
 * instantiation spelled with `true` is the same instantiation as the one
 * libclang reports. */
Test(analyze_sizes, template_bool_argument)
{
	static const char src[] =
		"template <int T, bool GUARD>\n"
		"__global__ void k(const float *A, const float *B, float *C, int N, int K)\n"
		"{\n"
		"    __shared__ float As[T][T];\n"
		"    __shared__ float Bs[T][T];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < K; k0 += T) {\n"
		"        As[ty][tx] = GUARD && row >= N ? 0.0f : A[row * K + k0 + tx];\n" LOAD_B SYNC
		"        for (int kk = 0; kk < T; ++kk)\n"
		"            acc += As[ty][kk] * Bs[kk][tx];\n" SYNC END TAIL
		"template __global__ void k<32, true>(const float *, const float *, float *, int, "
		"int);\n" LAUNCHER("    k<16, false><<<1, 1>>>(A, B, C, N, K);\n"
				   "    k<16, true><<<1, 1>>>(A, B, C, N, K);\n");
	analyze_src(src);
	cr_assert_eq(F.nkernels, 1);
	kp_kernel *k = F.kernels[0];
	cr_expect_eq(k->tparam_bool, 2u);
	cr_assert_eq(k->ninst, 3);
	cr_expect_str_eq(k->inst_args[0], "16, false");
	cr_expect_str_eq(k->inst_args[1], "16, true");
	cr_expect_str_eq(k->inst_args[2], "32, true");
	cr_expect_eq(k->inst_values[0][1], 0);
	cr_expect_eq(k->inst_values[1][1], 1);
	cr_expect_eq(k->inst_values[2][1], 1);
	for (int i = 0; i < 3; i++)
		cr_expect(k->inst_targs[i][1].known);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->nper_inst, 3);
	cr_expect_str_eq(l->inst, "32, true");
	cr_expect_eq(l->tile_bytes, 2 * 32 * 32 * 4);
}

/* template <typename T, int TILE> with T tiles, for float and __half. */
#define TYPED_SRC(insts)                                                                           \
	"#include <cuda_fp16.h>\n"                                                                 \
	"template <typename T, int TILE>\n"                                                        \
	"__global__ void k(const T *__restrict__ A, const T *__restrict__ B, float *C, int N, "    \
	"int K)\n"                                                                                 \
	"{\n"                                                                                      \
	"    __shared__ T As[TILE][TILE];\n"                                                       \
	"    __shared__ T Bs[TILE][TILE];\n"                                                       \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"                    \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n" LOAD SYNC                                   \
	"        for (int kk = 0; kk < TILE; ++kk)\n"                                              \
	"            acc += (float)As[ty][kk] * (float)Bs[kk][tx];\n" SYNC END TAIL insts

#define TYPED_FLOAT                                                                                \
	"void lf(const float *A, const float *B, float *C, int N, int K)\n"                        \
	"{ k<float, 32><<<1, 1>>>(A, B, C, N, K); }\n"
#define TYPED_HALF                                                                                 \
	"void lh(const __half *A, const __half *B, float *C, int N, int K)\n"                      \
	"{ k<__half, 32><<<1, 1>>>(A, B, C, N, K); }\n"

static const char *const typed_src[] = {
	TYPED_SRC(TYPED_FLOAT TYPED_HALF),
	TYPED_SRC(TYPED_HALF TYPED_FLOAT),
};

static void check_typed(void)
{
	cr_assert_eq(F.nkernels, 1);
	kp_kernel *k = F.kernels[0];
	cr_assert_eq(k->ninst, 2);
	cr_assert_not_null(k->inst_targs);
	for (int i = 0; i < 2; i++) {
		int is_half = !strcmp(k->inst_args[i], "__half, 32");
		cr_expect(is_half || !strcmp(k->inst_args[i], "float, 32"), "%s", k->inst_args[i]);
		cr_assert_not_null(k->inst_targs[i][0].type);
		cr_expect_str_eq(k->inst_targs[i][0].type, is_half ? "__half" : "float");
		cr_expect_eq(k->inst_targs[i][0].size, is_half ? 2 : 4);
		cr_expect_null(k->inst_targs[i][1].type);
		cr_expect_eq(k->inst_values[i][1], 32);
	}
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->nper_inst, 2);
	/* a fixed order: "__half" sorts before "float" */
	kp_loop *h = l->per_inst[0], *fl = l->per_inst[1];
	cr_expect_str_eq(h->inst, "__half, 32");
	cr_expect_str_eq(fl->inst, "float, 32");
	/* sizes resolved per instantiation */
	cr_expect_eq(fl->tile_bytes, 2 * 32 * 32 * 4);
	cr_expect_eq(h->tile_bytes, 2 * 32 * 32 * 2);
	cr_assert_eq(fl->nloads, 2);
	cr_assert_eq(h->nloads, 2);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(fl->loads[i].bytes, 4);
		cr_expect_eq(h->loads[i].bytes, 2);
		/* const T * into a T tile converts nothing */
		cr_expect(fl->loads[i].pure, "load %d of <float, 32> is a pure copy", i);
		cr_expect(h->loads[i].pure, "load %d of <__half, 32> is a pure copy", i);
	}
	cr_expect(CP(fl).ok, "%s", CP(fl).why_not ? CP(fl).why_not : "");
	cr_expect_not(CP(h).ok);
	cr_expect_eq(RG(fl).regs, 2);
	cr_expect_eq(RG(h).regs, 2);
	/* the merge: worst-case sizes, cp.async refused naming __half */
	cr_expect_str_eq(l->inst, "float, 32");
	cr_expect_eq(l->tile_bytes, 2 * 32 * 32 * 4);
	cr_expect_not(CP(l).ok);
	cr_assert_not_null(CP(l).why_not);
	cr_expect_str_eq(CP(l).why_not, "for instantiation <__half, 32>: line 11: 2-byte copies; "
					"cp.async copies 4, 8 or 16 bytes");
	cr_expect_null(strstr(CP(l).why_not, "converts"));
	cr_expect(RG(l).ok);
	cr_expect_eq(RG(l).regs, 2);
}

Test(analyze_sizes, template_typename_float_then_half)
{
	analyze_src(typed_src[0]);
	check_typed();
}

Test(analyze_sizes, template_typename_half_then_float)
{
	analyze_src(typed_src[1]);
	check_typed();
}

Test(analyze_sizes, template_typename_float_only_gets_cp_async)
{
	static const char src[] = TYPED_SRC(TYPED_FLOAT);
	analyze_src(src);
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_expect_str_eq(l->inst, "float, 32");
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].bytes, 4);
	cr_expect(l->loads[0].pure);
	cr_expect(CP(l).ok, "%s", CP(l).why_not ? CP(l).why_not : "");
	cr_expect_eq(l->tile_bytes, 2 * 32 * 32 * 4);
}

/* cp.async byte counts are written as numbers: a copy of 4 B in one
 * instantiation and 8 B in another gets no cp.async. */
Test(analyze_sizes, template_typename_copy_size_differs_between_instantiations)
{
	static const char src[] = TYPED_SRC(
		TYPED_FLOAT "void ld(const double *A, const double *B, float *C, int N, int K)\n"
			    "{ k<double, 32><<<1, 1>>>(A, B, C, N, K); }\n");
	analyze_src(src);
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_assert_eq(l->nper_inst, 2);
	cr_expect(CP(l->per_inst[0]).ok);
	cr_expect(CP(l->per_inst[1]).ok);
	cr_expect_str_eq(l->inst, "double, 32");
	cr_expect_eq(l->tile_bytes, 2 * 32 * 32 * 8);
	cr_expect_not(CP(l).ok);
	cr_assert_not_null(CP(l).why_not);
	cr_expect_str_eq(
		CP(l).why_not,
		"line 11: the copy is 8 B for instantiation <double, 32> and 4 B for <float, 32>; "
		"the cp.async rewrite writes one byte count");
	cr_expect(RG(l).ok);
	cr_expect_eq(RG(l).regs, 4);
	cr_expect_str_eq(RG(l).regs_inst, "double, 32");
}

/* A float source into a T tile converts for T = __half only. */
Test(analyze_sizes, template_typename_converting_copy_per_instantiation)
{
	static const char src[] =
		"#include <cuda_fp16.h>\n"
		"template <typename T>\n"
		"__global__ void k(const float *A, const float *B, float *C, int N, int K)\n"
		"{\n"
		"    __shared__ T As[16][16];\n"
		"    __shared__ T Bs[16][16];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < K; k0 += 16) {\n" LOAD SYNC
		"        for (int kk = 0; kk < 16; ++kk)\n"
		"            acc += (float)As[ty][kk] * (float)Bs[kk][tx];\n" SYNC END TAIL
		"void lf(const float *A, const float *B, float *C, int N, int K)\n"
		"{ k<float><<<1, 1>>>(A, B, C, N, K); k<__half><<<1, 1>>>(A, B, C, N, K); }\n";
	analyze_src(src);
	kp_loop *l = only_loop();
	cr_assert_eq(l->nper_inst, 2);
	kp_loop *h = l->per_inst[0], *fl = l->per_inst[1];
	cr_expect_str_eq(h->inst, "__half");
	cr_expect_str_eq(fl->inst, "float");
	cr_expect(fl->loads[0].pure);
	cr_expect_not(h->loads[0].pure);
	cr_expect_not(CP(l).ok);
	cr_assert_not_null(CP(l).why_not);
	cr_expect(strstr(CP(l).why_not, "for instantiation <__half>") != NULL, "%s", CP(l).why_not);
}

struct size_case {
	int src;
	char arg[24]; /* a compiler argument, or "" */
};

static const char *const size_src[] = {
	/* 0: constexpr at namespace scope */
	"constexpr int TILE = 16;\n" ELIGIBLE,
	/* 1: in a named namespace, used qualified through a macro-free alias */
	"namespace cfg { constexpr int TILE = 16; }\n"
	"using cfg::TILE;\n" ELIGIBLE,
	/* 2: in an anonymous namespace */
	"namespace { constexpr int TILE = 16; }\n" ELIGIBLE,
	/* 3: from -DTILE=16 (no #define in the file) */
	"",
	/* 4: static const int */
	"static const int TILE = 16;\n" ELIGIBLE,
	/* 5: an enum */
	"enum { TILE = 16 };\n" ELIGIBLE,
};

ParameterizedTestParameters(analyze_sizes, resolved)
{
	static struct size_case params[] = {
		{0, ""}, {1, ""}, {2, ""}, {3, "-DTILE=16"}, {4, ""}, {5, ""},
	};
	return cr_make_param_array(struct size_case, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct size_case *p, analyze_sizes, resolved, .fini = release)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *src = size_src[p->src];
	if (p->src == 3) {
		/* ELIGIBLE without its first line (#define TILE 16) */
		const char *e = ELIGIBLE;
		kp_strbuf_adds(&sb, strchr(e, '\n') + 1);
	} else {
		/* drop the #define so that the declaration is what TILE means */
		const char *d = strstr(src, "#define TILE 16\n");
		cr_assert_not_null(d);
		kp_strbuf_add(&sb, src, (size_t)(d - src));
		kp_strbuf_adds(&sb, d + strlen("#define TILE 16\n"));
	}
	const char *args[1] = {p->arg};
	analyze_args(kp_strbuf_str(&sb), "sm_90", p->arg[0] ? args : NULL, p->arg[0] ? 1 : 0, 0);
	kp_strbuf_release(&sb);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible, "case %d", p->src);
	cr_expect_eq(l->tile_bytes, 2048, "case %d: tile bytes %lld", p->src, l->tile_bytes);
	for (int i = 0; i < l->ntiles; i++)
		cr_expect_eq(l->tiles[i].elems, 256, "case %d", p->src);
	cr_expect_eq(RG(l).regs, 2);
	cr_expect(l->flops_thread > 31.9 && l->flops_thread < 32.1, "case %d: flops %g", p->src,
		  l->flops_thread);
}

Test(analyze_sizes, define_from_args_overrides_nothing_in_the_file)
{
	/* -DTILE=8 with a file that has no #define: 8x8 tiles */
	const char *e = ELIGIBLE;
	const char *args[1] = {"-DTILE=8"};
	analyze_args(strchr(e, '\n') + 1, "sm_90", args, 1, 0);
	kp_loop *l = only_loop();
	cr_expect(l->eligible);
	cr_expect_eq(l->tile_bytes, 2 * 8 * 8 * 4);
}

Test(analyze_sizes, arch_changes_the_budget)
{
	/* 2 x float[64][48] = 24 KB, 48 KB doubled: exactly the static limit */
	analyze_src(HEAD_X("", "const float", "[64][48]", "[64][48]", "")
			    FOR LOAD SYNC COMP SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_eq(l->tile_bytes, 2 * 64 * 48 * 4);
	cr_expect_null(find_reason(l, "kpipe-smem-over-limit"), "48 KB doubled fits 48 KB");
	long long need;
	const char *inst;
	cr_expect(kp_plan_smem(l, kp_arch_find("sm_90"), 2, 0, &need, &inst),
		  "48 KB doubled fits 48 KB");
	cr_expect_eq(need, 48 * 1024);
	cr_expect_not(kp_plan_smem(l, kp_arch_find("sm_90"), 3, 0, &need, &inst));
	cr_expect_eq(need, 72 * 1024);
	cr_expect_null(inst);
}

/* --- the front end: what nvcc finds, kpipe finds ------------------------------ */

static int have_cccl(void)
{
	struct stat st;
	const char *root = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
	char p[4096];
	snprintf(p, sizeof(p), "%s/include/cccl", root);
	return stat(p, &st) == 0;
}

/* CUDA 13 keeps libcu++/CUB/Thrust under include/cccl, which nvcc adds
 * through its profile: cooperative groups and CUB parse without flags. */
Test(parse, cccl_headers_without_flags)
{
	if (!have_cccl())
		cr_skip_test("no CUDA toolkit with include/cccl here");
	static const char src[] = "#include <cooperative_groups.h>\n"
				  "#include <cub/block/block_reduce.cuh>\n"
				  "#include <cuda/pipeline>\n"
				  "namespace cg = cooperative_groups;\n"
				  "__global__ void k(float *a)\n"
				  "{\n"
				  "    using R = cub::BlockReduce<float, 128>;\n"
				  "    __shared__ typename R::TempStorage t;\n"
				  "    float v = R(t).Sum(a[threadIdx.x]);\n"
				  "    cg::this_thread_block().sync();\n"
				  "    if (threadIdx.x == 0) a[0] = v;\n"
				  "}\n";
	int rc = parse_as("cccl.cu", src, "sm_90", NULL, 0);
	if (rc != KP_PARSE_OK)
		print_diags();
	cr_assert_eq(rc, KP_PARSE_OK, "kp_parse: %d", rc);
	cr_expect_eq(F.nkernels, 1);
}

/* Targets newer than this libclang knows are parsed as the newest it does;
 * the analysis keeps the requested target (its shared-memory budget). */
Test(parse, newer_targets_parse)
{
	const char *archs[] = {"sm_100", "sm_103", "sm_120", "sm_121"};
	for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++) {
		analyze_args(ELIGIBLE, archs[i], NULL, 0, 0);
		cr_expect_eq(AN.nloops, 1, "%s", archs[i]);
		cr_expect(AN.loops[0]->eligible, "%s", archs[i]);
		release();
	}
	cr_expect_str_eq(kp_parse_arch("sm_90"), "sm_90");
	cr_expect_str_eq(kp_parse_arch("sm_80"), "sm_80");
	cr_expect_str_eq(kp_parse_arch("sm_35"),
			 "sm_50"); /* Kepler: clang refuses it with CUDA 12+ */
	cr_expect(strcmp(kp_parse_arch("sm_120"), "sm_120") == 0 || KPIPE_LIBCLANG_MAJOR < 20);
}

/* Host code clang rejects and nvcc accepts does not stop the analysis of
 * kernels whose own code is intact; an error inside a kernel still does. */
Test(parse, errors_outside_kernels_are_ignored)
{
	static const char host[] = ELIGIBLE "int main() { srand(time(NULL)); return 0; }\n";
	analyze_src(host);
	cr_expect_eq(F.outside_errors, 1, "%d", F.outside_errors);
	cr_expect(only_loop()->eligible);
	release();
	static const char inside[] = HEAD FOR LOAD SYNC COMP
		"        acc += (float)time(NULL);\n" SYNC END TAIL;
	int rc = parse_as("snippet.cu", inside, "sm_90", NULL, 0);
	cr_expect_eq(rc, KP_PARSE_ERRORS, "an error inside the only kernel must stop it: %d", rc);
	cr_expect_eq(F.outside_errors, 0);
}

/* A header clang cannot find (PyTorch's, where PyTorch is not installed):
 * its names are undeclared in host code and its macros leave the binding
 * block after the kernels unknown (semantic errors); the kernels are
 * analysed, the missing header reported.  A parse error in a host
 * declaration leaves it out of the parse (a note); one in device code
 * still stops the file. */
Test(parse, missing_header_spares_the_kernels)
{
	static const char torch[] = "#include <kp_no_such_dir/extension.h>\n" ELIGIBLE
				    "void bind(torch::Tensor a) { TORCH_CHECK(a.is_cuda()); }\n"
				    "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
				    "  m.def(\"mm\", &bind, \"mm\");\n"
				    "}\n";
	analyze_src(torch);
	cr_expect(F.outside_errors > 2, "%d", F.outside_errors);
	int missing = 0;
	for (int i = 0; i < F.ndiags; i++)
		missing += F.diags[i].missing_include;
	cr_expect_eq(missing, 1);
	cr_expect(only_loop()->eligible);
	release();
	/* a parse error in a host declaration: left out of the parse, with a
	 * note (recover.c, host_skip.c) */
	static const char early[] = "#include <kp_no_such_dir/extension.h>\n"
				    "int broken = ;\n" ELIGIBLE;
	analyze_src(early);
	int notes = 0;
	for (int i = 0; i < F.ndiags; i++)
		notes += F.diags[i].skipped && F.diags[i].line == 2;
	cr_expect_eq(notes, 1);
	cr_expect(only_loop()->eligible);
	release();
	/* one in device code still stops the file */
	static const char dev[] = "#include <kp_no_such_dir/extension.h>\n"
				  "__device__ int broken() { return ; + }\n" ELIGIBLE;
	int rc = parse_as("snippet.cu", dev, "sm_90", NULL, 0);
	cr_expect_eq(rc, KP_PARSE_ERRORS, "a parse error in device code must stop the file: %d",
		     rc);
}

/* An error inside one kernel marks that kernel (never rewritten: its loop
 * is refused with kpipe-kernel-error); the file's other kernels are
 * analysed as usual. */
Test(parse, error_in_one_kernel_spares_the_others)
{
	static const char two[] = "__global__ void broken(float *a)\n"
				  "{\n"
				  "    __shared__ float t[16];\n"
				  "    for (int k = 0; k < 64; k += 16) {\n"
				  "        t[threadIdx.x] = a[k + threadIdx.x];\n"
				  "        __syncthreads();\n"
				  "        a[threadIdx.x] += t[0] + (float)time(NULL);\n"
				  "        __syncthreads();\n"
				  "    }\n"
				  "}\n" ELIGIBLE;
	analyze_src(two);
	cr_assert_eq(AN.nloops, 2, "%d", AN.nloops);
	cr_expect_eq(F.outside_errors, 1, "%d", F.outside_errors);
	cr_expect_str_eq(F.kernels[0]->name, "broken");
	cr_assert_not_null(F.kernels[0]->error);
	cr_expect(strstr(F.kernels[0]->error, "line 7: ") == F.kernels[0]->error, "%s",
		  F.kernels[0]->error);
	cr_expect_null(F.kernels[1]->error);
	cr_expect_not(AN.loops[0]->eligible);
	cr_expect_not_null(find_reason(AN.loops[0], "kpipe-kernel-error"));
	cr_expect(AN.loops[1]->eligible);
	int in_kernel = 0;
	for (int i = 0; i < F.ndiags; i++)
		in_kernel += F.diags[i].kernel && !strcmp(F.diags[i].kernel, "broken");
	cr_expect_eq(in_kernel, 1);
}

/* --- for-statement slots: decided from the header's tokens --------------------- */

/* The K-loop header FOR with one thing changed, else the eligible kernel. */
#define WITH_FOR(hdr) HEAD hdr LOAD SYNC COMP SYNC END TAIL

static const char *text_of(const kp_node *n) { return n ? kp_node_text(&F, n) : "(none)"; }

static void expect_k_slots(const kp_loop *l, const char *init, const char *cond, const char *inc)
{
	cr_expect_str_eq(text_of(l->init), init);
	cr_expect_str_eq(text_of(l->cond), cond);
	cr_expect_str_eq(text_of(l->inc), inc);
	cr_expect_eq(l->init, l->node->for_init);
	cr_expect_eq(l->body, l->node->for_body);
	cr_assert_not_null(l->body);
	cr_expect_eq(l->body->kind, KP_N_COMPOUND);
}

/* A ';' in a comment or a string literal of the header is not one of its
 * two ';': the verdict is the plain header's. */
Test(analyze, for_header_semicolon_in_comment_or_string)
{
	static const char *const srcs[] = {
		WITH_FOR("    for (int k0 = 0; /* ; */ k0 < K; k0 += TILE) {\n"),
		WITH_FOR("    for (int k0 = 0; k0 < K /* ; ; */; k0 += TILE /* ; */) {\n"),
		WITH_FOR("    for (int k0 = 0; k0 < K + (int)sizeof(\";\") - 2; k0 += TILE) {\n"),
	};
	static const char *const conds[] = {"k0 < K", "k0 < K", "k0 < K + (int)sizeof(\";\") - 2"};
	for (int i = 0; i < 3; i++) {
		analyze_src(srcs[i]);
		kp_loop *l = only_loop();
		log_reasons(l);
		check_eligible_16x16(l, "mm");
		expect_k_slots(l, "int k0 = 0;", conds[i], "k0 += TILE");
		release();
	}
}

/* Absent header parts leave their slot empty; the others keep theirs. */
Test(analyze, for_header_missing_parts)
{
	/* the counter declared before the loop */
	analyze_src(HEAD "    int k0 = 0;\n"
			 "    for (; k0 < K; k0 += TILE) {\n" LOAD SYNC COMP SYNC END TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	expect_k_slots(l, "(none)", "k0 < K", "k0 += TILE");
	cr_expect(l->eligible);
	cr_assert_eq(l->nind, 1);
	cr_expect_str_eq(l->ind[0].var->name, "k0");
	cr_expect_eq(l->ind[0].in_header, 1);
	release();

	/* the step in the body: no increment, and the loop says so */
	analyze_src(WITH_FOR("    for (int k0 = 0; k0 < K;) {\n") "");
	l = only_loop();
	expect_k_slots(l, "int k0 = 0;", "k0 < K", "(none)");
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-loop-shape");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "needs a condition and an increment"), "%s", r->message);
	release();

	/* only an increment, only a condition, nothing */
	static const struct {
		const char *hdr, *init, *cond, *inc;
	} cases[] = {
		{"    for (;; k0 += TILE) {\n", "(none)", "(none)", "k0 += TILE"},
		{"    for (; k0 < K;) {\n", "(none)", "k0 < K", "(none)"},
		{"    for (;;) {\n", "(none)", "(none)", "(none)"},
		{"    for (k0 = 0;;) {\n", "k0 = 0", "(none)", "(none)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[4096];
		snprintf(src, sizeof(src), "%s    int k0 = 0;\n%s" LOAD SYNC COMP SYNC END TAIL,
			 HEAD, cases[i].hdr);
		analyze_src(src);
		l = only_loop();
		expect_k_slots(l, cases[i].init, cases[i].cond, cases[i].inc);
		cr_expect_not(l->eligible);
		release();
	}
}

/* A kernel whose tiles are filled by copy loops: As by rows 4 apart, Bs
 * by a block-strided loop (line 15). */
#define COPY_HEAD                                                                                  \
	"#define TILE 16\n"                                                                        \
	"__global__ void mm(const float *A, const float *B, float *C, int N, int K)\n"             \
	"{\n"                                                                                      \
	"    __shared__ float As[TILE][TILE];\n"                                                   \
	"    __shared__ float Bs[TILE * TILE];\n"                                                  \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int tid = ty * TILE + tx;\n"                                                          \
	"    const int nthreads = 64;\n"                                                           \
	"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"                    \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"                                             \
	"        for (int r = 0; r < TILE /* ; */; r += 4)\n"                                      \
	"            As[ty + r][tx] = A[(blockIdx.y * TILE + ty + r) * K + k0 + tx];\n"
#define COPY_TAIL                                                                                  \
	SYNC "        for (int kk = 0; kk < TILE; ++kk)\n"                                         \
	     "            acc += As[ty][kk] * Bs[kk * TILE + tx];\n" SYNC END TAIL

static void expect_range(const kp_range *r, const char *var, const char *lo, const char *op,
			 const char *hi, const char *step)
{
	cr_assert_not_null(r->var_decl);
	cr_expect_str_eq(r->var_decl->name, var);
	cr_expect_str_eq(text_of(r->lo), lo);
	cr_expect_str_eq(r->op, op);
	cr_expect_str_eq(text_of(r->hi), hi);
	cr_expect_str_eq(text_of(r->step), step);
	cr_expect(r->step_ok);
}

/* The register transform's text for the only loop. */
static char *register_text(const kp_loop *l)
{
	const kp_transform *t = kp_transform_find("register");
	cr_assert_not_null(t);
	kp_xform_opts xo = {kp_arch_find("sm_90"), 2, "test", 0, 0};
	kp_edits e = {0};
	const char *err = NULL;
	cr_assert_eq(t->apply(&F, l, &xo, &e, &err), 0, "%s", err ? err : "");
	char *out = NULL;
	size_t n = 0;
	cr_assert_eq(kp_edits_apply(&e, F.src, F.len, &out, &n), 0);
	kp_edits_release(&e);
	return out;
}

/* A copy loop is read once (kp_load.ranges): its trip count and the
 * staging registers' count and index come from the same reading. */
Test(analyze, copy_loop_ranges)
{
	analyze_src(
		COPY_HEAD
		"        for (int i = 0; i < TILE * TILE / 64; i++)\n"
		"            Bs[i * 64 + tid] = B[(k0 + i / TILE) * N + i % TILE];\n" COPY_TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_assert_eq(l->loads[0].depth, 1);
	expect_range(&l->loads[0].ranges[0], "r", "0", "<", "TILE", "4");
	cr_expect(l->loads[0].trips[0] > 3.9 && l->loads[0].trips[0] < 4.1, "%g",
		  l->loads[0].trips[0]);
	cr_assert_eq(l->loads[1].depth, 1);
	expect_range(&l->loads[1].ranges[0], "i", "0", "<", "TILE * TILE / 64", "(none)");
	cr_expect(l->loads[1].ranges[0].step_is_one);
	cr_expect(l->loads[1].trips[0] > 3.9 && l->loads[1].trips[0] < 4.1, "%g",
		  l->loads[1].trips[0]);
	cr_expect(RG(l).ok, "register: %s", RG(l).why_not ? RG(l).why_not : "");
	cr_expect_eq(RG(l).regs, 8);
	char *out = register_text(l);
	cr_expect(strstr(out, "float kp_reg0[(((TILE) - (0) + (4) - 1) / (4))] = {};"), "%s", out);
	cr_expect(strstr(out, "float kp_reg1[(TILE * TILE / 64)] = {};"), "%s", out);
	cr_expect(strstr(out, "kp_reg0[((r - (0)) / (4))] = A["), "%s", out);
	cr_expect(strstr(out, "Bs[kp_stage ^ 1][i * 64 + tid] = kp_reg1[i];"), "%s", out);
	free(out);
}

/* A block-strided copy loop: read as before, no compile-time trip count,
 * so no register staging. */
Test(analyze, copy_loop_block_strided)
{
	analyze_src(COPY_HEAD "        for (int i = tid; i < TILE * TILE; i += nthreads)\n"
			      "            Bs[i] = B[(k0 + i / TILE) * N + i % TILE];\n" COPY_TAIL);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_assert_eq(l->loads[1].depth, 1);
	expect_range(&l->loads[1].ranges[0], "i", "tid", "<", "TILE * TILE", "nthreads");
	cr_expect(l->loads[1].ranges[0].step_plus_assign);
	cr_expect(l->loads[1].trips[0] < 0, "%g", l->loads[1].trips[0]);
	kp_xfacts x = RG(l);
	cr_expect_not(x.ok);
	cr_assert_not_null(x.why_not);
	cr_expect(strstr(x.why_not, "line 15: the copy loop has no compile-time trip count"), "%s",
		  x.why_not);
	cr_expect(CP(l).ok, "cp.async: %s", CP(l).why_not ? CP(l).why_not : "");
}

/* --- copies the source stages in registers itself (#16 item 3) --------------
 * A is read as a float4 and stored down a column of As (transposed): one
 * kernel, the staging register declared in the load phase (STAGED_LOCAL) or
 * before the loop (STAGED_SCRATCH, with `extra` lines after the loop). */
#define STAGED_HEAD(decl)                                                                          \
	"__global__ void __launch_bounds__(64) st(const float *A, const float *B, float *C,\n"     \
	"                                         int N, int K)\n"                                 \
	"{\n"                                                                                      \
	"    __shared__ float As[16 * 16];\n"                                                      \
	"    __shared__ float Bs[16 * 16];\n"                                                      \
	"    int t = threadIdx.x, r = t / 4, c = t % 4;\n"                                         \
	"    float acc = 0.0f;\n" decl "    for (int k0 = 0; k0 < K; k0 += 16) {\n"
#define STAGED_LOADS(first)                                                                        \
	first "        As[(c * 4 + 0) * 16 + r] = v[0];\n"                                         \
	      "        As[(c * 4 + 1) * 16 + r] = v[1];\n"                                         \
	      "        As[(c * 4 + 2) * 16 + r] = v[2];\n"                                         \
	      "        As[(c * 4 + 3) * 16 + r] = v[3];\n"                                         \
	      "        reinterpret_cast<float4 *>(&Bs[t * 4])[0] =\n"                              \
	      "            reinterpret_cast<const float4 *>(&B[(k0 + r) * N + c * 4])[0];\n"       \
	      "        __syncthreads();\n"
#define STAGED_TAIL(comp, after)                                                                   \
	"        for (int kk = 0; kk < 16; ++kk)\n"                                                \
	"            acc += As[kk * 16 + r] * Bs[kk * 16 + c] " comp ";\n"                         \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[t] = acc" after ";\n"                                                               \
	"}\n"
#define STAGED_WRITE                                                                               \
	"        reinterpret_cast<float4 *>(v)[0] =\n"                                             \
	"            reinterpret_cast<const float4 *>(&A[r * K + k0 + c * 4])[0];\n"
#define STAGED_SCRATCH(comp, after)                                                                \
	STAGED_HEAD("    float v[4] = {};\n") STAGED_LOADS(STAGED_WRITE) STAGED_TAIL(comp, after)

/* float4 v = ...; As[..] = v.x (here v[0] of a float array): register
 * staging carries it, cp.async says why not, and the rewrite stores the
 * staging registers, not the loads, after the math. */
Test(analyze, staged_local_register)
{
	analyze_src(STAGED_HEAD("") STAGED_LOADS("        float v[4];\n" STAGED_WRITE)
			    STAGED_TAIL("", ""));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert(l->eligible);
	cr_assert_eq(l->nloads, 5);
	for (int i = 0; i < 4; i++) {
		cr_assert_not_null(l->loads[i].via, "load %d", i);
		cr_expect_str_eq(l->loads[i].via->name, "v");
		cr_assert_not_null(l->loads[i].src);
		cr_expect_str_eq(l->loads[i].src->name, "A");
	}
	cr_expect_null(l->loads[4].via);
	kp_xfacts cp = CP(l);
	cr_expect_not(cp.ok);
	cr_assert_not_null(cp.why_not);
	cr_expect(strstr(cp.why_not, "from the register 'v'"), "%s", cp.why_not);
	cr_expect(RG(l).ok, "%s", RG(l).why_not ? RG(l).why_not : "");
	char *out = register_text(l);
	/* the fetch fills v from the next tile; the store writes no load */
	cr_expect(strstr(out, "kp_reg0[0] = v[0];"), "%s", out);
	cr_expect(strstr(out, "As[kp_stage ^ 1][(c * 4 + 3) * 16 + r] = kp_reg3[0];"), "%s", out);
	const char *store = strstr(out, "As[kp_stage ^ 1]");
	cr_assert_not_null(store);
	cr_expect_null(strstr(store, "A[r * K"), "the store part loads again:\n%s", out);
	free(out);
}

/* The staging array declared before the loop and named only in the load
 * phase (a scratch register): the same, and the store part drops the
 * write to it (it would load again, unguarded, on the last tile). */
Test(analyze, staged_scratch_register)
{
	analyze_src(STAGED_SCRATCH("", ""));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert(l->eligible);
	cr_assert_not_null(l->loads[0].via);
	cr_expect_str_eq(l->loads[0].via->name, "v");
	cr_expect(RG(l).ok, "%s", RG(l).why_not ? RG(l).why_not : "");
	char *out = register_text(l);
	const char *store = strstr(out, "As[kp_stage ^ 1]");
	cr_assert_not_null(store);
	cr_expect_null(strstr(store, "reinterpret_cast<float4 *>(v)"),
		       "the store part writes the scratch register:\n%s", out);
	cr_expect(strstr(out, "reinterpret_cast<float4 *>(v)[0] =\n"), "%s", out);
	free(out);
}

/* Near misses: the staging array is read by the compute phase or after
 * the loop (it carries a value out of the load phase), or is filled from
 * shared memory: refused, each with its reason. */
Test(analyze, staged_near_misses)
{
	analyze_src(STAGED_SCRATCH("+ v[1]", ""));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-load-side-effect"));
	release();

	analyze_src(STAGED_SCRATCH("", " + v[0]"));
	l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-load-side-effect"));
	release();

	analyze_src(STAGED_HEAD("    float v[4] = {};\n") STAGED_LOADS(
		"        reinterpret_cast<float4 *>(v)[0] = reinterpret_cast<float4 *>(&Bs[t * 4])[0];\n")
			    STAGED_TAIL("", ""));
	l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-load-depends-on-compute"));
}

/* --- K-loops in __device__ functions (#16 item 5) ---------------------------
 * A __device__ function with __shared__ arrays of its own is analysed like a
 * kernel: its callers are named, their common __launch_bounds__ is its
 * block size, and its pipelined loop always ends with a barrier (a caller
 * may call it again).  A function without __shared__ arrays is no
 * candidate. */
#define DEVFN(bounds2)                                                                             \
	"#define TILE 16\n"                                                                        \
	"__device__ void part(const float *A, const float *B, float *C, int N, int K)\n"           \
	"{\n"                                                                                      \
	"    __shared__ float As[TILE][TILE];\n"                                                   \
	"    __shared__ float Bs[TILE][TILE];\n"                                                   \
	"    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;\n"                              \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"                                             \
	"        As[ty][tx] = A[ty * K + k0 + tx];\n"                                              \
	"        Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < TILE; ++kk)\n"                                              \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[ty * N + tx] = acc;\n"                                                              \
	"}\n"                                                                                      \
	"__device__ float plain(const float *p) { return p[0]; }\n"                                \
	"__global__ void __launch_bounds__(256) one(const float *A, const float *B, float *C,\n"   \
	"                                           int N, int K) { part(A, B, C, N, K); }\n"      \
	"__global__ void __launch_bounds__(" bounds2 ") two(const float *A, const float *B,\n"     \
	"                  float *C, int N, int K) { C[0] = plain(A); part(A, B, C, N, K); }\n"

Test(analyze, device_function_loop)
{
	analyze_src(DEVFN("256"));
	cr_assert_eq(F.nkernels, 3, "part, one, two: %d", F.nkernels);
	const kp_kernel *d = F.kernels[0];
	cr_expect_str_eq(d->name, "part");
	cr_expect(d->is_device);
	cr_assert_not_null(d->callers);
	cr_expect_str_eq(d->callers, "one, two");
	cr_expect_eq(d->launch_bounds, 256);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert(l->eligible);
	cr_expect_eq(l->kernel, d);
	cr_expect(l->exit_barrier);
	cr_assert_not_null(l->exit_barrier_why);
	cr_expect(strstr(l->exit_barrier_why, "__device__"), "%s", l->exit_barrier_why);
	release();
	/* callers that disagree: no block size from them */
	analyze_src(DEVFN("128"));
	cr_expect_eq(F.kernels[0]->launch_bounds, 0);
}

/* A __device__ function handed to a kernel template as its argument (a
 * call through a function-pointer parameter, llm.c's trimat kernels) is
 * called from that instantiation, which is named by the function. */
Test(analyze, device_function_as_template_argument)
{
	analyze_src("#define TILE 16\n"
		    "__device__ void part(const float *A, const float *B, float *C, int N, int K)\n"
		    "{\n"
		    "    __shared__ float As[TILE][TILE];\n"
		    "    __shared__ float Bs[TILE][TILE];\n"
		    "    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;\n"
		    "    float acc = 0.0f;\n"
		    "    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
		    "        As[ty][tx] = A[ty * K + k0 + tx];\n"
		    "        Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"
		    "        __syncthreads();\n"
		    "        for (int kk = 0; kk < TILE; ++kk)\n"
		    "            acc += As[ty][kk] * Bs[kk][tx];\n"
		    "        __syncthreads();\n"
		    "    }\n"
		    "    C[ty * N + tx] = acc;\n"
		    "}\n"
		    "using part_fn = void (*)(const float *, const float *, float *, int, int);\n"
		    "template <part_fn f>\n"
		    "__global__ void __launch_bounds__(256) run(const float *A, const float *B,\n"
		    "                                          float *C, int N, int K)\n"
		    "{ f(A, B, C, N, K); }\n"
		    "void go(const float *A, const float *B, float *C, int N, int K)\n"
		    "{ run<part><<<1, 256>>>(A, B, C, N, K); }\n");
	const kp_kernel *d = NULL, *k = NULL;
	for (int i = 0; i < F.nkernels; i++) {
		if (!strcmp(F.kernels[i]->name, "part"))
			d = F.kernels[i];
		if (!strcmp(F.kernels[i]->name, "run"))
			k = F.kernels[i];
	}
	cr_assert_not_null(d);
	cr_assert_not_null(k);
	cr_assert_eq(k->ninst, 1);
	cr_expect_str_eq(k->inst_args[0], "part");
	cr_assert_not_null(d->callers);
	cr_expect_str_eq(d->callers, "run<part>");
	cr_expect_eq(d->launch_bounds, 256);
}

/* --- loops pipelined by hand (#16 item 9: the real reason) ------------------
 * Double buffers filled before the loop and inside it, and cp.async written
 * as inline asm behind a macro, are kpipe-already-pipelined, not a pile of
 * shape and dependence ids. */
#define HAND_HEAD                                                                                  \
	"#define CP_ASYNC_CG(dst, src, bytes) \\\n"                                                \
	"  asm volatile(\"cp.async.cg.shared.global [%0], [%1], %2;\\n\" ::\"r\"(dst), \\\n"       \
	"               \"l\"(src), \"n\"(bytes))\n"                                               \
	"__global__ void h(const float *A, float *C, int K)\n"                                     \
	"{\n"                                                                                      \
	"    __shared__ float s[2][64];\n"                                                         \
	"    float acc = 0.0f, r;\n"                                                               \
	"    int t = threadIdx.x;\n"
Test(analyze, hand_pipelined_loops)
{
	analyze_src(HAND_HEAD "    s[0][t] = A[t];\n"
			      "    __syncthreads();\n"
			      "    for (int k = 1; k < K / 64; ++k) {\n"
			      "        r = A[k * 64 + t];\n"
			      "        acc += s[(k - 1) & 1][63 - t];\n"
			      "        s[k & 1][t] = r;\n"
			      "        __syncthreads();\n"
			      "    }\n"
			      "    C[t] = acc;\n"
			      "}\n");
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->already_pipelined);
	const kp_reason *r = find_reason(l, "kpipe-already-pipelined");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "'s' has 2 buffers"), "%s", r->message);
	cr_expect_eq(l->nreasons, 1, "only the real reason: %d", l->nreasons);
	release();
	analyze_src(HAND_HEAD
		    "    for (int k = 0; k < K / 64; ++k) {\n"
		    "        unsigned d = (unsigned)__cvta_generic_to_shared(&s[k & 1][t]);\n"
		    "        CP_ASYNC_CG(d, &A[k * 64 + t], 16);\n"
		    "        __syncthreads();\n"
		    "        acc += s[k & 1][63 - t];\n"
		    "        __syncthreads();\n"
		    "    }\n"
		    "    C[t] = acc;\n"
		    "}\n");
	l = only_loop();
	log_reasons(l);
	cr_expect(l->already_pipelined);
	cr_expect_not_null(find_reason(l, "kpipe-already-pipelined"));
}

/* A shared accumulator that merely has 2 or 3 rows (`acc[2][T]`, set
 * before the loop, accumulated in it) is no pair of buffers: the loop is
 * not pipelined by hand (found by the held-out evaluation).  It is state
 * the compute phase carries from one iteration to the next, which the
 * loads do not read: eligible, with a barrier after the loop, whose code
 * reads it. */
Test(analyze, shared_accumulator_with_two_rows_is_not_hand_pipelined)
{
	static const char *const upd[] = {"acc[ty][tx] += s;", "acc[ty][tx] = acc[ty][tx] + s;"};
	for (int i = 0; i < 2; i++) {
		char src[2048];
		snprintf(src, sizeof(src),
			 "#define T 16\n"
			 "__global__ void rowacc(const float *A, float *out, int K)\n"
			 "{\n"
			 "    __shared__ float tile[T][T];\n"
			 "    __shared__ float acc[2][T];\n"
			 "    int tx = threadIdx.x, ty = threadIdx.y;\n"
			 "    if (ty < 2) acc[ty][tx] = 0.f;\n"
			 "    __syncthreads();\n"
			 "    for (int k0 = 0; k0 < K; k0 += T) {\n"
			 "        tile[ty][tx] = A[(blockIdx.x * T + ty) * K + k0 + tx];\n"
			 "        __syncthreads();\n"
			 "        if (ty < 2) {\n"
			 "            float s = 0.f;\n"
			 "            for (int r = ty; r < T; r += 2) s += tile[r][tx];\n"
			 "            %s\n"
			 "        }\n"
			 "        __syncthreads();\n"
			 "    }\n"
			 "    if (ty == 0) out[blockIdx.x * T + tx] = acc[0][tx] + acc[1][tx];\n"
			 "}\n",
			 upd[i]);
		analyze_src(src);
		kp_loop *l = only_loop();
		log_reasons(l);
		cr_expect_not(l->already_pipelined, "%s", upd[i]);
		cr_expect_null(find_reason(l, "kpipe-already-pipelined"), "%s", upd[i]);
		cr_expect(l->eligible, "%s", upd[i]);
		cr_expect(l->comp_writes_shared, "%s", upd[i]);
		cr_expect(l->exit_barrier, "%s", upd[i]);
		release();
	}
}

/* Tiles carved out of a shared array by pointers (`float *Kj = &sram[n];`):
 * of extern memory, they are tiles (one copy of the region per stage) unless
 * two start at one offset (kpipe-dynamic-smem); of a static array, tiles
 * too (the array once per stage) at distinct constant offsets inside it
 * (kpipe-static-carve otherwise); never "no tile load" or a store through an
 * untracked pointer. */
#define CARVE(decl, bs)                                                                            \
	"__global__ void cv(const float *K, const float *V, float *O, int n, int d)\n"             \
	"{\n" decl "    float *Kj = sram;\n"                                                       \
	"    float *Vj = &sram[" bs "];\n"                                                         \
	"    float acc = 0.0f;\n"                                                                  \
	"    int t = threadIdx.x;\n"                                                               \
	"    for (int j = 0; j < n; j++) {\n"                                                      \
	"        Kj[t] = K[j * 64 + t];\n"                                                         \
	"        Vj[t] = V[j * 64 + t];\n"                                                         \
	"        __syncthreads();\n"                                                               \
	"        for (int y = 0; y < 64; y++)\n"                                                   \
	"            acc += Kj[y] * Vj[63 - y];\n"                                                 \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    O[t] = acc;\n"                                                                        \
	"}\n"
Test(analyze, carve_out_tiles)
{
	analyze_src(CARVE("    extern __shared__ float sram[];\n", "64"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect_eq(l->dyn_tiles, 2);
	release();
	analyze_src(CARVE("    extern __shared__ float sram[];\n", "0"));
	l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-dynamic-smem");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "the carve-outs 'Kj' and 'Vj' of 'sram' start at the same "
				     "offset: they alias"),
		  "%s", r->message);
	cr_expect_null(find_reason(l, "kpipe-no-tile-load"));
	cr_expect_null(find_reason(l, "kpipe-memory-order"));
	release();
	/* of a static array: tiles too (the array once per stage), at
	 * distinct constant offsets; the array's bytes count once */
	analyze_src(CARVE("    __shared__ float sram[128];\n", "64"));
	l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect_eq(l->carve_tiles, 2);
	cr_expect_eq(l->dyn_tiles, 0);
	cr_expect_eq(l->tile_bytes, 512);
	cr_expect_eq(l->other_smem, 0);
	release();
	const char *bad[][2] = {
		{CARVE("    __shared__ float sram[128];\n", "0"),
		 "the carve-outs 'Kj' and 'Vj' of 'sram' start at the same offset (byte 0): "
		 "they overlap"},
		{CARVE("    __shared__ float sram[128];\n", "d"),
		 "the carve-out 'Vj' of 'sram' starts at an offset that is not a constant"},
		{CARVE("    __shared__ float sram[128];\n", "128"),
		 "the carve-out 'Vj' starts at byte 512, past the 512 B of 'sram'"},
		{CARVE("    __shared__ float sram[127];\n", "64"),
		 "'sram' has 508 B, not a multiple of 16"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		analyze_src(bad[i][0]);
		l = only_loop();
		log_reasons(l);
		cr_expect_not(l->eligible, "%zu", i);
		r = find_reason(l, "kpipe-static-carve");
		cr_expect(r && strstr(r->message, bad[i][1]), "%zu: %s", i, r ? r->message : "");
		cr_expect_null(find_reason(l, "kpipe-no-tile-load"));
		release();
	}
	/* an array the kernel also names itself is no region of carve-outs:
	 * the pointers are into a tile (kpipe-tile-escapes here) */
	analyze_src(CARVE("    __shared__ float sram[128];\n    sram[127] = 0.0f;\n", "64"));
	l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	cr_expect_eq(l->carve_tiles, 0);
	cr_expect_null(find_reason(l, "kpipe-static-carve"));
	cr_expect_not_null(find_reason(l, "kpipe-tile-escapes"));
	release();
}

/* A template helper of the compute phase that takes a row of the tile as
 * `T const row[N]` (an array of dependent size, the const kept on the
 * array type by clang) only reads it: the loop is eligible; the same
 * helper taking `T row[N]` may write it (kpipe-compute-writes-tile). */
#define CONST_ROW(q, body)                                                                         \
	"template <typename T, int N>\n"                                                           \
	"__device__ void rd(T " q " row[N], T out[2], int i)\n"                                    \
	"{\n" body "    out[0] = row[i];\n"                                                        \
	"    out[1] = row[i + 1];\n"                                                               \
	"}\n"                                                                                      \
	"template <typename T, int BK>\n"                                                          \
	"__global__ void k(const T *A, T *C, int K)\n"                                             \
	"{\n"                                                                                      \
	"    __shared__ T As[BK][64];\n"                                                           \
	"    T v[2];\n"                                                                            \
	"    T acc = 0;\n"                                                                         \
	"    for (int k0 = 0; k0 < K; k0 += BK) {\n"                                               \
	"        for (int r = 0; r < BK; ++r)\n"                                                   \
	"            As[r][threadIdx.x] = A[(k0 + r) * 64 + threadIdx.x];\n"                       \
	"        __syncthreads();\n"                                                               \
	"        for (int r = 0; r < BK; ++r) {\n"                                                 \
	"            rd<T, 64>(As[r], v, threadIdx.x % 62);\n"                                     \
	"            acc += v[0] * v[1];\n"                                                        \
	"        }\n"                                                                              \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[threadIdx.x] = acc;\n"                                                              \
	"}\n"                                                                                      \
	"template __global__ void k<float, 8>(const float *, float *, int);\n"
Test(analyze, template_helper_const_array_row)
{
	analyze_src(CONST_ROW("const", ""));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect_null(find_reason(l, "kpipe-compute-writes-tile"));
	release();
	analyze_src(CONST_ROW("", "    row[i] = out[1];\n"));
	l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-compute-writes-tile"));
	release();
}

/* A copy loop whose first value is the thread's (`for (y = threadIdx.y /
 * 2; y < 64; y += 8)`): no compile-time trip count, but at most the count
 * from the least first value (0), which register staging sizes its
 * registers by (kp_load.max_trips); not proven when the first value may be
 * below every bound kpipe can show (a subtraction, a run-time term, a
 * product that may wrap around). */
#define THREAD_START(lo)                                                                           \
	"__global__ void ts(const float *A, float *C, int K, int n)\n"                             \
	"{\n"                                                                                      \
	"    __shared__ float As[64][16];\n"                                                       \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"                                               \
	"        for (int y = " lo "; y < 64; y += 8)\n"                                           \
	"            As[y][threadIdx.x] = A[y * K + k0 + threadIdx.x];\n"                          \
	"        __syncthreads();\n"                                                               \
	"        acc += As[threadIdx.y][15 - threadIdx.x];\n"                                      \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[threadIdx.y * 16 + threadIdx.x] = acc;\n"                                           \
	"}\n"
Test(analyze, copy_loop_thread_start_max_trips)
{
	const char *lo[] = {"threadIdx.y / 2", "threadIdx.y % 8", "(threadIdx.y >> 1) + 4"};
	const double most[] = {8, 8, 8};
	const char *src[] = {THREAD_START("threadIdx.y / 2"), THREAD_START("threadIdx.y % 8"),
			     THREAD_START("(threadIdx.y >> 1) + 4")};
	for (int i = 0; i < 3; i++) {
		analyze_src(src[i]);
		kp_loop *l = only_loop();
		cr_assert_eq(l->nloads, 1, "%s", lo[i]);
		cr_expect(l->loads[0].trips[0] < 0, "%s: %g", lo[i], l->loads[0].trips[0]);
		cr_expect(l->loads[0].max_trips[0] > most[i] - 0.1 &&
				  l->loads[0].max_trips[0] < most[i] + 0.1,
			  "%s: %g", lo[i], l->loads[0].max_trips[0]);
		release();
	}
	const char *bad[] = {THREAD_START("threadIdx.y - 1"), THREAD_START("threadIdx.y / 2 + n"),
			     THREAD_START("n"), THREAD_START("threadIdx.y * 3000000")};
	for (int i = 0; i < 4; i++) {
		analyze_src(bad[i]);
		kp_loop *l = only_loop();
		cr_assert_eq(l->nloads, 1, "%d", i);
		cr_expect(l->loads[0].max_trips[0] < 0, "%d: %g", i, l->loads[0].max_trips[0]);
		release();
	}
}

/* A copy loop stepping by a plain local (`int stride = 256 / rounds;`):
 * its value is the initialiser's when nothing else changes it (assignment,
 * ++, its address, a non-const reference parameter, asm), so the trip
 * count is known; otherwise unknown. */
#define STRIDE_LOCAL(change)                                                                       \
	"__device__ void bump(int &x) { x += 1; }\n"                                               \
	"__global__ void ks(const float *A, float *C, int K)\n"                                    \
	"{\n"                                                                                      \
	"    __shared__ float As[256];\n"                                                          \
	"    int rounds = 4;\n"                                                                    \
	"    int stride = 256 / rounds;\n" change "    float acc = 0.0f;\n"                        \
	"    for (int k0 = 0; k0 < K; k0 += 256) {\n"                                              \
	"        for (int i = 0; i < 256; i += stride)\n"                                          \
	"            As[i + threadIdx.x] = A[k0 + i + threadIdx.x];\n"                             \
	"        __syncthreads();\n"                                                               \
	"        acc += As[255 - threadIdx.x];\n"                                                  \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[threadIdx.x] = acc;\n"                                                              \
	"}\n"
Test(analyze, copy_loop_step_from_a_plain_local)
{
	analyze_src(STRIDE_LOCAL(""));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert_eq(l->nloads, 1);
	cr_expect(l->loads[0].trips[0] > 3.9 && l->loads[0].trips[0] < 4.1, "%g",
		  l->loads[0].trips[0]);
	static const char *const changes[] = {"    if (K < 0) stride = 1;\n",
					      "    if (K < 0) rounds++;\n", "    bump(stride);\n",
					      "    int *p = &rounds; (void)p;\n"};
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		release();
		char src[2048];
		snprintf(src, sizeof(src), "%s", STRIDE_LOCAL("%s"));
		char full[2048];
		snprintf(full, sizeof(full), src, changes[i]);
		analyze_src(full);
		l = only_loop();
		cr_assert_eq(l->nloads, 1);
		cr_expect(l->loads[0].trips[0] < 0, "%s: trips %g", changes[i],
			  l->loads[0].trips[0]);
	}
}

/* A compute helper handed the tiles: a pointer or reference to const only
 * reads them (eligible; the rewrite passes the stage at the call site); a
 * non-const one may write them (kpipe-compute-writes-tile naming it). */
#define COMPUTE_HELPER(params)                                                                     \
	"__device__ float dot(" params ", int r)\n"                                                \
	"{ float s = 0.0f; for (int k = 0; k < 16; ++k) s += a[r * 16 + k]; return s; }\n"         \
	"__global__ void kh(const float *A, float *C, int K)\n"                                    \
	"{\n"                                                                                      \
	"    __shared__ float As[256];\n"                                                          \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"                                               \
	"        As[threadIdx.x] = A[k0 * 16 + threadIdx.x];\n"                                    \
	"        __syncthreads();\n"                                                               \
	"        acc += dot(As, threadIdx.x % 16);\n"                                              \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[threadIdx.x] = acc;\n"                                                              \
	"}\n"
Test(analyze, compute_helper_reading_the_tile)
{
	analyze_src(COMPUTE_HELPER("const float *a"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	release();
	analyze_src(COMPUTE_HELPER("float *a"));
	l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-compute-writes-tile");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message,
			 "passes the loaded tile 'As' to 'dot', which may write it: its "
			 "parameter is not a pointer or reference to const"),
		  "%s", r->message);
	cr_expect_eq(r->line, 10);
}

/* Copies in a helper template, called from a template kernel (the call is
 * dependent: no declaration yet): kpipe-load-in-helper naming the helper
 * as spelled, and only that. */
Test(analyze, load_in_template_helper)
{
	analyze_src("namespace h {\n"
		    "template <int T> __device__ void fill(float *s, const float *g, int k)\n"
		    "{ s[threadIdx.x] = g[k + threadIdx.x]; }\n"
		    "}\n"
		    "template <int T> __global__ void k(const float *A, float *C, int K)\n"
		    "{\n"
		    "    __shared__ float As[T];\n"
		    "    float acc = 0.0f;\n"
		    "    for (int k0 = 0; k0 < K; k0 += T) {\n"
		    "        h::fill<T>(As, A, k0);\n"
		    "        __syncthreads();\n"
		    "        acc += As[T - 1 - threadIdx.x];\n"
		    "        __syncthreads();\n"
		    "    }\n"
		    "    C[threadIdx.x] = acc;\n"
		    "}\n"
		    "template __global__ void k<64>(const float *, float *, int);\n");
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-load-in-helper");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "helper 'h::fill'"), "%s", r->message);
	cr_expect_null(find_reason(l, "kpipe-no-tile-load"));
	cr_expect_null(find_reason(l, "kpipe-load-depends-on-compute"));
}

/* A copy whose address reads the staging register: refused (the store after
 * the math would compute it from the next tile's register). */
Test(analyze, staged_register_in_address)
{
	analyze_src(STAGED_HEAD("    int v[4] = {};\n") STAGED_LOADS(
		"        reinterpret_cast<int4 *>(v)[0] =\n"
		"            reinterpret_cast<const int4 *>(&A[r * K + k0 + c * 4])[0];\n"
		"        As[v[0] & 255] = A[r * K + k0];\n") STAGED_TAIL("", ""));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-load-depends-on-compute");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "reads 'v'"), "%s", r->message);
}

/* --- barriers written another way ---------------------------------------------- */

/* The kernel with cooperative groups in scope: `block` (the thread block),
 * `t32` (a tile of 32), `grid` and `tg` (a type-erased thread_group); the
 * loop starts on line 15. */
#define CG_HEAD                                                                                    \
	HEAD_X("#include <cooperative_groups.h>\n"                                                 \
	       "namespace cg = cooperative_groups;\n",                                             \
	       "const float", "[TILE][TILE]", "[TILE][TILE]",                                      \
	       "    cg::thread_block block = cg::this_thread_block();\n"                           \
	       "    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);\n"             \
	       "    cg::grid_group grid = cg::this_grid();\n"                                      \
	       "    cg::thread_group tg = cg::this_thread_block();\n")
#define CG_SRC(b1, comp, b2) CG_HEAD FOR LOAD "        " b1 "\n" comp "        " b2 "\n" END TAIL

/* What the parser records for each barrier-like call (kp_node.sync). */
typedef struct {
	const char *text;
	kp_sync_kind sync;
	int seen;
} sync_expect;

static int check_sync(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	sync_expect *e = ud;
	if (n->kind != KP_N_CALL || !n->in_main)
		return 1;
	const char *t = kp_node_text(&F, n);
	for (; e->text; e++)
		if (!strcmp(t, e->text)) {
			cr_expect_eq(n->sync, e->sync, "%s: sync %d, expected %d", t, n->sync,
				     e->sync);
			e->seen++;
		}
	return 1;
}

Test(parse, barrier_kinds)
{
	if (!have_cccl())
		cr_skip_test("no CUDA toolkit with include/cccl here");
	static const char src[] = "#include <cooperative_groups.h>\n"
				  "namespace cg = cooperative_groups;\n"
				  "using namespace cooperative_groups;\n"
				  "struct mine { __device__ void sync() {} };\n"
				  "__global__ void k(int *p)\n"
				  "{\n"
				  "    cg::thread_block block = cg::this_thread_block();\n"
				  "    thread_block_tile<32> t32 = tiled_partition<32>(block);\n"
				  "    cg::coalesced_group co = cg::coalesced_threads();\n"
				  "    cg::thread_group tg = cg::tiled_partition(block, 16);\n"
				  "    cg::grid_group grid = cg::this_grid();\n"
				  "    mine m;\n"
				  "    __syncthreads();\n"
				  "    block.sync();\n"
				  "    cg::sync(block);\n"
				  "    sync(block);\n"
				  "    cg::this_thread_block().sync();\n"
				  "    p[0] = __syncthreads_count(p[1] > 0);\n"
				  "    __syncthreads_and(1);\n"
				  "    __syncthreads_or(0);\n"
				  "    __syncwarp();\n"
				  "    t32.sync();\n"
				  "    cg::sync(t32);\n"
				  "    co.sync();\n"
				  "    cg::tiled_partition<16>(block).sync();\n"
				  "    tg.sync();\n"
				  "    cg::sync(tg);\n"
				  "    grid.sync();\n"
				  "    __barrier_sync(0);\n"
				  "    block.barrier_wait(block.barrier_arrive());\n"
				  "    m.sync();\n"
				  "    p[2] = (int)block.thread_rank();\n"
				  "}\n";
	int rc = parse_as("kinds.cu", src, "sm_90", NULL, 0);
	if (rc != KP_PARSE_OK)
		print_diags();
	cr_assert_eq(rc, KP_PARSE_OK);
	cr_assert_eq(F.nkernels, 1);
	sync_expect e[] = {
		{"__syncthreads()", KP_SYNC_BLOCK, 0},
		{"block.sync()", KP_SYNC_BLOCK, 0},
		{"cg::sync(block)", KP_SYNC_BLOCK, 0},
		{"sync(block)", KP_SYNC_BLOCK, 0},
		{"cg::this_thread_block().sync()", KP_SYNC_BLOCK, 0},
		{"__syncthreads_count(p[1] > 0)", KP_SYNC_BLOCK_VALUE, 0},
		{"__syncthreads_and(1)", KP_SYNC_BLOCK_VALUE, 0},
		{"__syncthreads_or(0)", KP_SYNC_BLOCK_VALUE, 0},
		{"__syncwarp()", KP_SYNC_PART, 0},
		{"t32.sync()", KP_SYNC_PART, 0},
		{"cg::sync(t32)", KP_SYNC_PART, 0},
		{"co.sync()", KP_SYNC_PART, 0},
		{"cg::tiled_partition<16>(block).sync()", KP_SYNC_PART, 0},
		{"tg.sync()", KP_SYNC_OTHER, 0},
		{"cg::sync(tg)", KP_SYNC_OTHER, 0},
		{"grid.sync()", KP_SYNC_OTHER, 0},
		{"__barrier_sync(0)", KP_SYNC_OTHER, 0},
		{"block.barrier_wait(block.barrier_arrive())", KP_SYNC_OTHER, 0},
		{"m.sync()", KP_SYNC_OTHER, 0},
		{"block.thread_rank()", KP_SYNC_NONE, 0},
		{"cg::this_thread_block()", KP_SYNC_NONE, 0},
		{NULL, KP_SYNC_NONE, 0},
	};
	kp_node_walk(F.kernels[0]->body, NULL, check_sync, e);
	for (int i = 0; e[i].text; i++)
		cr_expect(e[i].seen, "no call '%s' found", e[i].text);
}

/* Loops whose block barriers are written with cooperative groups or with
 * __syncthreads_count/_and/_or whose result is dropped: the same loop. */
ParameterizedTestParameters(analyze, cg_barriers_are_block_barriers)
{
	static char params[][2][64] = {
		{"block.sync();", "block.sync();"},
		{"cg::sync(block);", "cg::sync(block);"},
		{"cg::this_thread_block().sync();", "__syncthreads();"},
		{"__syncthreads_count(tx < 8);", "__syncthreads_or(acc > 0.0f);"},
		{"__syncthreads_and(As[ty][tx] != 0.0f);", "cg::sync(block);"},
	};
	return cr_make_param_array(char[2][64], params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(char (*p)[2][64], analyze, cg_barriers_are_block_barriers, .fini = release)
{
	if (!have_cccl())
		cr_skip_test("no CUDA toolkit with include/cccl here");
	char src[4096];
	snprintf(src, sizeof(src), "%s", CG_HEAD FOR LOAD);
	snprintf(src + strlen(src), sizeof(src) - strlen(src),
		 "        %s\n" COMP "        %s\n" END TAIL, (*p)[0], (*p)[1]);
	analyze_src(src);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible, "%s ... %s", (*p)[0], (*p)[1]);
	cr_expect_eq(l->nbarriers, 2);
	cr_expect_eq(l->bar1, 2);
	cr_expect_eq(l->bar2, 4);
	cr_expect(CP(l).ok);
	cr_expect(RG(l).ok);
}

/* A tile's, a warp's or a coalesced group's sync() is not the block's
 * barrier: the loop has one barrier too few (and says where the partial
 * one is); as an extra statement of the compute phase it changes nothing. */
Test(analyze, tile_sync_is_not_a_block_barrier)
{
	if (!have_cccl())
		cr_skip_test("no CUDA toolkit with include/cccl here");
	analyze_src(CG_SRC("block.sync();", COMP, "t32.sync();"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-no-barrier");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "only one __syncthreads()"), "%s", r->message);
	cr_expect(strstr(r->message, "'t32.sync()' on line 21 synchronises only part of the block"),
		  "%s", r->message);
	release();
	analyze_src(CG_SRC("cg::sync(block);", COMP "        if (tx < 4) t32.sync();\n",
			   "__syncthreads();"));
	l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect_eq(l->nbarriers, 2);
}

/* Barriers the rewrite cannot replace by its own __syncthreads(). */
struct bar_case {
	char b1[64], comp_extra[48], b2[48];
	char msg[64];
	int line, col;
};

ParameterizedTestParameters(analyze, barriers_kpipe_cannot_replace)
{
	static struct bar_case params[] = {
		{"block.sync();", "        grid.sync();\n", "block.sync();",
		 "'grid.sync()' is a barrier kpipe does not model", 21, 9},
		{"tg.sync();", "", "block.sync();", "'tg.sync()' is a barrier kpipe does not model",
		 18, 9},
		{"cg::sync(tg);", "", "block.sync();", "'cg::sync(tg)' is a barrier kpipe does not",
		 18, 9},
		{"__barrier_sync(0);", "", "__syncthreads();",
		 "'__barrier_sync(0)' is a barrier kpipe", 18, 9},
		{"block.barrier_wait(block.barrier_arrive());", "", "__syncthreads();",
		 "split barrier", 18, 9},
		{"int nz = __syncthreads_count(As[ty][tx] != 0.0f);", "        acc += nz;\n",
		 "__syncthreads();", "whose result the loop uses", 18, 18},
		{"__syncthreads();", "", "if (__syncthreads_or(acc > 0.0f)) acc = 0.0f;",
		 "'__syncthreads_or(acc > 0.0f)' inside conditional", 0, 0},
		{"__syncthreads_count(tx++ < 8);", "", "__syncthreads();",
		 "side effects in its operands", 18, 9},
	};
	return cr_make_param_array(struct bar_case, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct bar_case *p, analyze, barriers_kpipe_cannot_replace, .fini = release)
{
	if (!have_cccl())
		cr_skip_test("no CUDA toolkit with include/cccl here");
	char src[4096];
	snprintf(src, sizeof(src), "%s", CG_HEAD FOR LOAD);
	snprintf(src + strlen(src), sizeof(src) - strlen(src),
		 "        %s\n" COMP "%s        %s\n" END TAIL, p->b1, p->comp_extra, p->b2);
	analyze_src(src);
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-extra-barrier");
	if (!r)
		r = find_reason(l, "kpipe-divergent-barrier");
	cr_assert_not_null(r, "%s / %s", p->b1, p->b2);
	cr_expect(strstr(r->message, p->msg), "'%s' lacks '%s'", r->message, p->msg);
	if (p->line) {
		cr_expect_eq(r->line, p->line);
		cr_expect_eq(r->col, p->col);
	}
}

/* FLOPs of a template's compute phase: the pointer and integer bumps
 * between the barrier and the math are not math, and a multiply-add
 * clang leaves unresolved (an operator overload in scope, operands of a
 * dependent-size array) counts like a resolved one: TM * TN * BK = 8 * 8 *
 * 8 multiply-adds, 2 FLOP each (siboehm's sgemmVectorize had 3). */
Test(analyze, template_math_behind_unresolved_operators_and_bumps_is_counted)
{
	analyze_src(
		"struct cplx { float re, im; };\n"
		"__device__ cplx operator*(cplx a, cplx b);\n"
		"__device__ cplx &operator+=(cplx &a, cplx b);\n"
		"template <int BM, int BN, int BK, int TM, int TN>\n"
		"__global__ void __launch_bounds__(256) k(int K, float *A, float *B, float *C)\n"
		"{\n"
		"\t__shared__ float As[BM * BK];\n"
		"\t__shared__ float Bs[BK * BN];\n"
		"\tfloat acc[TM * TN] = {0.0f};\n"
		"\tfloat rm[TM], rn[TN];\n"
		"\tint idx = 0;\n"
		"\tfor (int k0 = 0; k0 < K; k0 += BK) {\n"
		"\t\tfor (int o = threadIdx.x; o < BM * BK; o += 256)\n"
		"\t\t\tAs[o] = A[o];\n"
		"\t\tfor (int o = threadIdx.x; o < BN * BK; o += 256)\n"
		"\t\t\tBs[o] = B[o];\n"
		"\t\t__syncthreads();\n"
		"\t\tA += BK;\n"
		"\t\tB += BK * K;\n"
		"\t\tidx += BK * 2;\n"
		"\t\tfor (int d = 0; d < BK; ++d) {\n"
		"\t\t\tfor (int i = 0; i < TM; ++i)\n"
		"\t\t\t\trm[i] = As[d * BM + i];\n"
		"\t\t\tfor (int i = 0; i < TN; ++i)\n"
		"\t\t\t\trn[i] = Bs[d * BN + i];\n"
		"\t\t\tfor (int m = 0; m < TM; ++m)\n"
		"\t\t\t\tfor (int n = 0; n < TN; ++n)\n"
		"\t\t\t\t\tacc[m * TN + n] += rm[m] * rn[n];\n"
		"\t\t}\n"
		"\t\t__syncthreads();\n"
		"\t}\n"
		"\tC[threadIdx.x + idx] = acc[0];\n"
		"}\n"
		"template __global__ void k<128, 128, 8, 8, 8>(int, float *, float *, float *);\n");
	kp_loop *l = only_loop();
	cr_expect(l->flops_thread > 1023.9 && l->flops_thread < 1024.1, "flops %g",
		  l->flops_thread);
	cr_expect_eq(l->math, KP_MATH_FFMA, "math %s", kp_math_name(l->math));
}

/* A tile declared through a macro that takes its name (`SHARED_TILE(As)`)
 * or through a typedef'd array type: its bounds are not written after the
 * name, so no edit can add a stage dimension.  It is refused as a macro
 * array, not read as an extern (dynamic) array because the text of its
 * bounds is missing; a real extern array still is one. */
Test(analyze, tile_bounds_in_a_macro_or_typedef)
{
	static const char *const srcs[] = {
		"#define T 16\n"
		"#define SHARED_TILE(name) __shared__ float name[T][T]\n"
		"__global__ void k(const float *A, float *C, int N)\n"
		"{\n"
		"    SHARED_TILE(As);\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < N; k0 += T) {\n"
		"        As[threadIdx.y][threadIdx.x] = A[threadIdx.y * N + k0 + threadIdx.x];\n"
		"        __syncthreads();\n"
		"        acc += As[threadIdx.x][threadIdx.y];\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[threadIdx.x] = acc;\n"
		"}\n",
		"typedef float tile_t[16][16];\n"
		"__global__ void k(const float *A, float *C, int N)\n"
		"{\n"
		"    __shared__ tile_t As;\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < N; k0 += 16) {\n"
		"        As[threadIdx.y][threadIdx.x] = A[threadIdx.y * N + k0 + threadIdx.x];\n"
		"        __syncthreads();\n"
		"        acc += As[threadIdx.x][threadIdx.y];\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[threadIdx.x] = acc;\n"
		"}\n"};
	for (int i = 0; i < 2; i++) {
		analyze_src(srcs[i]);
		kp_loop *l = only_loop();
		log_reasons(l);
		cr_expect(!l->eligible, "case %d", i);
		const kp_reason *r = find_reason(l, "kpipe-macro-array");
		cr_assert_not_null(r, "case %d", i);
		cr_expect(strstr(r->message, "'As'") != NULL, "%s", r->message);
		cr_expect_null(find_reason(l, "kpipe-dynamic-smem"), "case %d", i);
		cr_expect_null(find_reason(l, "kpipe-tile-escapes"), "case %d", i);
		release();
	}
	analyze_src("__global__ void k(const float *A, float *C, int N)\n"
		    "{\n"
		    "    extern __shared__ float As[];\n"
		    "    float acc = 0.0f;\n"
		    "    for (int k0 = 0; k0 < N; k0 += 16) {\n"
		    "        As[threadIdx.x] = A[k0 + threadIdx.x];\n"
		    "        __syncthreads();\n"
		    "        acc += As[15 - threadIdx.x];\n"
		    "        __syncthreads();\n"
		    "    }\n"
		    "    C[threadIdx.x] = acc;\n"
		    "}\n");
	kp_loop *l = only_loop();
	cr_expect(kp_decl_is_extern_shared(l->tiles[0].arr), "extern __shared__ As[] is extern");
	cr_expect_null(find_reason(l, "kpipe-macro-array"));
}

/* Pointers into a tile taken before the loop (the "thread tile" idiom):
 * read only as p[i] in the compute phase, they are aliases the pipelined
 * loop rebases per stage; any other use keeps kpipe-tile-escapes. */
static const char *alias_kernel(const char *decl, const char *compute, const char *after)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "__device__ float use(const float *p) { return p[0]; }\n"
		 "__global__ void k(const float *A, float *C, int N)\n"
		 "{\n"
		 "    __shared__ float As[16][16];\n"
		 "    %s\n"
		 "    float acc = 0.0f;\n"
		 "    for (int k0 = 0; k0 < N; k0 += 16) {\n"
		 "        As[threadIdx.y][threadIdx.x] = A[threadIdx.y * N + k0 + threadIdx.x];\n"
		 "        __syncthreads();\n"
		 "        %s\n"
		 "        __syncthreads();\n"
		 "    }\n"
		 "    %s\n"
		 "    C[threadIdx.y * 16 + threadIdx.x] = acc;\n"
		 "}\n",
		 decl, compute, after);
	return buf;
}

Test(analyze, tile_pointer_aliases)
{
	const char *good =
		"const float *p = reinterpret_cast<const float *>(As) + threadIdx.y * 16;";
	analyze_src(alias_kernel(good, "for (int k = 0; k < 16; ++k) acc += p[k];", ""));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_assert_eq(l->tiles[0].naliases, 1);
	cr_expect_str_eq(l->tiles[0].alias[0]->name, "p");
	release();
	/* a float4 read through the address of an element */
	analyze_src(alias_kernel(
		good, "acc += reinterpret_cast<const float4 *>(&p[threadIdx.x & 12])[0].y;", ""));
	l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect_eq(l->tiles[0].naliases, 1);
	release();
	/* C-style cast, no offset */
	analyze_src(alias_kernel("const float *p = (const float *)As;",
				 "acc += p[threadIdx.x * 16 + threadIdx.y];", ""));
	l = only_loop();
	cr_expect(l->eligible);
	cr_expect_eq(l->tiles[0].naliases, 1);
	release();
	static const struct {
		const char *decl, *compute, *after, *why;
	} bad[] = {
		{"float *p = reinterpret_cast<float *>(As);", "p[threadIdx.x] = 1.0f; acc += p[0];",
		 "", "written through"},
		{"const float *p = reinterpret_cast<const float *>(As);", "acc += p[0]; p += 16;",
		 "", "moved"},
		{"const float *p = reinterpret_cast<const float *>(As);", "acc += use(p);", "",
		 "handed to a function"},
		{"const float *p = reinterpret_cast<const float *>(As);", "acc += p[0];",
		 "acc += p[1];", "read after the loop"},
		{"const float *p = reinterpret_cast<const float *>(As);", "acc += *(p + 3);", "",
		 "read other than as p[i]"},
		{"const float4 *p = reinterpret_cast<const float4 *>(As);", "acc += p[0].x;", "",
		 "another element type"},
		{"const float *p = &As[0][0];", "acc += p[threadIdx.x];", "", "no cast"},
		{"float *p = reinterpret_cast<float *>(As);",
		 "acc += p[0]; reinterpret_cast<float4 *>(&p[4])[0] = make_float4(0, 0, 0, 0);", "",
		 "written through the address of an element"},
		{"const float *p = reinterpret_cast<const float *>(As);",
		 "const float *q = &p[threadIdx.x]; acc += q[0];", "",
		 "its element's address kept"},
		{"const float *p = reinterpret_cast<const float *>(As);", "acc += p[0];", "", NULL},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		analyze_src(alias_kernel(bad[i].decl, bad[i].compute, bad[i].after));
		l = only_loop();
		log_reasons(l);
		if (bad[i].why) {
			cr_expect(!l->eligible, "%s: eligible", bad[i].why);
			cr_expect_not_null(find_reason(l, "kpipe-tile-escapes"), "%s", bad[i].why);
			cr_expect_eq(l->tiles[0].naliases, 0, "%s", bad[i].why);
		} else {
			cr_expect(l->eligible, "the control case");
		}
		release();
	}
}

/* A K-loop whose load phase stages a float4 in a local and clears its
 * tail through a pointer (decl: the pointer and what it needs). */
static const char *masked_kernel(const char *before, const char *decl)
{
	static char buf[4096];
	snprintf(
		buf, sizeof(buf),
		"__device__ float g[4];\n"
		"__global__ void k(const float *A, float *W, float *C, int N)\n"
		"{\n"
		"    __shared__ float As[16][64];\n"
		"    %s\n"
		"    float acc = 0.0f;\n"
		"    for (int k0 = 0; k0 < N; k0 += 64) {\n"
		"        {\n"
		"            int c = k0 + threadIdx.x * 4;\n"
		"            float4 v{0.f, 0.f, 0.f, 0.f};\n"
		"            if (c < N) v = *reinterpret_cast<const float4 *>(&A[threadIdx.y * N + "
		"c]);\n"
		"            if (c + 4 > N) {\n"
		"                %s\n"
		"                for (int i = 0; i < c + 4 - N; ++i) vp[3 - i] = 0.f;\n"
		"            }\n"
		"            *reinterpret_cast<float4 *>(&As[threadIdx.y][threadIdx.x * 4]) = v;\n"
		"        }\n"
		"        __syncthreads();\n"
		"        acc += As[threadIdx.y][threadIdx.x];\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[threadIdx.y * 16 + threadIdx.x] = acc;\n"
		"}\n",
		before, decl);
	return buf;
}

/* Stores through a pointer into a local of the thread (the masking of a
 * staged vector's tail) cannot reach memory a tile load reads; any other
 * local pointer may (kpipe-memory-order). */
Test(analyze, store_through_a_pointer_into_a_local)
{
	static const struct {
		const char *before, *decl, *why;
	} cases[] = {
		{"", "float *const vp{reinterpret_cast<float *>(&v)};", NULL},
		{"", "float *vp = (float *)&v;", NULL},
		{"", "float *vp = W;", "a parameter's memory"},
		{"", "float *vp = reinterpret_cast<float *>(&v); vp = W;", "reassigned"},
		{"", "float *vp = g;", "a __device__ array"},
		{"static float4 sv;", "float *vp = reinterpret_cast<float *>(&sv);",
		 "a static local"},
		{"float *q = W;", "float **pp = &q; float *vp = *pp;",
		 "a pointer read through a pointer"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		analyze_src(masked_kernel(cases[i].before, cases[i].decl));
		kp_loop *l = only_loop();
		log_reasons(l);
		if (cases[i].why) {
			cr_expect(!l->eligible, "%s: eligible", cases[i].why);
			cr_expect_not_null(find_reason(l, "kpipe-memory-order"), "%s",
					   cases[i].why);
		} else {
			cr_expect(l->eligible, "case %zu not eligible", i);
			cr_expect_null(find_reason(l, "kpipe-memory-order"), "case %zu", i);
			cr_assert_eq(l->nloads, 1, "case %zu", i);
			cr_assert_not_null(l->loads[0].via, "case %zu: not staged", i);
			cr_expect_str_eq(l->loads[0].via->name, "v");
		}
		release();
	}
}

/* --- sizeof(T) per instantiation ------------------------------------------ */

/* A copy loop whose count depends on the element type through a constexpr
 * (`VEC{sizeof(float4) / sizeof(T)}`, as in samples/matmul_vec_sizeof.cu):
 * `arg` is what VEC divides by; SIZEOF_TEMPLATE_X: `defs` before the
 * kernel, `vec` VEC's initialiser. */
#define SIZEOF_TEMPLATE(arg) SIZEOF_TEMPLATE_X("", "sizeof(float4) / " arg)
#define SIZEOF_TEMPLATE_X(defs, vec)                                                                 \
	defs "template <typename T>\n"                                                               \
	     "__global__ void k(const T *A, const T *B, T *C, int N, int K)\n"                       \
	     "{\n"                                                                                   \
	     "    constexpr int VEC{" vec "};\n"                                                     \
	     "    __shared__ T As[16][16];\n"                                                        \
	     "    __shared__ T Bs[16][16];\n"                                                        \
	     "    int tx = threadIdx.x, ty = threadIdx.y;\n"                                         \
	     "    int col = blockIdx.x * 16 + tx;\n"                                                 \
	     "    T acc = 0;\n"                                                                      \
	     "    for (int k0 = 0; k0 < K; k0 += 16) {\n"                                            \
	     "#pragma unroll\n"                                                                      \
	     "        for (int i = 0; i < 16 / VEC; ++i) {\n"                                        \
	     "            As[ty * (16 / VEC) + i][tx] =\n"                                           \
	     "                A[(blockIdx.y * 16 + ty * (16 / VEC) + i) * K + k0 + tx];\n"           \
	     "            Bs[ty * (16 / VEC) + i][tx] = B[(k0 + ty * (16 / VEC) + i) * N + col];\n"  \
	     "        }\n"                                                                           \
	     "        __syncthreads();\n"                                                            \
	     "        for (int kk = 0; kk < 16; ++kk)\n"                                             \
	     "            acc += As[ty][kk] * Bs[kk][tx];\n"                                         \
	     "        __syncthreads();\n"                                                            \
	     "    }\n"                                                                               \
	     "    C[(blockIdx.y * 16 + ty) * N + col] = acc;\n"                                      \
	     "}\n"                                                                                   \
	     "template __global__ void k<float>(const float *, const float *, float *, int, int);\n" \
	     "template __global__ void k<double>(const double *, const double *, double *, int, "    \
	     "int);\n"

/* sizeof(T) takes the size of each instantiation's argument: the copy
 * loop runs 16 / (16 / 8) = 8 times for double and 16 / (16 / 4) = 4 for
 * float, so register staging applies to both (it needs constant counts);
 * the staging registers are sized by the count's text, which C++
 * evaluates per instantiation. */
Test(analyze_sizes, sizeof_type_parameter_per_instantiation)
{
	analyze_src(SIZEOF_TEMPLATE("sizeof(T)"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert_eq(l->nper_inst, 2);
	const double want[2] = {8, 4}; /* double, float (by spelling) */
	const char *names[2] = {"double", "float"};
	for (int i = 0; i < 2; i++) {
		const kp_loop *p = l->per_inst[i];
		cr_expect_str_eq(p->inst, names[i]);
		cr_assert_eq(p->nloads, 2);
		for (int j = 0; j < 2; j++)
			cr_expect(p->loads[j].trips[0] > want[i] - 0.1 &&
					  p->loads[j].trips[0] < want[i] + 0.1,
				  "%s load %d: trips %g", names[i], j, p->loads[j].trips[0]);
		kp_xfacts x = RG(p);
		cr_expect(x.ok, "%s register: %s", names[i], x.why_not ? x.why_not : "");
	}
	cr_expect(RG(l).ok, "register: %s", RG(l).why_not ? RG(l).why_not : "");
	char *out = register_text(l);
	cr_expect(strstr(out, "kp_reg0[(16 / VEC)]"), "%s", out);
	free(out);
}

/* Only `sizeof(T)` itself is bound: sizeof(T[2]) (or any type built from
 * T) is not T's size, so the count stays unknown and register staging is
 * refused with the real reason. */
Test(analyze_sizes, sizeof_of_a_type_built_from_the_parameter_unknown)
{
	analyze_src(SIZEOF_TEMPLATE("sizeof(T[1])"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_assert_eq(l->nper_inst, 2);
	for (int i = 0; i < 2; i++) {
		const kp_loop *p = l->per_inst[i];
		cr_assert_eq(p->nloads, 2);
		cr_expect(p->loads[0].trips[0] < 0, "%s: trips %g", p->inst, p->loads[0].trips[0]);
		kp_xfacts x = RG(p);
		cr_expect_not(x.ok);
		cr_expect(x.why_not && strstr(x.why_not, "no compile-time trip count"), "%s",
			  x.why_not ? x.why_not : "");
	}
}

/* A `sizeof(T)` of another template whose parameter is also called T (a
 * class template's static member, a variable template) is not the
 * kernel's T: `Vec<double>::n` in k<float> is 2, not 16 / sizeof(float).
 * The count is then either right (8) or unknown, never 4. */
Test(analyze_sizes, sizeof_of_another_templates_parameter_not_bound)
{
	static const char *const srcs[] = {
		SIZEOF_TEMPLATE_X("template <typename T> struct Vec {\n"
				  "    static constexpr int n = sizeof(float4) / sizeof(T);\n"
				  "};\n",
				  "Vec<double>::n"),
		SIZEOF_TEMPLATE_X("template <typename T>\n"
				  "constexpr int vec_of = sizeof(float4) / sizeof(T);\n",
				  "vec_of<double>"),
	};
	for (size_t s = 0; s < sizeof(srcs) / sizeof(srcs[0]); s++) {
		analyze_src(srcs[s]);
		kp_loop *l = only_loop();
		cr_assert_eq(l->nper_inst, 2);
		for (int i = 0; i < 2; i++) {
			const kp_loop *p = l->per_inst[i];
			cr_assert_eq(p->nloads, 2);
			double t = p->loads[0].trips[0];
			cr_expect(t < 0 || (t > 7.9 && t < 8.1), "source %zu, %s: trips %g", s,
				  p->inst, t);
		}
		release(); /* the next source parses into F again */
	}
}

/* --- types from clang -------------------------------------------------------- */

/* A count-down whose counter is unsigned through a typedef (uint32_t,
 * size_t, an alias of the file's own) is not monotone: k - 2 * s wraps
 * below zero, so the prefetch test goes tile by tile.  The signedness comes
 * from clang's canonical type, not from the spelling "unsigned"; a signed
 * counter spelled through a typedef stays monotone (the near miss). */
Test(analyze, count_down_signedness_comes_from_the_canonical_type)
{
	static const char *const counters[] = {"uint32_t", "size_t",    "my_count", "unsigned",
					       "int32_t",  "my_scount", "int"};
	static const int monotone[] = {0, 0, 0, 0, 1, 1, 1};
	for (size_t i = 0; i < KP_ARRAY_LEN(counters); i++) {
		char src[2048];
		snprintf(
			src, sizeof(src),
			"#include <stdint.h>\n#include <stddef.h>\n"
			"typedef unsigned long my_count;\ntypedef long my_scount;\n"
			"__global__ void k(const float *__restrict__ A, float *__restrict__ C, int K)\n"
			"{\n"
			"    __shared__ float As[16][16];\n"
			"    float acc = 0.0f;\n"
			"    for (%s k0 = K; k0 > 0; k0 -= 16) {\n"
			"        As[threadIdx.y][threadIdx.x] = A[(k0 - 16) + threadIdx.x];\n"
			"        __syncthreads();\n"
			"        acc += As[threadIdx.x][threadIdx.y];\n"
			"        __syncthreads();\n"
			"    }\n"
			"    C[threadIdx.x] = acc;\n"
			"}\n",
			counters[i]);
		analyze_src(src);
		kp_loop *l = only_loop();
		log_reasons(l);
		cr_expect(l->eligible, "%s: not eligible", counters[i]);
		cr_expect_eq(l->cond_monotone, monotone[i], "%s: cond_monotone %d", counters[i],
			     l->cond_monotone);
		const kp_induct *in = l->nind ? &l->ind[0] : NULL;
		cr_assert_not_null(in);
		cr_expect_eq(in->var->ty.kind, monotone[i] ? KP_TY_SINT : KP_TY_UINT, "%s: kind %d",
			     counters[i], in->var->ty.kind);
		release();
	}
}

/* The facts of parameters: restrict, const and volatile pointees, widths,
 * a reference looked through. */
Test(parse, type_facts_of_parameters)
{
	analyze_src("#include <stdint.h>\n"
		    "__global__ void k(const float *__restrict__ a, volatile int *v, uint16_t u,\n"
		    "                  const int &r, double d, float (*rows)[4])\n"
		    "{\n}\n");
	cr_assert_eq(F.nkernels, 1);
	kp_kernel *k = F.kernels[0];
	cr_assert_eq(k->nparams, 6);
	kp_type a = k->params[0]->ty, v = k->params[1]->ty, u = k->params[2]->ty;
	kp_type r = k->params[3]->ty, d = k->params[4]->ty, rows = k->params[5]->ty;
	cr_expect(a.kind == KP_TY_POINTER && a.is_restrict && a.elem == KP_TY_FLOAT &&
		  a.elem_const);
	cr_expect(!a.is_const && !KP_TY_ANY_VOLATILE(a));
	cr_expect(v.kind == KP_TY_POINTER && v.elem_volatile && !v.is_restrict &&
		  v.elem == KP_TY_SINT);
	cr_expect(u.kind == KP_TY_UINT && u.bits == 16);
	cr_expect(r.is_ref && r.kind == KP_TY_SINT && r.is_const && r.bits == 32);
	cr_expect(d.kind == KP_TY_FLOAT && d.bits == 64);
	cr_expect(rows.kind == KP_TY_POINTER && rows.elem == KP_TY_ARRAY);
}

/* Operators come from clang's operator kinds (kp_node.opk): the binary
 * ones, the prefix and postfix ++/--, unary & and * told from their binary
 * spellings, an overloaded operator read as one. */
typedef struct {
	kp_op want[16];
	int n;
} op_walk;

static int collect_ops(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	op_walk *w = ud;
	if ((n->kind == KP_N_BINOP || n->kind == KP_N_ASSIGNOP || n->kind == KP_N_UNOP) &&
	    w->n < 16)
		w->want[w->n++] = n->opk;
	return 1;
}

Test(parse, operators_are_enums)
{
	analyze_src("__global__ void k(int *p, int a, int b)\n"
		    "{\n"
		    "    a++;\n"
		    "    --b;\n"
		    "    *p = a & b;\n"
		    "    p[0] += -a;\n"
		    "    b = *&a <= b;\n"
		    "}\n");
	cr_assert_eq(F.nkernels, 1);
	op_walk w = {{0}, 0};
	kp_node_walk(F.kernels[0]->body, NULL, collect_ops, &w);
	static const kp_op expect[] = {KP_OP_POST_INC, KP_OP_PRE_DEC,    KP_OP_ASSIGN, KP_OP_DEREF,
				       KP_OP_AND,      KP_OP_ADD_ASSIGN, KP_OP_MINUS,  KP_OP_ASSIGN,
				       KP_OP_LE,       KP_OP_DEREF,      KP_OP_ADDR};
	cr_assert_eq(w.n, (int)KP_ARRAY_LEN(expect), "%d operators", w.n);
	for (int i = 0; i < w.n; i++)
		cr_expect_eq(w.want[i], expect[i], "operator %d: %d, expected %d", i, w.want[i],
			     expect[i]);
	cr_expect_eq(kp_op_of("<<=", 0, 0), KP_OP_SHL_ASSIGN);
	cr_expect_eq(kp_op_of("--", 1, 1), KP_OP_POST_DEC);
	cr_expect_eq(kp_op_of("??", 0, 0), KP_OP_NONE);
	cr_expect(KP_OP_IS_ASSIGN(KP_OP_OR_ASSIGN) && !KP_OP_IS_ASSIGN(KP_OP_EQ));
	cr_expect(KP_OP_IS_COMPARE(KP_OP_NE) && !KP_OP_IS_COMPARE(KP_OP_LAND));
}

/* A call in a template whose arguments are dependent has no declaration:
 * its name comes from the name it looks up (parse.c,
 * name_unresolved_call), so the effect sets know __fmaf_rn for the pure
 * builtin it is and wmma's load_matrix_sync / mma_sync for what the API
 * says they write; neither is an unknown effect (LeetCUDA's templated
 * SGEMM and wmma kernels were refused with kpipe-unknown-effect).  A
 * call of a function the file does not know stays one (the near miss). */
Test(analyze, dependent_calls_are_named_and_known)
{
	static const char *const computes[] = {
		"acc = __fmaf_rn(As[ty][kk], Bs[kk][tx], acc);",
		"acc = mystery_op(As[ty][kk], Bs[kk][tx], acc);",
	};
	static const int eligible[] = {1, 0};
	for (size_t i = 0; i < KP_ARRAY_LEN(computes); i++) {
		char src[2048];
		snprintf(
			src, sizeof(src),
			"template <typename T> __device__ T mystery_op(T a, T b, T c);\n"
			"template <typename T, int TS>\n"
			"__global__ void k(const T *__restrict__ A, const T *__restrict__ B,\n"
			"                  T *__restrict__ C, int K)\n"
			"{\n"
			"    __shared__ T As[TS][TS];\n"
			"    __shared__ T Bs[TS][TS];\n"
			"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
			"    T acc = 0;\n"
			"    for (int k0 = 0; k0 < K; k0 += TS) {\n"
			"        As[ty][tx] = A[ty * K + k0 + tx];\n"
			"        Bs[ty][tx] = B[(k0 + ty) * TS + tx];\n"
			"        __syncthreads();\n"
			"        for (int kk = 0; kk < TS; ++kk)\n"
			"            %s\n"
			"        __syncthreads();\n"
			"    }\n"
			"    C[ty * TS + tx] = acc;\n"
			"}\n"
			"template __global__ void k<float, 16>(const float *, const float *, float *, "
			"int);\n",
			computes[i]);
		analyze_src(src);
		kp_loop *l = only_loop();
		log_reasons(l);
		cr_expect_eq(l->eligible, eligible[i], "%s: eligible %d", computes[i], l->eligible);
		cr_expect_eq(find_reason(l, "kpipe-unknown-effect") != NULL, !eligible[i],
			     "%s: kpipe-unknown-effect", computes[i]);
		release();
	}
}

/* Copy loops of a template nothing instantiates, counted by its
 * parameters (cuda-convnet2's conv_img_acts_manycolor): register staging
 * sizes its registers by the same expressions (kp_load.trips_symbolic);
 * a step the block gives, or a first value that depends on the thread,
 * has no such count. */
#define SYM_SRC(step, first)                                                                       \
	"template <int BY, int BX, int ROWS, int T>\n"                                             \
	"__global__ void k(const float *A, float *C, int K)\n"                                     \
	"{\n"                                                                                      \
	"    __shared__ float As[ROWS][T];\n"                                                      \
	"    const int tidx = threadIdx.y * BX + threadIdx.x;\n"                                   \
	"    const int ly = tidx / T, lx = tidx % T;\n"                                            \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += T) {\n"                                                \
	"        for (int y = " first "; y < ROWS; y += " step ") {\n"                             \
	"            if (ROWS % ((BX * BY) / T) == 0 || y + ly < ROWS)\n"                          \
	"                As[y + ly][lx] = A[(y + ly) * K + k0 + lx];\n"                            \
	"        }\n"                                                                              \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < T; kk++)\n"                                                 \
	"            acc += As[threadIdx.y % ROWS][kk];\n"                                         \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[tidx] = acc;\n"                                                                     \
	"}\n"

Test(analyze, copy_loop_counted_by_template_parameters)
{
	analyze_src(SYM_SRC("(BX * BY) / T", "0"));
	kp_loop *l = only_loop();
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect(l->params_symbolic);
	cr_assert_eq(l->nloads, 1);
	cr_expect(l->loads[0].trips[0] < 0, "no count of the file");
	cr_expect(l->loads[0].trips_symbolic[0], "a count of every instantiation");
	cr_expect(RG(l).ok, "register: %s", RG(l).why_not ? RG(l).why_not : "");
	cr_expect_eq(RG(l).regs, -1, "registers unknown until instantiated");
}

Test(analyze, copy_loop_counted_by_the_block_is_not_symbolic)
{
	analyze_src(SYM_SRC("blockDim.y", "0"));
	kp_loop *l = only_loop();
	cr_assert_eq(l->nloads, 1);
	cr_expect_not(l->loads[0].trips_symbolic[0]);
	cr_expect_not(RG(l).ok);
	cr_expect(RG(l).why_not && strstr(RG(l).why_not, "no compile-time trip count"), "%s",
		  RG(l).why_not ? RG(l).why_not : "");
	release();
	analyze_src(SYM_SRC("(BX * BY) / T", "threadIdx.z"));
	l = only_loop();
	cr_assert_eq(l->nloads, 1);
	cr_expect_not(l->loads[0].trips_symbolic[0], "a first value of the thread");
	cr_expect_not(RG(l).ok);
}
