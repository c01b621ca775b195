/*
 * test_earlier_use.c - a loaded tile used before its K-loop
 * (src/analysis/earlier_use.c, through rule kpipe-tile-escapes): a second
 * K-loop after a first one and a refill with the same copies, a second
 * loop in the other branch of an `if`, and the near misses that stay
 * refused (no barrier between, a store through other subscripts, a pointer
 * into the tile, a refill not closed by a barrier).  kp_parse +
 * kp_analyze on in-memory kernels.
 */
#include "analyze.h"
#include "arch.h"
#include "parse.h"

#include "kp_test_loop.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

TestSuite(earlier_use, .fini = kp_test_loop_release);

/* A first K-loop over As, then BETWEEN, then a second K-loop storing
 * SECOND; the second loop is the kernel's last candidate. */
#define TWO(BETWEEN, SECOND)                                                                       \
	"#define S 16\n"                                                                           \
	"__global__ void r(const float *__restrict__ A, float *__restrict__ C, int K, int p)\n"    \
	"{\n"                                                                                      \
	"    __shared__ float As[S][S + 1];\n"                                                     \
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"                                      \
	"    float acc = 0.0f;\n"                                                                  \
	"    int k0;\n"                                                                            \
	"    for (k0 = 0; k0 < p; k0 += S) {\n"                                                    \
	"        As[ty][tx] = A[ty * K + k0 + tx];\n"                                              \
	"        __syncthreads();\n"                                                               \
	"        for (int k = 0; k < S; k++)\n"                                                    \
	"            acc += As[ty][k];\n"                                                          \
	"        __syncthreads();\n"                                                               \
	"    }\n" BETWEEN "    for (k0 = p; k0 < K; k0 += S) {\n"                                  \
	"        " SECOND "\n"                                                                     \
	"        __syncthreads();\n"                                                               \
	"        for (int k = 0; k < S; k++)\n"                                                    \
	"            acc += 2.0f * As[ty][k];\n"                                                   \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[ty * S + tx] = acc;\n"                                                              \
	"}\n"

#define SAME "As[ty][tx] = A[ty * K + k0 + tx];"

static kp_loop *second(const char *src)
{
	analyse(src);
	cr_assert_geq(AN.nloops, 2, "no second loop");
	return AN.loops[AN.nloops - 1];
}

static int used_before(const kp_loop *l)
{
	for (int i = 0; i < l->ntiles; i++)
		if (!strcmp(l->tiles[i].arr->name, "As"))
			return l->tiles[i].used_before;
	return 0;
}

Test(earlier_use, same_copies_after_refill)
{
	kp_loop *l = second(TWO("    if (p > 0) {\n"
				"        As[ty][tx] = A[ty * K + p - S + tx];\n"
				"        __syncthreads();\n"
				"        acc += As[tx][ty];\n"
				"        __syncthreads();\n"
				"    }\n",
				SAME));
	cr_expect(l->eligible, "a refill closed by a barrier, the same copies: pipelined");
	cr_expect(used_before(l));
}

Test(earlier_use, right_after_the_first_loop)
{
	kp_loop *l = second(TWO("", SAME));
	cr_expect(l->eligible, "the first loop ends with its barrier");
}

Test(earlier_use, no_barrier_between)
{
	kp_loop *l = second(TWO("    acc += As[tx][ty];\n", SAME));
	cr_expect(!l->eligible);
	cr_expect(has_reason(l, "kpipe-tile-escapes"));
}

Test(earlier_use, refill_not_closed)
{
	kp_loop *l = second(TWO("    if (p > 0) {\n"
				"        As[ty][tx] = A[ty * K + p - S + tx];\n"
				"        __syncthreads();\n"
				"        acc += As[tx][ty];\n"
				"    }\n",
				SAME));
	cr_expect(has_reason(l, "kpipe-tile-escapes"));
}

Test(earlier_use, transposed_copy)
{
	kp_loop *l = second(TWO("", "As[tx][ty] = A[tx * K + k0 + ty];"));
	cr_expect(has_reason(l, "kpipe-tile-escapes"),
		  "the first loop's stores are not this loop's copies");
}

Test(earlier_use, other_store_between)
{
	kp_loop *l = second(TWO("    As[0][tx] = 1.0f;\n"
				"    __syncthreads();\n",
				SAME));
	cr_expect(has_reason(l, "kpipe-tile-escapes"));
}

Test(earlier_use, pointer_into_the_tile)
{
	kp_loop *l = second(TWO("    *(As[ty] + tx) = 0.0f;\n"
				"    __syncthreads();\n",
				SAME));
	cr_expect(has_reason(l, "kpipe-tile-escapes"));
}

/* the second loop in the other branch, its copies transposed */
Test(earlier_use, other_branch)
{
	kp_loop *l =
		second("#define S 16\n"
		       "__global__ void r(const float *__restrict__ A, float *C, int K, int f)\n"
		       "{\n"
		       "    __shared__ float As[S][S + 1];\n"
		       "    const int tx = threadIdx.x, ty = threadIdx.y;\n"
		       "    float acc = 0.0f;\n"
		       "    if (blockIdx.x < f) {\n"
		       "        for (int k0 = 0; k0 < K; k0 += S) {\n"
		       "            As[ty][tx] = A[ty * K + k0 + tx];\n"
		       "            __syncthreads();\n"
		       "            for (int k = 0; k < S; k++)\n"
		       "                acc += As[ty][k];\n"
		       "            __syncthreads();\n"
		       "        }\n"
		       "        acc += As[tx][ty];\n"
		       "    } else {\n"
		       "        for (int k0 = 0; k0 < K; k0 += S) {\n"
		       "            As[tx][ty] = A[tx * K + k0 + ty];\n"
		       "            __syncthreads();\n"
		       "            for (int k = 0; k < S; k++)\n"
		       "                acc += As[ty][k];\n"
		       "            __syncthreads();\n"
		       "        }\n"
		       "    }\n"
		       "    C[ty * S + tx] = acc;\n"
		       "}\n");
	cr_expect(l->eligible, "the first loop's uses are on no path to this one");
	cr_expect(used_before(l));
}
