/*
 * test_recover.c - recover.c's text-level help for the front end: the
 * length-neutral copy clang parses (braced launch dimensions, PTX special
 * registers in asm strings), the top-level host declaration around an
 * error, blanking, and the toolkit version.
 */
#define _GNU_SOURCE
#include "recover.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *rec(const char *s) { return kp_recover_text(s, strlen(s)); }

Test(recover, brace_launch_dimensions)
{
	const char *s = "void f(){ k<<<{gx, gy}, {16, 16, 1}>>>(a); k<<<g, {}>>>(a); }";
	char *o = rec(s);
	cr_assert_not_null(o);
	cr_expect_eq(strlen(o), strlen(s));
	cr_expect_str_eq(o, "void f(){ k<<<(gx, gy), (16, 16, 1)>>>(a); k<<<g, 1 >>>(a); }");
	free(o);
}

Test(recover, launch_arguments_that_are_not_lists)
{
	/* a list followed by more, dim3{...}, braces in a comment or a string */
	cr_expect_null(rec("void f(){ k<<<dim3{1, 2}, x.y>>>(a); /* <<<{1}>>> */ }"));
	cr_expect_null(rec("const char *s = \"k<<<{1, 2}, b>>>\";"));
	char *o = rec("void f(){ k<<<{1, 2}.x, {3, 4}>>>(a); }");
	cr_assert_not_null(o);
	cr_expect_str_eq(o, "void f(){ k<<<{1, 2}.x, (3, 4)>>>(a); }");
	free(o);
}

Test(recover, ptx_special_registers)
{
	const char *s = "__device__ unsigned f(){ unsigned r; asm volatile(\"mov.u32 %0, "
			"%laneid; // %%smid\\n\" \"mov.u32 %1, %clock64;\" : \"=r\"(r) : "
			"\"r\"(1)); return r; }";
	char *o = rec(s);
	cr_assert_not_null(o);
	cr_expect_eq(strlen(o), strlen(s));
	cr_expect(strstr(o, "%0,  laneid;"));
	cr_expect(strstr(o, "%%smid"));
	cr_expect(strstr(o, "%1,  clock64;"));
	cr_expect(strstr(o, "\"=r\"(r)"));
	free(o);
	/* a #define's asm, __asm__ __volatile__ */
	o = rec("#define LANE(r) __asm__ __volatile__(\"mov.u32 %0, %laneid;\" : \"=r\"(r))\n");
	cr_assert_not_null(o);
	cr_expect(strstr(o, "%0,  laneid;"));
	free(o);
	/* digit separators are no character literals */
	o = rec("int n = 1'000'000; void f(){ k<<<n, {32, 1'0}>>>(a); }");
	cr_assert_not_null(o);
	cr_expect_str_eq(o, "int n = 1'000'000; void f(){ k<<<n, (32, 1'0)>>>(a); }");
	free(o);
	/* a string that is not an asm template */
	cr_expect_null(rec("const char *fmt = \"%laneid %d\"; void g() { printf(\"%s\", fmt); }"));
}

Test(recover, host_declaration_around_an_error)
{
	const char *s = "#include <x.h>\n"
			"namespace ns {\n"
			"__global__ void k(float *a) { a[0] = 1; }\n"
			"torch::Tensor fwd(torch::Tensor a) {\n"
			"  return a.data_ptr<at::Half>();\n"
			"}\n"
			"struct S { int x; };\n"
			"}\n";
	size_t b, e, len = strlen(s);
	char name[64];
	size_t off = (size_t)(strstr(s, "data_ptr") - s);
	cr_assert_eq(kp_host_decl_at(s, len, off, &b, &e, name, sizeof(name)), 1);
	cr_expect_eq(b, (size_t)(strstr(s, "torch::Tensor fwd") - s));
	cr_expect_eq(e, (size_t)(strstr(s, "}\nstruct") - s) + 1);
	cr_expect_str_eq(name, "fwd");
	/* the kernel is never one to leave out */
	off = (size_t)(strstr(s, "a[0]") - s);
	cr_expect_eq(kp_host_decl_at(s, len, off, &b, &e, name, sizeof(name)), 0);
	/* a class: up to its ';', no function name */
	off = (size_t)(strstr(s, "int x") - s);
	cr_assert_eq(kp_host_decl_at(s, len, off, &b, &e, name, sizeof(name)), 1);
	cr_expect_str_eq(name, "");
	cr_expect_eq(e, (size_t)(strstr(s, "};") - s) + 2);
}

Test(recover, blank_keeps_lines_and_directives)
{
	char t[] = "void f() {\n#pragma unroll\n  x<int>();\n}\n";
	kp_blank_range(t, strlen(t), 0, strlen(t) - 1);
	cr_expect_str_eq(t, "          \n#pragma unroll\n           \n \n");
}

Test(recover, toolkit_version_from_cuda_h)
{
	char dir[] = "/tmp/kpipe-recover-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char p[256];
	snprintf(p, sizeof(p), "%s/include", dir);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/include/cuda.h", dir);
	FILE *fp = fopen(p, "w");
	cr_assert_not_null(fp);
	fputs("#define CUDA_VERSION 12040\n", fp);
	fclose(fp);
	int maj = 0, min = 0, build = -1;
	cr_expect_eq(kp_toolkit_version(dir, &maj, &min, &build), 0);
	cr_expect_eq(maj, 12);
	cr_expect_eq(min, 4);
	cr_expect_eq(build, 0);
	snprintf(p, sizeof(p), "%s/version.json", dir);
	fp = fopen(p, "w");
	cr_assert_not_null(fp);
	fputs("{\"cuda\": {\"version\": \"12.4.1\"}, \"cuda_nvcc\": {\"name\": \"x\", "
	      "\"version\": \"12.4.131\"}}\n",
	      fp);
	fclose(fp);
	cr_expect_eq(kp_toolkit_version(dir, &maj, &min, &build), 0);
	cr_expect_eq(build, 131);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
	cr_expect_eq(kp_toolkit_version("/nonexistent-kpipe", &maj, &min, &build), -1);
}
