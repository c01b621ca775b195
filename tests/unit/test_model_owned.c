/*
 * test_model_owned.c - the parsed model is complete when kp_parse returns
 * and the analysis writes nothing into it (docs/design.md, "Ownership"):
 * the carve-outs of an extern and of a static __shared__ array are
 * recorded by the parser (kp_decl.dyn_base, dyn_off, read as shared
 * arrays) before any analysis runs, a pointer that is changed or that
 * points into an array the kernel also names is not one, and running
 * kp_analyze twice leaves every declaration exactly as parsed and gives
 * the same loops.
 */
#include "analyze.h"
#include "arch.h"
#include "kp_test_parse.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const src = "__global__ void dyn(const float *g, float *out, int K)\n"
			       "{\n"
			       "    extern __shared__ float sram[];\n"
			       "    float *Kj = sram;\n"
			       "    float *Vj = &sram[256];\n"
			       "    float acc = 0;\n"
			       "    for (int k0 = 0; k0 < K; k0 += 256) {\n"
			       "        Kj[threadIdx.x] = g[k0 + threadIdx.x];\n"
			       "        Vj[threadIdx.x] = g[K + k0 + threadIdx.x];\n"
			       "        __syncthreads();\n"
			       "        for (int i = 0; i < 256; i++)\n"
			       "            acc += Kj[i] * Vj[i];\n"
			       "        __syncthreads();\n"
			       "    }\n"
			       "    out[threadIdx.x] = acc;\n"
			       "}\n"
			       "__global__ void carved(const float *g, float *out, int K)\n"
			       "{\n"
			       "    __shared__ __align__(16) char buf[2048];\n"
			       "    __shared__ float tile[64];\n"
			       "    float *As = (float *)buf;\n"
			       "    float *Bs = (float *)(buf + 1024);\n"
			       "    float *moved = &sram_like(tile)[0];\n"
			       "    float *Ts = &tile[0];\n"
			       "    moved++;\n"
			       "    float acc = tile[1] + *moved + *Ts;\n"
			       "    for (int k0 = 0; k0 < K; k0 += 256) {\n"
			       "        As[threadIdx.x] = g[k0 + threadIdx.x];\n"
			       "        Bs[threadIdx.x] = g[K + k0 + threadIdx.x];\n"
			       "        __syncthreads();\n"
			       "        for (int i = 0; i < 256; i++)\n"
			       "            acc += As[i] * Bs[i];\n"
			       "        __syncthreads();\n"
			       "    }\n"
			       "    out[threadIdx.x] = acc;\n"
			       "}\n";

static kp_file F;

static const kp_decl *var(const char *name)
{
	for (int i = 0; i < F.ndecls; i++)
		if (F.decls[i]->kind == KP_D_VAR && !strcmp(F.decls[i]->name, name))
			return F.decls[i];
	cr_assert_fail("no variable %s", name);
	return NULL;
}

static void parse(void)
{
	/* sram_like(t): the array itself, through a macro the parser sees
	 * expanded (a pointer into `tile`, which the kernel also names) */
	static char text[4096];
	snprintf(text, sizeof(text), "#define sram_like(t) (t)\n%s", src);
	kp_test_parse(&F, "owned.cu", text);
}

Test(model_owned, carve_outs_from_the_parser)
{
	parse();
	const kp_decl *sram = var("sram"), *kj = var("Kj"), *vj = var("Vj");
	cr_expect_eq(kj->dyn_base, sram, "Kj is a carve-out of sram after parsing");
	cr_expect_null(kj->dyn_off);
	cr_expect_eq(vj->dyn_base, sram);
	cr_expect_not_null(vj->dyn_off);
	cr_expect(kj->is_shared && kj->is_array && kj->ndims == 0);
	const kp_decl *buf = var("buf"), *as = var("As"), *bs = var("Bs");
	cr_expect_eq(as->dyn_base, buf, "As is a carve-out of the static buf");
	cr_expect_eq(bs->dyn_base, buf);
	cr_expect_not_null(bs->dyn_off);
	/* changed, or into an array the kernel names itself: no carve-out */
	cr_expect_null(var("moved")->dyn_base);
	cr_expect_null(var("Ts")->dyn_base);
	cr_expect(!var("Ts")->is_shared);
	kp_file_release(&F);
}

Test(model_owned, analysis_writes_no_declaration)
{
	parse();
	kp_decl *before = kp_xcalloc((size_t)F.ndecls, sizeof(*before));
	for (int i = 0; i < F.ndecls; i++)
		before[i] = *F.decls[i];
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	kp_analysis a1, a2;
	cr_assert_eq(kp_analyze(&a1, &F, &ao), 0);
	cr_assert_eq(kp_analyze(&a2, &F, &ao), 0);
	for (int i = 0; i < F.ndecls; i++)
		cr_expect(!memcmp(&before[i], F.decls[i], sizeof(before[i])),
			  "the analysis changed the declaration of '%s'", F.decls[i]->name);
	cr_expect_eq(a1.nloops, a2.nloops);
	for (int i = 0; i < a1.nloops && i < a2.nloops; i++) {
		cr_expect_eq(a1.loops[i]->eligible, a2.loops[i]->eligible);
		cr_expect_eq(a1.loops[i]->nreasons, a2.loops[i]->nreasons);
		cr_expect_eq(a1.loops[i]->ntiles, a2.loops[i]->ntiles);
	}
	free(before);
	kp_file_release(&F);
}
