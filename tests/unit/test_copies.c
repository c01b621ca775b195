/*
 * test_copies.c - the facts about a tile's copies that the parser records
 * from clang (alignment, trivially copyable element types, __device__
 * variables) and the analysis proves of each copy (analysis/copies.c:
 * kp_load.src_global, kp_load.async_why).
 */
#include "kp_test.h"

#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "kp_test_parse.h"

static kp_file F;
static kp_analysis AN;

static void analyze_src(const char *src)
{
	kp_test_parse(&F, "snippet.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
}

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

static kp_decl *decl_named(const char *name)
{
	for (int i = 0; i < F.ndecls; i++)
		if (!strcmp(F.decls[i]->name, name))
			return F.decls[i];
	cr_assert_fail("no declaration %s", name);
	return NULL;
}

static kp_loop *loop_of(const char *kernel)
{
	for (int i = 0; i < AN.nloops; i++)
		if (!strcmp(AN.loops[i]->kernel->name, kernel))
			return AN.loops[i];
	cr_assert_fail("no loop in %s", kernel);
	return NULL;
}

#define LOOP(tile_t, src_t, src, copy)                                                             \
	"    __shared__ " tile_t " As[16][16];\n"                                                  \
	"    int tx = threadIdx.x, ty = threadIdx.y; float acc = 0.0f;\n"                          \
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"                                               \
	"        " copy "\n"                                                                       \
	"        __syncthreads();\n"                                                               \
	"        acc += As[ty][(tx + 1) % 16].v;\n"                                                \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[0] = acc;\n"

static const char TYPES[] =
	"struct Q { float v, b, c, d; };\n"
	"struct __align__(16) Q16 { float v, b, c, d; };\n"
	"struct User { float v; __device__ User &operator=(const User &o) { v = o.v * 2; "
	"return *this; } };\n"
	"struct Base : User { float w; };\n"
	"struct Member { User u; float v; };\n"
	"struct Dflt { float v; Dflt &operator=(const Dflt &) = default; };\n"
	"struct Dtor { float v; __device__ ~Dtor() {} };\n"
	"__device__ float G[4096];\n"
	"__constant__ float CN[16];\n"
	"__global__ void k(const Q *__restrict__ A, float *C, int K)\n"
	"{\n" LOOP(
		"Q", "Q", "A",
		"As[ty][tx] = A[ty * K + k0 + tx];") "}\n"
						     "__global__ void k16(const Q16 *__restrict__ A, float *C, int K)\n"
						     "{\n" LOOP(
							     "Q16", "Q16", "A",
							     "As[ty][tx] = A[ty * K + k0 + tx];") "}\n"
												  "__global__ void kv(float *o) { o[0] = G[1] + CN[2]; }\n";

Test(copies, alignment_from_clang, .fini = release)
{
	analyze_src(TYPES);
	kp_loop *l = loop_of("k");
	cr_assert_eq(l->nloads, 1);
	cr_expect_eq(l->loads[0].tile->elem_align, 4);
	cr_expect_eq(l->loads[0].tile->elem_size, 16);
	cr_expect_eq(l->loads[0].lhs->type_align, 4);
	cr_expect_not_null(l->loads[0].async_why);
	cr_expect(strstr(l->loads[0].async_why, "whose alignment is 4 B") != NULL, "%s",
		  l->loads[0].async_why);
	kp_loop *a = loop_of("k16");
	cr_expect_eq(a->loads[0].tile->elem_align, 16);
	cr_expect_null(a->loads[0].async_why, "%s", a->loads[0].async_why);
	cr_expect(a->loads[0].src_global);
	cr_expect_eq(decl_named("A")->pointee_align > 0, 1);
}

Test(copies, device_variables_from_clang, .fini = release)
{
	analyze_src(TYPES);
	cr_expect(decl_named("G")->is_device_var);
	cr_expect(!decl_named("CN")->is_device_var);
	cr_expect(!decl_named("As")->is_device_var);
	cr_expect_eq(decl_named("As")->elem_trivial, 1);
}

#define TRIV(type)                                                                                 \
	"__global__ void t_" type "(const " type " *A, float *C, int K)\n"                         \
	"{\n" LOOP(type, type, "A", "As[ty][tx] = A[ty * K + k0 + tx];") "}\n"

Test(copies, tile_of_a_user_copy_is_not_trivial, .fini = release)
{
	analyze_src(
		"struct User { float v; __device__ User &operator=(const User &o) { v = o.v * 2; "
		"return *this; } };\n"
		"struct Base : User { float w; };\n"
		"struct Member { User u; float v; };\n"
		"struct Dflt { float v; Dflt &operator=(const Dflt &) = default; };\n"
		"struct Dtor { float v; __device__ ~Dtor() {} };\n" TRIV("User") TRIV("Base")
			TRIV("Member") TRIV("Dflt") TRIV("Dtor"));
	static const struct {
		const char *kernel;
		int trivial;
	} want[] = {{"t_User", 0}, {"t_Base", 0}, {"t_Member", 0}, {"t_Dflt", 1}, {"t_Dtor", 0}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		kp_loop *l = loop_of(want[i].kernel);
		cr_assert(l->ntiles >= 1);
		cr_expect_eq(l->tiles[0].arr->elem_trivial, want[i].trivial, "%s", want[i].kernel);
		int refused = 0;
		for (int r = 0; r < l->nreasons; r++)
			refused |= !strcmp(l->reasons[r].id, "kpipe-copy-not-trivial");
		cr_expect_eq(refused, !want[i].trivial, "%s", want[i].kernel);
	}
}

Test(copies, source_provenance, .fini = release)
{
	analyze_src(
		"__device__ float G[1 << 16];\n"
		"struct S { float v; };\n"
		"__global__ void k_shared(const S *A, float *C, int K)\n"
		"{\n"
		"    __shared__ S H[256];\n"
		"    const S *hp = H;\n" LOOP(
			"S", "S", "hp",
			"As[ty][tx] = hp[ty * 16 + tx];") "}\n"
							  "__global__ void k_param(const S *A, float *C, int K)\n"
							  "{\n"
							  "    const S *ap = A + blockIdx.x;\n" LOOP(
								  "S", "S", "ap",
								  "As[ty][tx] = ap[ty * K + k0 + tx];") "}\n"
													"__global__ void k_reassigned(const S *A, float *C, int K)\n"
													"{\n"
													"    __shared__ S H[256];\n"
													"    const S *p = A;\n"
													"    if (K == 3) p = H;\n" LOOP(
														"S",
														"S",
														"p",
														"As[ty][tx] = p[ty * K + k0 + tx];") "}\n");
	cr_expect(!loop_of("k_shared")->loads[0].src_global);
	cr_expect(loop_of("k_param")->loads[0].src_global);
	cr_expect(!loop_of("k_reassigned")->loads[0].src_global);
	cr_expect_not_null(loop_of("k_reassigned")->loads[0].async_why);
}
