/*
 * test_gpu_run.c - the GPU steps of `kpipe validate` without a GPU: the
 * launch-description reader and its errors, the generated kpipe_bench_spec.h
 * and launcher (compared with what bench/gpu_bench.py generates for the same
 * spec), the kpipe-launch override, --sizes, the harness's JSON-lines events
 * turned into step verdicts (pass, mismatch, lost context, no device,
 * timing noise and slowdown), compute-sanitizer reports, the embedded
 * harness source, and `kpipe validate`'s option errors.
 */
#include "kp_test.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_gen.h"
#include "gpu_run.h"
#include "util.h"
#include "validate.h"
#include "cmd.h"

/* ---- launch descriptions --------------------------------------------- */

static const char scale_spec[] =
	"{\n"
	"  \"kernel\": \"ns::scale\",\n"
	"  \"template_args\": \"<64>\",\n"
	"  \"block\": [64],\n"
	"  \"grid\": [\"(N + 63) / 64\", 1],\n"
	"  \"requires\": [\"N % 2 == 0\"],\n"
	"  \"sizes\": {\"tiny\": {\"N\": 2}, \"small\": {\"N\": 130}, \"target\": {\"N\": 1048576}},\n"
	"  \"args\": [\n"
	"    {\"name\": \"x\", \"role\": \"in\", \"type\": \"half\", \"count\": \"N\"},\n"
	"    {\"name\": \"y\", \"role\": \"inout\", \"type\": \"float\", \"count\": \"N\"},\n"
	"    {\"name\": \"a\", \"role\": \"scalar\", \"type\": \"half\", \"value\": \"0.5\"},\n"
	"    {\"name\": \"n\", \"role\": \"scalar\", \"type\": \"int\", \"value\": \"N\"}\n"
	"  ],\n"
	"  \"tolerance\": {\"abs\": 1e-05, \"rel\": 0},\n"
	"  \"work\": {\"bytes\": \"6 * N\"}\n"
	"}\n";

/* bench/gpu_bench.py's gen_spec_header() for scale_spec, first line aside. */
static const char scale_header[] =
	"#pragma once\n"
	"enum { R_IN, R_OUT, R_INOUT };\n"
	"enum { T_F32, T_F16, T_I8, T_I32, T_F64 };\n"
	"struct BenchBuf { const char *name; int role; int type; };\n"
	"static const BenchBuf kBufs[] = {\n"
	"    {\"x\", R_IN, T_F16},\n"
	"    {\"y\", R_INOUT, T_F32},\n"
	"    {nullptr, 0, 0}};\n"
	"static const int kNumBufs = 2;\n"
	"static const int kNumSizes = 3;\n"
	"static const char *const kSizeNames[] = {\"tiny\", \"small\", \"target\"};\n"
	"static const long kSizeVals[][1] = {\n"
	"    {2L}, // tiny\n"
	"    {130L}, // small\n"
	"    {1048576L}, // target\n"
	"};\n"
	"static const double kTolAbs = 1e-05;\n"
	"static const double kTolRel = 0.0;\n"
	"static const char *const kWorkKind = \"bytes\";\n"
	"static long buf_count(int kpipe_i, const long *kpipe_sz)\n"
	"{\n"
	"    const long N = kpipe_sz[0];\n"
	"    (void)N;\n"
	"    switch (kpipe_i) {\n"
	"    case 0: return (long)(N);\n"
	"    case 1: return (long)(N);\n"
	"    }\n"
	"    return 0;\n"
	"}\n"
	"static double work_amount(const long *kpipe_sz)\n"
	"{\n"
	"    const long N = kpipe_sz[0];\n"
	"    (void)N;\n"
	"    return (double)(6 * N);\n"
	"}\n"
	"static const char *requires_failed(const long *kpipe_sz)\n"
	"{\n"
	"    const long N = kpipe_sz[0];\n"
	"    (void)N;\n"
	"    if (!(N % 2 == 0))\n"
	"        return \"N % 2 == 0\";\n"
	"    return nullptr;\n"
	"}\n";

/* gpu_bench.py's gen_launcher(spec, "/src/scale.cu", ...), first line aside. */
static const char scale_launcher[] =
	"#include <cstddef>\n"
	"#include <cstdint>\n"
	"#include <cuda_fp16.h>\n"
	"#include <cuda_runtime.h>\n"
	"\n"
	"#include \"/src/scale.cu\"\n"
	"\n"
	"#define KPIPE_BENCH_EXPORT extern \"C\" __attribute__((visibility(\"default\")))\n"
	"\n"
	"KPIPE_BENCH_EXPORT int kpipe_bench_launch(void *const *kpipe_bufs, const long *kpipe_sz,\n"
	"                                          cudaStream_t kpipe_stream)\n"
	"{\n"
	"    const long N = kpipe_sz[0];\n"
	"    (void)N;\n"
	"    const dim3 kpipe_grid((unsigned)((N + 63) / 64), (unsigned)(1), (unsigned)(1));\n"
	"    const dim3 kpipe_block((unsigned)(64), (unsigned)(1), (unsigned)(1));\n"
	"    const size_t kpipe_spec_smem = (size_t)(0);\n"
	"    const size_t kpipe_smem = (size_t)(0);\n"
	"    (void)kpipe_spec_smem;\n"
	"    if (kpipe_smem > 0) { /* static + dynamic over 48 KB needs it too */\n"
	"        const cudaError_t kpipe_e = cudaFuncSetAttribute(\n"
	"            ns::scale<64>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kpipe_smem);\n"
	"        if (kpipe_e != cudaSuccess)\n"
	"            return (int)kpipe_e;\n"
	"    }\n"
	"    ns::scale<64><<<kpipe_grid, kpipe_block, kpipe_smem, kpipe_stream>>>(\n"
	"        (__half *)kpipe_bufs[0],\n"
	"        (float *)kpipe_bufs[1],\n"
	"        __float2half((float)(0.5)),\n"
	"        (int)(N));\n"
	"    return (int)cudaPeekAtLastError();\n"
	"}\n"
	"\n"
	"// regs, static smem, local bytes, max threads, resident blocks per SM, threads\n"
	"KPIPE_BENCH_EXPORT int kpipe_bench_attrs(const long *kpipe_sz, int *kpipe_out)\n"
	"{\n"
	"    const long N = kpipe_sz[0];\n"
	"    (void)N;\n"
	"    const dim3 kpipe_grid((unsigned)((N + 63) / 64), (unsigned)(1), (unsigned)(1));\n"
	"    const dim3 kpipe_block((unsigned)(64), (unsigned)(1), (unsigned)(1));\n"
	"    const size_t kpipe_spec_smem = (size_t)(0);\n"
	"    const size_t kpipe_smem = (size_t)(0);\n"
	"    (void)kpipe_spec_smem;\n"
	"    (void)kpipe_grid;\n"
	"    cudaFuncAttributes kpipe_a;\n"
	"    cudaError_t kpipe_e = cudaFuncGetAttributes(&kpipe_a, ns::scale<64>);\n"
	"    if (kpipe_e != cudaSuccess)\n"
	"        return (int)kpipe_e;\n"
	"    if (kpipe_smem > 0) {\n"
	"        kpipe_e = cudaFuncSetAttribute(ns::scale<64>, cudaFuncAttributeMaxDynamicSharedMemorySize,\n"
	"                                       (int)kpipe_smem);\n"
	"        if (kpipe_e != cudaSuccess)\n"
	"            return (int)kpipe_e;\n"
	"    }\n"
	"    const int kpipe_threads = (int)(kpipe_block.x * kpipe_block.y * kpipe_block.z);\n"
	"    int kpipe_blocks = 0;\n"
	"    kpipe_e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&kpipe_blocks, ns::scale<64>,\n"
	"                                                            kpipe_threads, kpipe_smem);\n"
	"    kpipe_out[0] = kpipe_a.numRegs;\n"
	"    kpipe_out[1] = (int)kpipe_a.sharedSizeBytes;\n"
	"    kpipe_out[2] = (int)kpipe_a.localSizeBytes;\n"
	"    kpipe_out[3] = kpipe_a.maxThreadsPerBlock;\n"
	"    kpipe_out[4] = kpipe_blocks;\n"
	"    kpipe_out[5] = kpipe_threads;\n"
	"    return (int)kpipe_e;\n"
	"}\n";

static void parse_ok(kp_launch_spec *s, const char *text)
{
	char err[512];
	int rc = kp_launch_spec_parse(s, text, "dir/scale.launch.json", err, sizeof(err));
	cr_assert_eq(rc, KP_SPEC_OK, "%s", err);
}

/* The error message for a spec text, or "" when it parses. */
static char last_err[512];
static const char *spec_error(const char *text)
{
	kp_launch_spec s;
	last_err[0] = '\0';
	if (kp_launch_spec_parse(&s, text, "x.launch.json", last_err, sizeof(last_err)) == 0)
		kp_launch_spec_release(&s);
	return last_err;
}

/* scale_spec with `from` replaced by `to`. */
static char *variant(const char *from, const char *to)
{
	const char *p = strstr(scale_spec, from);
	cr_assert_not_null(p, "'%s' not in the sample spec", from);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, scale_spec, (size_t)(p - scale_spec));
	kp_strbuf_adds(&sb, to);
	kp_strbuf_adds(&sb, p + strlen(from));
	return kp_strbuf_detach(&sb);
}

static void expect_error(const char *from, const char *to, const char *want)
{
	char *text = variant(from, to);
	const char *err = spec_error(text);
	cr_expect(strstr(err, want), "replacing '%s' by '%s': wanted '%s', got '%s'", from, to,
		  want, err);
	free(text);
}

Test(launch_spec, fields)
{
	kp_launch_spec s;
	parse_ok(&s, scale_spec);
	cr_assert_str_eq(s.name, "scale");
	cr_assert_str_eq(s.kernel, "ns::scale");
	cr_assert_str_eq(s.template_args, "<64>");
	cr_assert_str_eq(s.block[0], "64");
	cr_assert_str_eq(s.block[1], "1");
	cr_assert_str_eq(s.grid[0], "(N + 63) / 64");
	cr_assert_str_eq(s.grid[1], "1");
	cr_assert_str_eq(s.dynamic_smem, "0");
	cr_assert_eq(s.nsymbols, 1);
	cr_assert_eq(s.nsizes, 3);
	cr_assert_str_eq(s.sizes[2].name, "target");
	cr_assert_eq(s.sizes[2].vals[0], 1048576);
	cr_assert_eq(s.nargs, 4);
	cr_assert_eq(s.args[0].type, KP_TYPE_HALF);
	cr_assert_eq(s.args[1].role, KP_ROLE_INOUT);
	cr_assert_str_eq(s.args[2].expr, "0.5");
	cr_assert_float_eq(s.tol_abs, 1e-5, 1e-12);
	cr_assert_str_eq(s.work_kind, "bytes");
	cr_assert(s.eligible);
	cr_assert_eq(kp_launch_spec_threads(&s), 64);
	cr_assert_eq(kp_launch_spec_size(&s, "small"), 1);
	cr_assert_eq(kp_launch_spec_size(&s, "even"), -1);
	kp_launch_spec_release(&s);
}

Test(launch_spec, errors)
{
	expect_error("\"work\"", "\"wrok\"", "x.launch.json: unknown field 'wrok'");
	expect_error("\"target\": {\"N\": 1048576}", "\"big\": {\"N\": 1048576}",
		     "size 'target' is missing");
	expect_error("\"small\": {\"N\": 130}", "\"small\": {\"M\": 130}",
		     "size 'small' does not define the same symbols (N)");
	expect_error("{\"N\": 2}", "{\"N\": -2}", "tiny.N must be a non-negative integer");
	expect_error("{\"N\": 2}", "{\"kpipe_n\": 2}", "bad size symbol 'kpipe_n'");
	expect_error("\"(N + 63) / 64\"", "\"N; abort()\"", "is not a plain C expression");
	expect_error("\"(N + 63) / 64\"", "\"  \"", "expected a C expression string");
	expect_error("\"grid\": [\"(N + 63) / 64\", 1]", "\"grid\": []",
		     "'grid': expected a list of 1 to 3 expressions");
	expect_error("\"role\": \"inout\"", "\"role\": \"in\"", "no 'out' or 'inout' buffer");
	expect_error("\"type\": \"half\", \"count\"", "\"type\": \"float64\", \"count\"",
		     "type must be one of float, half, int8, int, double");
	expect_error("\"value\": \"N\"", "\"count\": \"N\"", "a scalar needs 'value'");
	expect_error("\"ns::scale\"", "\"ns::2scale\"", "'kernel': expected a kernel name");
	expect_error("\"<64>\"", "\"64\"", "'template_args'");
	expect_error("\"rel\": 0", "\"rel\": -1", "'rel' must be a non-negative number");
	expect_error("{\"bytes\": \"6 * N\"}", "{\"time\": \"1\"}", "'work': expected");
	expect_error("\"block\": [64]", "\"block\": [true]", "got a boolean");
	cr_expect(strstr(spec_error("{\"kernel\": "), "not valid JSON"), "%s", last_err);
	cr_expect(strstr(spec_error("[1]"), "top level must be an object"), "%s", last_err);
}

/* double buffers and scalars (issue 31): T_F64 in the GPU harness's
 * header, `double *` buffers and `(double)(expr)` scalars in the launcher */
Test(generate, double_buffers_and_scalars)
{
	/* y (a float buffer) and a (a half scalar) made doubles */
	char *t = variant("\"type\": \"float\", \"count\"", "\"type\": \"double\", \"count\"");
	const char *from = "\"type\": \"half\", \"value\"";
	char *p = strstr(t, from);
	cr_assert_not_null(p);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, t, (size_t)(p - t));
	kp_strbuf_adds(&sb, "\"type\": \"double\", \"value\"");
	kp_strbuf_adds(&sb, p + strlen(from));
	free(t);
	kp_launch_spec s;
	parse_ok(&s, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	cr_assert_eq(s.args[1].type, KP_TYPE_DOUBLE);
	cr_assert_eq(s.args[2].type, KP_TYPE_DOUBLE);
	cr_expect_str_eq(kp_arg_type_ctype(KP_TYPE_DOUBLE), "double");
	cr_expect_str_eq(kp_arg_type_enum(KP_TYPE_DOUBLE), "T_F64");
	char *h = kp_gpu_gen_spec_header(&s);
	cr_expect(strstr(h, "    {\"y\", R_INOUT, T_F64},\n"), "%s", h);
	free(h);
	char err[256];
	char *l = kp_gpu_gen_launcher(&s, "/src/scale.cu", "x", NULL, NULL, err, sizeof(err));
	cr_assert_not_null(l, "%s", err);
	cr_expect(strstr(l, "(double *)kpipe_bufs[1],\n        (double)(0.5),"), "%s", l);
	free(l);
	kp_launch_spec_release(&s);
}

/* "template_args" as a list: one instantiation per entry, in its order;
 * the single string keeps naming one. */
Test(launch_spec, instantiation_list)
{
	kp_launch_spec s;
	parse_ok(&s, scale_spec);
	cr_assert_eq(s.ninsts, 1);
	cr_assert_str_eq(s.insts[0], "<64>");
	kp_launch_spec_release(&s);

	char *text = variant("\"<64>\"", "[\"<64>\", \" <128> \"]");
	parse_ok(&s, text);
	free(text);
	cr_assert_eq(s.ninsts, 2);
	cr_assert_str_eq(s.insts[0], "<64>");
	cr_assert_str_eq(s.insts[1], "<128>");
	cr_assert_str_eq(s.template_args, "<64>");
	kp_launch_spec_release(&s);

	/* a list of one is the single string */
	text = variant("\"<64>\"", "[\"<64>\"]");
	parse_ok(&s, text);
	free(text);
	cr_assert_eq(s.ninsts, 1);
	cr_assert_str_eq(s.template_args, "<64>");
	kp_launch_spec_release(&s);

	/* no template_args, or "": one instantiation, the kernel's name alone */
	text = variant("\"template_args\": \"<64>\",", "");
	parse_ok(&s, text);
	free(text);
	cr_assert_eq(s.ninsts, 1);
	cr_assert_str_eq(s.insts[0], "");
	kp_launch_spec_release(&s);
}

Test(launch_spec, instantiation_list_errors)
{
	expect_error("\"<64>\"", "[]",
		     "x.launch.json: 'template_args': an empty list names no instantiation");
	expect_error("\"<64>\"", "[\"<64>\", \"128\"]",
		     "x.launch.json: 'template_args'[1]: expected \"<...>\"");
	expect_error("\"<64>\"", "[\"<64>\", \"\"]", "'template_args'[1]: expected \"<...>\"");
	expect_error("\"<64>\"", "[\"<64>\", 128]", "'template_args'[1]: expected \"<...>\"");
	expect_error("\"<64>\"", "[\"<a; b>\"]", "'template_args'[0]: expected \"<...>\"");
	expect_error("\"<64>\"", "[\"<64, 2>\", \"<64,2>\"]",
		     "'template_args'[1]: <64,2> is given twice");
	expect_error(
		"\"<64>\"",
		"[\"<1>\", \"<2>\", \"<3>\", \"<4>\", \"<5>\", \"<6>\", \"<7>\", \"<8>\", \"<9>\"]",
		"'template_args': 9 instantiations, at most 8");
	expect_error("\"<64>\"", "{\"a\": \"<64>\"}",
		     "'template_args': expected \"\" or \"<...>\", or a list of \"<...>\"");
}

Test(launch_spec, every_sample_parses)
{
	glob_t gl;
	cr_assert_eq(glob(KPIPE_SOURCE_DIR "/samples/*.launch.json", 0, NULL, &gl), 0);
	cr_assert_gt(gl.gl_pathc, 5);
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		kp_launch_spec s;
		char err[512];
		cr_expect_eq(kp_launch_spec_load(&s, gl.gl_pathv[i], err, sizeof(err)), KP_SPEC_OK,
			     "%s", err);
		kp_launch_spec_release(&s);
	}
	globfree(&gl);
	kp_launch_spec s;
	char err[512];
	cr_assert_eq(kp_launch_spec_load(&s, "/nonexistent/x.launch.json", err, sizeof(err)),
		     KP_SPEC_EREAD);
	cr_assert(strstr(err, "No such file"), "%s", err);
}

Test(launch_spec, default_path)
{
	char *p = kp_launch_spec_default_path("samples/matmul.cu");
	cr_assert_str_eq(p, "samples/matmul.launch.json");
	free(p);
	p = kp_launch_spec_default_path("a.b/kernel");
	cr_assert_str_eq(p, "a.b/kernel.launch.json");
	free(p);
	p = kp_launch_spec_default_path("k.cuh");
	cr_assert_str_eq(p, "k.launch.json");
	free(p);
}

Test(launch_spec, sizes_option)
{
	kp_launch_spec s;
	parse_ok(&s, scale_spec);
	const char *names[8];
	char err[256];
	cr_assert_eq(kp_gpu_parse_sizes(&s, "target,small,target", names, 8, err, sizeof(err)), 2);
	cr_assert_str_eq(names[0], "target");
	cr_assert_str_eq(names[1], "small");
	cr_assert_eq(kp_gpu_parse_sizes(&s, "all", names, 8, err, sizeof(err)), 3);
	cr_assert_eq(kp_gpu_parse_sizes(&s, "small,huge", names, 8, err, sizeof(err)), -1);
	cr_assert_str_eq(err,
			 "unknown size 'huge' (dir/scale.launch.json has tiny, small, target)");
	cr_assert_eq(kp_gpu_parse_sizes(&s, ",", names, 8, err, sizeof(err)), -1);
	kp_launch_spec_release(&s);
}

/* ---- generated sources ------------------------------------------------ */

static const char *skip_first_line(const char *t)
{
	const char *nl = strchr(t, '\n');
	return nl ? nl + 1 : t;
}

Test(generate, spec_header_matches_gpu_bench)
{
	kp_launch_spec s;
	parse_ok(&s, scale_spec);
	char *h = kp_gpu_gen_spec_header(&s);
	cr_assert(!strncmp(h, "// generated by kpipe validate from dir/scale.launch.json", 57),
		  "%s", h);
	cr_assert_str_eq(skip_first_line(h), scale_header);
	free(h);
	kp_launch_spec_release(&s);
}

Test(generate, launcher_matches_gpu_bench)
{
	kp_launch_spec s;
	parse_ok(&s, scale_spec);
	char err[256];
	char *l = kp_gpu_gen_launcher(&s, "/src/scale.cu", "scale / original", NULL, NULL, err,
				      sizeof(err));
	cr_assert_not_null(l, "%s", err);
	cr_assert_str_eq(skip_first_line(l), scale_launcher);
	free(l);
	/* a dynamic shared memory override replaces the spec's */
	l = kp_gpu_gen_launcher(&s, "/src/scale.cu", "x", "2 * 4096", NULL, err, sizeof(err));
	cr_assert(strstr(l, "const size_t kpipe_smem = (size_t)(2 * 4096);"), "%s", l);
	free(l);
	cr_assert_null(kp_gpu_gen_launcher(&s, "rel/scale.cu", "x", NULL, NULL, err, sizeof(err)));
	cr_assert(strstr(err, "must be absolute"), "%s", err);
	cr_assert_null(kp_gpu_gen_launcher(&s, "/a\"b.cu", "x", NULL, NULL, err, sizeof(err)));
	/* a launcher the rewrite wrote (the tensor-map form) replaces the
	 * <<<>>> launch; the attributes still name the kernel */
	l = kp_gpu_gen_launcher(&s, "/src/scale.cu", "x", NULL, "kp_tma_launch_scale", err,
				sizeof(err));
	cr_assert(strstr(l, "    kp_tma_launch_scale(kpipe_grid, kpipe_block, kpipe_smem, "
			    "kpipe_stream,\n        "),
		  "%s", l);
	cr_assert_null(strstr(l, "<<<"), "%s", l);
	cr_assert(strstr(l, "cudaFuncGetAttributes(&kpipe_a, ns::scale<64>)"), "%s", l);
	free(l);
	kp_launch_spec_release(&s);
}

Test(generate, launcher_named_by_the_rewrite)
{
	char *v = kp_gpu_launch_via("x\n// kpipe-launch: launcher(other) = kp_a\n"
				    "// kpipe-launch: launcher(scale) = kp_tma_launch_scale\n",
				    "scale");
	cr_assert_str_eq(v, "kp_tma_launch_scale");
	free(v);
	cr_assert_null(kp_gpu_launch_via("// kpipe-launch: launcher(scaled) = f\n", "scale"));
	cr_assert_null(kp_gpu_launch_via("// kpipe-launch: dynamic_smem = 4\n", "scale"));
	cr_assert_null(kp_gpu_launch_via("// kpipe-launch: launcher(scale) = 9x\n", "scale"));
}

/* Two instantiations: the header names them for the harness, and the
 * launcher exports one pair of functions per instantiation, suffixed _0,
 * _1, each the single launcher's text for its kernel. */
Test(generate, two_instantiations)
{
	kp_launch_spec s;
	char *text = variant("\"<64>\"", "[\"<64>\", \"<128>\"]");
	parse_ok(&s, text);
	free(text);
	char *h = kp_gpu_gen_spec_header(&s);
	const char *tail = "#define KPIPE_BENCH_NUM_INSTS 2\n"
			   "static const char *const kInstNames[] = {\"<64>\", \"<128>\"};\n";
	cr_assert(strlen(h) > strlen(tail));
	cr_assert_str_eq(h + strlen(h) - strlen(tail), tail);
	/* everything before it is the one-instantiation header */
	cr_assert(!strncmp(skip_first_line(h), scale_header, strlen(scale_header)), "%s", h);
	free(h);

	char err[256];
	char *l = kp_gpu_gen_launcher(&s, "/src/scale.cu", "scale / original", NULL, NULL, err,
				      sizeof(err));
	cr_assert_not_null(l, "%s", err);
	/* the single launcher's functions, renamed and re-indented, for <64>
	 * then <128> */
	kp_strbuf want = KP_STRBUF_INIT;
	const char *body = strstr(scale_launcher, "KPIPE_BENCH_EXPORT int kpipe_bench_launch(");
	cr_assert_not_null(body);
	kp_strbuf_add(&want, scale_launcher, (size_t)(body - scale_launcher));
	for (int i = 0; i < 2; i++) {
		const char *args = i ? "<128>" : "<64>";
		kp_strbuf_addf(&want, "%s// instantiation %d: ns::scale%s\n", i ? "\n" : "", i,
			       args);
		char name[32];
		snprintf(name, sizeof(name), "_%d", i);
		for (const char *p = body; *p;) {
			if (!strncmp(p, "kpipe_bench_launch(", 19) ||
			    !strncmp(p, "kpipe_bench_attrs(", 18)) {
				size_t n = strcspn(p, "(");
				kp_strbuf_add(&want, p, n);
				kp_strbuf_adds(&want, name);
				p += n;
			} else if (!strncmp(p, "cudaStream_t kpipe_stream)", 26)) {
				kp_strbuf_adds(&want, "  cudaStream_t kpipe_stream)");
				p += 26;
			} else if (!strncmp(p, "ns::scale<64>", 13)) {
				kp_strbuf_addf(&want, "ns::scale%s", args);
				p += 13;
			} else
				kp_strbuf_addc(&want, *p++);
		}
	}
	cr_assert_str_eq(skip_first_line(l), kp_strbuf_str(&want));
	kp_strbuf_release(&want);
	free(l);
	kp_launch_spec_release(&s);
}

Test(generate, launch_override)
{
	char *e = NULL, err[256];
	cr_assert_eq(kp_gpu_launch_override("int x;\n", "k", &e, err, sizeof(err)), 0);
	cr_assert_null(e);
	cr_assert_eq(kp_gpu_launch_override(
			     "a\n  //  kpipe-launch: dynamic_smem =  2 * (64 * 40) * 2  \n", "k",
			     &e, err, sizeof(err)),
		     1);
	cr_assert_str_eq(e, "2 * (64 * 40) * 2");
	free(e);
	cr_assert_eq(kp_gpu_launch_override("// kpipe-launch: dynamic_smem = 1; x\n", "k", &e, err,
					    sizeof(err)),
		     -1);
	cr_assert(strstr(err, "not a plain C expression"), "%s", err);
}

/* A file with several kernels moved to dynamic shared memory (learn-cuda's
 * matmul.cu: 65536 bytes for v3 and v4, 98304 for v5): each kernel gets its
 * own line's bytes, not the first line's (v5 launched with 65536 read past
 * the end of its dynamic shared memory on the H100). */
Test(generate, launch_override_per_kernel)
{
	const char *src = "// kpipe-launch: dynamic_smem(matmul_v3_kernel) = 65536\n"
			  "__global__ void matmul_v3_kernel() {}\n"
			  "// kpipe-launch: dynamic_smem(matmul_v5_kernel) = 98304\n"
			  "__global__ void matmul_v5_kernel() {}\n"
			  "// kpipe-launch: dynamic_smem = 4096\n";
	char *e = NULL, err[256];
	cr_assert_eq(kp_gpu_launch_override(src, "matmul_v5_kernel", &e, err, sizeof(err)), 1);
	cr_assert_str_eq(e, "98304");
	free(e);
	cr_assert_eq(kp_gpu_launch_override(src, "matmul_v3_kernel", &e, err, sizeof(err)), 1);
	cr_assert_str_eq(e, "65536");
	free(e);
	/* a spec's qualified name is the file's plain one */
	cr_assert_eq(kp_gpu_launch_override(src, "ns::matmul_v5_kernel", &e, err, sizeof(err)), 1);
	cr_assert_str_eq(e, "98304");
	free(e);
	/* a kernel with no line of its own gets the unqualified line */
	cr_assert_eq(kp_gpu_launch_override(src, "matmul_v4_kernel", &e, err, sizeof(err)), 1);
	cr_assert_str_eq(e, "4096");
	free(e);
	/* and none when there is none */
	cr_assert_eq(kp_gpu_launch_override("// kpipe-launch: dynamic_smem(a) = 8\n", "b", &e, err,
					    sizeof(err)),
		     0);
	cr_assert_null(e);
	/* a prefix of another kernel's name is not its name */
	cr_assert_eq(kp_gpu_launch_override("// kpipe-launch: dynamic_smem(mm2) = 8\n", "mm", &e,
					    err, sizeof(err)),
		     0);
}

Test(generate, embedded_harness_is_bench_main)
{
	char *text = kp_test_read(KPIPE_SOURCE_DIR "/bench/harness/bench_main.cu", NULL);
	cr_assert_str_eq(kp_gpu_harness_source(), text);
	cr_assert(strstr(text, "#include \"kpipe_bench_spec.h\""));
	free(text);
}

/* ---- events and verdicts ---------------------------------------------- */

#define DEVICE                                                                                     \
	"{\"event\":\"device\",\"name\":\"NVIDIA H200\",\"cc\":\"9.0\",\"sms\":132,"               \
	"\"clock_mhz\":1980,\"mem_clock_mhz\":3201,\"l2_bytes\":62914560,"                         \
	"\"smem_per_sm\":233472,\"driver\":13000,\"runtime\":13000}\n"
#define BASELINE(size, n)                                                                          \
	"{\"event\":\"begin\",\"version\":\"original\",\"size\":\"" size "\"}\n"                   \
	"{\"event\":\"baseline\",\"size\":\"" size "\",\"ok\":true,\"elements\":" #n               \
	",\"unwritten\":0,\"nondeterministic\":0}\n"
#define CHECK_OK(size, n)                                                                          \
	"{\"event\":\"begin\",\"version\":\"rewritten\",\"size\":\"" size "\"}\n"                  \
	"{\"event\":\"check\",\"version\":\"rewritten\",\"size\":\"" size "\",\"ok\":true,"        \
	"\"elements\":" #n ",\"mismatches\":0,\"unwritten\":0,\"differ\":0,\"max_abs\":0,"         \
	"\"max_rel\":0,\"clobbered_inputs\":0,\"first_mismatch\":null}\n"
#define TIME(version, med, lo, hi)                                                                 \
	"{\"event\":\"time\",\"version\":\"" version "\",\"size\":\"target\",\"reps\":21,"         \
	"\"warmup\":3,\"median_ms\":" #med ",\"min_ms\":" #lo ",\"max_ms\":" #hi                   \
	",\"mean_ms\":" #med ",\"work\":137438953472,\"work_kind\":\"flops\",\"all_ms\":[" #med    \
	"]}\n"

static const char *const step_names[] = {"resources", "sass", "gpu-run", "benchmark", "sanitizer"};

/* A result whose static steps passed, with the harness's output absorbed
 * (exit status rc), not judged yet. */
static void fake_setup(kp_validate_result *r, const char *events, int rc)
{
	memset(r, 0, sizeof(*r));
	r->original = "a.cu";
	r->rewritten = "b.cu";
	r->arch = "sm_90";
	r->threads = 1024;
	for (int i = 0; i < 5; i++) {
		r->steps[i].name = step_names[i];
		kp_validate_set_step(&r->steps[i], i < 2 ? KP_STEP_PASSED : KP_STEP_SKIPPED, "x");
	}
	kp_gpu_result *g = kp_gpu_attach(r);
	g->spec_path = "samples/matmul_32x32.launch.json";
	g->kernel = "matmul_32x32";
	g->tol_abs = g->tol_rel = 1e-3;
	g->work_kind = "flops";
	g->timed_size = "target";
	g->sanitize_size = "small";
	g->run_timeout_s = 300;
	g->harness_ran = 1;
	g->harness_rc = rc;
	kp_gpu_absorb_events(g, events);
}

static void fake_run(kp_validate_result *r, const char *events, int rc, int sanitize)
{
	fake_setup(r, events, rc);
	kp_gpu_judge(r, sanitize);
}

static int has_finding(const kp_validate_result *r, int step, const char *text)
{
	for (int i = 0; i < r->nfindings; i++)
		if (r->findings[i].step == step && strstr(r->findings[i].message, text))
			return 1;
	return 0;
}

Test(verdict, pass_and_faster)
{
	kp_validate_result r;
	fake_run(&r,
		 DEVICE BASELINE("small", 6144) CHECK_OK("small", 6144) BASELINE("target", 16777216)
			 CHECK_OK("target", 16777216) TIME("original", 10.0, 9.9, 10.2)
				 TIME("rewritten", 8.0, 7.9, 8.1) "{\"event\":\"done\"}\n",
		 0, 0);
	const kp_gpu_result *g = r.gpu;
	cr_assert(g->have_device);
	cr_assert_str_eq(g->device_name, "NVIDIA H200");
	cr_assert_eq(g->nsizes, 2);
	cr_assert_eq(r.steps[2].status, KP_STEP_PASSED, "%s", r.steps[2].reason);
	cr_assert(strstr(r.steps[2].reason,
			 "bit-identical to the original's at 2 sizes (small, target)"),
		  "%s", r.steps[2].reason);
	cr_assert_eq(r.steps[3].status, KP_STEP_PASSED, "%s", r.steps[3].reason);
	cr_assert(strstr(r.steps[3].reason, "1.250x as fast at size 'target'"), "%s",
		  r.steps[3].reason);
	cr_assert_eq(r.steps[4].status, KP_STEP_SKIPPED);
	cr_assert(r.steps[4].not_requested);
	cr_assert_eq(kp_validate_exit_code(&r), 0);

	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "step 3  gpu-run    PASSED"), "%s", text);
	cr_assert(strstr(text, "device: NVIDIA H200 (cc 9.0, 132 SMs, 1980 MHz), driver 13.0"),
		  "%s", text);
	cr_assert(strstr(text, "small    ?") == NULL);
	cr_assert(strstr(text, "exact"), "%s", text);
	cr_assert(strstr(text, "13744"), "%s", text); /* GFLOP/s of the original: 137.4e9 / 10 ms */
	cr_assert(strstr(text, "1.250x"), "%s", text);
	cr_assert(strstr(text, "result: PASSED (1 step not requested)"), "%s", text);
	free(text);

	char *json = kp_validate_render_json(&r);
	cJSON *root = cJSON_Parse(json);
	cr_assert_not_null(root, "%s", json);
	cJSON *b = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "gpu"), "benchmark");
	cr_assert_float_eq(cJSON_GetObjectItem(b, "speedup")->valuedouble, 1.25, 1e-9);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(b, "noise")));
	cJSON *steps = cJSON_GetObjectItem(root, "steps");
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(steps, 4), "counted")));
	cr_assert_eq(cJSON_GetObjectItem(root, "exit_code")->valueint, 0);
	cJSON_Delete(root);
	free(json);
	kp_validate_result_release(&r);
}

Test(verdict, difference_within_the_spread_is_noise)
{
	kp_validate_result r;
	fake_run(&r,
		 DEVICE BASELINE("target", 16) CHECK_OK("target", 16)
			 TIME("original", 10.0, 9.8, 10.3) TIME("rewritten", 9.9, 9.7, 10.2),
		 0, 0);
	cr_assert_eq(r.steps[3].status, KP_STEP_PASSED, "%s", r.steps[3].reason);
	cr_assert(strstr(r.steps[3].reason, "no difference beyond the spread"), "%s",
		  r.steps[3].reason);
	cr_assert(strstr(r.steps[3].reason, "noise"), "%s", r.steps[3].reason);
	kp_validate_result_release(&r);
}

Test(verdict, slower_beyond_the_spread_fails)
{
	kp_validate_result r;
	fake_run(&r,
		 DEVICE BASELINE("target", 16) CHECK_OK("target", 16)
			 TIME("original", 10.0, 9.9, 10.1) TIME("rewritten", 12.5, 12.4, 12.6),
		 0, 0);
	cr_assert_eq(r.steps[2].status, KP_STEP_PASSED);
	cr_assert_eq(r.steps[3].status, KP_STEP_FAILED);
	cr_assert(strstr(r.steps[3].reason, "slower: 0.800x"), "%s", r.steps[3].reason);
	cr_assert_eq(kp_validate_exit_code(&r), 4);
	kp_validate_result_release(&r);
}

Test(verdict, mismatch_and_unwritten)
{
	kp_validate_result r;
	fake_run(
		&r,
		DEVICE BASELINE(
			"small",
			6144) "{\"event\":\"check\",\"version\":\"rewritten\",\"size\":\"small\",\"ok\":false,"
			      "\"elements\":6144,\"mismatches\":3,\"unwritten\":1,\"differ\":3,\"max_abs\":null,"
			      "\"max_rel\":null,\"clobbered_inputs\":0,\"first_mismatch\":{\"arg\":\"C\","
			      "\"index\":17,\"got\":null,\"want\":0.5,\"unwritten\":true}}\n",
		0, 0);
	cr_assert_eq(r.steps[2].status, KP_STEP_FAILED);
	cr_assert_str_eq(r.steps[2].reason, "size 'small': 3 of 6144 elements wrong (1 never "
					    "written); first: C[17] never written, expected 0.5");
	/* 'target' was not among the sizes run */
	cr_assert_eq(r.steps[3].status, KP_STEP_SKIPPED);
	cr_assert_eq(kp_validate_exit_code(&r), 4);
	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "FAIL: 3 wrong, 1 never written"), "%s", text);
	free(text);
	kp_validate_result_release(&r);
}

Test(verdict, lost_context)
{
	kp_validate_result r;
	fake_run(
		&r,
		DEVICE BASELINE(
			"small",
			6144) "{\"event\":\"begin\",\"version\":\"rewritten\",\"size\":\"small\"}\n"
			      "{\"event\":\"error\",\"version\":\"rewritten\",\"size\":\"small\",\"stage\":"
			      "\"execution\",\"msg\":\"cudaErrorIllegalAddress: an illegal memory access was "
			      "encountered\"}\n"
			      "{\"event\":\"fatal\",\"version\":\"rewritten\",\"size\":\"small\",\"msg\":\"x\"}\n",
		3, 0);
	cr_assert_eq(r.steps[2].status, KP_STEP_FAILED);
	cr_assert(strstr(r.steps[2].reason, "the rewritten kernel failed at size 'small' "
					    "(execution): cudaErrorIllegalAddress"),
		  "%s", r.steps[2].reason);
	cr_assert(has_finding(&r, 3, "the CUDA context was lost after the rewritten kernel"));
	kp_validate_result_release(&r);
}

Test(verdict, original_problems_and_requires)
{
	kp_validate_result r;
	fake_run(
		&r,
		DEVICE
		"{\"event\":\"error\",\"version\":\"harness\",\"size\":\"even\",\"stage\":\"requires\","
		"\"msg\":\"size violates `K % 32 == 0`\"}\n"
		"{\"event\":\"baseline\",\"size\":\"small\",\"ok\":false,\"elements\":100,"
		"\"unwritten\":4,\"nondeterministic\":2}\n" CHECK_OK("small", 100),
		0, 0);
	cr_assert_eq(r.steps[2].status, KP_STEP_FAILED);
	cr_assert(has_finding(&r, 3, "size 'even' not run: size violates `K % 32 == 0`"));
	cr_assert(has_finding(&r, 3, "the original kernel never wrote 4 of 100 output elements"));
	cr_assert(has_finding(&r, 3, "2 output elements of the original differ between two runs"));
	kp_validate_result_release(&r);
}

Test(verdict, harness_killed_or_timed_out)
{
	kp_validate_result r;
	fake_run(&r, DEVICE "{\"event\":\"begin\",\"version\":\"rewritten\",\"size\":\"small\"}\n",
		 137, 0);
	cr_assert_eq(r.steps[2].status, KP_STEP_FAILED);
	cr_assert_str_eq(r.steps[2].reason, "the harness exited with status 137");
	kp_validate_result_release(&r);

	fake_setup(&r,
		   DEVICE "{\"event\":\"begin\",\"version\":\"rewritten\",\"size\":\"small\"}\n",
		   137);
	r.gpu->timed_out = 1;
	kp_gpu_judge(&r, 0);
	cr_assert_eq(r.steps[2].status, KP_STEP_FAILED);
	cr_assert(strstr(r.steps[2].reason, "did not finish within 300 s (last started: the "
					    "rewritten kernel at size 'small'; a deadlock?)"),
		  "%s", r.steps[2].reason);
	kp_validate_result_release(&r);
}

Test(verdict, no_device_is_skipped)
{
	kp_validate_result r;
	fake_run(&r,
		 "{\"event\":\"error\",\"version\":\"harness\",\"size\":\"\",\"stage\":"
		 "\"cudaGetDevice\",\"msg\":\"cudaErrorNoDevice: no CUDA-capable device is "
		 "detected\"}\n",
		 4, 1);
	for (int i = 2; i < 5; i++)
		cr_assert_eq(r.steps[i].status, KP_STEP_SKIPPED, "step %d: %s", i + 1,
			     r.steps[i].reason);
	cr_assert_str_eq(r.steps[2].reason,
			 "no CUDA device: the harness says cudaGetDevice: "
			 "cudaErrorNoDevice: no CUDA-capable device is detected");
	cr_assert_str_eq(r.steps[3].reason, "no CUDA device (see step 3)");
	cr_assert_str_eq(r.steps[4].reason, "no CUDA device (see step 3)");
	cr_assert_eq(kp_validate_exit_code(&r), 6);
	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "result: INCOMPLETE (3 steps skipped)"), "%s", text);
	free(text);
	kp_validate_result_release(&r);
}

/* ---- several instantiations -------------------------------------------- */

#define IBASELINE(size, inst)                                                                      \
	"{\"event\":\"begin\",\"version\":\"original\",\"size\":\"" size "\",\"inst\":\"" inst     \
	"\"}\n"                                                                                    \
	"{\"event\":\"baseline\",\"size\":\"" size "\",\"inst\":\"" inst "\",\"ok\":true,"         \
	"\"elements\":64,\"unwritten\":0,\"nondeterministic\":0}\n"
#define ICHECK(size, inst, ok, mism)                                                               \
	"{\"event\":\"check\",\"version\":\"rewritten\",\"size\":\"" size "\",\"inst\":\"" inst    \
	"\",\"ok\":" ok ",\"elements\":64,\"mismatches\":" #mism                                   \
	",\"unwritten\":0,\"differ\":" #mism                                                       \
	",\"max_abs\":0.5,\"max_rel\":0.5,\"clobbered_inputs\":0,\"first_mismatch\":null}\n"
#define ITIME(version, inst, med, lo, hi)                                                          \
	"{\"event\":\"time\",\"version\":\"" version "\",\"size\":\"target\",\"inst\":\"" inst     \
	"\",\"reps\":21,\"warmup\":3,\"median_ms\":" #med ",\"min_ms\":" #lo ",\"max_ms\":" #hi    \
	",\"mean_ms\":" #med ",\"work\":137438953472,\"work_kind\":\"flops\",\"all_ms\":[" #med    \
	"]}\n"
#define IATTRS(version, inst, regs)                                                                \
	"{\"event\":\"attrs\",\"version\":\"" version "\",\"size\":\"small\",\"inst\":\"" inst     \
	"\",\"regs\":" #regs ",\"smem_static\":8192,\"local_bytes\":0,\"max_threads\":1024,"       \
	"\"blocks_per_sm\":2,\"threads\":1024}\n"

/* Every (instantiation, size) cell checked and each instantiation timed:
 * the report names each, step 4 gives each one's speedup. */
Test(verdict, two_instantiations_pass)
{
	kp_validate_result r;
	fake_setup(&r,
		   DEVICE IATTRS("original", "<32>", 30) IATTRS("original", "<64>", 40) IBASELINE(
			   "small", "<32>") ICHECK("small", "<32>", "true", 0)
			   IBASELINE("small", "<64>") ICHECK("small", "<64>", "true", 0) IBASELINE(
				   "target", "<32>") ICHECK("target", "<32>", "true", 0)
				   IBASELINE("target", "<64>") ICHECK("target", "<64>", "true", 0)
					   ITIME("original", "<32>", 10.0, 9.9,
						 10.1) ITIME("rewritten", "<32>", 8.0, 7.9, 8.1)
						   ITIME("original", "<64>", 6.0, 5.9, 6.1)
							   ITIME("rewritten", "<64>", 5.98, 5.9,
								 6.05) "{\"event\":\"done\"}\n",
		   0);
	kp_gpu_result *g = r.gpu;
	g->kernel = "matmul_ktile";
	kp_gpu_judge(&r, 0);
	cr_assert_eq(g->ninsts, 2);
	cr_assert_str_eq(g->insts[0], "<32>");
	cr_assert_str_eq(g->insts[1], "<64>");
	cr_assert_eq(g->nsizes, 4);
	cr_assert_eq(g->attrs[1][0].regs, 40);
	cr_assert_eq(r.steps[2].status, KP_STEP_PASSED, "%s", r.steps[2].reason);
	cr_assert_str_eq(r.steps[2].reason, "the rewritten kernel's output is bit-identical to the "
					    "original's at 2 sizes (small, target) for each of "
					    "<32>, <64>");
	cr_assert_eq(r.steps[3].status, KP_STEP_PASSED, "%s", r.steps[3].reason);
	cr_assert_str_eq(
		r.steps[3].reason,
		"the rewritten kernel at size 'target': 1.250x for <32> (median 10.0000 -> "
		"8.0000 ms), 1.003x for <64> (median 6.0000 -> 5.9800 ms, within the "
		"spread: noise)");
	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "    instantiation size     problem"), "%s", text);
	cr_assert(strstr(text, "    <64>          target                64  exact\n"), "%s", text);
	cr_assert(strstr(text, "    instantiation version     median ms"), "%s", text);
	cr_assert(strstr(text, "    <64>          rewritten      5.9800"), "%s", text);
	free(text);
	char *json = kp_validate_render_json(&r);
	cJSON *root = cJSON_Parse(json);
	cJSON *gj = cJSON_GetObjectItem(root, "gpu");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(gj, "instantiations")), 2, "%s", json);
	cJSON *z = cJSON_GetArrayItem(cJSON_GetObjectItem(gj, "sizes"), 3);
	cr_assert_str_eq(cJSON_GetObjectItem(z, "name")->valuestring, "target");
	cr_assert_str_eq(cJSON_GetObjectItem(z, "instantiation")->valuestring, "<64>");
	cJSON *b = cJSON_GetObjectItem(gj, "benchmark");
	cr_assert_null(cJSON_GetObjectItem(b, "speedup"), "%s", json);
	cJSON *bi = cJSON_GetObjectItem(b, "instantiations");
	cr_assert_eq(cJSON_GetArraySize(bi), 2);
	cJSON *b0 = cJSON_GetArrayItem(bi, 0);
	cr_assert_str_eq(cJSON_GetObjectItem(b0, "instantiation")->valuestring, "<32>");
	cr_assert_float_eq(cJSON_GetObjectItem(b0, "speedup")->valuedouble, 1.25, 1e-9);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(bi, 1), "noise")));
	cJSON_Delete(root);
	free(json);
	kp_validate_result_release(&r);
}

/* A wrong result of one instantiation, another's missing cell and a
 * slower instantiation: each named by its instantiation and size. */
Test(verdict, two_instantiations_failures_name_the_cell)
{
	kp_validate_result r;
	fake_run(&r,
		 DEVICE IBASELINE("small", "<32>") ICHECK("small", "<32>", "true", 0)
			 IBASELINE("small", "<64>") ICHECK("small", "<64>", "false", 3)
				 IBASELINE("target", "<32>") ICHECK("target", "<32>", "true",
								    0) IBASELINE("target", "<64>")
					 ITIME("original", "<32>", 10.0, 9.9,
					       10.1) ITIME("rewritten", "<32>", 8.0, 7.9, 8.1)
						 ITIME("original", "<64>", 6.0, 5.9, 6.1)
							 ITIME("rewritten", "<64>", 7.0, 6.9,
							       7.1) "{\"event\":\"done\"}\n",
		 0, 0);
	cr_assert_eq(r.steps[2].status, KP_STEP_FAILED);
	cr_assert_str_eq(
		r.steps[2].reason,
		"size 'small' of instantiation <64>: 3 of 64 elements wrong; max abs error "
		"0.5, max rel error 0.5");
	cr_assert(has_finding(&r, 3,
			      "size 'target' of instantiation <64>: no result from the harness"));
	cr_assert_not(has_finding(&r, 3, "size 'target' of instantiation <32>"));
	cr_assert_eq(r.steps[3].status, KP_STEP_FAILED);
	cr_assert(strstr(r.steps[3].reason,
			 "slower: 0.857x at size 'target' of instantiation <64> (median 6.0000 -> "
			 "7.0000 ms"),
		  "%s", r.steps[3].reason);
	kp_validate_result_release(&r);
}

/* A size that violates a `requires` is not run for any instantiation:
 * one finding, no "no result" per cell. */
Test(verdict, two_instantiations_requires_names_the_size)
{
	kp_validate_result r;
	fake_run(
		&r,
		DEVICE IBASELINE("small", "<32>") ICHECK("small", "<32>", "true",
							 0) IBASELINE("small", "<64>")
			ICHECK("small", "<64>", "true",
			       0) "{\"event\":\"error\",\"version\":\"harness\",\"size\":\"even\","
				  "\"stage\":\"requires\",\"msg\":\"size violates `K % 64 == 0`\"}\n",
		0, 0);
	kp_gpu_result *g = r.gpu;
	cr_assert(has_finding(&r, 3, "size 'even' not run: size violates `K % 64 == 0`"));
	cr_assert_not(has_finding(&r, 3, "no result"));
	(void)g;
	kp_validate_result_release(&r);
}

Test(verdict, static_only_keeps_the_old_contract)
{
	kp_validate_result r;
	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 5; i++) {
		r.steps[i].name = step_names[i];
		kp_validate_set_step(&r.steps[i], i < 2 ? KP_STEP_PASSED : KP_STEP_SKIPPED, "%s",
				     KP_VALIDATE_GPU_SKIP);
	}
	r.original = r.rewritten = "a.cu";
	r.arch = "sm_90";
	cr_assert_eq(kp_validate_exit_code(&r), 0);
	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "step 3  gpu-run    skipped: " KP_VALIDATE_GPU_SKIP), "%s", text);
	free(text);
	kp_validate_result_release(&r);
}

/* ---- --profile -------------------------------------------------------- */

Test(profile, copy_event_is_absorbed)
{
	kp_validate_result r;
	fake_setup(&r,
		   DEVICE "{\"event\":\"copy\",\"size\":\"target\",\"bytes\":536870912,"
			  "\"reps\":21,\"warmup\":3,\"median_ms\":0.25}\n",
		   0);
	cr_expect_eq(r.gpu->profile.copy_bytes, 536870912.0);
	cr_expect_eq(r.gpu->profile.copy_ms, 0.25);
	kp_validate_result_release(&r);
}

Test(profile, said_when_skipped_and_null_when_not_asked)
{
	char why[256];
	if (kp_gpu_probe(why, sizeof(why)))
		cr_skip_test("a CUDA device is present: this test is for a machine without one");
	kp_launch_spec spec;
	char err[512];
	cr_assert_eq(kp_launch_spec_load(&spec,
					 KPIPE_SOURCE_DIR "/samples/transpose_shared.launch.json",
					 err, sizeof(err)),
		     0, "%s", err);
	for (int profile = 0; profile < 2; profile++) {
		kp_validate_result r;
		memset(&r, 0, sizeof(r));
		r.original = "a.cu";
		r.rewritten = "b.cu";
		r.arch = "sm_90";
		for (int i = 0; i < 5; i++) {
			r.steps[i].name = step_names[i];
			kp_validate_set_step(&r.steps[i], i < 2 ? KP_STEP_PASSED : KP_STEP_SKIPPED,
					     "x");
		}
		kp_gpu_opts o = {.spec = &spec,
				 .original = "a.cu",
				 .rewritten = "b.cu",
				 .arch = "sm_90",
				 .nvcc = "nvcc",
				 .profile = profile};
		cr_assert_eq(kp_validate_gpu(&r, &o), 0);
		char *text = kp_validate_render_text(&r);
		char *json = kp_validate_render_json(&r);
		cJSON *j = cJSON_Parse(json);
		cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "gpu"), "profile");
		if (profile) {
			cr_expect(strstr(text, "    profile: SKIPPED: no CUDA device ("), "%s",
				  text);
			cr_expect(cJSON_IsString(cJSON_GetObjectItem(p, "skipped")), "%s", json);
		} else {
			cr_expect(!strstr(text, "profile"), "%s", text);
			cr_expect(cJSON_IsNull(p), "%s", json);
		}
		cJSON_Delete(j);
		free(json);
		free(text);
		kp_validate_result_release(&r);
	}
	kp_launch_spec_release(&spec);
}

/* ---- compute-sanitizer ------------------------------------------------ */

#define SINGLE "{\"event\":\"single\",\"version\":\"rewritten\",\"size\":\"small\",\"ok\":true}\n"

Test(sanitizer, reports)
{
	kp_gpu_result *g = kp_gpu_result_new();
	kp_gpu_sanitizer s = {.tool = "memcheck"};
	kp_gpu_parse_sanitizer(g, &s,
			       "========= COMPUTE-SANITIZER\n" SINGLE
			       "========= ERROR SUMMARY: 0 errors\n",
			       0, 0);
	cr_assert_eq(s.status, KP_SAN_PASS);
	cr_assert_null(s.excerpt);

	kp_gpu_parse_sanitizer(
		g, &s,
		"========= COMPUTE-SANITIZER\n"
		"========= Invalid __global__ read of size 4 bytes\n"
		"=========     at matmul_32x32(const float *, const float *, float *, "
		"int, int, int)+0x2b0\n"
		"=========\n"
		"========= ERROR SUMMARY: 2 errors\n",
		86, 0);
	cr_assert_eq(s.status, KP_SAN_FAIL);
	cr_assert_eq(s.errors, 2);
	cr_assert(strstr(s.excerpt, "Invalid __global__ read of size 4 bytes"), "%s", s.excerpt);
	cr_assert(strstr(s.excerpt, "ERROR SUMMARY: 2 errors"), "%s", s.excerpt);

	kp_gpu_parse_sanitizer(g, &s,
			       SINGLE
			       "========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 "
			       "warnings)\n",
			       86, 0);
	cr_assert_eq(s.status, KP_SAN_FAIL);
	cr_assert_eq(s.errors, 1);
	cr_assert_eq(s.warnings, 2);

	kp_gpu_parse_sanitizer(g, &s,
			       SINGLE
			       "========= RACECHECK SUMMARY: 2 hazards displayed (0 errors, 2 "
			       "warnings)\n",
			       0, 0);
	cr_assert_eq(s.status, KP_SAN_PASS);
	cr_assert_eq(s.warnings, 2);
	cr_assert_not_null(s.excerpt);

	kp_gpu_parse_sanitizer(g, &s, "========= Error: Device not supported\n", 1, 0);
	cr_assert_eq(s.status, KP_SAN_UNSUPPORTED);
	kp_gpu_parse_sanitizer(g, &s, "", -1, 1);
	cr_assert_eq(s.status, KP_SAN_TIMEOUT);
	kp_gpu_parse_sanitizer(g, &s, "Segmentation fault\n", 139, 0);
	cr_assert_eq(s.status, KP_SAN_ERROR);
	cr_assert_str_eq(s.excerpt, "Segmentation fault");
	kp_gpu_result_free(g);
}

Test(sanitizer, step_verdict)
{
	kp_validate_result r;
	fake_setup(&r, DEVICE BASELINE("small", 64) CHECK_OK("small", 64), 0);
	kp_gpu_result *g = r.gpu;
	const char *tools[] = {"memcheck", "racecheck"};
	for (int i = 0; i < 2; i++) {
		kp_gpu_sanitizer *s = &g->san[g->nsan++];
		s->tool = tools[i];
		kp_gpu_parse_sanitizer(g, s,
				       i ? SINGLE
					       "========= RACECHECK SUMMARY: 0 hazards displayed "
					       "(0 errors, 0 warnings)\n"
					 : "========= Invalid __shared__ write of size 4 bytes\n"
					   "========= ERROR SUMMARY: 1 error\n",
				       i ? 0 : 86, 0);
	}
	kp_gpu_judge(&r, 1);
	cr_assert_eq(r.steps[4].status, KP_STEP_FAILED);
	cr_assert_str_eq(r.steps[4].reason,
			 "memcheck: 1 error on the rewritten kernel at size 'small'");
	char *text = kp_validate_render_text(&r);
	cr_assert(strstr(text, "memcheck   FAIL (1 error)"), "%s", text);
	cr_assert(strstr(text, "      ========= Invalid __shared__ write"), "%s", text);
	cr_assert(strstr(text, "racecheck  pass"), "%s", text);
	free(text);
	kp_validate_result_release(&r);
}

/* ---- the command's options -------------------------------------------- */

static int run_validate(const char *const *args)
{
	const char *argv[32] = {"validate"};
	int argc = 1;
	for (; args[argc - 1]; argc++)
		argv[argc] = args[argc - 1];
	return cmd_validate(argc, (char **)argv);
}

#define SAMPLE KPIPE_SOURCE_DIR "/samples/matmul_32x32.cu"

Test(options, errors, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	cr_assert_eq(run_validate((const char *[]){NULL}), 2);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, NULL}), 2);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, SAMPLE, "--bogus", NULL}), 2);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, SAMPLE, "--sanitize=1", NULL}), 2);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, SAMPLE, "--threads", "0", NULL}), 2);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, SAMPLE, "--sizes=", NULL}), 2);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, SAMPLE, "--sizes", NULL}), 2);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, SAMPLE, "--sizes", "small,huge", NULL}),
		     2);
	cr_assert_eq(
		run_validate((const char *[]){SAMPLE, SAMPLE, "--spec", "/nonexistent.json", NULL}),
		3);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, "/nonexistent.cu", NULL}), 3);
	char *path = kp_test_path("bad.launch.json");
	kp_test_write(path, "{\"kernel\": 1}", 13);
	cr_assert_eq(run_validate((const char *[]){SAMPLE, SAMPLE, "--spec", path, NULL}), 3);
	free(path);
}

Test(options, help) { cr_assert_eq(run_validate((const char *[]){"--help", NULL}), 0); }

/* tune sanitizes only what it could choose: a variant the harness dropped
 * as clearly slower, or one that failed a check or a launch, gets no
 * sanitizer run (and says why); the others do. */
Test(tune_sanitize, candidates_only)
{
	const char *ev =
		"{\"event\":\"check\",\"version\":\"register\",\"size\":\"small\",\"ok\":true}\n"
		"{\"event\":\"check\",\"version\":\"cp-async\",\"size\":\"small\",\"ok\":false}\n"
		"{\"event\":\"check\",\"version\":\"bulk\",\"size\":\"small\",\"ok\":true}\n"
		"{\"event\":\"time\",\"version\":\"register\",\"size\":\"target\",\"round\":0,"
		"\"median_ms\":1.0}\n"
		"{\"event\":\"dropped\",\"version\":\"bulk\",\"size\":\"target\",\"rounds\":2,"
		"\"speedup\":0.5}\n"
		"{\"event\":\"error\",\"version\":\"register-ca\",\"size\":\"odd\",\"stage\":\"launch\","
		"\"msg\":\"illegal address\"}\n";
	cr_expect_null(kp_gpu_not_a_candidate(ev, "register"));
	cr_expect_null(kp_gpu_not_a_candidate(ev, "register-2bar"), "no events: still a candidate");
	const char *w = kp_gpu_not_a_candidate(ev, "bulk");
	cr_assert_not_null(w);
	cr_expect(strstr(w, "stopped early") != NULL, "%s", w);
	w = kp_gpu_not_a_candidate(ev, "cp-async");
	cr_assert_not_null(w);
	cr_expect(strstr(w, "failed") != NULL, "%s", w);
	cr_expect_not_null(kp_gpu_not_a_candidate(ev, "register-ca"));
	cr_expect_null(kp_gpu_not_a_candidate("", "register"));
}
