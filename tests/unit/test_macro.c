/*
 * test_macro.c - tile copies written through function-like macros
 * (FLOAT4(s_a[r][c]) = FLOAT4(a[i]) and its spellings, with and without
 * macros) and the conditions around copies: what the analysis finds
 * (16-byte vector copies from the expanded code, the operators of macro
 * expansions read by their kind), the text both transforms write (the
 * spelled macro arguments edited, never a macro body), the refusals that
 * must stay (a tile, the counter or the copy's '=' spelled only in a
 * #define; a macro that hides a write of a tile or of the counter), and
 * the conditions a copy may run under (values fixed before the loop, locals
 * computed from them) or not (one that changes from tile to tile, around a
 * lone copy, a block of copies or an if/else copy), and likewise the
 * headers of its copy loops (a count that changes from tile to tile; a
 * while loop).
 *
 * Sources are parsed from memory as snippet.cu for sm_90; every snippet
 * is the kernel below with its load phase (and sometimes the compute
 * phase or the macros) replaced.
 */
#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "kp_test_parse.h"
#include "transform.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- sources -------------------------------------------------------------- */

#define MACROS                                                                                     \
	"#define TILE 16\n"                                                                        \
	"#define LD4(p) (reinterpret_cast<const float4 *>(&(p))[0])\n"                             \
	"#define ST4(p) (reinterpret_cast<float4 *>(&(p))[0])\n"                                   \
	"#define LDST128(v) (*(reinterpret_cast<float4 *>(&(v))))\n"
#define HEAD_X(defs)                                                                               \
	MACROS defs                                                                                \
		"__global__ void mm(const float *__restrict__ A, const float *__restrict__ B,\n"   \
		"                   float *__restrict__ C, int N, int K)\n"                        \
		"{\n"                                                                              \
		"    __shared__ float As[TILE][TILE];\n"                                           \
		"    __shared__ float Bs[TILE][TILE];\n"                                           \
		"    int tx = threadIdx.x, ty = threadIdx.y;\n"                                    \
		"    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"            \
		"    float acc = 0.0f;\n"                                                          \
		"    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
#define HEAD HEAD_X("")
#define LOAD_B "        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
#define SYNC "        __syncthreads();\n"
#define COMP                                                                                       \
	"        for (int kk = 0; kk < TILE; ++kk)\n"                                              \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
#define TAIL                                                                                       \
	"    }\n"                                                                                  \
	"    C[row * N + col] = acc;\n"                                                            \
	"}\n"
/* A kernel whose load phase is `load` (then the copy of B). */
#define KERNEL(defs, load) HEAD_X(defs) load LOAD_B SYNC COMP SYNC TAIL

/* --- parsing ---------------------------------------------------------------- */

static kp_file F;
static kp_analysis AN;

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

TestSuite(macro_copy, .fini = release);

static kp_loop *analyze_src(const char *src)
{
	kp_test_parse(&F, "snippet.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	cr_assert_eq(AN.nloops, 1, "expected 1 candidate loop, found %d", AN.nloops);
	kp_loop *l = AN.loops[0];
	for (int i = 0; i < l->nreasons; i++)
		cr_log_info("  %d:%d %s [%s]", l->reasons[i].line, l->reasons[i].col,
			    l->reasons[i].message, l->reasons[i].id);
	return l;
}

static kp_xfacts facts(const kp_loop *l, const char *name)
{
	kp_xfacts x;
	kp_transform_facts(kp_transform_find(name), &F, l, &F.arena, &x);
	return x;
}

/* The file as transform `name` rewrites the loop (caller frees). */
static char *xform_text(const kp_loop *l, const char *name)
{
	const kp_transform *t = kp_transform_find(name);
	cr_assert_not_null(t, "no transform %s", name);
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

static const kp_reason *find_reason(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return &l->reasons[i];
	return NULL;
}

/* --- the operators of a macro expansion ------------------------------------- */

static int find_macro_addr_of(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	if (n->kind == KP_N_UNOP && n->from_macro && n->op && !strcmp(n->op, "&"))
		*(int *)ud += 1;
	if (n->kind == KP_N_UNOP && n->from_macro && n->op && strcmp(n->op, "&"))
		cr_log_error("a unary operator of a macro read as '%s'", n->op);
	return 1;
}

/* libclang's tokens for an operator from a macro are the macro's use
 * (`ST4(As[ty][tx * 4])`): the operator is read by its kind, so the `&`
 * inside ST4 and LD4 is an `&` (it once read as `<`, and the copy went
 * unseen). */
Test(macro_copy, operators_of_a_macro_are_read_by_their_kind)
{
	analyze_src(KERNEL(
		"", "        ST4(As[ty][tx / 4 * 4]) = LD4(A[row * K + k0 + tx / 4 * 4]);\n"));
	int n = 0;
	kp_node_walk(F.kernels[0]->body, NULL, find_macro_addr_of, &n);
	cr_expect_eq(n, 2, "%d '&' of ST4 and LD4", n);
}

/* --- one copy, six spellings -------------------------------------------------- */

struct spelling {
	char load[200];  /* the copy of A, a line of the load phase */
	int guarded;     /* under `if (tx < TILE / 4)` */
	char cp[200];    /* what cp.async writes for its prefetch */
	char fetch[160]; /* register staging's prefetch into the register */
	char store[120]; /* ... and its store after the math */
};

#define G "if (tx < TILE / 4) "
ParameterizedTestParameters(macro_copy, spellings)
{
	static struct spelling params[] = {
		{"        " G "ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n", 1,
		 G "__pipeline_memcpy_async(&ST4(As[kp_stage ^ 1][ty][tx * 4]), "
		   "&LD4(A[row * K + (k0 + TILE) + tx * 4]), 16);",
		 G "kp_reg0[0] = LD4(A[row * K + (k0 + TILE) + tx * 4]);",
		 G "ST4(As[kp_stage ^ 1][ty][tx * 4]) = kp_reg0[0];"},
		{"        " G "LDST128(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n", 1,
		 G "__pipeline_memcpy_async(&LDST128(As[kp_stage ^ 1][ty][tx * 4]), "
		   "&LD4(A[row * K + (k0 + TILE) + tx * 4]), 16);",
		 G "kp_reg0[0] = LD4(A[row * K + (k0 + TILE) + tx * 4]);",
		 G "LDST128(As[kp_stage ^ 1][ty][tx * 4]) = kp_reg0[0];"},
		/* a macro around one side only */
		{"        " G
		 "ST4(As[ty][tx * 4]) = *reinterpret_cast<const float4 *>(&A[row * K + k0 "
		 "+ tx * 4]);\n",
		 1,
		 G "__pipeline_memcpy_async(&ST4(As[kp_stage ^ 1][ty][tx * 4]), "
		   "reinterpret_cast<const float4 *>(&A[row * K + (k0 + TILE) + tx * 4]), 16);",
		 G "kp_reg0[0] = *reinterpret_cast<const float4 *>(&A[row * K + (k0 + TILE) + tx * "
		   "4]);",
		 G "ST4(As[kp_stage ^ 1][ty][tx * 4]) = kp_reg0[0];"},
		/* no macro: the [0] form and the * form */
		{"        " G
		 "reinterpret_cast<float4 *>(&As[ty][tx * 4])[0] = reinterpret_cast<const "
		 "float4 *>(&A[row * K + k0 + tx * 4])[0];\n",
		 1,
		 G "__pipeline_memcpy_async(&reinterpret_cast<float4 *>(&As[kp_stage ^ 1][ty][tx * "
		   "4])[0], &reinterpret_cast<const float4 *>(&A[row * K + (k0 + TILE) + tx * "
		   "4])[0], 16);",
		 G "kp_reg0[0] = reinterpret_cast<const float4 *>(&A[row * K + (k0 + TILE) + tx * "
		   "4])[0];",
		 G "reinterpret_cast<float4 *>(&As[kp_stage ^ 1][ty][tx * 4])[0] = kp_reg0[0];"},
		{"        " G
		 "*reinterpret_cast<float4 *>(&As[ty][tx * 4]) = *reinterpret_cast<const "
		 "float4 *>(&A[row * K + k0 + tx * 4]);\n",
		 1,
		 G "__pipeline_memcpy_async(reinterpret_cast<float4 *>(&As[kp_stage ^ 1][ty][tx * "
		   "4]), reinterpret_cast<const float4 *>(&A[row * K + (k0 + TILE) + tx * 4]), "
		   "16);",
		 G "kp_reg0[0] = *reinterpret_cast<const float4 *>(&A[row * K + (k0 + TILE) + tx * "
		   "4]);",
		 G "*reinterpret_cast<float4 *>(&As[kp_stage ^ 1][ty][tx * 4]) = kp_reg0[0];"},
		/* unguarded (every thread copies a quarter row, four times over) */
		{"        ST4(As[ty][tx / 4 * 4]) = LD4(A[row * K + k0 + tx / 4 * 4]);\n", 0,
		 "__pipeline_memcpy_async(&ST4(As[kp_stage ^ 1][ty][tx / 4 * 4]), "
		 "&LD4(A[row * K + (k0 + TILE) + tx / 4 * 4]), 16);",
		 "kp_reg0[0] = LD4(A[row * K + (k0 + TILE) + tx / 4 * 4]);",
		 "ST4(As[kp_stage ^ 1][ty][tx / 4 * 4]) = kp_reg0[0];"},
	};
	return cr_make_param_array(struct spelling, params, sizeof(params) / sizeof(params[0]));
}

/* Every spelling is the same 16-byte vector copy of A into As, and both
 * transforms edit the arguments as spelled. */
ParameterizedTest(struct spelling *p, macro_copy, spellings, .fini = release)
{
	char src[4096];
	snprintf(src, sizeof(src), HEAD "%s" LOAD_B SYNC COMP SYNC TAIL, p->load);
	kp_loop *l = analyze_src(src);
	cr_expect(l->eligible, "%s", p->load);
	cr_assert_eq(l->nloads, 2);
	const kp_load *ld = &l->loads[0];
	cr_expect_str_eq(ld->tile->name, "As");
	cr_assert_not_null(ld->src);
	cr_expect_str_eq(ld->src->name, "A");
	cr_expect_eq(ld->bytes, 16);
	cr_expect_eq(ld->vector, 4);
	cr_expect(ld->pure);
	cr_expect_eq(ld->guard, KP_G_NONE);
	cr_expect_eq(ld->nunder, p->guarded);
	kp_xfacts cp = facts(l, "cp-async"), rg = facts(l, "register");
	cr_expect(cp.ok, "cp.async: %s", cp.why_not ? cp.why_not : "");
	cr_expect(rg.ok, "register: %s", rg.why_not ? rg.why_not : "");
	cr_expect_eq(rg.regs, 5);
	char *out = xform_text(l, "cp-async");
	cr_expect(strstr(out, p->cp), "cp.async lacks\n%s\nin\n%s", p->cp, out);
	free(out);
	out = xform_text(l, "register");
	cr_expect(strstr(out, "float4 kp_reg0[1] = {};"), "%s", out);
	cr_expect(strstr(out, p->fetch), "register lacks\n%s\nin\n%s", p->fetch, out);
	cr_expect(strstr(out, p->store), "register lacks\n%s\nin\n%s", p->store, out);
	/* the macros are left as they were */
	cr_expect(strstr(out, "#define ST4(p) (reinterpret_cast<float4 *>(&(p))[0])\n"), "%s", out);
	free(out);
}

/* --- guards, ternaries and register-ca through macros ----------------------- */

/* An if/else that stores zero, under a guard fixed before the loop: a
 * zero-fill cp.async of the spelled arguments. */
Test(macro_copy, zero_else_under_a_fixed_guard)
{
	kp_loop *l = analyze_src(KERNEL(
		"", "        if (tx < TILE / 4) {\n"
		    "            if (k0 + tx * 4 < K)\n"
		    "                ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n"
		    "            else\n"
		    "                ST4(As[ty][tx * 4]) = make_float4(0.f, 0.f, 0.f, 0.f);\n"
		    "        }\n"));
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].guard, KP_G_IFELSE);
	cr_expect_eq(l->loads[0].nunder, 1);
	cr_expect(facts(l, "cp-async").ok);
	char *out = xform_text(l, "cp-async");
	/* the guard named once: an if/else in a block */
	cr_expect(strstr(out, "const bool kp_in_As = (k0 + TILE) + tx * 4 < K;\n"), "%s", out);
	cr_expect(strstr(out, "const void *kp_src_As = kp_in_As ? (const void *)&LD4(A[row * K + "
			      "(k0 + TILE) + tx * 4])"),
		  "%s", out);
	cr_expect(strstr(out, ": (const void *)A;\n"), "%s", out);
	cr_expect(strstr(out, "__pipeline_memcpy_async(&ST4(As[kp_stage ^ 1][ty][tx * 4]), "
			      "kp_src_As, 16, kp_in_As ? 0 : 16);"),
		  "%s", out);
	free(out);
}

/* A ternary with zero: the const float4 the macro reads is copied by
 * float4's constructor, which does not make the copy a conversion. */
Test(macro_copy, ternary_through_a_copy_constructor)
{
	kp_loop *l = analyze_src(KERNEL(
		"",
		"        if (tx < TILE / 4) ST4(As[ty][tx * 4]) = k0 + tx * 4 < K ? LD4(A[row * K "
		"+ k0 + tx * 4]) : make_float4(0.f, 0.f, 0.f, 0.f);\n"));
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].guard, KP_G_TERNARY);
	cr_expect(l->loads[0].pure);
	cr_expect(facts(l, "cp-async").ok);
}

/* register-ca reads a macro's load through __ldca: the loaded value as
 * spelled, since the read inside the macro has no range of its own. */
Test(macro_copy, register_ca_wraps_the_spelled_value)
{
	kp_loop *l = analyze_src(
		KERNEL("#define ID(x) (x)\n",
		       "        if (tx < TILE / 4) ST4(As[ty][tx * 4]) = ID(LD4(A[row * "
		       "K + k0 + tx * 4]));\n"));
	cr_expect(l->eligible);
	char *out = xform_text(l, "register-ca");
	cr_expect(strstr(out, "kp_reg0[0] = __ldca(&(ID(LD4(A[row * K + (k0 + TILE) + tx * "
			      "4]))));"),
		  "%s", out);
	free(out);
}

/* --- what must stay refused ------------------------------------------------- */

struct refusal {
	char defs[120]; /* extra macros */
	char load[200]; /* the copy of A */
	char comp[120]; /* an extra statement at the end of the compute phase */
	char id[40];    /* expected */
	char msg[48];   /* a piece of its message */
	int cp_ok;      /* cp.async's facts still say yes (-1: not checked) */
};

#define LOAD_A4 "        if (tx < TILE / 4) ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n"
ParameterizedTestParameters(macro_copy, refused)
{
	static struct refusal params[] = {
		/* the copy's '=' inside a macro body */
		{"#define COPY4(d, s) ST4(d) = LD4(s)\n",
		 "        if (tx < TILE / 4) COPY4(As[ty][tx * 4], A[row * K + k0 + tx * 4]);\n",
		 "", "kpipe-macro-array", "written inside a macro body", -1},
		/* a macro around the whole copy of an argument: no range of its own */
		{"#define SAME(x) x\n",
		 "        if (tx < TILE / 4) SAME(ST4(As[ty][tx * 4])) = LD4(A[row * K + k0 + tx * "
		 "4]);\n",
		 "", "kpipe-macro-array", "written inside a macro body", -1},
		/* the guard of a ternary inside a macro body */
		{"#define SEL4(c, x) ((c) ? (x) : make_float4(0.f, 0.f, 0.f, 0.f))\n",
		 "        if (tx < TILE / 4) ST4(As[ty][tx * 4]) = SEL4(k0 + tx * 4 < K, LD4(A[row * "
		 "K + k0 + tx * 4]));\n",
		 "", "kpipe-macro-array", "written inside a macro body", -1},
		/* the tile spelled only in the #define */
		{"#define AS4(r, c) ST4(As[r][c])\n",
		 "        if (tx < TILE / 4) AS4(ty, tx * 4) = LD4(A[row * K + k0 + tx * 4]);\n",
		 "", "kpipe-macro-array", "'As' is used inside a macro body", -1},
		/* the counter spelled only in the #define */
		{"#define A4(r, c) LD4(A[(r) * K + k0 + (c)])\n",
		 "        if (tx < TILE / 4) ST4(As[ty][tx * 4]) = A4(row, tx * 4);\n", "",
		 "kpipe-hidden-induction", "'k0' is used inside a macro body", -1},
		/* a macro in the compute phase that stores into a tile */
		{"#define CLR4(p) ST4(p) = make_float4(0.f, 0.f, 0.f, 0.f)\n", LOAD_A4,
		 "        CLR4(As[ty][0]);\n", "kpipe-compute-writes-tile", "'As'", -1},
		{"#define CLR(t) t[ty][tx] = 0.0f\n", LOAD_A4, "        CLR(Bs);\n",
		 "kpipe-compute-writes-tile", "'Bs'", -1},
		/* a macro with a side effect on the counter */
		{"#define NEXT(k) ++k\n", LOAD_A4, "        NEXT(k0);\n", "kpipe-loop-shape",
		 "'k0' is updated 2 times", -1},
		{"#define AGAIN(k) k = k - TILE\n", LOAD_A4, "        AGAIN(k0);\n",
		 "kpipe-loop-shape", "'k0' is updated 2 times", -1},
		/* a guard that changes from tile to tile */
		{"",
		 "        if (k0 + tx * 4 < K) ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * "
		 "4]);\n",
		 "", "kpipe-partial-tile-write", "whose 'k0' advances every iteration", 1},
		/* ... around a block of copies, and around an if/else copy */
		{"",
		 "        if (k0 + tx < K) {\n"
		 "            As[ty][tx] = A[row * K + k0 + tx];\n"
		 "            Bs[tx][ty] = B[(k0 + tx) * N + col];\n"
		 "        }\n",
		 /* not cp.async either: Bs[tx][ty] and the Bs[ty][tx] of LOAD_B
		  * are not proven to be different elements */
		 "", "kpipe-partial-tile-write", "'k0 + tx < K'", 0},
		{"",
		 "        if (k0 < K - TILE) {\n"
		 "            if (row < N) As[ty][tx] = A[row * K + k0 + tx];\n"
		 "            else As[ty][tx] = 0.0f;\n"
		 "        }\n",
		 "", "kpipe-partial-tile-write", "'k0 < K - TILE'", 1},
		/* a guard on what the loop writes, computes from the counter or reads
		 * from memory */
		{"",
		 "        if (acc < 1e30f) ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n",
		 "", "kpipe-partial-tile-write", "'acc' changes inside the loop", -1},
		{"",
		 "        int q = k0 / TILE % 2;\n"
		 "        if (q < 1) ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n",
		 "", "kpipe-partial-tile-write", "'q' is computed from a value that may change",
		 -1},
		{"",
		 "        if (B[0] > 0.0f) ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n",
		 "", "kpipe-partial-tile-write", "reads memory", -1},
	};
	return cr_make_param_array(struct refusal, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct refusal *p, macro_copy, refused, .fini = release)
{
	char src[4096];
	snprintf(src, sizeof(src), HEAD_X("%s") "%s" LOAD_B SYNC COMP "%s" SYNC TAIL, p->defs,
		 p->load, p->comp);
	kp_loop *l = analyze_src(src);
	cr_expect_not(l->eligible, "%s%s", p->load, p->comp);
	const kp_reason *r = find_reason(l, p->id);
	cr_assert_not_null(r, "no [%s] for\n%s%s", p->id, p->load, p->comp);
	cr_expect(strstr(r->message, p->msg), "[%s] '%s' lacks '%s'", p->id, r->message, p->msg);
	cr_expect_null(find_reason(l, "kpipe-no-tile-load"), "the copy is seen");
	if (p->cp_ok >= 0)
		cr_expect_eq(facts(l, "cp-async").ok, p->cp_ok);
}

/* --- guards fixed before the loop, and copy loops without a count ----------- */

/* Copies of two tiles split between the threads by an if/else on the
 * thread index: the same elements every iteration, so both are copies. */
Test(macro_copy, if_else_between_two_tiles)
{
	kp_loop *l = analyze_src(
		HEAD "        if (ty < TILE / 2)\n"
		     "            As[ty * 2][tx] = A[row * K + k0 + tx];\n"
		     "        else\n"
		     "            Bs[ty * 2 - TILE][tx] = B[(k0 + ty) * N + col];\n"
		     "        As[ty / 2 * 2 + 1][tx] = A[(row + 1) * K + k0 + tx];\n"
		     "        Bs[ty][tx] = B[(k0 + ty) * N + col];\n" SYNC COMP SYNC TAIL);
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 4);
	cr_expect_eq(l->loads[0].nunder, 1);
	cr_expect_eq(l->loads[0].under_else[0], 0);
	cr_expect_eq(l->loads[1].nunder, 1);
	cr_expect_eq(l->loads[1].under_else[0], 1);
	char *out = xform_text(l, "register");
	cr_expect(strstr(out,
			 "                if (ty < TILE / 2)\n"
			 "                    As[kp_stage ^ 1][ty * 2][tx] = kp_reg0[0];\n"
			 "                else\n"
			 "                    Bs[kp_stage ^ 1][ty * 2 - TILE][tx] = kp_reg1[0];\n"),
		  "%s", out);
	free(out);
}

/* A guard on a local of the loop computed from values fixed before it
 * holds alike in every iteration. */
Test(macro_copy, guard_on_a_fixed_local)
{
	kp_loop *l = analyze_src(KERNEL(
		"", "        const int q = tx / 4;\n"
		    "        if (q < 1) ST4(As[ty][tx * 4]) = LD4(A[row * K + k0 + tx * 4]);\n"));
	cr_expect(l->eligible);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].nunder, 1);
	cr_expect_str_eq(l->loads[0].under_text, "if (q < 1)");
}

/* A copy loop whose count changes from tile to tile leaves elements out
 * in some iterations only; one with a count fixed before the loop (in a
 * local computed from such values) does not. */
Test(macro_copy, copy_loop_counts)
{
	kp_loop *l = analyze_src(
		HEAD "        for (int i = tx; i < (K - k0 < TILE ? K - k0 : TILE); i += "
		     "TILE)\n"
		     "            As[ty][i] = A[row * K + k0 + i];\n" LOAD_B SYNC COMP SYNC TAIL);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-partial-tile-write");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "copy loop whose 'k0' advances every iteration"), "%s",
		  r->message);
	release();
	l = analyze_src(
		HEAD
		"        const int n = TILE / 4;\n"
		"        for (int i = 0; i < n; i++)\n"
		"            As[ty / 4 * 4 + i][tx] = A[(row / 4 * 4 + i) * K + k0 + tx];\n" LOAD_B
			SYNC COMP SYNC TAIL);
	cr_expect(l->eligible);
	cr_expect_eq(l->loads[0].depth, 1);
}

/* A copy in a while loop runs a number of times kpipe does not follow:
 * refused, and register staging (one register per execution) says so. */
Test(macro_copy, copy_in_a_while_loop)
{
	kp_loop *l = analyze_src(
		HEAD "        int i = 0;\n"
		     "        while (i < 2) {\n"
		     "            As[ty / 2 * 2 + i][tx] = A[(row + i) * K + k0 + tx];\n"
		     "            i++;\n"
		     "        }\n" LOAD_B SYNC COMP SYNC TAIL);
	cr_expect_not(l->eligible);
	const kp_reason *r = find_reason(l, "kpipe-partial-tile-write");
	cr_assert_not_null(r);
	cr_expect(strstr(r->message, "'i' changes inside the loop"), "%s", r->message);
	cr_assert_eq(l->nloads, 2);
	cr_expect_eq(l->loads[0].depth, 1);
	kp_xfacts rg = facts(l, "register");
	cr_expect_not(rg.ok);
	cr_assert_not_null(rg.why_not);
	cr_expect(strstr(rg.why_not, "while or do loop"), "%s", rg.why_not);
}
