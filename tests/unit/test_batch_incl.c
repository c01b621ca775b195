/*
 * test_batch_incl.c - which inputs of a batch include which
 * (kp_batch_includers over tests/fixtures/mylib: a header reached through
 * the first .cu that includes it, directly or through another header; by
 * -I, beside the file, or by the "/NAME" suffix without flags; a header no
 * .cu includes stays -1), two rewrites of a header that differ only in
 * "// kpipe:" comments are the same code (kp_same_code), and the
 * translation unit as one text for the verifier (kp_unit_text: project
 * headers pasted once, #pragma once dropped, a header's replacement used).
 */
#define _GNU_SOURCE
#include "batch_incl.h"
#include "util.h"
#include "verify_unit.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define LIB KPIPE_SOURCE_DIR "/tests/fixtures/mylib/"

static char *real(const char *p)
{
	char *r = realpath(p, NULL);
	cr_assert_not_null(r, "%s", p);
	return r;
}

Test(batch_incl, includers)
{
	const char *names[] = {LIB "src/gemm_d.cu",
			       LIB "src/gemm_s.cu",
			       LIB "include/mylib/epilogue.cuh",
			       LIB "include/mylib/gemm_device.cuh",
			       LIB "include/mylib/types.cuh",
			       LIB "include/mylib/gemm_staged.cuh"};
	char *abs[6];
	kp_incl_input in[6];
	const char *args[] = {"-I", LIB "include"};
	for (int i = 0; i < 6; i++) {
		abs[i] = real(names[i]);
		in[i] = (kp_incl_input){abs[i], args, 2, NULL, 0};
	}
	int via[6];
	kp_batch_includers(in, 6, via);
	cr_assert_eq(via[0], -1);
	cr_assert_eq(via[1], -1);
	cr_assert_eq(via[2], 0, "epilogue.cuh through gemm_d.cu");
	cr_assert_eq(via[3], 0, "gemm_device.cuh: the first .cu in order");
	cr_assert_eq(via[4], 0);
	cr_assert_eq(via[5], 1, "gemm_staged.cuh: only gemm_s.cu includes it");
	/* without flags: the one input whose path ends in /NAME */
	for (int i = 0; i < 6; i++)
		in[i].nargs = 0;
	kp_batch_includers(in, 6, via);
	cr_assert_eq(via[3], 0);
	cr_assert_eq(via[5], 1);
	/* without gemm_s.cu, nothing includes gemm_staged.cuh */
	in[1] = in[5];
	kp_batch_includers(in, 5, via);
	cr_assert_eq(via[1], -1);
	for (int i = 0; i < 6; i++)
		free(abs[i]);
}

Test(batch_incl, same_code)
{
	const char *a = "int x;\n\t// kpipe: register, 2 registers\n\tfor (;;) {}\n";
	const char *b = "int x;\n\t// kpipe: register, 4 registers per thread\n\tfor (;;) {}\n";
	const char *c = "int y;\n\t// kpipe: register, 2 registers\n\tfor (;;) {}\n";
	cr_assert(kp_same_code(a, strlen(a), b, strlen(b)));
	cr_assert(!kp_same_code(a, strlen(a), c, strlen(c)));
	cr_assert(!kp_same_code(a, strlen(a), a, strlen(a) - 1));
	cr_assert(kp_same_code("", 0, "", 0));
}

Test(batch_incl, unit_text)
{
	char *src = NULL;
	size_t len = 0;
	cr_assert_eq(kp_read_file(LIB "src/gemm_d.cu", &src, &len), 0);
	const char *args[] = {"-I" LIB "include"};
	char *hdr = real(LIB "include/mylib/gemm_device.cuh");
	const char *rabs[] = {hdr};
	const char *repl[] = {"// replaced\n"};
	size_t rlen[] = {12};
	size_t ul = 0;
	char *u = kp_unit_text(LIB "src/gemm_d.cu", src, len, args, 1, rabs, repl, rlen, 1, &ul);
	cr_assert_eq(strlen(u), ul);
	cr_assert_not_null(strstr(u, "#define MYLIB_DEVICE"), "types.cuh pasted");
	cr_assert_not_null(strstr(u, "axpby"), "epilogue.cuh pasted");
	cr_assert_not_null(strstr(u, "// replaced"), "gemm_device.cuh replaced");
	cr_assert_null(strstr(u, "void gemm_device"), "the original gemm_device.cuh is not in");
	cr_assert_null(strstr(u, "#pragma once"));
	cr_assert_null(strstr(u, "#include \"mylib/"), "every project include pasted");
	cr_assert_not_null(strstr(u, "#include <cuda_runtime.h>"), "a system include stays");
	cr_assert_not_null(strstr(u, "dgemm_kernel"));
	free(u);
	free(hdr);
	free(src);
}
