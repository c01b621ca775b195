/*
 * test_banks.c - the bank and sector analysis (banks.h) on small kernels
 * with known answers: row and column reads of 32- and 33-float rows,
 * float4, 2-byte and 8-byte elements, 2-D blocks, broadcast, a rotated
 * index `(k + tx) % 32`, indexes not known per lane, padding evaluated
 * without an edit, wmma fragment loads and inline-asm ldmatrix read as
 * ldmatrix phases (their degree, padding, the alignment of their
 * pointers), XOR swizzles evaluated without an edit and the one chosen
 * for an array (its mask, shift and units, and why none applies), global
 * sectors, and where the block shape comes from.
 *
 * Every snippet is the kernel below; its statements begin on line 4:
 *   1 __global__ void k(const float *in, float *out, int N, const int *idx)
 *   2 {
 *   3     int tx = threadIdx.x, ty = threadIdx.y; float acc = 0;
 *   4     (the statements of the test, one access per line)
 */
#include "banks.h"
#include "parse.h"
#include "kp_test_parse.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL(decls, body)                                                                        \
	"__global__ void k(const float *in, float *out, int N, const int *idx)\n"                  \
	"{\n"                                                                                      \
	"    int tx = threadIdx.x, ty = threadIdx.y; float acc = 0;\n" body "    out[0] = acc;\n"  \
	"    (void)sizeof(" decls ");\n"                                                           \
	"}\n"

static kp_file F;
static kp_bk_result R;

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

static void parse_src(const char *src)
{
	kp_test_parse(&F, "snippet.cu", src);
	cr_assert(F.nkernels >= 1);
}

/* Parses src and analyses its first kernel for a bx x by block, with
 * `pad` more elements in the rows of the array called pad_name. */
static void run_pad(const char *src, int bx, int by, const char *pad_name, long long pad)
{
	parse_src(src);
	const kp_decl *pd = NULL;
	for (int i = 0; pad_name && i < F.ndecls; i++)
		if (F.decls[i]->name && !strcmp(F.decls[i]->name, pad_name) &&
		    F.decls[i]->is_shared)
			pd = F.decls[i];
	cr_assert(!pad_name || pd, "no shared array %s", pad_name);
	kp_bk_block b = {bx, by, 1, "test"};
	kp_bk_analyze(&F, F.kernels[0], &b, pd, pad, &R);
}
#define run(src, bx, by) run_pad((src), (bx), (by), NULL, 0)

/* The access of `space` on `line` (the only one). */
static const kp_bk_access *at(int line, kp_bk_space space)
{
	const kp_bk_access *r = NULL;
	for (int i = 0; i < R.n; i++)
		if (R.acc[i].line == line && R.acc[i].space == space) {
			cr_assert_null(r, "two accesses on line %d", line);
			r = &R.acc[i];
		}
	cr_assert_not_null(r, "no access on line %d", line);
	return r;
}

static int degree(int line)
{
	const kp_bk_access *x = at(line, KP_BK_SHARED);
	cr_assert_null(x->not_analysed, "line %d not analysed: %s", line, x->not_analysed);
	return x->degree;
}

TestSuite(banks, .fini = release);

/* --- the models alone ----------------------------------------------------- */

Test(banks, degree_model)
{
	long long a[32];
	int bank;
	unsigned lanes;
	for (int L = 0; L < 32; L++)
		a[L] = L * 128; /* a column of float[32][32] */
	cr_expect_eq(kp_bk_degree(a, 32, 4, &bank, &lanes), 32);
	cr_expect_eq(bank, 0);
	cr_expect_eq(lanes, 0xffffffffu);
	for (int L = 0; L < 32; L++)
		a[L] = 0; /* broadcast: one word */
	cr_expect_eq(kp_bk_degree(a, 32, 4, &bank, &lanes), 1);
	for (int L = 0; L < 32; L++)
		a[L] = L * 2; /* 2-byte elements: two lanes per word */
	cr_expect_eq(kp_bk_degree(a, 32, 2, &bank, &lanes), 1);
	for (int L = 0; L < 32; L++)
		a[L] = L * 16; /* float4 in a row: 4 phases of 8 lanes */
	cr_expect_eq(kp_bk_degree(a, 32, 16, &bank, &lanes), 1);
	for (int L = 0; L < 32; L++)
		a[L] = (L % 2) * 128; /* two words of bank 0 */
	cr_expect_eq(kp_bk_degree(a, 32, 4, &bank, &lanes), 2);
	cr_expect_eq(kp_bk_degree(a, 16, 4, &bank, &lanes), 2);
	cr_expect_str_eq(kp_bk_lanes_text(&F, 0x7), "0,1,2");
}

Test(banks, sector_model)
{
	long long a[32];
	int ideal;
	for (int L = 0; L < 32; L++)
		a[L] = L * 4;
	cr_expect_eq(kp_bk_sectors(a, 32, 4, &ideal), 4);
	cr_expect_eq(ideal, 4);
	for (int L = 0; L < 32; L++)
		a[L] = L * 4096 * 4;
	cr_expect_eq(kp_bk_sectors(a, 32, 4, &ideal), 32);
	cr_expect_eq(ideal, 4);
	for (int L = 0; L < 32; L++)
		a[L] = 4 + L * 4; /* misaligned by one float */
	cr_expect_eq(kp_bk_sectors(a, 32, 4, &ideal), 5);
	cr_expect_eq(ideal, 4);
	for (int L = 0; L < 32; L++)
		a[L] = 0;
	cr_expect_eq(kp_bk_sectors(a, 32, 4, &ideal), 1);
	cr_expect_eq(ideal, 1);
}

/* --- shared accesses from source ------------------------------------------ */

Test(banks, row_and_column)
{
	run(KERNEL("s[0][0] + p[0][0]",
		   "    __shared__ float s[32][32]; __shared__ float p[32][33];\n"
		   "    s[0][tx] = in[tx];\n" /* 5 */
		   "    acc += s[tx][0];\n"   /* 6 */
		   "    acc += p[tx][0];\n"   /* 7 */
		   "    acc += s[0][0] + s[ty][1];\n" /* 8: broadcast */),
	    32, 1);
	cr_expect_eq(degree(5), 1);
	cr_expect(at(5, KP_BK_SHARED)->store);
	const kp_bk_access *c = at(6, KP_BK_SHARED);
	cr_expect_eq(degree(6), 32);
	cr_expect_not(c->store);
	cr_expect_eq(c->bank, 0);
	cr_expect_eq(c->lanes, 0xffffffffu);
	cr_expect_eq(degree(7), 1);
	for (int i = 0; i < R.n; i++)
		if (R.acc[i].line == 8)
			cr_expect_eq(R.acc[i].degree, 1);
}

Test(banks, padding_evaluated)
{
	run_pad(KERNEL("s[0][0]", "    __shared__ float s[32][32];\n"
				  "    acc += s[tx][0];\n" /* 5 */),
		32, 1, "s", 1);
	cr_expect_eq(degree(5), 1);
}

Test(banks, float4)
{
	run(KERNEL("s[0][0] + q[0][0]",
		   "    __shared__ float s[32][32]; __shared__ float q[32][36];\n"
		   "    float4 a = *reinterpret_cast<float4 *>(&s[tx][0]);\n"     /* 5 */
		   "    float4 b = *reinterpret_cast<float4 *>(&q[tx][0]);\n"     /* 6 */
		   "    float4 c = *reinterpret_cast<float4 *>(&s[0][tx * 4]);\n" /* 7 */
		   "    acc += a.x + b.x + c.x;\n"),
	    32, 1);
	cr_expect_eq(at(5, KP_BK_SHARED)->width, 16);
	cr_expect_eq(degree(5), 8);
	cr_expect_eq(degree(6), 1);
	cr_expect_eq(degree(7), 1);
}

Test(banks, vector_store)
{
	run(KERNEL("s[0][0]",
		   "    __shared__ float s[32][32]; float4 v = reinterpret_cast<const float4 *>(in)[tx];\n"
		   "    *reinterpret_cast<float4 *>(&s[tx][0]) = v;\n" /* 5 */
		   "    acc += (*reinterpret_cast<float4 *>(&s[0][tx * 4])).x;\n" /* 6 */),
	    32, 1);
	cr_expect(at(5, KP_BK_SHARED)->store);
	cr_expect_eq(at(5, KP_BK_SHARED)->width, 16);
	cr_expect_not(at(6, KP_BK_SHARED)->store);
}

Test(banks, two_and_eight_bytes)
{
	run(KERNEL("h[0][0] + d[0][0]",
		   "    __shared__ unsigned short h[32][64]; __shared__ double d[32][32];\n"
		   "    acc += h[0][tx];\n" /* 5: two lanes in one word */
		   "    acc += h[tx][0];\n" /* 6 */
		   "    acc += d[0][tx];\n" /* 7: two phases of 16 lanes */
		   "    acc += d[tx][0];\n" /* 8 */),
	    32, 1);
	cr_expect_eq(degree(5), 1);
	cr_expect_eq(degree(6), 32);
	cr_expect_eq(degree(7), 1);
	cr_expect_eq(degree(8), 16);
}

Test(banks, two_d_block)
{
	run(KERNEL("s[0][0]", "    __shared__ float s[16][16];\n"
			      "    acc += s[ty][tx];\n" /* 5: a warp spans two rows */
			      "    acc += s[tx][ty];\n" /* 6 */),
	    16, 16);
	cr_expect_eq(degree(5), 1);
	cr_expect_eq(degree(6), 8);
}

Test(banks, rotated_index_and_loop_counter)
{
	run(KERNEL("s[0][0]", "    __shared__ float s[32][32];\n"
			      "    for (int k = 0; k < 32; ++k) {\n"
			      "        acc += s[tx][(k + tx) % 32];\n" /* 6 */
			      "        acc += s[tx][k];\n"             /* 7 */
			      "        acc += s[k][tx];\n"             /* 8 */
			      "    }\n"),
	    32, 1);
	cr_expect_eq(degree(6), 1);
	cr_expect_eq(degree(7), 32);
	cr_expect_eq(degree(8), 1);
}

Test(banks, not_known_per_lane)
{
	run(KERNEL("s[0][0]", "    __shared__ float s[32][32];\n"
			      "    acc += s[idx[tx]][0];\n" /* 5 */
			      "    int r = tx; if (acc > 0) r = idx[0];\n"
			      "    acc += s[r][0];\n" /* 7 */),
	    32, 1);
	cr_expect_not_null(at(5, KP_BK_SHARED)->not_analysed);
	cr_expect_not_null(at(7, KP_BK_SHARED)->not_analysed);
	cr_expect_eq(at(7, KP_BK_SHARED)->degree, 0);
}

/* --- wmma and ldmatrix fragment loads: ldmatrix phases of 8 rows of 16 B ------ */

/* Lines 1-7 below, the statements of the test from line 8 on. */
#define FRAGMENTS(body)                                                                            \
	"#include <mma.h>\n"                                                                       \
	"using namespace nvcuda;\n"                                                                \
	"__global__ void k(float *out)\n"                                                          \
	"{\n"                                                                                      \
	"    int tx = threadIdx.x; float acc = 0; unsigned r0, r1, r2, r3;\n"                      \
	"    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;\n"              \
	"    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;\n" body         \
	"    out[0] = acc + (float)fa.x[0] + (float)fb.x[0] + r0 + r1 + r2 + r3;\n"                \
	"}\n"
#define LDMATRIX(addr)                                                                             \
	"    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\" : " \
	"\"=r\"(r0), \"=r\"(r1), \"=r\"(r2), \"=r\"(r3) : \"r\"(" addr "));\n"

static const char *const wmma_src = FRAGMENTS(
	"    __shared__ __align__(32) half a[64][64], b[64][72], c[32][40], d[64][64];\n" /* 8 */
	"    wmma::load_matrix_sync(fa, &a[16][0], 64);\n"                     /* 9: 128 B rows */
	"    wmma::load_matrix_sync(fa, &b[16][0], 72);\n"                     /* 10: 144 B */
	"    wmma::load_matrix_sync(fa, &c[0][8], 40);\n"                      /* 11: 80 B */
	"    wmma::load_matrix_sync(fa, a[0] + 16, 64);\n"                     /* 12: T + off */
	"    wmma::load_matrix_sync(fb, (half *)d + 16 * 64, 64);\n"           /* 13: col_major */
	"    for (int kk = 0; kk < 64; kk += 16)\n"                            /* 14 */
	"        wmma::load_matrix_sync(fb, &d[kk][0], 64);\n"                 /* 15 */
	"    for (int r = 0; r < 16; ++r)\n"                                   /* 16 */
	"        wmma::load_matrix_sync(fa, &c[r][0], 40);\n"                  /* 17: odd rows */
	"    __shared__ __align__(32) float f[16][32];\n"                      /* 18 */
	"    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;\n"       /* 19 */
	"    wmma::load_matrix_sync(fc, &f[0][0], 32, wmma::mem_row_major);\n" /* 20 */
	"    acc += fc.x[0];\n");

Test(banks, wmma_fragment_loads)
{
	run(wmma_src, 32, 4);
	const kp_bk_access *x = at(9, KP_BK_SHARED);
	cr_expect(x->wmma);
	cr_expect_str_eq(x->frag, "matrix_a 16x16");
	cr_expect_eq(x->row_stride, 128);
	cr_expect_eq(degree(9), 8); /* the 8 rows of a phase in banks 0-3 */
	cr_expect_eq(x->lanes, 0xffu);
	cr_expect_eq(x->misaligned, 0);
	cr_expect_eq(degree(10), 1);                       /* padded by 8 halfs */
	cr_expect_eq(degree(11), 1);                       /* 80-byte rows: 8 groups of 4 banks */
	cr_expect_eq(at(11, KP_BK_SHARED)->misaligned, 1); /* &c[0][8]: 16 bytes in */
	cr_expect_eq(degree(12), 8);
	cr_expect_str_eq(at(13, KP_BK_SHARED)->frag, "matrix_b 16x16");
	cr_expect_eq(degree(13), 8);
	cr_expect_eq(degree(15), 8);
	/* rows 1 and 5 (r: 0, 1, 5) of 80-byte rows: 80 and 400 bytes in */
	cr_expect_eq(at(17, KP_BK_SHARED)->misaligned, 1);
	const kp_bk_access *acc = at(20, KP_BK_SHARED);
	cr_expect_not_null(acc->not_analysed);
	cr_expect(strstr(acc->not_analysed, "accumulator"), "%s", acc->not_analysed);
	cr_expect_eq(acc->misaligned, 0);
	const char *id = NULL, *msg = kp_bk_finding(&F, x, &id);
	cr_assert_not_null(msg);
	cr_expect_str_eq(id, "kpipe-bank-conflict");
	cr_expect(strstr(msg, "wmma load of a matrix_a 16x16 fragment from shared `a`, rows 128 "
			      "bytes apart") &&
			  strstr(msg, "8-way bank conflict"),
		  "%s", msg);
}

Test(banks, wmma_padding_and_alignment)
{
	/* 8 halfs more: 144-byte rows, conflict-free; the ld spelled 64 is the
	 * row's length and follows; rows 16 and 80 (kk: 0, 16, 80) stay 32-byte
	 * aligned; rows 1 and 5 of c only with 32-byte rows */
	run_pad(wmma_src, 32, 4, "a", 8);
	cr_expect_eq(degree(9), 1);
	cr_expect_eq(at(9, KP_BK_SHARED)->row_stride, 144);
	cr_expect_eq(at(9, KP_BK_SHARED)->misaligned, 0);
	release();
	run_pad(wmma_src, 32, 4, "d", 8);
	cr_expect_eq(degree(15), 1);
	cr_expect_eq(at(15, KP_BK_SHARED)->misaligned, 0);
	release();
	run_pad(wmma_src, 32, 4, "c", 8); /* 96-byte rows: every row 32-byte aligned */
	cr_expect_eq(at(17, KP_BK_SHARED)->misaligned, 0);
	cr_expect_eq(degree(17), 2); /* rows 0 and 4 in one group: 4 x 96 = 3 x 128 */
	release();
	run_pad(wmma_src, 32, 4, "c", 16); /* 112 bytes: 16-byte rows, not 32 */
	cr_expect_eq(at(17, KP_BK_SHARED)->misaligned, 1);
}

Test(banks, ldmatrix_rows)
{
	run(FRAGMENTS(
		    "    __shared__ __align__(128) half a[64][64], b[64][72];\n" /* 8 */
		    "    unsigned sa = static_cast<unsigned>(\n"
		    "        __cvta_generic_to_shared(&a[tx % 16][(tx / 16) * 8]));\n"
		    "    unsigned sb = static_cast<unsigned>(\n"
		    "        __cvta_generic_to_shared(&b[tx % 16][(tx / 16) * 8]));\n"
		    "    unsigned sh = static_cast<unsigned>(__cvta_generic_to_shared(&a[0][0])) +\n"
		    "        (tx % 16) * 128 + (tx / 16) * 16;\n" /* 14 */
		    LDMATRIX("sa")                                /* 15 */
		    LDMATRIX("sb")                                /* 16 */
		    LDMATRIX("sh")                                /* 17 */
		    LDMATRIX(
			    "static_cast<unsigned>(__cvta_generic_to_shared(&b[tx][0]))") /* 18 */),
	    32, 1);
	const kp_bk_access *x = at(15, KP_BK_SHARED);
	cr_expect_eq(x->ldmatrix, 4);
	cr_expect_eq(degree(15), 8); /* lanes 0-7 give rows 0-7 of matrix 0: 128 B apart */
	cr_expect_eq(x->lanes, 0xffu);
	cr_expect_eq(x->misaligned, 0);
	cr_expect_not(x->hand_offset);
	cr_expect_not_null(x->addr);
	cr_expect_eq(degree(16), 1);
	cr_expect_eq(degree(17), 8);
	cr_expect(at(17, KP_BK_SHARED)->hand_offset);
	cr_expect_eq(degree(18), 1); /* 32 rows 144 B apart */
	/* the conversions of the addresses are the ldmatrix's, not accesses of their own */
	for (int i = 0; i < R.n; i++)
		cr_expect(R.acc[i].space != KP_BK_SHARED || R.acc[i].ldmatrix, "line %d",
			  R.acc[i].line);
	const char *id = NULL, *msg = kp_bk_finding(&F, x, &id);
	cr_assert_not_null(msg);
	cr_expect(strstr(msg, "`a[tx % 16][(tx / 16) * 8]` (ldmatrix.x4 of shared `a`") &&
			  strstr(msg, "8-way bank conflict"),
		  "%s", msg);
	release();
	run_pad(FRAGMENTS("    __shared__ __align__(128) half a[64][64];\n"
			  "    unsigned sa = static_cast<unsigned>(\n"
			  "        __cvta_generic_to_shared(&a[tx % 16][(tx / 16) * 8]));\n"
			  "    a[0][tx] = 0;\n" LDMATRIX("sa") /* 12 */),
		32, 1, "a", 8);
	cr_expect_eq(degree(12), 1);
	cr_expect_eq(at(12, KP_BK_SHARED)->misaligned, 0);
}

/* --- XOR swizzles: evaluated without an edit, and the one chosen ----------- */

/* Parses src and analyses its first kernel for a bx x by block with the
 * swizzle z of the array called name. */
static void run_swizzle(const char *src, int bx, int by, const char *name, kp_bk_swizzle z)
{
	parse_src(src);
	kp_bk_layout lay = {NULL, 0, z};
	for (int i = 0; i < F.ndecls; i++)
		if (F.decls[i]->name && !strcmp(F.decls[i]->name, name) && F.decls[i]->is_shared)
			lay.arr = F.decls[i];
	cr_assert_not_null(lay.arr, "no shared array %s", name);
	kp_bk_block b = {bx, by, 1, "test"};
	kp_bk_analyze_layout(&F, F.kernels[0], &b, &lay, &R);
}

/* The swizzle kp_bk_swizzle_choose() picks for array `name` of the first
 * kernel of src (parsed), in units of `unit` elements; its return value. */
static int choose(const char *src, int bx, int by, const char *name, long long unit,
		  kp_bk_swizzle *z, int *worst, const char **why, int *line)
{
	parse_src(src);
	const kp_decl *d = NULL;
	for (int i = 0; i < F.ndecls; i++)
		if (F.decls[i]->name && !strcmp(F.decls[i]->name, name) && F.decls[i]->is_shared)
			d = F.decls[i];
	cr_assert_not_null(d, "no shared array %s", name);
	kp_bk_block b = {bx, by, 1, "test"};
	int sum;
	return kp_bk_swizzle_choose(&F, F.kernels[0], &b, d, unit, z, worst, &sum, why, line);
}

static const char *const transpose_src = KERNEL("s[0][0]",
						"    __shared__ float s[32][32];\n"
						"    for (int j = 0; j < 32; j += 8)\n" /* 5 */
						"        s[ty + j][tx] = in[tx];\n"     /* 6 */
						"    for (int j = 0; j < 32; j += 8)\n" /* 7 */
						"        acc += s[tx][ty + j];\n" /* 8 */);

Test(banks, swizzle_evaluated)
{
	run(transpose_src, 32, 8);
	cr_expect_eq(degree(8), 32);
	release();
	/* s[r][c ^ (r & 31)]: the 32 rows of the column read in 32 banks */
	run_swizzle(transpose_src, 32, 8, "s", (kp_bk_swizzle){1, 31, 0});
	cr_expect_eq(degree(6), 1);
	cr_expect_eq(degree(8), 1);
	cr_expect_not(at(8, KP_BK_SHARED)->swz_split);
	release();
	/* r & 7: 8 banks for 32 rows */
	run_swizzle(transpose_src, 32, 8, "s", (kp_bk_swizzle){1, 7, 0});
	cr_expect_eq(degree(8), 4);
	release();
	/* the XOR in the source is evaluated the same way */
	run(KERNEL("s[0][0]", "    __shared__ float s[32][32];\n"
			      "    acc += s[tx][ty ^ (tx & 31)];\n" /* 5 */),
	    32, 1);
	cr_expect_eq(degree(5), 1);
}

Test(banks, swizzle_splits)
{
	/* float4 accesses: units of 4 floats keep them whole, units of 2 do not */
	static const char *const src =
		KERNEL("s[0][0]", "    __shared__ float s[32][32];\n"
				  "    acc += (*reinterpret_cast<float4 *>(&s[tx][0])).x;\n" /* 5 */
				  "    acc += s[tx][tx - 1];\n" /* 6: lane 0 before its row */);
	run_swizzle(src, 32, 1, "s", (kp_bk_swizzle){4, 7, 0});
	cr_expect_eq(at(5, KP_BK_SHARED)->swz_split, 0);
	cr_expect_eq(degree(5), 1);
	cr_expect_eq(at(6, KP_BK_SHARED)->swz_split, 2);
	release();
	run_swizzle(src, 32, 1, "s", (kp_bk_swizzle){2, 7, 0});
	cr_expect_eq(at(5, KP_BK_SHARED)->swz_split, 1);
	release();
	/* a wmma fragment's rows are out of a swizzle's reach */
	run_swizzle(wmma_src, 32, 4, "a", (kp_bk_swizzle){8, 7, 0});
	cr_expect_eq(at(9, KP_BK_SHARED)->swz_split, 1);
}

Test(banks, swizzle_choice)
{
	kp_bk_swizzle z;
	int worst, line;
	const char *why;
	/* the transpose: all 5 bits of the row, in units of one float */
	cr_assert_eq(choose(transpose_src, 32, 8, "s", 1, &z, &worst, &why, &line), 0, "%s", why);
	cr_expect_eq(z.unit, 1);
	cr_expect_eq(z.mask, 31);
	cr_expect_eq(z.shift, 0);
	cr_expect_eq(worst, 1);
	release();
	/* float4 rows of 64 bytes read down a column, 8 lanes per phase: two
	 * rows share 128 bytes, so the row's bit 0 must not take part: mask 3
	 * of r >> 1, units of 4 floats */
	cr_assert_eq(choose(KERNEL("s[0][0]",
				   "    __shared__ float s[64][16];\n"
				   "    acc += (*reinterpret_cast<float4 *>(&s[tx][0])).x;\n"),
			    32, 1, "s", 4, &z, &worst, &why, &line),
		     0, "%s", why);
	cr_expect_eq(z.unit, 4);
	cr_expect_eq(z.mask, 3);
	cr_expect_eq(z.shift, 1);
	cr_expect_eq(worst, 1);
	release();
	/* ldmatrix rows of 128 bytes: (r & 7) << 3 of halfs */
	cr_assert_eq(
		choose(FRAGMENTS("    __shared__ __align__(128) half a[64][64];\n"
				 "    unsigned sa = static_cast<unsigned>(\n"
				 "        __cvta_generic_to_shared(&a[tx % 16][(tx / 16) * 8]));\n"
				 "    a[0][tx] = 0;\n" LDMATRIX("sa")),
		       32, 1, "a", 8, &z, &worst, &why, &line),
		0, "%s", why);
	cr_expect_eq(z.unit, 8);
	cr_expect_eq(z.mask, 7);
	cr_expect_eq(z.shift, 0);
	cr_expect_eq(worst, 1);
	release();
	/* rows of 48 floats: blocks of 16 at most; rows 2m and 2m + 1 are 16
	 * banks apart, so (r >> 1) & 15 spreads the 32 rows over 32 banks */
	cr_assert_eq(choose(KERNEL("s[0][0]", "    __shared__ float s[32][48];\n"
					      "    acc += s[tx][0];\n"),
			    32, 1, "s", 1, &z, &worst, &why, &line),
		     0, "%s", why);
	cr_expect_eq(z.unit, 1);
	cr_expect_eq(z.mask, 15);
	cr_expect_eq(z.shift, 1);
	cr_expect_eq(worst, 1);
}

Test(banks, swizzle_refused)
{
	kp_bk_swizzle z;
	int worst, line;
	const char *why;
	/* rows of 33 floats hold no block of two units */
	cr_expect_eq(choose(KERNEL("s[0][0]", "    __shared__ float s[32][33];\n"
					      "    acc += s[2 * tx][0];\n"),
			    32, 1, "s", 1, &z, &worst, &why, &line),
		     -1);
	cr_expect(strstr(why, "rows of 33 elements hold no power-of-two block"), "%s", why);
	release();
	/* rows of 6 floats are not whole float4 units */
	cr_expect_eq(choose(KERNEL("s[0][0]", "    __shared__ float s[32][6];\n"
					      "    acc += s[tx][0];\n"),
			    32, 1, "s", 4, &z, &worst, &why, &line),
		     -1);
	cr_expect(strstr(why, "not whole units of 4"), "%s", why);
	release();
	/* a column index before its row's start, at line 5 */
	cr_expect_eq(choose(KERNEL("s[0][0]", "    __shared__ float s[32][32];\n"
					      "    acc += s[tx][tx - 1];\n"),
			    32, 1, "s", 1, &z, &worst, &why, &line),
		     -1);
	cr_expect(strstr(why, "past the end of its row"), "%s", why);
	cr_expect_eq(line, 5);
	release();
	/* wmma */
	cr_expect_eq(choose(wmma_src, 32, 4, "a", 8, &z, &worst, &why, &line), -1);
	cr_expect(strstr(why, "wmma load takes a pointer"), "%s", why);
	cr_expect_eq(line, 9);
}

/* --- global accesses -------------------------------------------------------- */

Test(banks, global_sectors)
{
	run(KERNEL("0", "    out[blockIdx.x * 32 + tx] = 1;\n" /* 4 */
			"    out[tx * N + blockIdx.y] = 2;\n"  /* 5 */
			"    acc += reinterpret_cast<const float4 *>(in)[tx].x;\n" /* 6 */),
	    32, 1);
	const kp_bk_access *a = at(4, KP_BK_GLOBAL), *b = at(5, KP_BK_GLOBAL),
			   *c = at(6, KP_BK_GLOBAL);
	cr_expect(a->store);
	cr_expect_eq(a->sectors, 4);
	cr_expect_eq(a->ideal, 4);
	cr_expect_eq(b->sectors, 32);
	cr_expect_eq(b->ideal, 4);
	cr_expect_eq(c->width, 16);
	cr_expect_eq(c->sectors, 16);
	cr_expect_eq(c->ideal, 16);
}

/* --- block shape ------------------------------------------------------------ */

#define LAUNCHED(launch)                                                                           \
	"__global__ void k(float *out) { out[threadIdx.x] = 0; }\n"                                \
	"void host(float *o)\n"                                                                    \
	"{\n"                                                                                      \
	"    dim3 blk(32, 8);\n" launch "}\n"

Test(banks, block_from_launch)
{
	kp_analyze_opts o;
	memset(&o, 0, sizeof(o));
	kp_bk_block b;
	parse_src(LAUNCHED("    k<<<1, dim3(16, 16)>>>(o);\n"));
	kp_bk_block_of(&F, F.kernels[0], &o, &b);
	cr_expect_eq(b.x, 16);
	cr_expect_eq(b.y, 16);
	cr_expect_eq(b.z, 1);
	cr_expect_str_eq(b.from, "launch at line 5");
	release();
	parse_src(LAUNCHED("    k<<<1, blk>>>(o);\n"));
	kp_bk_block_of(&F, F.kernels[0], &o, &b);
	cr_expect_eq(b.x, 32);
	cr_expect_eq(b.y, 8);
	release();
	/* two launches that disagree: no shape, unless --threads gives one */
	parse_src(LAUNCHED("    k<<<1, blk>>>(o); k<<<1, 64>>>(o);\n"));
	kp_bk_block_of(&F, F.kernels[0], &o, &b);
	cr_expect_eq(b.x, 0);
	o.threads = 128;
	kp_bk_block_of(&F, F.kernels[0], &o, &b);
	cr_expect_eq(b.x, 128);
	cr_expect_eq(b.y, 1);
	cr_expect_str_eq(b.from, "--threads (1-D)");
	o.block[0] = 8, o.block[1] = 4;
	kp_bk_block_of(&F, F.kernels[0], &o, &b);
	cr_expect_eq(b.x, 8);
	cr_expect_eq(b.y, 4);
	cr_expect_eq(b.z, 1);
	cr_expect_str_eq(b.from, "--block");
}

/* The launches a __launch_bounds__(THREADS, ..) must allow (occ_bound.c):
 * every block the file shows at most THREADS threads; a runtime block is
 * not known, and refuses the bound. */
Test(banks, launches_within_a_bound)
{
	int line = 0;
	parse_src(LAUNCHED("    k<<<1, blk>>>(o);\n    k<<<1, 64>>>(o);\n"));
	cr_expect_eq(kp_bk_launches_within(&F, F.kernels[0], 256, &line), 0);
	cr_expect_eq(line, 0);
	cr_expect_eq(kp_bk_launches_within(&F, F.kernels[0], 255, &line), 1);
	cr_expect_eq(line, 5, "the launch of 256 threads (dim3 blk(32, 8))");
	cr_expect_eq(kp_bk_launches_within(&F, F.kernels[0], 64, &line), 1);
	release();
	parse_src("__global__ void k(float *out) { out[threadIdx.x] = 0; }\n"
		  "void host(float *o, int n)\n"
		  "{\n"
		  "    k<<<1, 32>>>(o);\n"
		  "    k<<<1, n>>>(o);\n"
		  "}\n");
	cr_expect_eq(kp_bk_launches_within(&F, F.kernels[0], 1024, &line), -1);
	cr_expect_eq(line, 5);
	release();
	/* no launch in the file: nothing to contradict the bound */
	parse_src("__global__ void k(float *out) { out[threadIdx.x] = 0; }\n");
	cr_expect_eq(kp_bk_launches_within(&F, F.kernels[0], 32, &line), 0);
}

/* A fragment's use and layout are clang's template arguments, not words of
 * its spelling: an alias named like another use (`matrix_a_rows` is
 * matrix_b), an alias of col_major, a typedef'd accumulator. */
static const char *const frag_alias_src =
	"#include <mma.h>\n"                                                    /* 1 */
	"using namespace nvcuda;\n"                                             /* 2 */
	"using matrix_a_rows = wmma::matrix_b;\n"                               /* 3 */
	"using cm = wmma::col_major;\n"                                         /* 4 */
	"typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_t;\n" /* 5 */
	"__global__ void k(float *out)\n"                                       /* 6 */
	"{\n"                                                                   /* 7 */
	"    __shared__ __align__(32) half a[64][64];\n"                        /* 8 */
	"    __shared__ __align__(32) float f[16][32];\n"                       /* 9 */
	"    wmma::fragment<matrix_a_rows, 16, 16, 16, half, cm> fb;\n"         /* 10 */
	"    acc_t fc;\n"                                                       /* 11 */
	"    wmma::load_matrix_sync(fb, &a[16][0], 64);\n"                      /* 12 */
	"    wmma::load_matrix_sync(fc, &f[0][0], 32, wmma::mem_row_major);\n"  /* 13 */
	"    out[0] = (float)fb.x[0] + fc.x[0];\n"                              /* 14 */
	"}\n";

Test(banks, wmma_fragment_use_from_clang)
{
	run(frag_alias_src, 32, 4);
	const kp_bk_access *x = at(12, KP_BK_SHARED);
	cr_expect(x->wmma);
	cr_expect_str_eq(x->frag ? x->frag : "(none)", "matrix_b 16x16");
	cr_expect_null(x->not_analysed, "%s", x->not_analysed);
	const kp_bk_access *acc = at(13, KP_BK_SHARED);
	cr_expect_not_null(acc->not_analysed);
	cr_expect(acc->not_analysed && strstr(acc->not_analysed, "accumulator"), "%s",
		  acc->not_analysed ? acc->not_analysed : "(analysed)");
}
