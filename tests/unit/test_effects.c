/*
 * test_effects.c - the effect sets of small K-loops (src/analysis/effects.c):
 * kp_parse + kp_analyze on in-memory kernels, then what each phase reads
 * and writes: a textbook matmul (tiles, the pointers' facts, no unknown),
 * a write through a reference, a pointer and a `const float *&` helper
 * parameter (to the variable aliased), a pure helper (nothing), a helper
 * writing a __device__ array, an extern call and st.global asm (unknown),
 * a store through a struct member (unknown), a global write read after
 * the loop, and kp_loc_may_alias's facts.  A call left unresolved in a
 * template: every overload its name can reach read (a template it can
 * never call left out, one with a pack kept), unknown when another
 * namespace declares the name too; the copy of a returned value through a typedef of its class.
 */
#include "analyze.h"
#include "arch.h"
#include "effects.h"
#include "parse.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static kp_file F;
static kp_analysis AN;

#define HEAD                                                                                       \
	"#define T 16\n"                                                                           \
	"__global__ void k(const float *__restrict__ A, const float *__restrict__ B,\n"            \
	"                  float *__restrict__ C, float *P, int N, int K)\n"                       \
	"{\n"                                                                                      \
	"    __shared__ float As[T][T];\n"                                                         \
	"    __shared__ float Bs[T][T];\n"                                                         \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"                          \
	"    float acc = 0.0f;\n"                                                                  \
	"    int lim = K;\n"                                                                       \
	"    const float *pa = A + row * K;\n"
#define FOR "    for (int k0 = 0; k0 < lim; k0 += T) {\n"
#define LOAD                                                                                       \
	"        As[ty][tx] = pa[k0 + tx];\n"                                                      \
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"                                           \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < T; ++kk)\n"                                                 \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
#define END                                                                                        \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[row * N + col] = acc;\n"                                                            \
	"}\n"

static const kp_effects *effects_of_args(const char *src, const char *const *args, int nargs)
{
	memset(&F, 0, sizeof(F));
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = "sm_90";
	o.args = args;
	o.nargs = nargs;
	o.contents = src;
	o.contents_len = strlen(src);
	o.no_compdb = 1;
	char *err = NULL;
	int rc = kp_parse(&F, "snippet.cu", &o, &err);
	cr_assert_eq(rc, KP_PARSE_OK, "kp_parse: %d (%s)", rc, err ? err : "compile errors");
	free(err);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	cr_assert_eq(AN.nloops, 1, "expected 1 loop, found %d", AN.nloops);
	cr_assert_not_null(AN.loops[0]->effects, "no effect sets");
	return AN.loops[0]->effects;
}

static const kp_effects *effects_of(const char *src) { return effects_of_args(src, NULL, 0); }

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

/* The effect of set s on a location of that kind named `name` (NULL: any
 * name), through `via` and in call `call` when given. */
static const kp_effect *find(const kp_effect_set *s, kp_loc_kind kind, const char *name,
			     const char *via, const char *call)
{
	for (int i = 0; i < s->n; i++) {
		const kp_effect *e = &s->v[i];
		if (e->loc.kind != kind)
			continue;
		if (name && (!e->loc.decl || strcmp(e->loc.decl->name, name)))
			continue;
		if (via && (!e->via || strcmp(e->via->name, via)))
			continue;
		if (call && (!e->call || strcmp(e->call, call)))
			continue;
		return e;
	}
	return NULL;
}

static int count_kind(const kp_effect_set *s, kp_loc_kind kind)
{
	int n = 0;
	for (int i = 0; i < s->n; i++)
		n += s->v[i].loc.kind == kind;
	return n;
}

Test(effects, textbook_matmul)
{
	const kp_effects *e = effects_of(HEAD FOR LOAD END);
	const kp_effect_set *lr = &e->rd[KP_PH_LOAD], *lw = &e->wr[KP_PH_LOAD];
	cr_expect_not_null(find(lw, KP_LOC_TILE, "As", NULL, NULL));
	cr_expect_not_null(find(lw, KP_LOC_TILE, "Bs", NULL, NULL));
	const kp_effect *a = find(lr, KP_LOC_GLOBAL, "A", "pa", NULL);
	cr_assert_not_null(a, "the load reads A through pa");
	cr_expect(a->loc.is_restrict && a->loc.readonly);
	cr_expect_not_null(find(lr, KP_LOC_GLOBAL, "B", NULL, NULL));
	cr_expect_not_null(find(lr, KP_LOC_LOCAL, "k0", NULL, NULL));
	cr_expect_not_null(find(&e->rd[KP_PH_COND], KP_LOC_LOCAL, "lim", NULL, NULL));
	cr_expect_not_null(find(&e->wr[KP_PH_INC], KP_LOC_LOCAL, "k0", NULL, NULL));
	cr_expect_not_null(find(&e->wr[KP_PH_COMP], KP_LOC_LOCAL, "acc", NULL, NULL));
	cr_expect_not_null(find(&e->rd[KP_PH_COMP], KP_LOC_TILE, "As", NULL, NULL));
	for (int p = 0; p < KP_NPHASES; p++) {
		cr_expect_eq(count_kind(&e->wr[p], KP_LOC_UNKNOWN), 0, "phase %d writes unknown",
			     p);
		cr_expect_eq(count_kind(&e->wr[p], KP_LOC_GLOBAL), 0, "phase %d writes global", p);
	}
	cr_expect_null(kp_effects_read_after(e));
	cr_expect_eq(AN.loops[0]->nreasons, 0);
	release();
}

Test(effects, write_through_reference)
{
	const kp_effects *e =
		effects_of(HEAD "    int &extent = lim;\n" FOR LOAD "        extent += T;\n" END);
	const kp_effect *w = find(&e->wr[KP_PH_COMP], KP_LOC_LOCAL, "lim", "extent", NULL);
	cr_assert_not_null(w, "the compute writes lim through extent");
	cr_expect_eq(w->at->line, 19);
	const kp_loop *l = AN.loops[0];
	cr_assert_eq(l->nreasons, 1);
	cr_expect_str_eq(l->reasons[0].id, "kpipe-load-depends-on-compute");
	cr_expect_str_eq(
		l->reasons[0].message,
		"the compute phase writes 'lim' through the reference 'extent' (line 19), "
		"which the loop condition reads: the rewrite reads it a tile ahead, before "
		"the write");
	cr_expect_null(find(&e->wr[KP_PH_COMP], KP_LOC_LOCAL, "extent", NULL, NULL));
	release();
}

Test(effects, write_through_pointer)
{
	const kp_effects *e = effects_of(HEAD "    int *const plim = &lim;\n" FOR LOAD
					      "        *plim += T;\n" END);
	cr_expect_not_null(find(&e->wr[KP_PH_COMP], KP_LOC_LOCAL, "lim", "plim", NULL));
	cr_expect_eq(count_kind(&e->wr[KP_PH_COMP], KP_LOC_UNKNOWN), 0);
	release();
}

Test(effects, helper_reference_to_pointer)
{
	const kp_effects *e = effects_of(
		"__device__ void advance(const float *&p, int n) { p += n; }\n" HEAD FOR LOAD
		"        advance(pa, T);\n" END);
	cr_expect_not_null(find(&e->wr[KP_PH_COMP], KP_LOC_LOCAL, "pa", NULL, "advance"));
	cr_expect_eq(count_kind(&e->wr[KP_PH_COMP], KP_LOC_UNKNOWN), 0);
	release();
}

Test(effects, pure_helper)
{
	const kp_effects *e = effects_of(
		"__device__ float madd(float a, float b, float c) { float t = a * b; "
		"return fmaf(1.0f, t, c); }\n" HEAD FOR "        As[ty][tx] = pa[k0 + tx];\n"
		"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
		"        __syncthreads();\n"
		"        acc = madd(As[ty][0], Bs[0][tx], acc);\n" END);
	const kp_effect_set *w = &e->wr[KP_PH_COMP];
	cr_expect_eq(w->n, 1, "only acc is written, %d effects", w->n);
	cr_expect_not_null(find(w, KP_LOC_LOCAL, "acc", NULL, NULL));
	release();
}

/* C++11 (no guaranteed copy elision): a temporary passed to a by-value
 * class parameter is copied by an implicit constructor, a call without a
 * name or declaration; it only reads its operand (MAGMA's zaxpy16). */
Test(effects, implicit_copy_of_a_temporary)
{
	static const char *const cxx11[] = {"-std=c++11"};
	const kp_effects *e = effects_of_args(
		"struct cx { double x, y; };\n"
		"__device__ cx operator*(const cx a, const cx b) { cx r = {a.x * b.x - a.y * b.y, "
		"a.x * b.y + a.y * b.x}; return r; }\n"
		"__device__ cx &operator+=(cx &a, const cx b) { a.x += b.x; a.y += b.y; return a; }\n"
		"__device__ void axpy2(cx al, const cx *b, cx *c) { c[0] += al * b[0]; c[1] += al * "
		"b[1]; }\n"
		"#define T 16\n"
		"__global__ void k(const cx *A, cx *C, int lim) {\n"
		"    __shared__ cx As[T][T];\n"
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    cx r[2] = {};\n"
		"    cx al = {1.0, 0.0};\n"
		"    for (int k0 = 0; k0 < lim; k0 += T) {\n"
		"        As[ty][tx] = A[(k0 + ty) * T + tx];\n"
		"        __syncthreads();\n"
		"        axpy2(al, &As[ty][0], r);\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[ty * T + tx] = r[0];\n"
		"}\n",
		cxx11, 1);
	cr_expect_eq(count_kind(&e->wr[KP_PH_COMP], KP_LOC_UNKNOWN), 0,
		     "the copies of 'al * b[i]' are no unknown writes");
	cr_expect_not_null(find(&e->wr[KP_PH_COMP], KP_LOC_LOCAL, "r", NULL, "axpy2"));
	release();
}

Test(effects, helper_writes_device_array)
{
	const kp_effects *e = effects_of(
		"__device__ int g_off[4];\n"
		"__device__ __noinline__ void note(int v) { g_off[v & 3] = v; }\n" HEAD FOR LOAD
		"        note(k0);\n" END);
	const kp_effect *w = find(&e->wr[KP_PH_COMP], KP_LOC_GLOBAL, "g_off", NULL, "note");
	cr_assert_not_null(w);
	cr_expect(!w->loc.readonly && !w->loc.is_restrict);
	release();
}

Test(effects, unknown_call_and_asm)
{
	const kp_effects *e = effects_of(
		"extern __device__ void ext(float *p);\n" HEAD FOR LOAD "        ext(P);\n"
		"        asm volatile(\"st.global.f32 [%0], %1;\" :: \"l\"(P), "
		"\"f\"(acc));\n" END);
	const kp_effect_set *w = &e->wr[KP_PH_COMP];
	cr_expect_not_null(find(w, KP_LOC_UNKNOWN, NULL, NULL, "ext"));
	cr_expect_not_null(find(w, KP_LOC_GLOBAL, "P", NULL, "ext"), "the pointer argument");
	int by_asm = 0;
	for (int i = 0; i < w->n; i++)
		by_asm |= w->v[i].loc.kind == KP_LOC_UNKNOWN && w->v[i].by_asm;
	cr_expect(by_asm, "the asm store writes unknown");
	release();
}

/* A warp's ldmatrix reads shared memory through an address operand kpipe
 * does not follow (a read of unknown memory, never nothing); the address
 * conversion before it is a function of its operand, which writes
 * nothing. */
Test(effects, ldmatrix_reads_unknown_and_cvta_is_pure)
{
	const kp_effects *e =
		effects_of(HEAD FOR LOAD
			   "        unsigned r0, a = __cvta_generic_to_shared(&As[ty][0]);\n"
			   "        asm volatile(\"ldmatrix.sync.aligned.x1.m8n8.shared.b16 {%0}, "
			   "[%1];\" : \"=r\"(r0) : \"r\"(a));\n"
			   "        acc += r0;\n" END);
	const kp_effect_set *r = &e->rd[KP_PH_COMP], *w = &e->wr[KP_PH_COMP];
	int rd = 0;
	for (int i = 0; i < r->n; i++)
		rd |= r->v[i].loc.kind == KP_LOC_UNKNOWN && r->v[i].by_asm;
	cr_expect(rd, "the ldmatrix reads unknown memory");
	cr_expect_eq(count_kind(w, KP_LOC_UNKNOWN), 0,
		     "neither the cvta nor the ldmatrix writes memory");
	release();
}

/* An opcode kpipe has in neither list (here one that writes a tensor map
 * in global memory) may read and write anything; a register-only one
 * (`mov`) touches no memory. */
Test(effects, unknown_ptx_opcode_is_denied)
{
	const kp_effects *e = effects_of(
		HEAD FOR LOAD
		"        asm volatile(\"tensormap.replace.tile.global_address.global.b1024.b64 "
		"[%0], %1;\" :: \"l\"(P), \"l\"(P));\n"
		"        unsigned m;\n"
		"        asm(\"{ .reg .u32 t; mov.u32 t, %1; mov.u32 %0, t; }\" : \"=r\"(m) : "
		"\"r\"(tx));\n"
		"        acc += m;\n" END);
	const kp_effect_set *w = &e->wr[KP_PH_COMP];
	int n = 0;
	for (int i = 0; i < w->n; i++)
		n += w->v[i].loc.kind == KP_LOC_UNKNOWN && w->v[i].by_asm;
	cr_expect_eq(n, 1, "the tensormap.replace writes unknown memory, the movs do not");
	release();
}

Test(effects, member_pointer_is_unknown)
{
	const kp_effects *e = effects_of("struct V { float *p; };\n" HEAD
					 "    V v;\n    v.p = P;\n" FOR LOAD
					 "        v.p[tx] = acc;\n" END);
	cr_expect_not_null(find(&e->wr[KP_PH_COMP], KP_LOC_UNKNOWN, NULL, NULL, NULL));
	release();
}

Test(effects, global_read_after_loop)
{
	const kp_effects *e = effects_of(HEAD FOR LOAD "        C[row * N + col] = acc;\n"
						       "        __syncthreads();\n"
						       "    }\n"
						       "    P[0] = C[row * N + (col ^ 1)];\n"
						       "}\n");
	const kp_effect *w = kp_effects_read_after(e);
	cr_assert_not_null(w);
	cr_expect_eq(w->loc.kind, KP_LOC_GLOBAL);
	cr_expect_str_eq(w->loc.decl->name, "C");
	cr_expect(AN.loops[0]->exit_barrier);
	release();
}

Test(effects, may_alias)
{
	kp_decl a = {.name = "A", .kind = KP_D_PARM}, b = {.name = "B", .kind = KP_D_PARM};
	kp_decl g = {.name = "g", .kind = KP_D_VAR}, h = {.name = "h", .kind = KP_D_VAR};
	kp_loc A = {KP_LOC_GLOBAL, &a, 0, 0}, B = {KP_LOC_GLOBAL, &b, 0, 0};
	kp_loc G = {KP_LOC_GLOBAL, &g, 0, 0}, H = {KP_LOC_GLOBAL, &h, 0, 0};
	kp_loc U = {KP_LOC_UNKNOWN, NULL, 0, 0}, L = {KP_LOC_LOCAL, &g, 0, 0};
	kp_loc Ar = {KP_LOC_GLOBAL, &a, 1, 0}, Bro = {KP_LOC_GLOBAL, &b, 1, 1};
	cr_expect(kp_loc_may_alias(&A, &B), "two plain pointers");
	cr_expect(kp_loc_may_alias(&A, &G), "a plain pointer may point to a __device__ array");
	cr_expect(!kp_loc_may_alias(&G, &H), "two __device__ variables");
	cr_expect(!kp_loc_may_alias(&Ar, &B), "a __restrict__ pointer");
	cr_expect(!kp_loc_may_alias(&Ar, &G), "a __restrict__ pointer and a __device__ array");
	cr_expect(kp_loc_may_alias(&U, &A), "unknown and a pointer");
	cr_expect(!kp_loc_may_alias(&U, &Bro), "unknown and read-only memory");
	cr_expect(!kp_loc_may_alias(&U, &L), "unknown and a variable of the thread");
	cr_expect(kp_loc_may_alias(&A, &A));
}

Test(effects, bump_through_reference)
{
	/* the loads read pa directly: the bump of ra is a write they miss */
	effects_of(HEAD "    const float *&ra = pa;\n" FOR LOAD "        __syncthreads();\n"
			"        ra += T;\n"
			"    }\n"
			"    C[row * N + col] = acc;\n"
			"}\n");
	const kp_loop *l = AN.loops[0];
	cr_assert_eq(l->nreasons, 1);
	cr_expect_str_eq(l->reasons[0].id, "kpipe-load-depends-on-compute");
	release();
	/* the loads read through ra, the induction variable the rewrite advances */
	effects_of(HEAD "    const float *&ra = pa;\n" FOR "        As[ty][tx] = ra[k0 + tx];\n"
			"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
			"        __syncthreads();\n"
			"        acc += As[ty][0] * Bs[0][tx];\n"
			"        __syncthreads();\n"
			"        ra += T;\n"
			"    }\n"
			"    C[row * N + col] = acc;\n"
			"}\n");
	l = AN.loops[0];
	for (int i = 0; i < l->nreasons; i++)
		cr_expect(strcmp(l->reasons[i].id, "kpipe-load-depends-on-compute"), "refused: %s",
			  l->reasons[i].message);
	release();
}

/* A call left unresolved in a template (`scale(As[ty][kk])`, its operand
 * of type V) whose name finds two overloads: PRE declares them (and
 * perhaps more); the loop's compute phase calls it. */
#define OVL_KERNEL                                                                                 \
	"#define T 16\n"                                                                           \
	"template <typename V>\n"                                                                  \
	"__global__ void k(const V *__restrict__ A, V *__restrict__ C, int lim) {\n"               \
	"    __shared__ V As[T][T];\n"                                                             \
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                            \
	"    V acc = 0;\n"                                                                         \
	"    for (int k0 = 0; k0 < lim; k0 += T) {\n"                                              \
	"        As[ty][tx] = A[(k0 + ty) * T + tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < T; ++kk)\n"                                                 \
	"            acc += scale(As[ty][kk]);\n"                                                  \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    C[ty * T + tx] = acc;\n"                                                              \
	"}\n"                                                                                      \
	"template __global__ void k<float>(const float *__restrict__, float *__restrict__, int);\n"

Test(effects, unresolved_call_reads_every_overload)
{
	const kp_effects *e = effects_of(
		"__device__ int g_hits[4];\n"
		"__device__ float scale(const float &x) { return 2.0f * x; }\n"
		"__device__ double scale(const double &x) { g_hits[0] = 1; return 2.0 * x; }\n"
		"template <int c> __device__ float scale(const float &x) { g_hits[c] = 1; return x; }\n"
		"template <> __device__ float scale<1>(const float &x) { g_hits[2] = 1; return x; }\n" OVL_KERNEL);
	const kp_effect_set *w = &e->wr[KP_PH_COMP];
	cr_expect_eq(count_kind(w, KP_LOC_UNKNOWN), 0, "every overload the call can reach is read");
	cr_expect_not_null(find(w, KP_LOC_GLOBAL, "g_hits", NULL, NULL),
			   "the double overload's write is the call's");
	release();
}

/* A template whose pack nothing deduces is still callable (the pack
 * deduced empty): it stays a candidate, and its write is the call's. */
Test(effects, unresolved_call_keeps_a_template_with_a_pack)
{
	const kp_effects *e = effects_of(
		"__device__ int g_hits[4];\n"
		"__device__ float scale(const float &x) { return 2.0f * x; }\n"
		"__device__ double scale(const double &x) { return 2.0 * x; }\n"
		"template <typename... Ts> __device__ float scale(const float &x) { g_hits[1] = 1; "
		"return x; }\n" OVL_KERNEL);
	const kp_effect_set *w = &e->wr[KP_PH_COMP];
	cr_expect(find(w, KP_LOC_GLOBAL, "g_hits", NULL, NULL) || count_kind(w, KP_LOC_UNKNOWN) > 0,
		  "the variadic overload's write is the call's");
	release();
}

Test(effects, unresolved_call_with_an_overload_elsewhere_is_unknown)
{
	const kp_effects *e =
		effects_of("__device__ float scale(const float &x) { return 2.0f * x; }\n"
			   "__device__ double scale(const double &x) { return 2.0 * x; }\n"
			   "namespace lib { struct cx { float r; };\n"
			   "__device__ cx scale(cx &a) { a.r = 0.0f; return a; } }\n" OVL_KERNEL);
	cr_expect_gt(count_kind(&e->wr[KP_PH_COMP], KP_LOC_UNKNOWN), 0,
		     "lib::scale, which lookup at instantiation may find, was not read");
	release();
}

/* C++11: `return cuConj(x);` in a function declared to return a typedef
 * of cuConj's class copies the value: no unknown write. */
Test(effects, implicit_copy_through_a_typedef)
{
	static const char *const cxx11[] = {"-std=c++11"};
	const kp_effects *e =
		effects_of_args("#include <cuComplex.h>\n"
				"typedef cuDoubleComplex zc;\n"
				"__device__ zc conj2(const zc &x) { return cuConj(x); }\n"
				"#define T 16\n"
				"__global__ void k(const zc *A, zc *C, int lim) {\n"
				"    __shared__ zc As[T][T];\n"
				"    int tx = threadIdx.x, ty = threadIdx.y;\n"
				"    zc acc = make_cuDoubleComplex(0.0, 0.0);\n"
				"    for (int k0 = 0; k0 < lim; k0 += T) {\n"
				"        As[ty][tx] = A[(k0 + ty) * T + tx];\n"
				"        __syncthreads();\n"
				"        acc = cuCadd(acc, conj2(As[ty][0]));\n"
				"        __syncthreads();\n"
				"    }\n"
				"    C[ty * T + tx] = acc;\n"
				"}\n",
				cxx11, 1);
	cr_expect_eq(count_kind(&e->wr[KP_PH_COMP], KP_LOC_UNKNOWN), 0,
		     "the copy of cuConj's value is no unknown write");
	release();
}
