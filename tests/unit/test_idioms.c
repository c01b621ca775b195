/*
 * test_idioms.c - two shapes of issue 34 the analysis proves safe:
 * guarded copies without else whose reads stay inside the guard's bound
 * (src/analysis/guard_cover.c: the loop's verdict and its reason ids; the
 * bound spelled in the source or a tile value of the load phase), and
 * a tile refilled after the loop (src/analysis/refill.c:
 * kp_tile_refilled_after on the loop's tiles).  kp_parse + kp_analyze on
 * in-memory kernels.
 */
#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "refill.h"

#include "kp_test_loop.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

TestSuite(idioms, .fini = kp_test_loop_release);

#define GEMV(GUARD, BOUND, READ)                                                                   \
	"#define T 128\n"                                                                          \
	"__global__ void g(const float *__restrict__ x, float *__restrict__ y, int M, int N)\n"    \
	"{\n"                                                                                      \
	"    __shared__ float xs[T + 1];\n"                                                        \
	"    const int tid = threadIdx.x;\n"                                                       \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int base = 0; base < N; base += T) {\n"                                          \
	"        if (" GUARD ")\n"                                                                 \
	"            xs[tid] = x[base + tid];\n"                                                   \
	"        __syncthreads();\n"                                                               \
	"        for (int j = 0; " BOUND "; ++j)\n"                                                \
	"            acc += " READ ";\n"                                                           \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    y[blockIdx.x * T + tid] = acc;\n"                                                     \
	"}\n"

Test(idioms, guard_bound_min)
{
	kp_loop *l = analyse(GEMV("tid < T && base + tid < N", "j < min(T, N - base)", "xs[j]"));
	cr_expect(l->eligible, "refused: %s", l->nreasons ? l->reasons[0].message : "?");
}

Test(idioms, guard_bound_rearranged)
{
	/* x < N - base against N > base + j: the same bound, other spellings */
	kp_loop *l = analyse(GEMV("tid < N - base", "N > base + j && j < T", "xs[j]"));
	cr_expect(l->eligible, "refused: %s", l->nreasons ? l->reasons[0].message : "?");
}

Test(idioms, guard_bound_wider_read)
{
	kp_loop *l = analyse(GEMV("tid < T && base + tid < N", "j < T", "xs[j]"));
	cr_expect_not(l->eligible);
	cr_expect(has_reason(l, "kpipe-partial-tile-write"));
}

Test(idioms, guard_bound_not_strict)
{
	kp_loop *l = analyse(GEMV("base + tid < N", "j <= N - base && j < T", "xs[j]"));
	cr_expect(has_reason(l, "kpipe-partial-tile-write"));
}

Test(idioms, guard_non_strict_read_strict)
{
	kp_loop *l = analyse(GEMV("base + tid <= N - 1", "j < T && j <= N - 1 - base", "xs[j]"));
	cr_expect(l->eligible, "refused: %s", l->nreasons ? l->reasons[0].message : "?");
}

Test(idioms, guard_bound_other_variable)
{
	kp_loop *l = analyse(GEMV("base + tid < N", "j < min(T, M - base)", "xs[j]"));
	cr_expect(has_reason(l, "kpipe-partial-tile-write"));
}

Test(idioms, guard_read_shifted)
{
	kp_loop *l = analyse(GEMV("base + tid < N", "j < min(T, N - base)", "xs[j + 1]"));
	cr_expect(has_reason(l, "kpipe-partial-tile-write"));
}

/* the bound a tile value of the load phase (analysis/tile_value.c): the
 * guard and the compute's loop name it, one value in each iteration */
#define GEMV_TV(GUARD, BOUND, READ)                                                                \
	"#define T 128\n"                                                                          \
	"__global__ void g(const float *__restrict__ x, float *__restrict__ y, int M, int N)\n"    \
	"{\n"                                                                                      \
	"    __shared__ float xs[T + 1];\n"                                                        \
	"    const int tid = threadIdx.x;\n"                                                       \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int base = 0; base < N; base += T) {\n"                                          \
	"        const int w = min(T, N - base);\n"                                                \
	"        if (" GUARD ")\n"                                                                 \
	"            xs[tid] = x[base + tid];\n"                                                   \
	"        __syncthreads();\n"                                                               \
	"        for (int j = 0; " BOUND "; ++j)\n"                                                \
	"            acc += " READ ";\n"                                                           \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    y[blockIdx.x * T + tid] = acc;\n"                                                     \
	"}\n"

Test(idioms, guard_bound_tile_value)
{
	kp_loop *l = analyse(GEMV_TV("tid < w", "j < w", "xs[j]"));
	cr_expect(l->eligible, "refused: %s", l->nreasons ? l->reasons[0].message : "?");
	cr_expect_eq(l->ntvals, 1);
}

Test(idioms, guard_bound_tile_value_wider_read)
{
	kp_loop *l = analyse(GEMV_TV("tid < w", "j < T && j <= w", "xs[j]"));
	cr_expect(has_reason(l, "kpipe-partial-tile-write"));
}

#define REM(AFTER)                                                                                 \
	"#define S 16\n"                                                                           \
	"__global__ void r(const float *__restrict__ A, float *__restrict__ C, int K)\n"           \
	"{\n"                                                                                      \
	"    __shared__ float As[S][S];\n"                                                         \
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"                                      \
	"    const int full = K / S * S;\n"                                                        \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < full; k0 += S) {\n"                                             \
	"        As[ty][tx] = A[ty * K + k0 + tx];\n"                                              \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < S; ++kk)\n"                                                 \
	"            acc += As[ty][kk];\n"                                                         \
	"        __syncthreads();\n"                                                               \
	"    }\n" AFTER "    C[ty * S + tx] = acc;\n"                                              \
	"}\n"

static int refilled(const char *src)
{
	kp_loop *l = analyse(src);
	for (int i = 0; i < l->ntiles; i++)
		if (!strcmp(l->tiles[i].arr->name, "As"))
			return kp_tile_refilled_after(&F, l->kernel, l, &l->tiles[i]);
	cr_assert_fail("no tile As");
	return 0;
}

Test(idioms, refill_in_remainder_block)
{
	cr_expect(
		refilled(REM("    if (full < K) {\n"
			     "        As[ty][tx] = full + tx < K ? A[ty * K + full + tx] : 0.0f;\n"
			     "        __syncthreads();\n"
			     "        for (int kk = 0; kk < K - full; ++kk)\n"
			     "            acc += As[ty][kk];\n"
			     "    }\n")));
	cr_expect(AN.loops[0]->eligible);
	cr_expect(AN.loops[0]->exit_barrier);
}

Test(idioms, refill_read_first)
{
	cr_expect_not(refilled(REM("    acc += As[ty][0];\n"
				   "    As[ty][tx] = A[ty * K + full + tx];\n"
				   "    __syncthreads();\n"
				   "    acc += As[ty][1];\n")));
	/* the last tile is read as the loop left it (test_last_tile.c) */
	cr_expect_not(has_reason(AN.loops[0], "kpipe-tile-read-after-loop"));
}

Test(idioms, refill_without_barrier)
{
	cr_expect_not(refilled(REM("    As[ty][tx] = A[ty * K + full + tx];\n"
				   "    acc += As[ty][1];\n")));
}

Test(idioms, refill_guarded)
{
	cr_expect_not(refilled(REM("    if (tx < K - full)\n"
				   "        As[ty][tx] = A[ty * K + full + tx];\n"
				   "    __syncthreads();\n"
				   "    acc += As[ty][1];\n")));
}

Test(idioms, refill_other_subscripts)
{
	cr_expect_not(refilled(REM("    As[tx][ty] = A[tx * K + full + ty];\n"
				   "    __syncthreads();\n"
				   "    acc += As[ty][1];\n")));
}

Test(idioms, refill_then_write_again)
{
	cr_expect_not(refilled(REM("    As[ty][tx] = A[ty * K + full + tx];\n"
				   "    __syncthreads();\n"
				   "    acc += As[ty][1];\n"
				   "    As[ty][tx] = 0.0f;\n")));
}

Test(idioms, refill_in_a_loop)
{
	cr_expect_not(refilled(REM("    for (int r = 0; r < 2; ++r) {\n"
				   "        As[ty][tx] = A[ty * K + full + tx];\n"
				   "        __syncthreads();\n"
				   "        acc += As[ty][1];\n"
				   "        __syncthreads();\n"
				   "    }\n")));
}

Test(idioms, refill_after_an_early_return)
{
	cr_expect_not(refilled(REM("    if (tx >= K - full)\n"
				   "        return;\n"
				   "    As[ty][tx] = A[ty * K + full + tx];\n"
				   "    __syncthreads();\n"
				   "    acc += As[ty][1];\n")));
}
