/*
 * test_verify.c - the verifier (src/verify/): the comparison of two dumps
 * (bit for bit, NaN equal to NaN, the spec's tolerance), the source
 * preparation for the emulator (launches, shared arrays, unsupported
 * constructs), the launcher's settings, and whole verifications of stored
 * rewrites: a correct one passes, the wrong ones of tests/cpudiff/bad/
 * fail with the first mismatch, a kernel without a launch description or
 * with a warp shuffle is unavailable.  The last need g++ (skipped without).
 */
#include "kp_test.h"

#include "compare.h"
#include "prep.h"
#include "verify.h"
#include "vharness.h"

#include <math.h>
#include <stdint.h>

/* A dump with one float buffer "C" of n elements. */
static size_t make_dump(unsigned char *d, const char *name, const float *v, uint64_t n)
{
	size_t o = 0;
	uint32_t nl = (uint32_t)strlen(name), t = KP_DUMP_F32, r = 1;
	memcpy(d + o, "KPB1", 4);
	o += 4;
	memcpy(d + o, &nl, 4);
	o += 4;
	memcpy(d + o, name, nl);
	o += nl;
	memcpy(d + o, &t, 4);
	memcpy(d + o + 4, &r, 4);
	memcpy(d + o + 8, &n, 8);
	o += 16;
	memcpy(d + o, v, n * 4);
	return o + n * 4;
}

Test(verify, compare_bit_for_bit_and_nan)
{
	unsigned char a[256], b[256];
	float x[4] = {1.0f, NAN, 3.0f, -0.0f}, y[4] = {1.0f, NAN, 3.0f, -0.0f};
	size_t al = make_dump(a, "C", x, 4), bl = make_dump(b, "C", y, 4);
	kp_mismatch m;
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 0, 0, &m), 0);
	y[1] = -NAN; /* another NaN: still equal */
	bl = make_dump(b, "C", y, 4);
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 0, 0, &m), 0);
	y[3] = 0.0f; /* -0 against +0: not bit-identical */
	y[2] = 3.0000002f;
	bl = make_dump(b, "C", y, 4);
	cr_assert_eq(kp_dump_compare(a, al, b, bl, 0, 0, &m), 1);
	cr_expect_str_eq(m.buffer, "C");
	cr_expect_eq(m.index, 2);
	cr_expect_eq(m.ndiff, 2);
	cr_expect_eq(m.count, 4);
	char *t = kp_mismatch_text(&m);
	cr_expect(strstr(t, "C[2]: expected 3, got 3.00000024") != NULL, "%s", t);
	free(t);
	/* within a tolerance the spec gives */
	y[3] = -0.0f;
	bl = make_dump(b, "C", y, 4);
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 1e-3, 1e-3, &m), 0);
	/* a NaN against a number never passes */
	y[0] = NAN;
	bl = make_dump(b, "C", y, 4);
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 1e-3, 1e-3, &m), 1);
	cr_expect_eq(m.index, 0);
	/* other buffers, or a truncated dump */
	bl = make_dump(b, "D", y, 4);
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 0, 0, &m), -1);
	cr_expect_eq(kp_dump_compare(a, al, b, 10, 0, 0, &m), -1);
}

/* A dump with one double buffer "C" of n elements (kph::F64). */
static size_t make_dump_f64(unsigned char *d, const double *v, uint64_t n)
{
	size_t o = 0;
	uint32_t nl = 1, t = KP_DUMP_F64, r = 2;
	memcpy(d + o, "KPB1", 4);
	o += 4;
	memcpy(d + o, &nl, 4);
	o += 4;
	memcpy(d + o, "C", 1);
	o += 1;
	memcpy(d + o, &t, 4);
	memcpy(d + o + 4, &r, 4);
	memcpy(d + o + 8, &n, 8);
	o += 16;
	memcpy(d + o, v, n * 8);
	return o + n * 8;
}

/* doubles (issue 31): 8-byte elements compared as doubles, a difference
 * in the low bits caught bit for bit, a float rounding caught within a
 * 1e-9 tolerance, the text with 17 digits */
Test(verify, compare_doubles)
{
	unsigned char a[256], b[256];
	double x[3] = {0.1, -2.5, 1.0 / 3.0}, y[3] = {0.1, -2.5, 1.0 / 3.0};
	size_t al = make_dump_f64(a, x, 3), bl = make_dump_f64(b, y, 3);
	kp_mismatch m;
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 0, 0, &m), 0);
	y[2] = nextafter(x[2], 1.0); /* one ulp: only the low word differs */
	bl = make_dump_f64(b, y, 3);
	cr_assert_eq(kp_dump_compare(a, al, b, bl, 0, 0, &m), 1);
	cr_expect_eq(m.type, KP_DUMP_F64);
	cr_expect_eq(m.index, 2);
	cr_expect_eq(m.count, 3);
	char *t = kp_mismatch_text(&m);
	cr_expect(strstr(t, "C[2]: expected 0.33333333333333331, got 0.33333333333333337"), "%s",
		  t);
	free(t);
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 1e-9, 1e-9, &m), 0);
	y[2] = (float)x[2]; /* rounded to float: 1e-8 relative */
	bl = make_dump_f64(b, y, 3);
	cr_expect_eq(kp_dump_compare(a, al, b, bl, 1e-9, 1e-9, &m), 1);
	/* a truncated double dump is malformed */
	cr_expect_eq(kp_dump_compare(a, al, b, bl - 4, 0, 0, &m), -1);
}

Test(verify, half_values)
{
	cr_expect_eq(kp_half_value(0x3c00), 1.0);
	cr_expect_eq(kp_half_value(0xc000), -2.0);
	cr_expect_eq(kp_half_value(0x0001), ldexp(1.0, -24));
	cr_expect(isnan(kp_half_value(0x7e00)));
}

Test(verify, prep_launch_shared_extern)
{
	const char *src = "#include <cuda_runtime.h>\n"
			  "__global__ void k(float *p, int n) {\n"
			  "  __shared__ __align__(16) float As[16][16];\n"
			  "  __shared__ float a = 1, b;\n"
			  "  extern __shared__ float dyn[];\n"
			  "  // k<<<1, 2>>>(p, n) in a comment\n"
			  "  As[0][0] = dyn[0] + p[n];\n"
			  "}\n"
			  "void host(float *p) { ns::k<float, 2><<<dim3(1, 2),\n"
			  "  64, 0, 0>>>(p, 3); }\n";
	char *out = NULL, *why = NULL;
	cr_assert_eq(kp_prep(src, strlen(src), "/x/k.cu", &out, &why), 0, "%s", why);
	cr_expect(strncmp(out, "#line 1 \"/x/k.cu\"\n", 18) == 0);
	cr_expect(strstr(out, "float As[16][16]; static kp::ShmReg kp_shm_reg_0(&As, sizeof As);"));
	cr_expect(!strstr(out, "kp_shm_reg_1"), "an initialised declaration is not registered");
	cr_expect(strstr(out, "float *const dyn = (float *)kp::dyn_smem_buf;"));
	cr_expect(strstr(out, "// k<<<1, 2>>>(p, n) in a comment"));
	cr_expect(strstr(out,
			 "kp::launch(kp::cfg(dim3(1, 2),   64, 0, 0), ns::k<float, 2>, p, 3)\n"),
		  "%s", out);
	/* line numbers kept: as many lines as the input, plus the #line */
	int nin = 0, nout = 0;
	for (const char *p = src; *p; p++)
		nin += *p == '\n';
	for (const char *p = out; *p; p++)
		nout += *p == '\n';
	cr_expect_eq(nout, nin + 1);
	free(out);
}

Test(verify, prep_unsupported_and_ptx)
{
	const char *src = "__global__ void k(float *p) {\n"
			  "  /* __shfl_sync(0, 1, 2) in a comment */\n"
			  "  float v = __shfl_down_sync(~0u, p[0], 1);\n"
			  "  asm volatile(\"bar.sync 0;\");\n"
			  "}\n";
	char *out = NULL, *why = NULL;
	cr_assert_eq(kp_prep(src, strlen(src), "k.cu", &out, &why), 1);
	cr_expect_str_eq(why, "line 3: the warp-collective operation __shfl_down_sync; line 4: "
			      "inline PTX (asm)");
	free(why);
	const char *dyn = "__device__ unsigned f() { unsigned n;\n"
			  "  asm(\"mov.u32 %0, %%dynamic_smem_size;\" : \"=r\"(n));\n"
			  "  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
			  "  return n; }\n";
	cr_assert_eq(kp_prep(dyn, strlen(dyn), "d.cu", &out, &why), 0, "%s", why);
	cr_expect(strstr(out, "n = kp::dyn_smem_size();\n"), "%s", out);
	cr_expect(strstr(out, "(void)0;\n"), "%s", out);
	free(out);
}

/* The other kernels' bodies are blanked before the emulator sees them:
 * their inline PTX no longer stops the check of one that has none. */
Test(verify, prep_only_kernel)
{
	const char *src = "template <int N> __global__ void __launch_bounds__(64) k(float *p)\n"
			  "{ p[0] = N; }\n"
			  "__global__ void other(float *p);\n"
			  "__global__ void other(float *p) {\n"
			  "  asm volatile(\"bar.sync 0;\"); /* } */\n"
			  "}\n"
			  "int main() { k<2><<<1, 1>>>(0); }\n";
	char *o = kp_prep_only_kernel(src, strlen(src), "ns::k<2>");
	cr_assert_eq(strlen(o), strlen(src), "same length");
	cr_expect(strstr(o, "{ p[0] = N; }"), "%s", o);
	cr_expect_null(strstr(o, "bar.sync"), "%s", o);
	cr_expect(strstr(o, "__global__ void other(float *p) {\n"), "%s", o);
	cr_expect(strstr(o, "int main() { k<2><<<1, 1>>>(0); }"), "%s", o);
	free(o);
	/* the kernel not found (a macro defines it): nothing blanked */
	o = kp_prep_only_kernel(src, strlen(src), "nowhere");
	cr_expect_str_eq(o, src);
	free(o);
	/* a kernel that launches others keeps them */
	const char *dp = "__global__ void child(float *p) { asm(\"exit;\"); }\n"
			 "__global__ void k(float *p) { child<<<1, 1>>>(p); }\n";
	o = kp_prep_only_kernel(dp, strlen(dp), "k");
	cr_expect_str_eq(o, dp);
	free(o);
}

Test(verify, harness_settings)
{
	const char *spec =
		"{\"kernel\": \"k\", \"template_args\": [\"<32>\", \"<64>\"], \"block\": [\"32\"],"
		" \"grid\": [\"N / 32\"], \"sizes\": {\"tiny\": {\"N\": 32}, \"small\": {\"N\": 96},"
		" \"target\": {\"N\": 4096}}, \"args\": [{\"name\": \"C\", \"role\": \"out\","
		" \"type\": \"float\", \"count\": \"N\"}, {\"name\": \"N\", \"role\": \"scalar\","
		" \"type\": \"int\", \"value\": \"N\"}]}";
	kp_launch_spec s;
	char err[256];
	cr_assert_eq(kp_launch_spec_parse(&s, spec, "k.launch.json", err, sizeof(err)), 0, "%s",
		     err);
	char *n = kp_vharness_setting(&s, 1, 1);
	cr_expect_str_eq(n, "small@1");
	free(n);
	char *h = kp_vharness_source(&s, "/w/original.cpp", NULL, NULL, 30);
	cr_expect(strstr(h, "#include \"/w/original.cpp\""));
	cr_expect(strstr(h, "\"tiny@0\", \"small@0\", \"target@0\", \"tiny@1\""), "%s", h);
	cr_expect(strstr(h, "if (kp_inst == 1) kp::launch(kp::cfg(kp_grid, kp_block, kp_smem), "
			    "k<64>, kp_buf0, (int)(N));"),
		  "%s", h);
	cr_expect(strstr(h, "kph::install_handlers(30);"));
	free(h);
	kp_launch_spec_release(&s);
}

/* double buffers and scalars: kph::F64 and (double)(expr) */
Test(verify, harness_doubles)
{
	const char *spec =
		"{\"kernel\": \"k\", \"block\": [\"32\"], \"grid\": [\"N / 32\"], \"sizes\":"
		" {\"tiny\": {\"N\": 32}, \"small\": {\"N\": 96}, \"target\": {\"N\": 4096}},"
		" \"args\": [{\"name\": \"C\", \"role\": \"inout\", \"type\": \"double\","
		" \"count\": \"N\"}, {\"name\": \"a\", \"role\": \"scalar\", \"type\": \"double\","
		" \"value\": \"0.25\"}]}";
	kp_launch_spec s;
	char err[256];
	cr_assert_eq(kp_launch_spec_parse(&s, spec, "k.launch.json", err, sizeof(err)), 0, "%s",
		     err);
	char *h = kp_vharness_source(&s, "/w/original.cpp", NULL, NULL, 30);
	cr_expect(strstr(h, "double *kp_buf0 = (double *)kph::buffer(\"C\", kph::INOUT, kph::F64, "
			    "kp_counts[0]);"),
		  "%s", h);
	cr_expect(strstr(h, "k, kp_buf0, (double)(0.25));"), "%s", h);
	free(h);
	kp_launch_spec_release(&s);
}

/* ---- whole verifications (g++) ----------------------------------------- */

#define BAD KPIPE_SOURCE_DIR "/tests/cpudiff/bad/"

/* Verifies the rewrite `rew` of `orig` (paths in the checkout), with the
 * launch description beside orig; the cache is the test's own folder. */
static kp_verify_status verify_pair(const char *orig, const char *rew, kp_verify_result *r)
{
	size_t al, bl;
	char *a = kp_test_read(orig, &al), *b = kp_test_read(rew, &bl);
	char *cache = kp_test_path("cache");
	const char *shared = getenv("KPIPE_CACHE_DIR"); /* the suite's, when it has one */
	kp_verify_input in = {orig, a, al, b, bl, NULL, NULL, shared && *shared ? shared : cache};
	kp_verify_status s = kp_verify(&in, r);
	free(a);
	free(b);
	free(cache);
	return s;
}

TestSuite(verify_run, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove);

Test(verify_run, the_original_against_itself_passes)
{
	if (!kp_test_have_tool("g++"))
		cr_skip_test("no g++");
	kp_verify_result r;
	const char *k = BAD "persistent_outer/kernel.cu";
	cr_assert_eq(verify_pair(k, k, &r), KP_VERIFY_PASSED, "%s", r.detail);
	cr_expect_gt(r.runs, 0);
	kp_verify_result_release(&r);
}

Test(verify_run, stored_wrong_rewrites_fail)
{
	if (!kp_test_have_tool("g++"))
		cr_skip_test("no g++");
	static const char *const cases[] = {"persistent_outer", "tile_pointer", "name_collision",
					    "ne_condition"};
	for (size_t i = 0; i < KP_ARRAY_LEN(cases); i++) {
		kp_strbuf a = KP_STRBUF_INIT, b = KP_STRBUF_INIT;
		kp_strbuf_addf(&a, BAD "%s/kernel.cu", cases[i]);
		kp_strbuf_addf(&b, BAD "%s/kernel.kpipe.cu", cases[i]);
		kp_verify_result r;
		cr_expect_eq(verify_pair(kp_strbuf_str(&a), kp_strbuf_str(&b), &r),
			     KP_VERIFY_FAILED, "%s: %s", cases[i], r.detail);
		cr_expect(r.launch && strstr(r.launch, "size "), "%s: %s", cases[i], r.launch);
		cr_expect(r.detail && (strstr(r.detail, "expected") || strstr(r.detail, "ERROR")),
			  "%s: %s", cases[i], r.detail);
		kp_verify_result_release(&r);
		kp_strbuf_release(&a);
		kp_strbuf_release(&b);
	}
}

Test(verify_run, unavailable_says_why)
{
	kp_verify_result r;
	char *p = kp_test_path("k.cu");
	const char *src = "__global__ void k(float *p) { p[0] = __shfl_sync(~0u, p[1], 0); }\n";
	kp_test_write(p, src, strlen(src));
	kp_verify_input in = {p, src, strlen(src), src, strlen(src), NULL, NULL, "off"};
	cr_expect_eq(kp_verify(&in, &r), KP_VERIFY_UNAVAILABLE);
	cr_expect(strstr(r.detail, "no launch description"), "%s", r.detail);
	kp_verify_result_release(&r);
	char *spec = kp_test_path("k.launch.json");
	const char *js = "{\"kernel\": \"k\", \"block\": [\"32\"], \"grid\": [\"1\"], \"sizes\":"
			 " {\"tiny\": {\"N\": 1}, \"small\": {\"N\": 2}, \"target\": {\"N\": 3}},"
			 " \"args\": [{\"name\": \"p\", \"role\": \"inout\", \"type\": \"float\","
			 " \"count\": \"32\"}]}";
	kp_test_write(spec, js, strlen(js));
	cr_expect_eq(kp_verify(&in, &r), KP_VERIFY_UNAVAILABLE);
	cr_expect(strstr(r.detail, "warp-collective operation __shfl_sync"), "%s", r.detail);
	kp_verify_result_release(&r);
	free(spec);
	free(p);
}

/* ---- kpipe's own launches ---------------------------------------------- */

#include "kp_test_parse.h"
#include "own_launch.h"
#include "parse.h"

static kp_file *parse_snippet(const char *src)
{
	kp_file *f = kp_xcalloc(1, sizeof(*f));
	kp_test_parse(f, "snippet.cu", src);
	return f;
}

static char *own_spec(kp_file *f, int kernel, char **why)
{
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	return kp_own_launch_spec(f, f->kernels[kernel], &ao, why);
}

Test(verify, own_launch_from_the_files_launch)
{
	kp_file *f = parse_snippet(
		"__global__ void k(const float *__restrict__ A, float *C, int n, unsigned m,\n"
		"                  float alpha) { C[0] = A[0] * alpha + n + m; }\n"
		"void host(const float *A, float *C) {\n"
		"  dim3 block(16, 8);\n"
		"  k<<<4, block>>>(A, C, 1, 2, 3.0f);\n"
		"}\n");
	char *why = NULL, *s = own_spec(f, 0, &why);
	cr_assert(s, "%s", why);
	cr_expect(strstr(s, "\"block\": [\"16\", \"8\", \"1\"], \"grid\": [\"2\", \"2\", \"1\"]"),
		  "%s", s);
	cr_expect(strstr(s, "{\"name\": \"A\", \"role\": \"in\", \"type\": \"float\", \"count\": "
			    "\"8 * (V + 64) * (V + 64)\"}"),
		  "%s", s);
	cr_expect(strstr(s, "{\"name\": \"C\", \"role\": \"inout\""), "%s", s);
	cr_expect(strstr(s, "{\"name\": \"m\", \"role\": \"scalar\", \"type\": \"int\", \"value\": "
			    "\"V\"}"),
		  "%s", s);
	cr_expect(strstr(s, "\"value\": \"1.5\""), "%s", s);
	cr_expect(strstr(s, "\"empty\": {\"V\": 0}") && strstr(s, "\"ragged\": {\"V\": 112}"));
	/* it reads as a launch description */
	kp_launch_spec ls;
	char err[256];
	cr_expect_eq(kp_launch_spec_parse(&ls, s, "own", err, sizeof(err)), 0, "%s", err);
	kp_launch_spec_release(&ls);
	free(s);
	kp_file_release(f);
	free(f);
}

/* a double kernel (issue 31): double buffers filled, double scalars 1.5 */
Test(verify, own_launch_doubles)
{
	kp_file *f = parse_snippet("__global__ void __launch_bounds__(256) k(const double *A, "
				   "double *__restrict__ C, int n, double alpha)\n"
				   "{ C[n] = A[n] * alpha; }\n");
	char *why = NULL, *s = own_spec(f, 0, &why);
	cr_assert(s, "%s", why);
	cr_expect(strstr(s, "{\"name\": \"A\", \"role\": \"in\", \"type\": \"double\""), "%s", s);
	cr_expect(strstr(s, "{\"name\": \"C\", \"role\": \"inout\", \"type\": \"double\""), "%s",
		  s);
	cr_expect(strstr(s, "{\"name\": \"alpha\", \"role\": \"scalar\", \"type\": "
			    "\"double\", \"value\": \"1.5\"}"),
		  "%s", s);
	kp_launch_spec ls;
	char err[256];
	cr_expect_eq(kp_launch_spec_parse(&ls, s, "own", err, sizeof(err)), 0, "%s", err);
	kp_launch_spec_release(&ls);
	free(s);
	kp_file_release(f);
	free(f);
}

Test(verify, own_launch_refusals)
{
	kp_file *f = parse_snippet(
		"__global__ void __launch_bounds__(256) b(float *p, int n) { p[n] = 0; }\n"
		"__global__ void nob(float *p) { p[0] = 0; }\n"
		"struct S { int a; };\n"
		"__global__ void __launch_bounds__(64) st(float *p, S s) { p[0] = s.a; }\n"
		"__global__ void __launch_bounds__(64) ro(const float *p, int n) { (void)p; }\n");
	char *why = NULL, *s = own_spec(f, 0, &why);
	cr_assert(s, "%s", why);
	cr_expect(strstr(s, "\"block\": [\"256\", \"1\", \"1\"]"), "%s", s);
	free(s);
	cr_expect_null(own_spec(f, 1, &why));
	cr_expect(strstr(why, "no block shape"), "%s", why);
	free(why);
	cr_expect_null(own_spec(f, 2, &why));
	cr_expect(strstr(why, "parameter s has the type S"), "%s", why);
	free(why);
	cr_expect_null(own_spec(f, 3, &why));
	cr_expect(strstr(why, "no pointer parameter it writes through"), "%s", why);
	free(why);
	kp_file_release(f);
	free(f);
}
