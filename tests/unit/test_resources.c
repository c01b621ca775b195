/*
 * test_resources.c - the ptxas report parser on captured nvcc output
 * (the .ptxas.txt files in tests/fixtures/sass/, see regen.sh), kernel-name matching,
 * warning keys, the occupancy-cliff message, and kp_resources_compile with
 * stand-in compilers (shell scripts), so no CUDA is needed.
 */
#include "kp_test.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "build_cache.h"
#include "resources.h"
#include "util.h"

#define FIXTURES KP_TEST_FIXTURES "sass/"

static void parse_fixture(kp_resources *r, const char *name)
{
	char *text = kp_test_fixture("sass", name);
	memset(r, 0, sizeof(*r));
	kp_resources_parse(r, text);
	free(text);
}

Test(resources_parse, one_kernel)
{
	kp_resources r;
	parse_fixture(&r, "naive.ptxas.txt");
	cr_assert_eq(r.nkernels, 1);
	const kp_kernel_res *k = &r.kernels[0];
	cr_assert_str_eq(k->name, "_Z12matmul_tiledPKfS0_Pfi");
	cr_assert_null(k->demangled);
	cr_assert(k->is_entry);
	cr_assert_eq(k->registers, 32);
	cr_assert_eq(k->smem, 8192);
	cr_assert_eq(k->barriers, 1);
	cr_assert_eq(k->stack_frame, 0);
	cr_assert_eq(k->spill_stores, 0);
	cr_assert_eq(k->spill_loads, 0);
	cr_assert_eq(r.nwarnings, 0);
	cr_assert_eq(kp_resources_find(&r, "_Z12matmul_tiledPKfS0_Pfi"), k);
	cr_assert_null(kp_resources_find(&r, "matmul_tiled"));
	kp_resources_release(&r);
}

Test(resources_parse, spills)
{
	kp_resources r;
	parse_fixture(&r, "tile128_spill.ptxas.txt");
	cr_assert_eq(r.nkernels, 1);
	const kp_kernel_res *k = &r.kernels[0];
	cr_assert_str_eq(k->name, "_Z15sgemm_128x128x8PKfS0_Pfiii");
	cr_assert_eq(k->registers, 32);
	cr_assert_eq(k->stack_frame, 952);
	cr_assert_eq(k->spill_stores, 2776);
	cr_assert_eq(k->spill_loads, 2560);
	cr_assert_eq(k->cumulative_stack, 952);
	cr_assert_eq(k->smem, 8192);
	kp_resources_release(&r);
}

Test(resources_parse, older_target_with_cmem_and_ptxas_warning)
{
	kp_resources r;
	parse_fixture(&r, "tile128.sm_80.ptxas.txt");
	cr_assert_eq(r.nkernels, 1);
	cr_assert_eq(r.kernels[0].registers, 119);
	cr_assert_eq(r.kernels[0].cmem0, 388);
	cr_assert_eq(r.kernels[0].smem, 8192);
	cr_assert_eq(r.nwarnings, 1);
	cr_assert(strncmp(r.warnings[0], "ptxas warning : For profile sm_80", 33) == 0, "%s",
		  r.warnings[0]);
	kp_resources_release(&r);
}

Test(resources_parse, called_function_is_not_an_entry)
{
	kp_resources r;
	parse_fixture(&r, "noinline.ptxas.txt");
	cr_assert_eq(r.nkernels, 3);
	const kp_kernel_res *triv = kp_resources_find(&r, "_Z7trivialPf");
	const kp_kernel_res *user = kp_resources_find(&r, "_Z11uses_calleePfi");
	const kp_kernel_res *callee = kp_resources_find(&r, "_Z4pickPKfi");
	cr_assert(triv && user && callee);
	cr_assert(triv->is_entry);
	cr_assert_eq(triv->registers, 8);
	cr_assert_eq(triv->barriers, 0);
	cr_assert(user->is_entry);
	cr_assert_eq(user->registers, 40);
	cr_assert_eq(user->stack_frame, 128);
	cr_assert_eq(user->cumulative_stack, 128);
	cr_assert_not(callee->is_entry);
	cr_assert_eq(callee->registers, 0);
	kp_resources_release(&r);
}

Test(resources_parse, warnings_and_several_kernels)
{
	kp_resources r;
	parse_fixture(&r, "multi.ptxas.txt");
	cr_assert_eq(r.nkernels, 2);
	cr_assert_str_eq(r.kernels[0].name, "_Z5scaleILi128EEvPff");
	cr_assert_eq(r.kernels[0].registers, 8);
	cr_assert_eq(r.kernels[0].smem, 0);
	cr_assert_str_eq(r.kernels[1].name, "_Z4axpyPfPKffi");
	cr_assert_eq(r.kernels[1].registers, 10);
	/* the "Remark: The warnings can be suppressed" line is no warning */
	cr_assert_eq(r.nwarnings, 1);
	cr_assert_str_eq(r.warnings[0],
			 "multi.cu(6): warning #177-D: variable \"unused\" was declared but never "
			 "referenced");
	cr_assert_str_eq(kp_resources_warning_key(r.warnings[0]),
			 "warning #177-D: variable \"unused\" was declared but never referenced");
	kp_resources_release(&r);
}

Test(resources_parse, appends_and_ignores_noise)
{
	kp_resources r = {0};
	cr_assert_eq(kp_resources_parse(&r, ""), 0);
	cr_assert_eq(kp_resources_parse(&r, "nvcc fatal   : Unknown option '-foo'\n"), 0);
	cr_assert_eq(kp_resources_parse(&r,
					"ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
					"ptxas info    : Used 12 registers, 16 bytes smem\n"),
		     1);
	cr_assert_eq(r.kernels[0].registers, 12);
	cr_assert_eq(r.kernels[0].smem, 16);
	cr_assert_eq(r.kernels[0].barriers, -1);
	kp_resources_release(&r);
}

Test(resources_warning_key, prefixes)
{
	cr_assert_str_eq(kp_resources_warning_key("a/b.cu(12): warning #550-D: x set but not used"),
			 "warning #550-D: x set but not used");
	cr_assert_str_eq(kp_resources_warning_key("ptxas warning : Registers are spilled"),
			 "ptxas warning : Registers are spilled");
}

Test(resources_names, matching)
{
	kp_kernel_res k = {.name = "_Z12matmul_tiledPKfS0_Pfi"};
	cr_assert(kp_resources_name_matches(&k, NULL));
	cr_assert(kp_resources_name_matches(&k, "_Z12matmul_tiledPKfS0_Pfi"));
	cr_assert(kp_resources_name_matches(&k, "matmul_tiled"));
	cr_assert_not(kp_resources_name_matches(&k, "matmul"));
	cr_assert_not(kp_resources_name_matches(&k, "tiled"));

	kp_kernel_res t = {.name = "_Z5scaleILi128EEvPff",
			   .demangled = "void scale<128>(float*, float)"};
	cr_assert(kp_resources_name_matches(&t, "scale"));
	cr_assert(kp_resources_name_matches(&t, "void scale<128>(float*, float)"));
	cr_assert_not(kp_resources_name_matches(&t, "cale"));
	cr_assert_not(kp_resources_name_matches(&t, "float"));

	kp_kernel_res n = {.name = "_ZN2ns4gemmEPf", .demangled = "ns::gemm(float*)"};
	cr_assert(kp_resources_name_matches(&n, "gemm"));
	cr_assert(kp_resources_name_matches(&n, "ns::gemm"));
}

Test(resources_cliff, register_cliff_at_256_threads)
{
	/* the guide's 128x128x8 register-staging figures on an H200 */
	const kp_arch *a = kp_arch_find("sm_90");
	cr_assert_not_null(a);
	kp_kernel_res before = {.registers = 128, .smem = 8192};
	kp_kernel_res after = {.registers = 134, .smem = 16384};
	char msg[256];
	cr_assert(kp_resources_cliff(a, 256, &before, &after, msg, sizeof(msg)));
	cr_assert_str_eq(msg, "occupancy cliff crossed: 2 -> 1 blocks/SM (registers 128 -> 134, "
			      "static smem 8192 -> 16384 bytes; limited by registers)");

	after.registers = 128;
	cr_assert_not(kp_resources_cliff(a, 256, &before, &after, msg, sizeof(msg)));
	cr_assert_str_eq(msg, "");
	cr_assert_not(kp_resources_cliff(NULL, 256, &before, &after, msg, sizeof(msg)));
}

Test(resources_cliff, shared_memory_cliff)
{
	const kp_arch *a = kp_arch_find("sm_90");
	kp_kernel_res before = {.registers = 32, .smem = 24 * 1024};
	kp_kernel_res after = {.registers = 32, .smem = 48 * 1024};
	char msg[256];
	cr_assert(kp_resources_cliff(a, 128, &before, &after, msg, sizeof(msg)));
	cr_assert(strstr(msg, "static smem 24576 -> 49152 bytes; limited by shared memory"), "%s",
		  msg);
}

/* ---- running the compiler --------------------------------------------- */

/* An executable stand-in for a tool in the test's directory. */
static char *script(const char *name, const char *body)
{
	char *path = kp_test_path(name);
	kp_test_write_script(path, body);
	return path;
}

Test(resources_compile, replays_the_report_and_passes_arguments, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	/* prints its arguments, then the captured report */
	char *nvcc =
		script("nvcc", "#!/bin/sh\necho \"args: $*\"\ncat " FIXTURES "naive.ptxas.txt\n");
	const char *args[] = {"-I", "inc", "-DTILE=32"};
	kp_compile_opts o = {.nvcc = nvcc, .arch = "sm_90", .args = args, .nargs = 3};
	kp_resources r;
	cr_assert_eq(kp_resources_compile(&r, &o, "x.cu", "/tmp/x.cubin"), KP_RES_OK, "%s",
		     r.error);
	cr_assert_eq(r.status, 0);
	cr_assert(
		strstr(r.log,
		       "args: -arch=sm_90 -cubin -O3 -Xptxas -v -I inc -DTILE=32 -o /tmp/x.cubin x.cu"),
		"%s", r.log);
	cr_assert_eq(r.nkernels, 1);
	cr_assert_eq(r.kernels[0].registers, 32);
	kp_resources_release(&r);
	free(nvcc);
}

Test(resources_compile, failure_reports_the_first_error, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *nvcc = script(
		"nvcc",
		"#!/bin/sh\n"
		"echo 'x.cu(3): warning #177-D: variable \"u\" was declared but never referenced'\n"
		"echo 'x.cu(7): error: identifier \"tile\" is undefined'\n"
		"echo '1 error detected in the compilation of \"x.cu\".'\n"
		"exit 2\n");
	kp_compile_opts o = {.nvcc = nvcc, .arch = "sm_90"};
	kp_resources r;
	cr_assert_eq(kp_resources_compile(&r, &o, "x.cu", "/tmp/x.cubin"), KP_RES_ECOMPILE);
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.error,
			 "nvcc exited with 2: x.cu(7): error: identifier \"tile\" is undefined");
	cr_assert_eq(r.nwarnings, 1);
	kp_resources_release(&r);
	free(nvcc);
}

Test(resources_compile, missing_compiler)
{
	kp_compile_opts o = {.nvcc = "/nonexistent/nvcc", .arch = "sm_90"};
	kp_resources r;
	cr_assert_eq(kp_resources_compile(&r, &o, "x.cu", "/tmp/x.cubin"), KP_RES_ENOTOOL);
	cr_assert_str_eq(r.error, "cannot run '/nonexistent/nvcc'");
	kp_resources_release(&r);
}

Test(resources_demangle, with_cxxfilt)
{
	kp_resources r;
	parse_fixture(&r, "multi.ptxas.txt");
	if (kp_resources_demangle(&r, "c++filt") != 0) {
		kp_resources_release(&r);
		cr_skip_test("c++filt not available");
	}
	cr_assert_str_eq(r.kernels[0].demangled, "void scale<128>(float*, float)");
	cr_assert_str_eq(r.kernels[1].demangled, "axpy(float*, float const*, float, int)");
	cr_assert(kp_resources_name_matches(&r.kernels[0], "scale"));
	kp_resources_release(&r);
}

Test(resources_demangle, missing_filter_leaves_names)
{
	kp_resources r;
	parse_fixture(&r, "multi.ptxas.txt");
	cr_assert_eq(kp_resources_demangle(&r, "/nonexistent/c++filt"), -1);
	cr_assert_null(r.kernels[0].demangled);
	kp_resources_release(&r);
}

/* With a cache directory the same source and command compile once: the
 * second call copies the cubin and replays nvcc's report; another source
 * text, or another flag, compiles again. */
Test(resources_compile, cache_compiles_a_source_once, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *count = kp_test_path("count");
	char *cubin = kp_test_path("out.cubin");
	char *cache = kp_test_path("cache");
	char *src = kp_test_path("k.cu");
	kp_strbuf body = KP_STRBUF_INIT;
	kp_strbuf_addf(&body,
		       "#!/bin/sh\necho x >>%s\nwhile [ $# -gt 1 ]; do [ \"$1\" = -o ] && "
		       "out=$2; shift; done\necho \"cubin of $1\" >\"$out\"\ncat " FIXTURES
		       "naive.ptxas.txt\n",
		       count);
	char *nvcc = script("nvcc", kp_strbuf_str(&body));
	cr_assert_eq(kp_write_file_atomic(src, "__global__ void k() {}\n", 23), 0);
	const char *flag[] = {"-DTILE=32"};
	kp_compile_opts o = {
		.nvcc = nvcc, .arch = "sm_90", .args = flag, .nargs = 1, .cache_dir = cache};
	for (int i = 0; i < 2; i++) {
		kp_resources r;
		unlink(cubin);
		cr_assert_eq(kp_resources_compile(&r, &o, src, cubin), KP_RES_OK, "%s", r.error);
		cr_assert_eq(r.nkernels, 1);
		cr_assert_eq(r.kernels[0].registers, 32);
		kp_resources_release(&r);
		char *c = NULL;
		cr_assert_eq(kp_read_file(cubin, &c, NULL), 0, "no cubin on call %d", i);
		cr_assert(strstr(c, "cubin of "), "%s", c);
		free(c);
	}
	char *n = NULL;
	cr_assert_eq(kp_read_file(count, &n, NULL), 0);
	cr_assert_str_eq(n, "x\n", "nvcc ran more than once");
	free(n);
	/* another flag, then another text: compiled again */
	const char *flag2[] = {"-DTILE=64"};
	o.args = flag2;
	kp_resources r;
	cr_assert_eq(kp_resources_compile(&r, &o, src, cubin), KP_RES_OK, "%s", r.error);
	kp_resources_release(&r);
	cr_assert_eq(kp_write_file_atomic(src, "__global__ void k(int) {}\n", 26), 0);
	cr_assert_eq(kp_resources_compile(&r, &o, src, cubin), KP_RES_OK, "%s", r.error);
	kp_resources_release(&r);
	cr_assert_eq(kp_read_file(count, &n, NULL), 0);
	cr_assert_str_eq(n, "x\nx\nx\n");
	free(n);
	kp_strbuf_release(&body);
	free(nvcc);
	free(src);
	free(cache);
	free(cubin);
	free(count);
}

/* The key covers the arguments and the files' paths and contents, in order;
 * the content key the same without the paths. */
Test(resources_compile, build_key, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *f = kp_test_path("a.cu");
	cr_assert_eq(kp_write_file_atomic(f, "one", 3), 0);
	const char *const a1[] = {"nvcc", "-O3"}, *const a2[] = {"nvcc-O3", ""};
	const char *const files[] = {f};
	char *k1 = kp_build_key(a1, 2, files, 1), *k2 = kp_build_key(a2, 2, files, 1);
	char *k3 = kp_build_key(a1, 2, files, 1);
	cr_assert_eq(strlen(k1), 32);
	cr_assert_str_neq(k1, k2);
	cr_assert_str_eq(k1, k3);
	cr_assert_eq(kp_write_file_atomic(f, "two", 3), 0);
	char *k4 = kp_build_key(a1, 2, files, 1);
	cr_assert_str_neq(k1, k4);
	const char *const missing[] = {"/nonexistent/kpipe/x.cu"};
	cr_assert_null(kp_build_key(a1, 2, missing, 1));
	/* the same bytes at another path: another key, the same content key */
	char *g = kp_test_path("b.cu");
	cr_assert_eq(kp_write_file_atomic(g, "two", 3), 0);
	const char *const other[] = {g};
	char *k5 = kp_build_key(a1, 2, other, 1);
	char *c1 = kp_build_key_content(a1, 2, files, 1),
	     *c2 = kp_build_key_content(a1, 2, other, 1);
	char *c3 = kp_build_key_content(a2, 2, other, 1);
	cr_assert_str_neq(k4, k5);
	cr_assert_str_eq(c1, c2);
	cr_assert_str_neq(c1, c3);
	cr_assert_null(kp_build_key_content(a1, 2, missing, 1));
	free(k5);
	free(c1);
	free(c2);
	free(c3);
	free(g);
	free(k1);
	free(k2);
	free(k3);
	free(k4);
	free(f);
}
