/*
 * test_consts.c - compile-time constants as the frontend and the analysis
 * read them: a braced initialiser of one expression (`T x{e}`, `T x =
 * {e}`) is the variable's initialiser, so the value of a constant so
 * written is known (a copy loop's trip count, register staging); a list
 * of several values, an array's or a class's, is not read as one value;
 * and a compile-time constant declared inside the K-loop (constexpr, or
 * const with a value clang folds) has the same value every iteration, so
 * a copy loop it bounds is no partial tile write, while a const local
 * computed from a value of the iteration still is.
 */
#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "kp_test_parse.h"
#include "transform.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kp_file F;
static kp_analysis AN;

static void release(void) { kp_file_release(&F); }

/* Parses and analyses `src` for sm_90, asserting a clean parse. */
static void analyze_src(const char *src)
{
	kp_test_parse(&F, "consts.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
}

typedef struct {
	const char *name;
	const kp_decl *d;
} find_decl;

static int find_vardecl(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	find_decl *w = ud;
	if (n->kind == KP_N_VARDECL && n->decl && !strcmp(n->decl->name, w->name))
		w->d = n->decl;
	return !w->d;
}

/* The declaration of the local `name` of the first kernel. */
static const kp_decl *local(const char *name)
{
	cr_assert(F.nkernels > 0);
	find_decl w = {name, NULL};
	kp_node_walk(F.kernels[0]->body, NULL, find_vardecl, &w);
	cr_assert_not_null(w.d, "no local '%s'", name);
	return w.d;
}

static const char *text_of(const kp_node *n)
{
	static char buf[256];
	if (!n)
		return "(none)";
	snprintf(buf, sizeof(buf), "%.*s", (int)(n->end - n->begin), F.src + n->begin);
	return buf;
}

static kp_loop *only_loop(void)
{
	cr_assert_eq(AN.nloops, 1, "expected 1 candidate loop, found %d", AN.nloops);
	kp_loop *l = AN.loops[0];
	for (int i = 0; i < l->nreasons; i++)
		cr_log_info("  %d:%d %s [%s]", l->reasons[i].line, l->reasons[i].col,
			    l->reasons[i].message, l->reasons[i].id);
	return l;
}

/* tmpl with its "@DECL@" replaced by decl, into out. */
static void with_decl(char *out, size_t n, const char *tmpl, const char *decl)
{
	const char *at = strstr(tmpl, "@DECL@");
	cr_assert_not_null(at);
	snprintf(out, n, "%.*s%s%s", (int)(at - tmpl), tmpl, decl, at + 6);
}

static int refused_for(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return 1;
	return 0;
}

/* --- braced initialisers ---------------------------------------------------- */

/* A tiled matmul template whose thread count is a constant written as
 * @DECL@ (`constexpr int NT{BX * BY};` ...), bounding the copy loops as
 * leimao's helpers do: (BY * BK + NT - 1) / NT iterations, 4 at 16x16x64. */
#define BRACED                                                                                     \
	"template <typename T, int BX, int BY, int BK>\n"                                          \
	"__global__ void kern(const T *A, const T *B, T *C, int n)\n"                              \
	"{\n"                                                                                      \
	"\t@DECL@\n"                                                                               \
	"\tint tid = threadIdx.y * BX + threadIdx.x;\n"                                            \
	"\t__shared__ T As[BY][BK];\n"                                                             \
	"\t__shared__ T Bs[BK][BX];\n"                                                             \
	"\tT sum = 0;\n"                                                                           \
	"\tfor (int t = 0; t < n / BK; ++t) {\n"                                                   \
	"\t\tfor (int i = 0; i < (BY * BK + NT - 1) / NT; ++i) {\n"                                \
	"\t\t\tint r = (tid + i * NT) / BK, c = (tid + i * NT) % BK;\n"                            \
	"\t\t\tAs[r][c] = A[(blockIdx.y * BY + r) * n + t * BK + c];\n"                            \
	"\t\t}\n"                                                                                  \
	"\t\tfor (int i = 0; i < (BX * BK + NT - 1) / NT; ++i) {\n"                                \
	"\t\t\tint r = (tid + i * NT) / BX, c = (tid + i * NT) % BX;\n"                            \
	"\t\t\tBs[r][c] = B[(t * BK + r) * n + blockIdx.x * BX + c];\n"                            \
	"\t\t}\n"                                                                                  \
	"\t\t__syncthreads();\n"                                                                   \
	"\t\tfor (int kk = 0; kk < BK; ++kk)\n"                                                    \
	"\t\t\tsum += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];\n"                                \
	"\t\t__syncthreads();\n"                                                                   \
	"\t}\n"                                                                                    \
	"\tC[(blockIdx.y * BY + threadIdx.y) * n + blockIdx.x * BX + threadIdx.x] = sum;\n"        \
	"}\n"                                                                                      \
	"template __global__ void kern<float, 16, 16, 64>(const float *, const float *, float *, " \
	"int);\n"

/* The trip count of both copy loops and register staging's verdict. */
static void expect_four_trips(const char *decl)
{
	kp_loop *l = only_loop();
	cr_assert(l->eligible, "%s: not eligible", decl);
	cr_assert_eq(l->nloads, 2);
	for (int i = 0; i < 2; i++)
		cr_expect(l->loads[i].trips[0] > 3.9 && l->loads[i].trips[0] < 4.1,
			  "%s: load %d trips %g", decl, i, l->loads[i].trips[0]);
	const kp_transform *t = kp_transform_find("register");
	cr_assert_not_null(t);
	kp_xfacts x;
	kp_transform_facts(t, &F, l, &F.arena, &x);
	cr_expect(x.ok, "%s: register staging: %s", decl, x.why_not ? x.why_not : "");
}

Test(consts, braced_initialiser_is_the_value, .fini = release)
{
	static const char *const decls[] = {"constexpr int NT{BX * BY};",
					    "constexpr int NT = {BX * BY};",
					    "const int NT{BX * BY};", "int NT{BX * BY};",
					    "constexpr int NT = BX * BY;"};
	for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
		char src[4096];
		with_decl(src, sizeof(src), BRACED, decls[i]);
		if (i)
			release();
		analyze_src(src);
		const kp_decl *nt = local("NT");
		cr_assert_not_null(nt->init, "%s: no initialiser", decls[i]);
		cr_expect_str_eq(text_of(nt->init), "BX * BY", "%s", decls[i]);
		expect_four_trips(decls[i]);
	}
}

/* Before the change a brace right after the name was not read at all:
 * the copy loops' trip count was unknown and register staging refused. */
Test(consts, braced_initialiser_gives_the_trip_count, .fini = release)
{
	char src[4096];
	with_decl(src, sizeof(src), BRACED, "constexpr unsigned NT{BX * BY};");
	analyze_src(src);
	kp_loop *l = only_loop();
	cr_expect_str_eq(text_of(local("NT")->init), "BX * BY");
	cr_expect(l->loads[0].trips[0] > 3.9 && l->loads[0].trips[0] < 4.1, "trips %g",
		  l->loads[0].trips[0]);
}

/* Several values, an array, a class: not one value; the list itself (or
 * nothing) stays the initialiser. */
Test(consts, braced_lists_that_are_not_one_value, .fini = release)
{
	analyze_src("__global__ void k(float *out)\n"
		    "{\n"
		    "\tint4 v{1, 2, 3, 4};\n"
		    "\tfloat4 w{1.0f};\n"
		    "\tint a[1]{7};\n"
		    "\tint e{};\n"
		    "\tint s{5};\n"
		    "\tout[threadIdx.x] = v.x + w.x + a[0] + e + s;\n"
		    "}\n");
	const kp_decl *v = local("v"), *w = local("w"), *a = local("a"), *e = local("e"),
		      *s = local("s");
	cr_expect(!v->init || v->init->kind == KP_N_INITLIST || v->init->kind == KP_N_OTHER,
		  "int4 v{..}: %d", v->init ? (int)v->init->kind : -1);
	cr_expect(!w->init || w->init->kind != KP_N_FLOATLIT, "float4 w{1.0f} read as 1.0f");
	cr_expect(!a->init || a->init->kind == KP_N_INITLIST, "int a[1]{7} read as 7");
	cr_expect(!e->init || e->init->kind == KP_N_INITLIST, "int e{}");
	cr_assert_not_null(s->init);
	cr_expect_str_eq(text_of(s->init), "5");
}

/* --- constants declared in the loop ----------------------------------------- */

/* A K-loop whose copy loop is bounded by a local of the loop, DECL (the
 * shape of an inlined helper's `constexpr size_t VEC{BK / UNITS};`). */
#define IN_LOOP                                                                                     \
	"template <typename T> __host__ __device__ constexpr int units() { return 16 / sizeof(T); " \
	"}\n"                                                                                       \
	"template <typename T, int BK>\n"                                                           \
	"__global__ void kern(const T *A, T *C, int n)\n"                                           \
	"{\n"                                                                                       \
	"\t__shared__ T As[256];\n"                                                                 \
	"\tT sum = 0;\n"                                                                            \
	"\tfor (int t = 0; t < n; t += 256) {\n"                                                    \
	"\t\t@DECL@\n"                                                                              \
	"\t\tfor (int i = 0; i < 256 / V; i++)\n"                                                   \
	"\t\t\tAs[i * V + threadIdx.x % V] = A[t + i * V + threadIdx.x % V];\n"                     \
	"\t\t__syncthreads();\n"                                                                    \
	"\t\tsum += As[255 - threadIdx.x];\n"                                                       \
	"\t\t__syncthreads();\n"                                                                    \
	"\t}\n"                                                                                     \
	"\tC[threadIdx.x] = sum;\n"                                                                 \
	"}\n"                                                                                       \
	"template __global__ void kern<float, 16>(const float *, float *, int);\n"

Test(consts, constexpr_in_loop_is_invariant, .fini = release)
{
	/* a constexpr whose initialiser kpipe cannot read as a value (a call
	 * of a constexpr function of the template) or can (braced), a const
	 * clang folds */
	static const char *const ok[] = {"constexpr int V = units<T>();",
					 "constexpr int V{BK / 4};", "const int V = 4;",
					 "constexpr int V{units<T>()};"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char src[4096];
		with_decl(src, sizeof(src), IN_LOOP, ok[i]);
		if (i)
			release();
		analyze_src(src);
		kp_loop *l = only_loop();
		cr_expect(l->eligible, "%s: not eligible", ok[i]);
		cr_expect(!refused_for(l, "kpipe-partial-tile-write"), "%s: partial tile write",
			  ok[i]);
		cr_expect(local("V")->is_constexpr == (strstr(ok[i], "constexpr") != NULL), "%s",
			  ok[i]);
	}
}

/* Not compile-time constants: a const computed from what the loop
 * changes, a plain local set from a call: still a copy loop whose bound
 * may change per tile. */
Test(consts, other_locals_of_the_loop_still_vary, .fini = release)
{
	static const char *const bad[] = {"const int V = t / 256 + 1;", "int V = units<T>();",
					  "const int V = (int)A[t];"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char src[4096];
		with_decl(src, sizeof(src), IN_LOOP, bad[i]);
		if (i)
			release();
		analyze_src(src);
		kp_loop *l = only_loop();
		cr_expect(!l->eligible, "%s: eligible", bad[i]);
		cr_expect(refused_for(l, "kpipe-partial-tile-write"), "%s: no partial tile write",
			  bad[i]);
		cr_expect(!local("V")->is_constexpr, "%s", bad[i]);
	}
}
