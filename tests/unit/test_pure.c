/*
 * test_pure.c - the table of pure functions and what a call may write
 * through its arguments (src/analysis/pure.c), on in-memory kernels parsed
 * with kp_parse: a CUDA math call is pure, a function of the file named
 * `min` is not (its body decides); an argument handed to a pointer or
 * reference to const, a template parameter, a const array are not
 * written; a non-const reference and a pointer to non-const are; a
 * const_cast drops the proof; the comparison of a template's values while
 * <cuda_fp16.h> is included only reads them; a `const float *&` parameter
 * changes the pointer and stores nothing through it.
 */
#include "analyze.h"
#include "arch.h"
#include "effects.h"
#include "parse.h"
#include "kp_test_parse.h"
#include "pure.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static kp_file F;

static void parse(const char *src) { kp_test_parse(&F, "snippet.cu", src); }

typedef struct {
	const char *name;
	int nth; /* the nth call of that name (0 the first) */
	const kp_node *hit;
} call_find;

static int find_call(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	call_find *w = ud;
	const char *nm = n->name && *n->name ? n->name : n->lookup_name;
	if (!w->hit && n->kind == KP_N_CALL && nm && !strcmp(nm, w->name) && w->nth-- == 0)
		w->hit = n;
	return !w->hit;
}

/* The nth call named `name` in the first function of the file. */
static const kp_node *call(const char *name, int nth)
{
	call_find w = {name, nth, NULL};
	cr_assert(F.nkernels >= 1);
	kp_node_walk(F.kernels[0]->body, NULL, find_call, &w);
	cr_assert_not_null(w.hit, "no call %d to %s", nth, name);
	return w.hit;
}

/* The index in n->kids of the argument that names `var`. */
static int arg(const kp_node *n, const char *var)
{
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *a = kp_node_strip(n->kids[i]);
		while (a && (a->kind == KP_N_UNOP || a->kind == KP_N_SUBSCRIPT) && a->nkids)
			a = kp_node_strip(a->kids[0]);
		if (a && a->kind == KP_N_DECLREF && a->name && !strcmp(a->name, var))
			return i;
	}
	cr_assert_fail("no argument %s", var);
	return -1;
}

Test(pure, table)
{
	cr_expect_eq(kp_pure_name("ceilf"), KP_PURE_VALUE);
	cr_expect_eq(kp_pure_name("std::floor"), KP_PURE_VALUE);
	cr_expect_eq(kp_pure_name("__float2int_rn"), KP_PURE_VALUE);
	cr_expect_eq(kp_pure_name("cuCfma"), KP_PURE_VALUE); /* cuComplex.h */
	cr_expect_eq(kp_pure_name("cuCadd"), KP_PURE_VALUE);
	cr_expect_eq(kp_pure_name("__shfl_xor_sync"), KP_PURE_NOMEM);
	cr_expect_eq(kp_pure_name("__syncwarp"), KP_PURE_NOMEM);
	cr_expect_eq(kp_pure_name("atomicAdd"), KP_PURE_NO);
	cr_expect_eq(kp_pure_name("printf"), KP_PURE_NO);
	cr_expect_eq(kp_pure_name(""), KP_PURE_NO);
}

Test(pure, resolved_declaration_decides)
{
	parse("__device__ int min(int a, int b, int *n) { *n += 1; return a < b ? a : b; }\n"
	      "__global__ void k(float *x, int n)\n"
	      "{\n"
	      "    int c = 0;\n"
	      "    x[0] = ceilf(x[1]) + floorf(x[2]) + fminf(x[3], 1.0f) + __float2int_rn(x[4]);\n"
	      "    x[1] = min(n, 4) + min(n, 4, &c);\n"
	      "}\n");
	cr_expect_eq(kp_call_pure(call("ceilf", 0)), KP_PURE_VALUE);
	cr_expect_eq(kp_call_pure(call("floorf", 0)), KP_PURE_VALUE);
	cr_expect_eq(kp_call_pure(call("fminf", 0)), KP_PURE_VALUE);
	cr_expect_eq(kp_call_pure(call("__float2int_rn", 0)), KP_PURE_VALUE);
	/* the toolkit's min(int, int); the file's min, whose body writes */
	const kp_node *m0 = call("min", 0), *m1 = call("min", 1);
	cr_expect(m0->decl && m0->decl->in_system);
	cr_expect_eq(kp_call_pure(m0), KP_PURE_VALUE);
	cr_expect(m1->decl && !m1->decl->in_system);
	cr_expect_eq(kp_call_pure(m1), KP_PURE_NO);
	cr_expect_eq(kp_call_arg_write(m1, arg(m1, "c")), 2, "&c handed to an int *");
	kp_file_release(&F);
}

Test(pure, const_parameters)
{
	parse("#define T 16\n"
	      "typedef const float (*crow)[T];\n"
	      "__device__ float rd(crow a, float const *b, const float &s) { return a[0][0] * b[0] * s; }\n"
	      "__device__ void wr(float *p, float &r) { p[0] = r; r = 0.0f; }\n"
	      "__device__ void bump(int *o) { o[0] += 1; }\n"
	      "__global__ void k(float *x)\n"
	      "{\n"
	      "    __shared__ float As[T][T];\n"
	      "    __shared__ float Bs[T * T];\n"
	      "    const float wt[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n"
	      "    float v = x[0];\n"
	      "    int off[1] = {0};\n"
	      "    const int *view = off;\n"
	      "    x[1] = rd(As, Bs, v) + rd(As, wt, wt[1]);\n"
	      "    wr(Bs, v);\n"
	      "    bump(const_cast<int *>(view));\n"
	      "}\n");
	const kp_node *r0 = call("rd", 0), *r1 = call("rd", 1), *w = call("wr", 0);
	cr_expect_eq(kp_call_arg_write(r0, arg(r0, "As")), 0, "a typedef'd pointer to const rows");
	cr_expect_eq(kp_call_arg_write(r0, arg(r0, "Bs")), 0, "float const *");
	cr_expect_eq(kp_call_arg_write(r0, arg(r0, "v")), 0, "const float &");
	cr_expect_eq(kp_call_arg_write(r1, arg(r1, "wt")), 0, "a const array");
	cr_expect_eq(kp_call_arg_write(w, arg(w, "Bs")), 1, "an array handed to float *");
	cr_expect_eq(kp_call_arg_write(w, arg(w, "v")), 1, "float &");
	cr_expect(kp_call_arg_writes_pointee(w, arg(w, "Bs")));
	cr_expect(!kp_call_arg_writes_pointee(r0, arg(r0, "Bs")));
	const kp_node *b = call("bump", 0);
	cr_expect_neq(kp_call_arg_write(b, b->nkids - 1), 0, "const_cast: const proves nothing");
	cr_expect(kp_call_arg_writes_pointee(b, b->nkids - 1));
	kp_file_release(&F);
}

Test(pure, reference_to_pointer)
{
	parse("__device__ void advance(const float *&p, int n) { p += n; }\n"
	      "__device__ void fill(float *&p) { p[0] = 1.0f; }\n"
	      "__global__ void k(const float *a, float *o)\n"
	      "{\n"
	      "    advance(a, 4);\n"
	      "    fill(o);\n"
	      "}\n");
	const kp_node *adv = call("advance", 0), *fl = call("fill", 0);
	cr_expect_eq(kp_call_arg_write(adv, arg(adv, "a")), 1,
		     "const float *& changes the pointer");
	cr_expect(!kp_call_arg_writes_pointee(adv, arg(adv, "a")), "and stores nothing");
	cr_expect(kp_call_arg_writes_pointee(fl, arg(fl, "o")), "float *& may store through it");
	kp_file_release(&F);
}

Test(pure, template_parameter_and_dependent_compare)
{
	parse("#include <cuda_fp16.h>\n"
	      "template <typename U, int BK> __device__ void use(U &a, const float *p, int ld);\n"
	      "template <typename U, int BK>\n"
	      "__global__ void k(const float *p, U lim)\n"
	      "{\n"
	      "    U acc = U(0);\n"
	      "    use<U, BK>(acc, p, BK);\n"
	      "    if (acc < lim)\n"
	      "        acc = lim;\n"
	      "}\n"
	      "template __global__ void k<float, 32>(const float *, float);\n");
	const kp_node *u = call("use", 0);
	cr_expect_eq(kp_call_arg_write(u, arg(u, "BK")), 0, "a template parameter is a constant");
	cr_expect_eq(kp_call_arg_write(u, arg(u, "acc")), 1, "U & may be written");
	const kp_node *lt = call("operator<", 0);
	cr_expect(lt->lookup_ro && lt->lookup_system, "__half's operator< takes const refs");
	cr_expect_eq(kp_call_arg_write(lt, arg(lt, "acc")), 0);
	cr_expect_eq(kp_call_arg_write(lt, arg(lt, "lim")), 0);
	cr_expect_eq(kp_call_pure(lt), KP_PURE_VALUE);
	kp_file_release(&F);
}
