/*
 * test_liveness.c - scratch variables private to each phase of each
 * iteration (src/analysis/liveness.c): kp_parse + kp_analyze on in-memory
 * kernels whose `int idx;` is declared before the K-loop, then
 * kp_var_phase_private on it: assigned before every read in each phase and
 * dead after the loop (private); read by the compute phase after only the
 * load phase assigned it, read before its assignment, assigned under a
 * condition or under &&, read after the loop, named in a loop around the
 * K-loop, its address taken (not private).  A template's `V idx;` handed
 * to a helper's non-const reference: private when the helper only reads
 * it and every instantiation's V is trivially copyable, not when the
 * helper writes it or V has its own operator=.  And the loop's verdict.
 * Tile values (src/analysis/tile_value.c): a variable the load phase sets
 * from the loop counter and the compute phase reads, found (assigned, or
 * declared one from another) and not found (not read by the compute,
 * read after the loop or after the closing barrier, changed by the
 * compute, read from memory, computed from a variable the compute
 * changes, read before it is set, set by a helper of the file).
 */
#include "analyze.h"
#include "arch.h"
#include "liveness.h"
#include "parse.h"
#include "kp_test_parse.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static kp_file F;
static kp_analysis AN;

#define HEAD                                                                                       \
	"#define T 16\n"                                                                           \
	"__device__ void take(int *p) { *p = 1; }\n"                                               \
	"__device__ int twice(int v) { return 2 * v; }\n"                                          \
	"__global__ void k(const float *__restrict__ A, const float *__restrict__ B,\n"            \
	"                  float *__restrict__ C, int N, int K)\n"                                 \
	"{\n"                                                                                      \
	"    __shared__ float As[T][T];\n"                                                         \
	"    __shared__ float Bs[T][T];\n"                                                         \
	"    int tx = threadIdx.x, ty = threadIdx.y, t, kk, idx;\n"                                \
	"    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"                          \
	"    float acc = 0.0f;\n"
#define FOR "    for (t = 0; t < K / T; t++) {\n"
#define LOADS                                                                                      \
	"        idx = row * K + t * T + tx;\n"                                                    \
	"        As[ty][tx] = A[idx];\n"                                                           \
	"        idx = (t * T + ty) * N + col;\n"                                                  \
	"        Bs[ty][tx] = B[idx];\n"                                                           \
	"        __syncthreads();\n"
#define COMPUTE                                                                                    \
	"        for (kk = 0; kk < T; kk++) {\n"                                                   \
	"            idx = kk;\n"                                                                  \
	"            acc += As[ty][idx] * Bs[idx][tx];\n"                                          \
	"        }\n"                                                                              \
	"        __syncthreads();\n"                                                               \
	"    }\n"
#define END "    C[row * N + col] = acc;\n}\n"

static int vardecl(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	const kp_decl **out = ud;
	if (n->kind == KP_N_VARDECL && n->decl && !strcmp(n->decl->name, "idx"))
		*out = n->decl;
	return !*out;
}

/* kp_var_phase_private of `idx` in the only loop of src; *eligible the
 * loop's verdict. */
static int private_idx(const char *src, int *eligible)
{
	kp_test_parse(&F, "snippet.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	cr_assert_eq(AN.nloops, 1, "expected 1 loop, found %d", AN.nloops);
	kp_loop *l = AN.loops[0];
	const kp_decl *d = NULL;
	kp_node_walk(l->kernel->body, NULL, vardecl, &d);
	cr_assert_not_null(d, "no idx");
	*eligible = l->eligible;
	return kp_var_phase_private(&F, l->kernel, l, d);
}

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

TestSuite(liveness, .fini = release);

Test(liveness, each_phase_assigns_first)
{
	int el;
	cr_expect(private_idx(HEAD FOR LOADS COMPUTE END, &el));
	cr_expect(el, "the loop is refused");
}

Test(liveness, assigned_after_the_loop_before_its_read)
{
	int el;
	cr_expect(private_idx(HEAD FOR LOADS COMPUTE "    idx = row * N + col;\n"
						     "    C[idx] = acc;\n}\n",
			      &el));
	cr_expect(el);
}

Test(liveness, compute_reads_the_load_phase_value)
{
	int el;
	cr_expect_not(private_idx(HEAD FOR LOADS
				  "        for (kk = 0; kk < T; kk++)\n"
				  "            acc += As[ty][kk] * Bs[kk][tx] * idx;\n"
				  "        __syncthreads();\n"
				  "    }\n" END,
				  &el));
	cr_expect_not(el);
}

Test(liveness, load_phase_reads_before_assigning)
{
	int el;
	cr_expect_not(private_idx(HEAD FOR "        As[ty][tx] = A[row * K + t * T + tx + idx];\n"
					   "        idx = (t * T + ty) * N + col;\n"
					   "        Bs[ty][tx] = B[idx];\n"
					   "        __syncthreads();\n" COMPUTE END,
				  &el));
	cr_expect_not(el);
}

Test(liveness, assigned_under_a_condition)
{
	int el;
	cr_expect_not(private_idx(HEAD FOR "        if (t > 0)\n"
					   "            idx = row * K + t * T + tx;\n"
					   "        As[ty][tx] = A[idx];\n"
					   "        Bs[ty][tx] = B[(t * T + ty) * N + col];\n"
					   "        __syncthreads();\n" COMPUTE END,
				  &el));
	cr_expect_not(el);
}

Test(liveness, assigned_in_both_branches)
{
	int el;
	cr_expect(private_idx(HEAD FOR "        if (t > 0)\n"
				       "            idx = row * K + t * T + tx;\n"
				       "        else\n"
				       "            idx = row * K + tx;\n"
				       "        As[ty][tx] = A[idx];\n"
				       "        Bs[ty][tx] = B[(t * T + ty) * N + col];\n"
				       "        __syncthreads();\n" COMPUTE END,
			      &el));
}

Test(liveness, assigned_under_and)
{
	int el;
	cr_expect_not(private_idx(HEAD FOR
				  "        (void)(t >= 0 && (idx = row * K + t * T + tx));\n"
				  "        As[ty][tx] = A[idx];\n"
				  "        Bs[ty][tx] = B[(t * T + ty) * N + col];\n"
				  "        __syncthreads();\n" COMPUTE END,
				  &el));
}

Test(liveness, read_after_the_loop)
{
	int el;
	cr_expect_not(
		private_idx(HEAD FOR LOADS COMPUTE "    C[row * N + col] = acc + idx;\n}\n", &el));
	cr_expect_not(el);
}

Test(liveness, read_by_value_after_assignment_in_a_call)
{
	int el;
	cr_expect(private_idx(HEAD FOR "        idx = row * K + t * T + tx;\n"
				       "        As[ty][tx] = A[twice(idx) / 2];\n"
				       "        idx = (t * T + ty) * N + col;\n"
				       "        Bs[ty][tx] = B[idx];\n"
				       "        __syncthreads();\n" COMPUTE END,
			      &el));
}

Test(liveness, address_taken)
{
	int el;
	cr_expect_not(private_idx(HEAD FOR LOADS COMPUTE "    take(&idx);\n" END, &el));
}

Test(liveness, named_in_a_loop_around)
{
	int el;
	cr_expect_not(private_idx(HEAD "    for (int r = 0; r < 2; r++) {\n"
				       "        acc += idx;\n" FOR LOADS COMPUTE "    }\n" END,
				  &el));
}

/* A template's scratch of its type parameter (`V idx;`, MAGMA's `T tmp`),
 * staged through a helper CALL taking it by non-const reference, and
 * assigned again and read after the loop; instantiated as INST. */
#define TMPL_HEAD                                                                                  \
	"#define T 16\n"                                                                           \
	"struct acc_t {\n"                                                                         \
	"    float v;\n"                                                                           \
	"    __device__ acc_t(float x = 0.0f) : v(x) {}\n"                                         \
	"    __device__ acc_t &operator=(const acc_t &o) { v += o.v; return *this; }\n"            \
	"    __device__ operator float() const { return v; }\n"                                    \
	"};\n"                                                                                     \
	"template <typename V> __device__ V pass(V &x) { return x; }\n"                            \
	"template <typename V> __device__ V bump(V &x) { x = x + 1.0f; return x; }\n"              \
	"template <typename V>\n"                                                                  \
	"__global__ void k(const float *__restrict__ A, const float *__restrict__ B,\n"            \
	"                  float *__restrict__ C, int N, int K)\n"                                 \
	"{\n"                                                                                      \
	"    __shared__ float As[T][T];\n"                                                         \
	"    __shared__ float Bs[T][T];\n"                                                         \
	"    int tx = threadIdx.x, ty = threadIdx.y, t, kk;\n"                                     \
	"    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"                          \
	"    float acc = 0.0f;\n"                                                                  \
	"    V idx;\n"                                                                             \
	"    for (t = 0; t < K / T; t++) {\n"                                                      \
	"        idx = A[row * K + t * T + tx];\n"
#define TMPL_TAIL(CALL, INST)                                                                      \
	"        As[ty][tx] = " CALL "(idx);\n"                                                    \
	"        Bs[ty][tx] = B[(t * T + ty) * N + col];\n"                                        \
	"        __syncthreads();\n"                                                               \
	"        for (kk = 0; kk < T; kk++)\n"                                                     \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    idx = A[row];\n"                                                                      \
	"    C[row * N + col] = acc + " CALL "(idx);\n"                                            \
	"}\n"                                                                                      \
	"template __global__ void k<" INST                                                         \
	">(const float *__restrict__, const float *__restrict__,\n"                                \
	"                                     float *__restrict__, int, int);\n"

Test(liveness, template_scratch_of_a_trivially_copyable_argument)
{
	int el;
	cr_expect(private_idx(TMPL_HEAD TMPL_TAIL("pass", "float"), &el));
	cr_expect(el, "the loop is refused");
}

Test(liveness, template_scratch_whose_argument_has_its_own_assignment)
{
	int el;
	cr_expect_not(private_idx(TMPL_HEAD TMPL_TAIL("pass", "acc_t"), &el));
	cr_expect_not(el);
}

Test(liveness, template_scratch_handed_to_a_helper_that_writes_it)
{
	int el;
	cr_expect_not(private_idx(TMPL_HEAD TMPL_TAIL("bump", "float"), &el));
	cr_expect_not(el);
}

/* --- tile values (src/analysis/tile_value.c) ------------------------------
 * A variable the load phase sets for its tile and the compute phase reads,
 * which the rewrite evaluates again at the top of the compute phase: the
 * only loop of src, its tile values' names joined by spaces in *names. */
static kp_loop *tile_values(const char *src, char *names, size_t n)
{
	kp_test_parse(&F, "snippet.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	cr_assert_eq(AN.nloops, 1, "expected 1 loop, found %d", AN.nloops);
	kp_loop *l = AN.loops[0];
	names[0] = 0;
	for (int i = 0; i < l->ntvals; i++) {
		if (i)
			strncat(names, " ", n - strlen(names) - 1);
		strncat(names, l->tval_var[i]->name, n - strlen(names) - 1);
	}
	return l;
}

#define TV_LOADS                                                                                   \
	"        As[ty][tx] = tx < idx ? A[row * K + t * T + tx] : 0.0f;\n"                        \
	"        Bs[ty][tx] = ty < idx ? B[(t * T + ty) * N + col] : 0.0f;\n"                      \
	"        __syncthreads();\n"
#define TV_COMPUTE                                                                                 \
	"        for (kk = 0; kk < idx; kk++)\n"                                                   \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"
#define TV_SET "        idx = min(T, K - t * T);\n"

Test(liveness, tile_value_assigned_before_the_copies)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR TV_SET TV_LOADS TV_COMPUTE END, nm, sizeof(nm));
	cr_expect_str_eq(nm, "idx");
	cr_expect(l->eligible, "refused: %s", l->nreasons ? l->reasons[0].message : "");
}

Test(liveness, tile_values_declared_one_from_the_other)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR
				 "        const int k0 = t * T;\n"
				 "        const int kw = min(T, K - k0);\n"
				 "        As[ty][tx] = tx < kw ? A[row * K + k0 + tx] : 0.0f;\n"
				 "        Bs[ty][tx] = ty < kw ? B[(k0 + ty) * N + col] : 0.0f;\n"
				 "        __syncthreads();\n"
				 "        for (kk = 0; kk < kw; kk++)\n"
				 "            acc += As[ty][kk] * Bs[kk][tx];\n"
				 "        __syncthreads();\n"
				 "    }\n" END,
				 nm, sizeof(nm));
	cr_expect_str_eq(nm, "k0 kw");
	cr_expect(l->eligible, "refused: %s", l->nreasons ? l->reasons[0].message : "");
}

Test(liveness, tile_value_the_compute_does_not_read_is_left)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR "        const int k0 = t * T;\n"
					  "        As[ty][tx] = A[row * K + k0 + tx];\n"
					  "        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
					  "        __syncthreads();\n" COMPUTE END,
				 nm, sizeof(nm));
	cr_expect_str_eq(nm, "");
	cr_expect(l->eligible);
}

Test(liveness, tile_value_read_after_the_loop)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR TV_SET TV_LOADS TV_COMPUTE
				 "    C[row * N + col] = acc + idx;\n}\n",
				 nm, sizeof(nm));
	cr_expect_str_eq(nm, "");
	cr_expect_not(l->eligible);
}

Test(liveness, tile_value_the_compute_changes)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR TV_SET TV_LOADS "        idx = idx / 2;\n" TV_COMPUTE END,
				 nm, sizeof(nm));
	cr_expect_str_eq(nm, "");
	cr_expect_not(l->eligible);
}

Test(liveness, tile_value_read_from_memory)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR "        idx = (int)A[t];\n" TV_LOADS TV_COMPUTE END, nm,
				 sizeof(nm));
	cr_expect_str_eq(nm, "");
	cr_expect_not(l->eligible);
}

Test(liveness, tile_value_of_a_variable_the_compute_changes)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD "    int lim = K;\n" FOR
				      "        idx = min(T, lim - t * T);\n" TV_LOADS
				      "        lim -= (int)acc & 1;\n" TV_COMPUTE END,
				 nm, sizeof(nm));
	cr_expect_str_eq(nm, "");
	cr_expect_not(l->eligible);
}

Test(liveness, tile_value_read_after_the_closing_barrier)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR TV_SET TV_LOADS
				 "        for (kk = 0; kk < idx; kk++)\n"
				 "            acc += As[ty][kk] * Bs[kk][tx];\n"
				 "        __syncthreads();\n"
				 "        acc += idx;\n"
				 "    }\n" END,
				 nm, sizeof(nm));
	cr_expect_str_eq(nm, "");
	cr_expect_not(l->eligible);
}

Test(liveness, tile_value_read_before_it_is_set)
{
	char nm[64];
	kp_loop *l = tile_values(
		HEAD "    idx = T;\n" FOR
		     "        As[ty][tx] = tx < idx ? A[row * K + t * T + tx] : 0.0f;\n" TV_SET
		     "        Bs[ty][tx] = ty < idx ? B[(t * T + ty) * N + col] : 0.0f;\n"
		     "        __syncthreads();\n" TV_COMPUTE END,
		nm, sizeof(nm));
	cr_expect_str_eq(nm, "");
	cr_expect_not(l->eligible);
}

Test(liveness, tile_value_through_a_helper_of_the_file)
{
	char nm[64];
	kp_loop *l = tile_values(HEAD FOR "        idx = twice(t);\n" TV_LOADS TV_COMPUTE END, nm,
				 sizeof(nm));
	/* twice() is the file's own: no value function of the pure table */
	cr_expect_str_eq(nm, "");
	cr_expect_not(l->eligible);
}
