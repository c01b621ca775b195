/*
 * test_last_tile.c - a tile read after its K-loop as the loop left it
 * (src/analysis/last_tile.c: kp_tile_last_after, and the loop's verdict):
 * a remainder block under a condition, a second loop over the same tiles,
 * a transposed refill, copies in copy loops, and the near misses whose
 * iterations do not write the same elements.  kp_parse + kp_analyze on
 * in-memory kernels.
 */
#include "analyze.h"
#include "arch.h"
#include "last_tile.h"
#include "parse.h"

#include "kp_test_loop.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

TestSuite(last_tile, .fini = kp_test_loop_release);

/* A K-loop over whole tiles whose copies are COPY (each thread copies a
 * 2 x 2 share of a 16 x 16 tile with an 8 x 8 block when in copy loops),
 * then AFTER. */
#define KL(COPY, AFTER)                                                                            \
	"#define S 16\n"                                                                           \
	"#define D 8\n"                                                                            \
	"__global__ void r(const float *__restrict__ A, float *__restrict__ C, int K, int w)\n"    \
	"{\n"                                                                                      \
	"    __shared__ float As[S][S + 1];\n"                                                     \
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"                                      \
	"    const int full = K / S * S;\n"                                                        \
	"    float acc = 0.0f;\n"                                                                  \
	"    int k0;\n"                                                                            \
	"    for (k0 = 0; k0 < full; k0 += S) {\n" COPY "        __syncthreads();\n"               \
	"        for (int kk = 0; kk < S; ++kk)\n"                                                 \
	"            acc += As[kk][tx];\n"                                                         \
	"        __syncthreads();\n"                                                               \
	"    }\n" AFTER "    C[ty * S + tx] = acc;\n"                                              \
	"}\n"

#define NEST                                                                                       \
	"        for (int n = 0; n < S; n += D)\n"                                                 \
	"            for (int m = 0; m < S; m += D)\n"                                             \
	"                As[n + ty][m + tx] = A[(n + ty) * K + k0 + m + tx];\n"

/* verdict of kp_tile_last_after on As, and the loop's eligibility */
static int last_after(const char *src)
{
	kp_loop *l = analyse(src);
	for (int i = 0; i < l->ntiles; i++)
		if (!strcmp(l->tiles[i].arr->name, "As"))
			return kp_tile_last_after(l->kernel, l, &l->tiles[i]);
	cr_assert_fail("no tile As");
	return 0;
}

Test(last_tile, conditional_refill_in_copy_loops)
{
	cr_expect(last_after(KL(NEST, "    if (full < K) {\n"
				      "        for (int n = 0; n < S; n += D)\n"
				      "            for (int m = 0; m < S; m += D)\n"
				      "                As[n + ty][m + tx] = 0.0f;\n"
				      "        __syncthreads();\n"
				      "        acc += As[1][tx];\n"
				      "    }\n")));
	cr_expect(AN.loops[0]->eligible);
	cr_expect(AN.loops[0]->tiles[0].last_after);
}

Test(last_tile, second_loop_transposed)
{
	cr_expect(last_after(KL(NEST,
				"    for (k0 = full; k0 < K; k0 += S) {\n"
				"        for (int n = 0; n < S; n += D)\n"
				"            for (int m = 0; m < S; m += D)\n"
				"                As[m + tx][n + ty] = A[(m + tx) * K + n + ty];\n"
				"        __syncthreads();\n"
				"        acc += As[ty][tx];\n"
				"        __syncthreads();\n"
				"    }\n")));
	cr_expect(AN.loops[0]->eligible);
}

Test(last_tile, read_without_refill)
{
	cr_expect(last_after(
		KL("        As[ty][tx] = A[ty * K + k0 + tx];\n", "    acc += As[tx][ty];\n")));
	cr_expect(AN.loops[0]->eligible);
}

Test(last_tile, fixed_guard)
{
	cr_expect(last_after(KL("        if (tx < w)\n"
				"            As[ty][tx] = A[ty * K + k0 + tx];\n",
				"    if (tx < w)\n"
				"        acc += As[ty][tx];\n")));
}

Test(last_tile, guard_that_follows_the_tile)
{
	cr_expect_not(last_after(KL("        if (k0 + tx < w)\n"
				    "            As[ty][tx] = A[ty * K + k0 + tx];\n",
				    "    acc += As[ty][tx];\n")));
	cr_expect(has_reason(AN.loops[0], "kpipe-tile-read-after-loop"));
}

Test(last_tile, subscript_that_follows_the_tile)
{
	cr_expect_not(last_after(KL("        As[ty][(tx + k0 / S) % S] = A[ty * K + k0 + tx];\n",
				    "    acc += As[ty][tx];\n")));
	cr_expect(has_reason(AN.loops[0], "kpipe-tile-read-after-loop"));
}

Test(last_tile, copy_loop_bound_that_follows_the_tile)
{
	cr_expect_not(last_after(KL("        for (int n = 0; n < S && k0 + n < w; n += D)\n"
				    "            As[n + ty][tx] = A[(n + ty) * K + k0 + tx];\n",
				    "    acc += As[ty][tx];\n")));
}

Test(last_tile, copy_loop_counter_written_in_its_body)
{
	cr_expect_not(last_after(KL("        for (int n = 0; n < S; n += D) {\n"
				    "            As[n + ty][tx] = A[(n + ty) * K + k0 + tx];\n"
				    "            if (n == w)\n"
				    "                n += D;\n"
				    "        }\n",
				    "    acc += As[ty][tx];\n")));
}

Test(last_tile, copy_loop_left_early)
{
	cr_expect_not(last_after(KL("        for (int n = 0; n < S; n += D) {\n"
				    "            if (n == w)\n"
				    "                break;\n"
				    "            As[n + ty][tx] = A[(n + ty) * K + k0 + tx];\n"
				    "        }\n",
				    "    acc += As[ty][tx];\n")));
}

Test(last_tile, use_in_a_macro_body)
{
	cr_expect_not(last_after("#define LAST As[ty][tx]\n" KL(
		"        As[ty][tx] = A[ty * K + k0 + tx];\n", "    acc += LAST;\n")));
	cr_expect(has_reason(AN.loops[0], "kpipe-tile-read-after-loop"));
}

Test(last_tile, read_in_a_loop_around)
{
	kp_loop *l =
		analyse("#define S 16\n"
			"__global__ void r(const float *__restrict__ A, float *C, int K, int R)\n"
			"{\n"
			"    __shared__ float As[S][S];\n"
			"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
			"    float acc = 0.0f;\n"
			"    for (int r = 0; r < R; ++r) {\n"
			"        for (int k0 = 0; k0 < K; k0 += S) {\n"
			"            As[ty][tx] = A[ty * K + k0 + tx];\n"
			"            __syncthreads();\n"
			"            acc += As[tx][ty];\n"
			"            __syncthreads();\n"
			"        }\n"
			"        acc += As[ty][tx];\n"
			"    }\n"
			"    C[ty * S + tx] = acc;\n"
			"}\n");
	/* the first loop is the one around: find the K-loop */
	for (int i = 0; i < AN.nloops; i++)
		if (AN.loops[i]->node->line == 8)
			l = AN.loops[i];
	cr_expect_not(l->eligible);
	cr_expect(has_reason(l, "kpipe-tile-read-after-loop"));
}
