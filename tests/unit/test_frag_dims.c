/*
 * test_frag_dims.c - a wmma fragment's sizes M, N, K as the parser records
 * them from clang (kp_type.frag_dim), never from the spelling: the values
 * of a specialisation's arguments (a constant expression, a typedef), and
 * for the declaration of a dependent fragment the position of the
 * kernel's template parameter each size names (an expression of one stays
 * unknown); the bank analysis then reads a typedef'd fragment's shape,
 * which a spelling does not show.
 */
#include "banks.h"
#include "kp_test_parse.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static const char *const src =
	"#include <mma.h>\n"
	"using namespace nvcuda;\n"
	"typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> FragA;\n"
	"template <typename T, int WM, int WN, int WK>\n"
	"__global__ void k(const half *g)\n"
	"{\n"
	"    __shared__ half a[64][64];\n"
	"    wmma::fragment<wmma::matrix_a, WM, WN, WK, half, wmma::row_major> fd[2];\n"
	"    wmma::fragment<wmma::matrix_b, WM * 2, WN / 2, WK, half, wmma::col_major> fe;\n"
	"    wmma::fragment<wmma::matrix_b, 16, 8 * 2, 16, half, wmma::col_major> fc;\n"
	"    FragA ft;\n"
	"    a[threadIdx.x][0] = g[threadIdx.x];\n"
	"    __syncthreads();\n"
	"    wmma::load_matrix_sync(fd[0], &a[0][0], 64);\n"
	"    wmma::load_matrix_sync(fe, &a[0][0], 64);\n"
	"    wmma::load_matrix_sync(fc, &a[0][0], 64);\n"
	"    wmma::load_matrix_sync(ft, &a[0][0], 64);\n"
	"}\n"
	"template __global__ void k<float, 16, 16, 16>(const half *);\n";

static kp_file F;

static void parse(void)
{
	kp_test_parse(&F, "frag.cu", src);
	cr_assert(F.nkernels >= 1);
}

static const kp_decl *var(const char *name)
{
	for (int i = 0; i < F.ndecls; i++)
		if (F.decls[i]->kind == KP_D_VAR && !strcmp(F.decls[i]->name, name))
			return F.decls[i];
	cr_assert_fail("no variable %s", name);
	return NULL;
}

static void expect_dims(const char *name, int use, int m, int n, int k)
{
	const kp_decl *d = var(name);
	cr_expect_eq(d->ty.frag, use, "%s: use %d", name, d->ty.frag);
	cr_expect_eq(d->ty.frag_dim[0], m, "%s: M %d, want %d", name, d->ty.frag_dim[0], m);
	cr_expect_eq(d->ty.frag_dim[1], n, "%s: N %d, want %d", name, d->ty.frag_dim[1], n);
	cr_expect_eq(d->ty.frag_dim[2], k, "%s: K %d, want %d", name, d->ty.frag_dim[2], k);
}

Test(frag_dims, from_clang)
{
	parse();
	/* WM, WN, WK are the kernel's template parameters 1, 2, 3 (T is 0) */
	expect_dims("fd", KP_FRAG_A, -2, -3, -4);
	/* an expression of a parameter is not read; a parameter is */
	expect_dims("fe", KP_FRAG_B, 0, 0, -4);
	/* a constant expression and a typedef: clang's values */
	expect_dims("fc", KP_FRAG_B, 16, 16, 16);
	expect_dims("ft", KP_FRAG_A, 16, 16, 16);
	kp_file_release(&F);
}

/* The fragment load on `line` of the kernel: the shape the bank analysis
 * read ("matrix_a 16x16"), or NULL with why not in *why. */
static const char *shape_at(const kp_bk_result *r, int line, const char **why)
{
	for (int i = 0; i < r->n; i++)
		if (r->acc[i].line == line && r->acc[i].wmma) {
			*why = r->acc[i].not_analysed;
			return r->acc[i].frag;
		}
	cr_assert_fail("no wmma load on line %d", line);
	return NULL;
}

Test(frag_dims, bank_shapes)
{
	parse();
	kp_bk_block b = {32, 4, 1, "test"};
	kp_bk_result r;
	kp_bk_analyze(&F, F.kernels[0], &b, NULL, 0, &r);
	const char *why = NULL, *s;
	s = shape_at(&r, 14, &why); /* fd[0]: WM x WK of <float, 16, 16, 16> */
	cr_expect(s && !strcmp(s, "matrix_a 16x16"), "fd: %s (%s)", s ? s : "-", why ? why : "");
	s = shape_at(&r, 15, &why); /* fe: M is `WM * 2` */
	cr_expect(!s && why && strstr(why, "shape kpipe does not read"), "fe: %s (%s)", s ? s : "-",
		  why ? why : "");
	s = shape_at(&r, 16, &why); /* fc: N is `8 * 2` */
	cr_expect(s && !strcmp(s, "matrix_b 16x16"), "fc: %s (%s)", s ? s : "-", why ? why : "");
	s = shape_at(&r, 17, &why); /* ft: a typedef */
	cr_expect(s && !strcmp(s, "matrix_a 16x16"), "ft: %s (%s)", s ? s : "-", why ? why : "");
	kp_file_release(&F);
}
