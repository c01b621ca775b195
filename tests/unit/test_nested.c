/*
 * test_nested.c - K-loops nested in other loops (issue #16, item 4): which
 * loops are candidates (every K-loop at any depth; a loop around K-loops,
 * with barriers of its own or not, is no K-loop), the verdict of each, and
 * the legality of the shared memory an enclosing loop uses around its
 * K-loop (epilogue staging arrays, tiles carried into or out of the
 * K-loop, two K-loops side by side); through the rewrite driver, that a
 * loop around K-loops is a remark and that the shared memory of K-loops
 * pipelined earlier in a kernel counts for the later ones.
 *
 * Every snippet is the same persistent kernel with one thing changed; the
 * line numbers below count from its layout:
 *   1 #define TILE 16
 *   2 __global__ void pk(...,
 *   3                    ...)
 *   4 {
 *   5     __shared__ float As[TILE][TILE];
 *   6     __shared__ float Bs[TILE][TILE];
 *   7     __shared__ float Cs[TILE][TILE + 1];
 *   8     int tx, ty
 *   9     for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
 *  10         int row, col
 *  11         float acc = 0.0f;
 *  12         [BEFORE: one line, or an empty line]
 *  13         for (int k0 = 0; k0 < K; k0 += TILE) {
 *  14             As[ty][tx] = A[...];
 *  15             Bs[ty][tx] = B[...];
 *  16             __syncthreads();
 *  17             for (int kk ...)
 *  18                 acc += As[ty][kk] * Bs[kk][tx];
 *  19             __syncthreads();
 *  20         }
 *  21         [AFTER: one line, or an empty line]
 *  ..         the epilogue (EPI_STORE, or EPI_STAGED: through Cs between
 *             two barriers of the tile loop)
 */
#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "kp_test_parse.h"
#include "rewrite.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* the kernel's parameters close the second line: spliced in by PK() */
#define PK_PARAMS "                   float *__restrict__ C, int N, int K, int ntiles, int tn)\n"
#define KLOOP                                                                                      \
	"        for (int k0 = 0; k0 < K; k0 += TILE) {\n"                                         \
	"            As[ty][tx] = A[row * K + k0 + tx];\n"                                         \
	"            Bs[ty][tx] = B[(k0 + ty) * N + col];\n"                                       \
	"            __syncthreads();\n"                                                           \
	"            for (int kk = 0; kk < TILE; ++kk)\n"                                          \
	"                acc += As[ty][kk] * Bs[kk][tx];\n"                                        \
	"            __syncthreads();\n"                                                           \
	"        }\n"
#define EPI_STORE                                                                                  \
	"        C[row * N + col] = acc;\n"                                                        \
	"    }\n"                                                                                  \
	"}\n"
#define EPI_STAGED                                                                                 \
	"        __syncthreads();\n"                                                               \
	"        Cs[ty][tx] = acc;\n"                                                              \
	"        __syncthreads();\n"                                                               \
	"        C[((tile / tn) * TILE + tx) * N + (tile % tn) * TILE + ty] = Cs[tx][ty];\n"       \
	"    }\n"                                                                                  \
	"}\n"

/* The kernel with one line before and after the K-loop, and an epilogue. */
#define PK(before, after, epi)                                                                     \
	"#define TILE 16\n"                                                                        \
	"__global__ void pk(const float *__restrict__ A, const float *__restrict__ B,\n" PK_PARAMS \
	"{\n"                                                                                      \
	"    __shared__ float As[TILE][TILE];\n"                                                   \
	"    __shared__ float Bs[TILE][TILE];\n"                                                   \
	"    __shared__ float Cs[TILE][TILE + 1];\n"                                               \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {\n"                    \
	"        int row = (tile / tn) * TILE + ty, col = (tile % tn) * TILE + tx;\n"              \
	"        float acc = 0.0f;\n" before "\n" KLOOP after "\n" epi

static kp_file F;
static kp_analysis AN;

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

TestSuite(nested, .fini = release);

/* Parses and analyses `src` for sm_90 (asserting a clean parse). */
static void analyze_src(const char *src)
{
	kp_test_parse(&F, "nested.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	for (int i = 0; i < AN.nloops; i++)
		for (int r = 0; r < AN.loops[i]->nreasons; r++)
			cr_log_info("loop %d (line %d): %d:%d %s [%s]", AN.loops[i]->index,
				    AN.loops[i]->node->line, AN.loops[i]->reasons[r].line,
				    AN.loops[i]->reasons[r].col, AN.loops[i]->reasons[r].message,
				    AN.loops[i]->reasons[r].id);
}

static const kp_reason *find_reason(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return &l->reasons[i];
	return NULL;
}

/* The candidate loop at `line`. */
static kp_loop *loop_at(int line)
{
	for (int i = 0; i < AN.nloops; i++)
		if (AN.loops[i]->node->line == line)
			return AN.loops[i];
	cr_assert_fail("no candidate loop at line %d (%d loops)", line, AN.nloops);
	return NULL;
}

static void log_reasons(const kp_loop *l)
{
	for (int i = 0; i < l->nreasons; i++)
		cr_log_info("  %d:%d %s [%s]", l->reasons[i].line, l->reasons[i].col,
			    l->reasons[i].message, l->reasons[i].id);
}

/* The K-loop at line 13 is eligible, and its cp.async form must end with a
 * barrier because it is nested. */
static void expect_inner_eligible(kp_loop *l)
{
	cr_expect(l->eligible, "the K-loop should be eligible");
	cr_expect_eq(l->encloses_line, 0);
	cr_expect(l->exit_barrier, "a nested K-loop needs the barrier after it");
	cr_expect_str_eq(l->exit_barrier_why, "the loop is nested in another loop");
	cr_expect_eq(l->nloads, 2);
}

/* Today's persistent kernel: the tile loop has no barrier of its own, so
 * it is not a candidate at all. */
Test(nested, tile_loop_without_barriers_is_no_candidate)
{
	analyze_src(PK("", "", EPI_STORE));
	cr_assert_eq(AN.nloops, 1);
	kp_loop *l = loop_at(13);
	cr_expect_eq(l->index, 1);
	expect_inner_eligible(l);
}

/* The epilogue stages C through Cs between two barriers of the tile loop:
 * the tile loop was the only candidate once (refused, and its K-loop never
 * looked at); now it is reported as a loop around a K-loop, first, and the
 * K-loop is a candidate of its own. */
Test(nested, tile_loop_with_barriers_encloses_the_kloop)
{
	analyze_src(PK("", "", EPI_STAGED));
	cr_assert_eq(AN.nloops, 2);
	kp_loop *o = AN.loops[0], *l = AN.loops[1];
	cr_expect_eq(o->node->line, 9);
	cr_expect_eq(o->index, 1);
	cr_expect_not(o->eligible);
	cr_expect_eq(o->encloses_line, 13);
	cr_assert_eq(o->nreasons, 1, "one reason for a loop around a K-loop");
	cr_expect_str_eq(o->reasons[0].id, "kpipe-loop-shape");
	cr_expect_str_eq(o->reasons[0].message,
			 "not a K-loop: the loop encloses the K-loop at line 13, which is analysed "
			 "on its own");
	cr_expect_eq(o->reasons[0].line, 9);
	cr_expect_eq(l->node->line, 13);
	cr_expect_eq(l->index, 2);
	expect_inner_eligible(l);
	/* Cs is not a tile: it keeps one buffer, and counts as other memory */
	for (int i = 0; i < l->ntiles; i++)
		cr_expect_str_neq(l->tiles[i].arr->name, "Cs");
	cr_expect_eq(l->other_smem, 16 * 17 * 4);
}

/* A do-while around a K-loop is reported the same way (not as a loop that
 * is not a for-loop). */
Test(nested, do_while_encloses_the_kloop)
{
	analyze_src(
		"#define TILE 16\n"
		"__global__ void pk(const float *A, const float *B, float *C, int N, int K, int nb)\n"
		"{\n"
		"    __shared__ float As[TILE][TILE];\n"
		"    __shared__ float Bs[TILE][TILE];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y, b = 0;\n"
		"    do {\n"
		"        float acc = 0.0f;\n"
		"        for (int k0 = 0; k0 < K; k0 += TILE) {\n"
		"            As[ty][tx] = A[b * K + ty * K + k0 + tx];\n"
		"            Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"
		"            __syncthreads();\n"
		"            for (int kk = 0; kk < TILE; ++kk)\n"
		"                acc += As[ty][kk] * Bs[kk][tx];\n"
		"            __syncthreads();\n"
		"        }\n"
		"        C[b * N + ty * N + tx] = acc;\n"
		"        __syncthreads();\n"
		"    } while (++b < nb);\n"
		"}\n");
	cr_assert_eq(AN.nloops, 2);
	cr_expect_eq(AN.loops[0]->node->line, 7);
	cr_expect_eq(AN.loops[0]->encloses_line, 9);
	cr_expect_str_eq(AN.loops[0]->reasons[0].id, "kpipe-loop-shape");
	cr_expect(AN.loops[1]->eligible);
	cr_expect(AN.loops[1]->exit_barrier);
}

/* A barrier inside a loop of the compute phase does not make that loop a
 * K-loop (it copies nothing): the K-loop stays the one candidate.  The
 * compute phase is kept as written, barriers and all, so the K-loop is
 * eligible; its closing barrier is the last top-level one. */
Test(nested, compute_loop_with_a_barrier_is_no_kloop)
{
	analyze_src("#define TILE 16\n"
		    "__global__ void mm(const float *A, const float *B, float *C, int N, int K)\n"
		    "{\n"
		    "    __shared__ float As[TILE][TILE];\n"
		    "    __shared__ float Bs[TILE][TILE];\n"
		    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		    "    float acc = 0.0f;\n"
		    "    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
		    "        As[ty][tx] = A[ty * K + k0 + tx];\n"
		    "        Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"
		    "        __syncthreads();\n"
		    "        for (int kk = 0; kk < TILE; ++kk) {\n"
		    "            acc += As[ty][kk] * Bs[kk][tx];\n"
		    "            __syncthreads();\n"
		    "        }\n"
		    "        __syncthreads();\n"
		    "    }\n"
		    "    C[ty * N + tx] = acc;\n"
		    "}\n");
	cr_assert_eq(AN.nloops, 1);
	kp_loop *l = AN.loops[0];
	cr_expect_eq(l->node->line, 8);
	cr_expect_eq(l->encloses_line, 0);
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect_eq(l->bar1, 2);
	cr_expect_eq(l->bar2, 4);
}

/* More barriers in the compute phase, at the top level and in a nested
 * loop (a GEMV's block row: load x; sync; per quarter: multiply, sync,
 * reduce through a scratch array, sync; sum; sync): the closing barrier is
 * the last; eligible.  A barrier in a nested loop of the load phase is
 * still refused: the copies would move across it. */
Test(nested, barriers_inside_the_compute_phase)
{
	analyze_src(
		"__global__ void gemv(const float *__restrict__ A, const float *__restrict__ x,\n"
		"                     float *__restrict__ y, int n)\n"
		"{\n"
		"    __shared__ float sx[64];\n"
		"    __shared__ float red[4][64];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    float total = 0.0f;\n"
		"    for (int j0 = 0; j0 < n; j0 += 64) {\n"
		"        if (ty == 0) sx[tx] = x[j0 + tx];\n"
		"        __syncthreads();\n"
		"        for (int q = 0; q < 4; q++) {\n"
		"            float a = A[(blockIdx.x * 64 + tx) * n + j0 + q * 16 + ty];\n"
		"            red[ty][tx] = a * sx[q * 16 + ty];\n"
		"            __syncthreads();\n"
		"            if (ty == 0) total += red[0][tx] + red[1][tx] + red[2][tx] + red[3][tx];\n"
		"            __syncthreads();\n"
		"        }\n"
		"        red[ty][tx] = total;\n"
		"        __syncthreads();\n"
		"        total = red[0][tx];\n"
		"        __syncthreads();\n"
		"    }\n"
		"    if (ty == 0) y[blockIdx.x * 64 + tx] = total;\n"
		"}\n");
	cr_assert_eq(AN.nloops, 1);
	kp_loop *l = AN.loops[0];
	log_reasons(l);
	cr_expect(l->eligible);
	cr_expect(l->comp_writes_shared);
	cr_expect_eq(l->bar1, 1);
	cr_expect_eq(l->bar2, 6);
	release();
	analyze_src("__global__ void mm(const float *A, float *C, int K)\n"
		    "{\n"
		    "    __shared__ float As[16][16];\n"
		    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		    "    float acc = 0.0f;\n"
		    "    for (int k0 = 0; k0 < K; k0 += 16) {\n"
		    "        As[ty][tx] = A[ty * K + k0 + tx];\n"
		    "        for (int r = 0; r < 2; r++) {\n"
		    "            __syncthreads();\n"
		    "        }\n"
		    "        __syncthreads();\n"
		    "        acc += As[tx][ty];\n"
		    "        __syncthreads();\n"
		    "    }\n"
		    "    C[ty * 16 + tx] = acc;\n"
		    "}\n");
	l = loop_at(6);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-extra-barrier"));
}

/* The tile loop writes a tile before the K-loop (every tile): a use the
 * rewrite cannot re-index, which would also see one buffer. */
Test(nested, tile_written_before_the_kloop_escapes)
{
	analyze_src(PK("        As[ty][tx] = 0.0f;", "", EPI_STAGED));
	kp_loop *l = loop_at(13);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-tile-escapes");
	cr_assert_not_null(r);
	cr_expect_eq(r->line, 12);
	cr_expect(strstr(r->message, "'As'"), "%s", r->message);
}

/* A tile loaded once per tile before the K-loop, which the K-loop reads
 * and reloads: the same. */
Test(nested, tile_loaded_before_the_kloop_escapes)
{
	analyze_src(PK("        As[ty][tx] = A[row * K + tx];", "", EPI_STORE));
	kp_loop *l = loop_at(13);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-tile-escapes"));
}

/* The tile loop reads the K-loop's last tile after it. */
Test(nested, last_tile_read_by_the_tile_loop)
{
	analyze_src(PK("", "        acc += As[ty][0];", EPI_STAGED));
	kp_loop *l = loop_at(13);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-tile-read-after-loop");
	cr_assert_not_null(r);
	cr_expect_eq(r->line, 21);
	/* the tile loop is still a loop around a K-loop */
	cr_expect_eq(loop_at(9)->encloses_line, 13);
}

/* The epilogue reuses a tile of the K-loop as its staging array: also a
 * read after the loop. */
Test(nested, epilogue_through_a_tile)
{
	analyze_src(PK("", "",
		       "        __syncthreads();\n"
		       "        As[ty][tx] = acc;\n"
		       "        __syncthreads();\n"
		       "        C[row * N + col] = As[tx][ty];\n"
		       "    }\n"
		       "}\n"));
	kp_loop *l = loop_at(13);
	cr_expect_not(l->eligible);
	cr_expect_not_null(find_reason(l, "kpipe-tile-read-after-loop"));
}

/* A shared array the tile loop fills before the K-loop and the compute
 * phase only reads is no tile: it keeps one buffer, and the K-loop is
 * eligible (its first barrier, or the prologue's, still publishes it; the
 * barrier after the loop keeps the next fill behind the last reads). */
Test(nested, shared_array_filled_by_the_tile_loop)
{
	analyze_src("#define TILE 16\n"
		    "__global__ void sc(const float *__restrict__ A, const float *__restrict__ B,\n"
		    "                   float *__restrict__ C, int N, int K, int nb)\n"
		    "{\n"
		    "    __shared__ float As[TILE][TILE];\n"
		    "    __shared__ float Bs[TILE][TILE];\n"
		    "    __shared__ float Ss[TILE];\n"
		    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
		    "    for (int b = blockIdx.z; b < nb; b += gridDim.z) {\n"
		    "        float acc = 0.0f;\n"
		    "        if (ty == 0)\n"
		    "            Ss[tx] = 1.0f + b;\n"
		    "        for (int k0 = 0; k0 < K; k0 += TILE) {\n"
		    "            As[ty][tx] = A[b * K + ty * K + k0 + tx];\n"
		    "            Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"
		    "            __syncthreads();\n"
		    "            for (int kk = 0; kk < TILE; ++kk)\n"
		    "                acc += Ss[kk] * As[ty][kk] * Bs[kk][tx];\n"
		    "            __syncthreads();\n"
		    "        }\n"
		    "        C[b * N + ty * N + tx] = acc;\n"
		    "        __syncthreads();\n"
		    "    }\n"
		    "}\n");
	cr_assert_eq(AN.nloops, 2);
	cr_expect_eq(AN.loops[0]->encloses_line, 13);
	kp_loop *l = loop_at(13);
	cr_expect(l->eligible);
	cr_expect(l->exit_barrier);
	cr_expect_eq(l->other_smem, 16 * 4);
}

/* The K-loop's trip count depends on the tile loop's counter. */
Test(nested, trip_count_from_the_outer_counter)
{
	analyze_src(
		"#define TILE 16\n"
		"__global__ void tri(const float *__restrict__ A, const float *__restrict__ B,\n"
		"                    float *__restrict__ C, int N, int nb)\n"
		"{\n"
		"    __shared__ float As[TILE][TILE];\n"
		"    __shared__ float Bs[TILE][TILE];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    for (int rb = blockIdx.y; rb < nb; rb += gridDim.y) {\n"
		"        int row = rb * TILE + ty;\n"
		"        float acc = 0.0f;\n"
		"        for (int k0 = 0; k0 <= rb * TILE; k0 += TILE) {\n"
		"            As[ty][tx] = k0 + tx <= row ? A[row * N + k0 + tx] : 0.0f;\n"
		"            Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"
		"            __syncthreads();\n"
		"            for (int kk = 0; kk < TILE; ++kk)\n"
		"                acc += As[ty][kk] * Bs[kk][tx];\n"
		"            __syncthreads();\n"
		"        }\n"
		"        C[row * N + tx] = acc;\n"
		"    }\n"
		"}\n");
	cr_assert_eq(AN.nloops, 1);
	kp_loop *l = AN.loops[0];
	cr_expect_eq(l->node->line, 11);
	cr_expect(l->eligible);
	cr_expect(l->cond_monotone);
	cr_expect(l->exit_barrier);
}

/* Two K-loops side by side in the tile loop, each with its own tiles:
 * both candidates, both eligible. */
#define SIBLINGS(second_a)                                                                         \
	"#define TILE 16\n"                                                                        \
	"__global__ void sib(const float *__restrict__ A, const float *__restrict__ B,\n"          \
	"                    float *__restrict__ C, int N, int K, int nb)\n"                       \
	"{\n"                                                                                      \
	"    __shared__ float As[TILE][TILE];\n"                                                   \
	"    __shared__ float Bs[TILE][TILE];\n"                                                   \
	"    __shared__ float Ds[TILE][TILE];\n"                                                   \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    for (int b = blockIdx.z; b < nb; b += gridDim.z) {\n"                                 \
	"        float acc = 0.0f;\n"                                                              \
	"        for (int k0 = 0; k0 < K; k0 += TILE) {\n"                                         \
	"            As[ty][tx] = A[b * K + ty * K + k0 + tx];\n"                                  \
	"            __syncthreads();\n"                                                           \
	"            for (int kk = 0; kk < TILE; ++kk)\n"                                          \
	"                acc += As[ty][kk];\n"                                                     \
	"            __syncthreads();\n"                                                           \
	"        }\n"                                                                              \
	"        for (int k0 = 0; k0 < K; k0 += TILE) {\n"                                         \
	"            " second_a "[ty][tx] = A[b * K + ty * K + k0 + tx];\n"                        \
	"            Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"                                        \
	"            __syncthreads();\n"                                                           \
	"            for (int kk = 0; kk < TILE; ++kk)\n"                                          \
	"                acc += " second_a "[ty][kk] * Bs[kk][tx];\n"                              \
	"            __syncthreads();\n"                                                           \
	"        }\n"                                                                              \
	"        C[b * N + ty * N + tx] = acc;\n"                                                  \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"}\n"

Test(nested, sibling_kloops_with_their_own_tiles)
{
	analyze_src(SIBLINGS("Ds"));
	cr_assert_eq(AN.nloops, 3);
	cr_expect_eq(AN.loops[0]->node->line, 9);
	cr_expect_eq(AN.loops[0]->encloses_line, 11, "the first K-loop is named");
	for (int i = 1; i < 3; i++) {
		kp_loop *l = AN.loops[i];
		cr_expect_eq(l->index, i + 1);
		cr_expect(l->eligible, "K-loop %d should be eligible", i);
		cr_expect(l->exit_barrier);
	}
	cr_expect_eq(AN.loops[1]->node->line, 11);
	cr_expect_eq(AN.loops[2]->node->line, 18);
}

/* The second K-loop reuses the first one's tile: both are refused, the
 * first because the tile is read after it, the second because the tile is
 * used before it. */
Test(nested, sibling_kloops_sharing_a_tile)
{
	analyze_src(SIBLINGS("As"));
	cr_assert_eq(AN.nloops, 3);
	kp_loop *a = loop_at(11), *b = loop_at(18);
	cr_expect_not(a->eligible);
	cr_expect_not_null(find_reason(a, "kpipe-tile-read-after-loop"));
	cr_expect_not(b->eligible);
	cr_expect_not_null(find_reason(b, "kpipe-tile-escapes"));
}

/* A K-loop inside the compute phase of another K-loop: the outer one is a
 * loop around a K-loop; the inner one reads the outer's tile (a shared
 * array it does not load) and is eligible.  Its load phase may read the
 * outer's tile too, which it never writes (a __shared__ table). */
#define OUTER_KLOOP(inner_src)                                                                     \
	"#define TILE 16\n"                                                                        \
	"__global__ void two(const float *__restrict__ A, const float *__restrict__ B,\n"          \
	"                    float *__restrict__ C, int N, int K)\n"                               \
	"{\n"                                                                                      \
	"    __shared__ float As[TILE][TILE];\n"                                                   \
	"    __shared__ float Bs[TILE][TILE];\n"                                                   \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"                                             \
	"        As[ty][tx] = A[ty * K + k0 + tx];\n"                                              \
	"        __syncthreads();\n"                                                               \
	"        for (int j0 = 0; j0 < N; j0 += TILE) {\n"                                         \
	"            Bs[ty][tx] = " inner_src ";\n"                                                \
	"            __syncthreads();\n"                                                           \
	"            for (int kk = 0; kk < TILE; ++kk)\n"                                          \
	"                acc += As[ty][kk] * Bs[kk][tx];\n"                                        \
	"            __syncthreads();\n"                                                           \
	"        }\n"                                                                              \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[ty * N + tx] = acc;\n"                                                              \
	"}\n"

Test(nested, kloop_inside_a_kloop)
{
	analyze_src(OUTER_KLOOP("B[(k0 + ty) * N + j0 + tx]"));
	cr_assert_eq(AN.nloops, 2);
	cr_expect_eq(AN.loops[0]->encloses_line, 12);
	cr_expect_not(AN.loops[0]->eligible);
	kp_loop *l = AN.loops[1];
	cr_expect(l->eligible);
	cr_expect(l->exit_barrier);
	cr_assert_eq(l->nloads, 1);
	cr_expect_str_eq(l->loads[0].tile->name, "Bs");
}

/* The outer tile is a __shared__ table the inner loop never writes
 * (analysis/shared_table.c): its loads may read it early (issue 34; the
 * rewrite passes the CPU check). */
Test(nested, inner_load_reads_the_outer_tile)
{
	analyze_src(OUTER_KLOOP("B[(k0 + ty) * N + j0 + tx] * As[ty][0]"));
	kp_loop *l = loop_at(12);
	cr_expect(l->eligible);
	cr_expect_null(find_reason(l, "kpipe-load-depends-on-compute"));
}

/* ... but not when the inner loop writes it (here its load phase). */
Test(nested, inner_load_reads_an_outer_tile_it_writes)
{
	analyze_src(OUTER_KLOOP("B[(k0 + ty) * N + j0 + tx] * As[ty][0];\n"
				"            if (tx == 0) As[ty][1] = 0.0f"));
	kp_loop *l = loop_at(12);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-load-depends-on-compute");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "'As'"), "%s", r->message);
}

/* A do-while K-loop is a candidate (its body is the statement's first
 * child, not the condition, which once hid it), refused as not a for-loop. */
Test(nested, do_while_kloop_is_reported)
{
	analyze_src("#define TILE 16\n"
		    "__global__ void dk(const float *A, const float *B, float *C, int N, int K)\n"
		    "{\n"
		    "    __shared__ float As[TILE][TILE];\n"
		    "    __shared__ float Bs[TILE][TILE];\n"
		    "    int tx = threadIdx.x, ty = threadIdx.y, k0 = 0;\n"
		    "    float acc = 0.0f;\n"
		    "    do {\n"
		    "        As[ty][tx] = A[ty * K + k0 + tx];\n"
		    "        Bs[ty][tx] = B[(k0 + ty) * N + tx];\n"
		    "        __syncthreads();\n"
		    "        for (int kk = 0; kk < TILE; ++kk)\n"
		    "            acc += As[ty][kk] * Bs[kk][tx];\n"
		    "        __syncthreads();\n"
		    "        k0 += TILE;\n"
		    "    } while (k0 < K);\n"
		    "    C[ty * N + tx] = acc;\n"
		    "}\n");
	cr_assert_eq(AN.nloops, 1);
	kp_loop *l = AN.loops[0];
	cr_expect_eq(l->node->line, 8);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-loop-shape");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "only for-loops"), "%s", r->message);
}

/* --- the rewrite driver ------------------------------------------------------ */

typedef struct {
	kp_rw_result r;
	char *out;
	size_t outlen;
	int rc;
} rw_run;

static void rewrite_src(rw_run *x, const char *src, const char *variant)
{
	memset(x, 0, sizeof(*x));
	kp_rw_opts o = {0};
	o.arch = kp_arch_find("sm_90");
	o.variant = variant;
	o.stages = 2;
	kp_rw_input in = {.path = "nested.cu", .contents = src, .len = strlen(src), .no_compdb = 1};
	x->r.path = kp_xstrdup("nested.cu");
	x->rc = kp_rewrite_buffer(&o, &in, &x->r, &x->out, &x->outlen);
	for (int i = 0; i < x->r.ndiags; i++)
		cr_log_info("%d:%d: %s: %s [%s]", x->r.diags[i].line, x->r.diags[i].col,
			    x->r.diags[i].level, x->r.diags[i].message,
			    x->r.diags[i].id ? x->r.diags[i].id : "");
}

static void rw_release(rw_run *x)
{
	kp_rw_result_release(&x->r);
	free(x->out);
}

static const kp_rw_diag *diag_with(const rw_run *x, const char *id)
{
	for (int i = 0; i < x->r.ndiags; i++)
		if (x->r.diags[i].id && !strcmp(x->r.diags[i].id, id))
			return &x->r.diags[i];
	return NULL;
}

/* The loop around the K-loop is left alone on purpose: a remark, not a
 * warning; the K-loop is pipelined and closed by a barrier. */
Test(nested, rewrite_reports_the_tile_loop_as_a_remark)
{
	rw_run x;
	rewrite_src(&x, PK("", "", EPI_STAGED), "cp-async");
	cr_expect_eq(x.rc, 0);
	cr_expect_eq(x.r.loops, 2);
	cr_expect_eq(x.r.pipelined, 1);
	const kp_rw_diag *d = diag_with(&x, "kpipe-loop-shape");
	cr_assert_not_null(d);
	cr_expect_str_eq(d->level, "remark");
	cr_expect_eq(d->line, 9);
	cr_assert_not_null(x.out);
	cr_expect(strstr(x.out, "__syncthreads(); // kpipe: the loop is nested in another loop"),
		  "%s", x.out);
	rw_release(&x);
}

/* Two K-loops side by side, each with 16 KB of tiles (64 x 64 floats): each
 * alone fits 48 KB doubled with the other's single tile, both doubled do
 * not (64 KB, which ptxas refuses).  With cp.async forced the second is
 * refused with the figure that counts the first's second buffer; with
 * auto it gets the one-buffer form. */
#define BIG_SIBLINGS                                                                                    \
	"#define T 64\n"                                                                                \
	"__global__ void __launch_bounds__(256) sib(const float *__restrict__ A,\n"                     \
	"    const float *__restrict__ B, float *__restrict__ C, int K, int nb)\n"                      \
	"{\n"                                                                                           \
	"    __shared__ float As[T][T];\n"                                                              \
	"    __shared__ float Bs[T][T];\n"                                                              \
	"    const int tx = threadIdx.x;\n"                                                             \
	"    for (int b = blockIdx.y; b < nb; b += gridDim.y) {\n"                                      \
	"        float acc = 0.0f;\n"                                                                   \
	"        for (int k0 = 0; k0 < K; k0 += T) {\n"                                                 \
	"            for (int i = 0; i < T * T / 256; ++i)\n"                                           \
	"                As[i * 4 + tx / T][tx % T] = A[(size_t)(i * 4 + tx / T) * K + k0 + tx % T];\n" \
	"            __syncthreads();\n"                                                                \
	"            for (int kk = 0; kk < T; ++kk)\n"                                                  \
	"                acc += As[tx % T][kk];\n"                                                      \
	"            __syncthreads();\n"                                                                \
	"        }\n"                                                                                   \
	"        for (int k0 = 0; k0 < K; k0 += T) {\n"                                                 \
	"            for (int i = 0; i < T * T / 256; ++i)\n"                                           \
	"                Bs[i * 4 + tx / T][tx % T] = B[(size_t)(i * 4 + tx / T) * K + k0 + tx % T];\n" \
	"            __syncthreads();\n"                                                                \
	"            for (int kk = 0; kk < T; ++kk)\n"                                                  \
	"                acc += Bs[tx % T][kk];\n"                                                      \
	"            __syncthreads();\n"                                                                \
	"        }\n"                                                                                   \
	"        C[b * 256 + tx] = acc;\n"                                                              \
	"    }\n"                                                                                       \
	"}\n"

/* BIG_SIBLINGS with an extern __shared__ array of the kernel's own, so
 * that no tile can move to dynamic shared memory (static storage) */
static const char *siblings_with_extern(void)
{
	static char buf[4096];
	const char *src = BIG_SIBLINGS, *at = strstr(src, "    __shared__ float As[T][T];\n");
	const char *use = strstr(src, "acc;\n    }\n}");
	cr_assert(at && use && at < use);
	snprintf(buf, sizeof(buf), "%.*s    extern __shared__ float dynx[];\n%.*sacc + dynx[0];%s",
		 (int)(at - src), src, (int)(use - at), at, use + 4);
	return buf;
}

/* With cp.async forced, the second K-loop's tiles move to dynamic shared
 * memory; with more stages both would, and the second is refused (the
 * kernel has one extern array; the tiles of two loops would alias). */
Test(nested, sibling_kloops_one_moves_to_dynamic_shared_memory)
{
	rw_run x;
	rewrite_src(&x, BIG_SIBLINGS, "cp-async");
	cr_expect_eq(x.rc, 0);
	cr_expect_eq(x.r.pipelined, 2);
	cr_assert_not_null(x.out);
	cr_expect(strstr(x.out, "__shared__ float As[2][T][T];"), "%s", x.out);
	cr_expect(strstr(x.out, "float (&Bs)[2][T][T] = *reinterpret_cast<float (*)[2][T][T]>("),
		  "%s", x.out);
	cr_expect_not_null(diag_with(&x, "kpipe-dynamic-smem-launch"));
	rw_release(&x);

	memset(&x, 0, sizeof(x));
	kp_rw_opts o = {0};
	o.arch = kp_arch_find("sm_90");
	o.variant = "cp-async";
	o.stages = 4;
	kp_rw_input in = {.path = "nested.cu",
			  .contents = BIG_SIBLINGS,
			  .len = strlen(BIG_SIBLINGS),
			  .no_compdb = 1};
	x.r.path = kp_xstrdup("nested.cu");
	x.rc = kp_rewrite_buffer(&o, &in, &x.r, &x.out, &x.outlen);
	cr_expect_eq(x.r.pipelined, 1);
	const kp_rw_diag *d = diag_with(&x, "kpipe-smem-over-limit");
	cr_assert_not_null(d, "the second K-loop must be refused");
	cr_expect_eq(d->line, 18);
	/* the earlier loop's dynamic buffers count against the static limit
	 * too (conservative), or the one extern array per kernel stops it */
	cr_expect(strstr(d->message, "already moved its tiles to dynamic shared memory") ||
			  strstr(d->message,
				 "one buffer of the tiles is already over the static limit"),
		  "%s", d->message);
	rw_release(&x);
}

Test(nested, sibling_kloops_share_the_shared_memory_limit)
{
	rw_run x;
	rewrite_src(&x, siblings_with_extern(), "cp-async");
	cr_expect_eq(x.rc, 0);
	cr_expect_eq(x.r.pipelined, 1);
	const kp_rw_diag *d = diag_with(&x, "kpipe-smem-over-limit");
	cr_assert_not_null(d, "the second K-loop must not fit");
	cr_expect_eq(d->line, 19); /* one line more: the extern declaration */
	cr_expect(strstr(d->message, "2 stages need 65536 B of shared memory per block"), "%s",
		  d->message);
	cr_expect(strstr(d->message, "this counts the 16384 B the K-loops pipelined before it in "
				     "the kernel added"),
		  "%s", d->message);
	rw_release(&x);

	rewrite_src(&x, BIG_SIBLINGS, "auto");
	cr_expect_eq(x.rc, 0);
	cr_expect_eq(x.r.pipelined, 2);
	cr_assert_not_null(x.out);
	cr_expect(strstr(x.out, "__shared__ float As[2][T][T];"), "%s", x.out);
	cr_expect(strstr(x.out, "__shared__ float Bs[T][T];"), "one buffer for Bs: %s", x.out);
	cr_expect(strstr(x.out, "register staging, 1 buffer, 2 barriers"), "%s", x.out);
	rw_release(&x);
}
