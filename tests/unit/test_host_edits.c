/*
 * test_host_edits.c - the edits outside the pipelined loop go through one
 * service (transforms/host_edits.c): text a file needs once (cp.async's
 * #include, the bulk copies' helpers) is written once however many loops
 * of the file ask for it, named rather than matched by its text; and the
 * launch edits (a configuration argument set or appended, a launch turned
 * into a call of a launcher).
 */
#include "kp_test.h"

#include "arch.h"
#include "host_edits.h"
#include "parse.h"
#include "rewrite.h"

TestSuite(host_edits, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove);

/* Two kernels, each with one K-loop every transform takes (32x32 fp32
 * tiles, one element per thread, rows of 128 bytes). */
static const char two_kernels[] =
	"#define BT 32\n"
	"__global__ void mm_one(const float *__restrict__ A, const float *__restrict__ B,\n"
	"                       float *__restrict__ C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[BT][BT];\n"
	"    __shared__ float Bs[BT][BT];\n"
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    const float *a = A + (size_t)blockIdx.y * BT * K;\n"
	"    const float *b = B + (size_t)blockIdx.x * BT;\n"
	"    float sum = 0.0f;\n"
	"    for (int t = 0; t < K / BT; ++t) {\n"
	"        As[ty][tx] = a[(size_t)ty * K + tx];\n"
	"        Bs[ty][tx] = b[(size_t)ty * N + tx];\n"
	"        __syncthreads();\n"
	"        for (int k = 0; k < BT; ++k)\n"
	"            sum += As[ty][k] * Bs[k][tx];\n"
	"        __syncthreads();\n"
	"        a += BT;\n"
	"        b += (size_t)BT * N;\n"
	"    }\n"
	"    C[((size_t)blockIdx.y * BT + ty) * N + (size_t)blockIdx.x * BT + tx] = sum;\n"
	"}\n"
	"__global__ void mm_two(const float *__restrict__ A, const float *__restrict__ B,\n"
	"                       float *__restrict__ C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[BT][BT];\n"
	"    __shared__ float Bs[BT][BT];\n"
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    const float *a = A + (size_t)blockIdx.y * BT * K;\n"
	"    const float *b = B + (size_t)blockIdx.x * BT;\n"
	"    float sum = 0.0f;\n"
	"    for (int t = 0; t < K / BT; ++t) {\n"
	"        As[ty][tx] = a[(size_t)ty * K + tx];\n"
	"        Bs[ty][tx] = b[(size_t)ty * N + tx];\n"
	"        __syncthreads();\n"
	"        for (int k = 0; k < BT; ++k)\n"
	"            sum += 2.0f * As[ty][k] * Bs[k][tx];\n"
	"        __syncthreads();\n"
	"        a += BT;\n"
	"        b += (size_t)BT * N;\n"
	"    }\n"
	"    C[((size_t)blockIdx.y * BT + ty) * N + (size_t)blockIdx.x * BT + tx] = sum;\n"
	"}\n";

/* `kpipe rewrite --variant V --arch sm_90 --no-verify` of two_kernels. */
static char *rewrite_two(const char *variant, kp_rw_result *r)
{
	char *path = kp_test_path("two.cu");
	kp_test_write(path, two_kernels, sizeof(two_kernels) - 1);
	kp_rw_opts o = {0};
	o.arch = kp_arch_find("sm_90");
	cr_assert_not_null(o.arch);
	o.variant = variant;
	o.stages = 2;
	o.no_verify = 1;
	kp_rw_input in = {.path = path,
			  .contents = two_kernels,
			  .len = sizeof(two_kernels) - 1,
			  .no_compdb = 1};
	memset(r, 0, sizeof(*r));
	r->path = kp_xstrdup(path);
	r->abs_path = kp_rw_abs_path(path);
	char *out = NULL;
	size_t outlen = 0;
	int rc = kp_rewrite_buffer(&o, &in, r, &out, &outlen);
	cr_assert_eq(rc, 0, "kp_rewrite_buffer: %d", rc);
	cr_assert_not_null(out);
	free(path);
	return out;
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

Test(host_edits, cp_async_include_once_for_two_loops)
{
	kp_rw_result r;
	char *out = rewrite_two("cp-async", &r);
	cr_expect_eq(r.pipelined, 2, "pipelined %d", r.pipelined);
	cr_expect_eq(count(out, "#include <cuda_pipeline.h>"), 1, "%s", out);
	kp_rw_result_release(&r);
	free(out);
}

/* The bulk copies' helpers (no #include among them) were written once per
 * loop when only an #include was de-duplicated. */
Test(host_edits, bulk_helpers_once_for_two_loops)
{
	kp_rw_result r;
	char *out = rewrite_two("bulk", &r);
	cr_expect_eq(r.pipelined, 2, "pipelined %d", r.pipelined);
	cr_expect_eq(count(out, "mbarrier helpers (sm_90+)"), 1, "%s", out);
	kp_rw_result_release(&r);
	free(out);
}

/* Two edits of one name: kp_edit.once tells them, whatever their text. */
Test(host_edits, file_once_names_the_edit)
{
	kp_file f = {0};
	char src[] = "#include <a.h>\nint x;\n";
	f.src = src;
	f.len = strlen(src);
	f.last_include_end = 15;
	kp_edits e = {0};
	kp_edit_file_once(&e, &f, "helpers", "int h;\n");
	kp_edits_add(&e, 16, 3, "long");
	cr_assert_eq(e.n, 2);
	cr_expect_eq(e.v[0].off, 15u);
	cr_expect_eq(e.v[0].len, 0u);
	cr_expect_str_eq(e.v[0].once, "helpers");
	cr_expect_null(e.v[1].once);
	f.last_include_end = 0;
	f.has_bom = 1;
	cr_expect_eq(kp_include_point(&f), 3u);
	kp_edits_release(&e);
}
