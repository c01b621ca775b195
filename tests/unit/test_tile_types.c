/*
 * test_tile_types.c - whether a copy into a tile is a plain byte copy (a
 * load's `pure`) is decided by clang's canonical types, also for a tile
 * pointer carved out of dynamic shared memory, not by looking for one
 * type's spelling inside another's: a typedef of the element type is the
 * same type, an unsigned int is not an int.
 */
#include "kp_test.h"

#include "analyze.h"
#include "arch.h"
#include "parse.h"
#include "kp_test_parse.h"

static kp_file F;
static kp_analysis AN;

static void release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

TestSuite(tile_types, .fini = release);

/* The carve-out kernel with source element type `src_t`. */
static const char *carve(const char *src_t)
{
	static char buf[2048];
	snprintf(buf, sizeof(buf),
		 "typedef float real;\n"
		 "__global__ void cv(const %s *K, float *O, int n)\n"
		 "{\n"
		 "    extern __shared__ float sram[];\n"
		 "    float *Kj = sram;\n"
		 "    float acc = 0.0f;\n"
		 "    int t = threadIdx.x;\n"
		 "    for (int j = 0; j < n; j++) {\n"
		 "        Kj[t] = K[j * 64 + t];\n"
		 "        __syncthreads();\n"
		 "        for (int y = 0; y < 64; y++)\n"
		 "            acc += Kj[y];\n"
		 "        __syncthreads();\n"
		 "    }\n"
		 "    O[t] = acc;\n"
		 "}\n",
		 src_t);
	return buf;
}

/* The `pure` of the loop's one load, for source element type src_t. */
static int pure_of(const char *src_t)
{
	const char *src = carve(src_t);
	kp_test_parse(&F, "snippet.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	cr_assert_eq(AN.nloops, 1, "%s: %d loops", src_t, AN.nloops);
	const kp_loop *l = AN.loops[0];
	cr_assert_eq(l->nloads, 1, "%s: %d loads", src_t, l->nloads);
	int pure = l->loads[0].pure;
	release();
	return pure;
}

Test(tile_types, carve_out_element_from_clang)
{
	cr_expect(pure_of("float"), "float -> float is a byte copy");
	cr_expect(pure_of("real"), "real (typedef float) -> float is a byte copy");
	cr_expect_not(pure_of("int"), "int -> float converts");
	cr_expect_not(pure_of("unsigned int"), "unsigned int -> float converts");
}
