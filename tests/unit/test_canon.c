/*
 * test_canon.c - the canon pass (pass_canon.c, canon.c): each shape it
 * rewrites, run alone (the exact text it writes) and in the default list
 * (the loop then pipelined, the fixes giving the output); each refusal it
 * must make, with its remark and nothing written; its trial through the
 * inline pass; its shapes in the inline pass's trial (a helper's guarded
 * temporary written as a guarded copy in the inlined code, and a refusal
 * there that the remark names); and its place in the pass lists.
 */
#include "kp_test.h"

#include "arch.h"
#include "pass.h"
#include "rewrite.h"

/* --- running the driver -------------------------------------------------- */

typedef struct {
	kp_rw_result r;
	char *src; /* the input */
	size_t len;
	char *out; /* the main file's new text, or NULL */
	size_t outlen;
	int rc;
} run_t;

/* The passes named in a comma-separated list (static storage). */
static const kp_pass *const *pass_list(const char *names, int *n)
{
	static const kp_pass *list[8];
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", names);
	*n = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		list[*n] = kp_pass_find(t);
		cr_assert_not_null(list[*n], "no pass '%s'", t);
		(*n)++;
	}
	return list;
}

/* kp_rewrite_buffer() on `text` (written to name in the test's directory)
 * as `kpipe rewrite --variant VARIANT` calls it; passes NULL: the default
 * list. */
static void run_text(run_t *x, const char *name, const char *text, const char *variant,
		     const char *passes)
{
	memset(x, 0, sizeof(*x));
	char *path = kp_test_path(name);
	kp_test_write(path, text, strlen(text));
	x->src = kp_test_read(path, &x->len);
	kp_rw_opts o = {0};
	o.arch = kp_arch_find("sm_90");
	cr_assert_not_null(o.arch);
	o.variant = variant;
	o.stages = 2;
	if (passes)
		o.passes = pass_list(passes, &o.npasses);
	kp_rw_input in = {.path = path, .contents = x->src, .len = x->len, .no_compdb = 1};
	x->r.path = kp_xstrdup(path);
	x->r.abs_path = kp_rw_abs_path(path);
	x->rc = kp_rewrite_buffer(&o, &in, &x->r, &x->out, &x->outlen);
	free(path);
}

static void run_release(run_t *x)
{
	kp_rw_result_release(&x->r);
	free(x->src);
	free(x->out);
}

/* The index of the first diagnostic of r with `id`, -1 when none. */
static int diag_index(const kp_rw_result *r, const char *id)
{
	for (int i = 0; i < r->ndiags; i++)
		if (r->diags[i].id && !strcmp(r->diags[i].id, id))
			return i;
	return -1;
}

static int count_id(const kp_rw_result *r, const char *id)
{
	int n = 0;
	for (int i = 0; i < r->ndiags; i++)
		n += r->diags[i].id && !strcmp(r->diags[i].id, id);
	return n;
}

/* The diagnostic with `id` at `line` whose message holds `needle`. */
static void expect_diag(const kp_rw_result *r, const char *id, int line, const char *needle)
{
	for (int i = 0; i < r->ndiags; i++) {
		const kp_rw_diag *d = &r->diags[i];
		if (d->id && !strcmp(d->id, id) && d->line == line && strstr(d->message, needle))
			return;
	}
	for (int i = 0; i < r->ndiags; i++)
		fprintf(stderr, "  %d:%d %s [%s]\n", r->diags[i].line, r->diags[i].col,
			r->diags[i].message, r->diags[i].id ? r->diags[i].id : "");
	cr_assert_fail("no %s at line %d holding '%s'", id, line, needle);
}

/* How many times `needle` occurs in text. */
static int count_of(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The fixes of r applied to src (in order, none two touching). */
static void expect_fixes_give_text(const kp_rw_result *r, const char *src, const char *text)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t pos = 0;
	for (int i = 0; i < r->nfixes; i++) {
		const kp_rw_fix *f = &r->fixes[i];
		cr_assert(i == 0 || f->off > pos, "fix %d touches the one before", i);
		kp_strbuf_add(&sb, src + pos, f->off - pos);
		kp_strbuf_adds(&sb, f->text);
		pos = f->off + f->len;
	}
	kp_strbuf_adds(&sb, src + pos);
	cr_assert_str_eq(kp_strbuf_str(&sb), text, "the fixes do not give the new text");
	kp_strbuf_release(&sb);
}

/* src with `from` (once) replaced by `to`. */
static char *replace_once(const char *src, const char *from, const char *to)
{
	const char *p = strstr(src, from);
	cr_assert_not_null(p, "no '%s' in the input", from);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, src, (size_t)(p - src));
	kp_strbuf_adds(&sb, to);
	kp_strbuf_adds(&sb, p + strlen(from));
	return kp_strbuf_detach(&sb);
}

/* --- 1: guarded temporaries ------------------------------------------------ */

#define KHEAD                                                                                      \
	"#define T 16\n"                                                                           \
	"__global__ void k(const float *__restrict__ A, const float *__restrict__ B,\n"            \
	"                  float *__restrict__ C, int M, int N, int K)\n"                          \
	"{\n"                                                                                      \
	"    __shared__ float As[T][T];\n"                                                         \
	"    __shared__ float Bs[T][T];\n"                                                         \
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"                                      \
	"    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"                    \
	"    float acc = 0.0f;\n"
#define KTAIL                                                                                      \
	"        __syncthreads();\n"                                                               \
	"        for (int kk = 0; kk < T; ++kk)\n"                                                 \
	"            acc += As[ty][kk] * Bs[kk][tx];\n"                                            \
	"        __syncthreads();\n"                                                               \
	"    }\n"                                                                                  \
	"    if (row < M && col < N)\n"                                                            \
	"        C[row * N + col] = acc;\n"                                                        \
	"}\n"

static const char temps_src[] = KHEAD "    for (int k0 = 0; k0 < K; k0 += T) {\n"
				      "        float a = 0;\n"
				      "        if (row < M && k0 + tx < K)\n"
				      "            a = A[row * K + k0 + tx];\n"
				      "        As[ty][tx] = a;\n"
				      "        for (int i = 0; i < 1; ++i) {\n"
				      "            float b{};\n"
				      "            if (k0 + ty < K && col < N) {\n"
				      "                b = B[(k0 + ty) * N + col];\n"
				      "            }\n"
				      "            static_assert(T > 0, \"tiles\");\n"
				      "            Bs[ty][tx] = b;\n"
				      "        }\n" KTAIL;

static const char temps_canon[] =
	"    for (int k0 = 0; k0 < K; k0 += T) {\n"
	"        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : "
	"static_cast<float>(0);\n"
	"        for (int i = 0; i < 1; ++i) {\n"
	"            static_assert(T > 0, \"tiles\");\n"
	"            Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : "
	"static_cast<float>(0);\n"
	"        }\n";

/* `T v = 0; if (g) v = P[e]; TILE[..] = v;`, unbraced at the top of the
 * load phase and braced in a copy loop with a static_assert before the
 * store: alone, the pass writes exactly the guarded copies; in the
 * default list the loop is then pipelined, with cp.async zero-fill
 * (which needs the copies pure); without the pass it is not. */
Test(canon_pass, guarded_temporaries, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	run_t x;
	run_text(&x, "t.cu", temps_src, "cp-async", "canon");
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(x.out);
	char *want = replace_once(temps_src, strstr(temps_src, "    for (int k0"), "");
	kp_strbuf w = KP_STRBUF_INIT;
	kp_strbuf_adds(&w, want);
	kp_strbuf_adds(&w, temps_canon);
	kp_strbuf_adds(&w, KTAIL);
	cr_assert_str_eq(x.out, kp_strbuf_str(&w));
	kp_strbuf_release(&w);
	free(want);
	expect_diag(&x.r, "kpipe-canonicalized", 10,
		    "the temporaries 'a' into 'As', 'b' into 'Bs' as guarded copies");
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);

	run_text(&x, "t.cu", temps_src, "cp-async", NULL);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	cr_assert_not_null(strstr(x.out, "kp_in_As = (row < M && (k0 + T) + tx < K);"), "%s",
			   x.out);
	cr_assert_not_null(strstr(x.out, "__pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx]"));
	cr_assert_null(strstr(x.out, "float a = 0;"));
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);

	run_text(&x, "t.cu", temps_src, "cp-async", "inline,pipeline");
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	cr_assert_lt(diag_index(&x.r, "kpipe-pipelined"), 0);
	run_release(&x);
}

/* The zero written with the temporary's type: `T v{static_cast<T>(0)}`,
 * `T v = T(0)` in a template keep static_cast<T>(0); a float4 temporary
 * starting as make_float4(0, ...) keeps it. */
Test(canon_pass, zero_forms, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	static const char src[] =
		"template <typename T>\n"
		"__global__ void k(const T *__restrict__ A, const float4 *__restrict__ B,\n"
		"                  T *__restrict__ C, int K)\n"
		"{\n"
		"    __shared__ T As[16][16];\n"
		"    __shared__ float4 Bs[16];\n"
		"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
		"    T acc = T(0);\n"
		"    for (int k0 = 0; k0 < K; k0 += 16) {\n"
		"        T a{static_cast<T>(0)};\n"
		"        if (k0 + tx < K) {\n"
		"            a = A[ty * K + k0 + tx];\n"
		"        }\n"
		"        As[ty][tx] = a;\n"
		"        float4 b = make_float4(0.f, 0.f, 0.f, 0.f);\n"
		"        if (ty == 0 && k0 + tx < K)\n"
		"            b = B[k0 + tx];\n"
		"        Bs[tx] = b;\n"
		"        __syncthreads();\n"
		"        for (int kk = 0; kk < 16; ++kk)\n"
		"            acc += As[ty][kk] * static_cast<T>(Bs[kk].x);\n"
		"        __syncthreads();\n"
		"    }\n"
		"    C[ty * 16 + tx] = acc;\n"
		"}\n"
		"template __global__ void k<float>(const float *__restrict__, const float4 *__restrict__,\n"
		"                                  float *__restrict__, int);\n";
	run_t x;
	run_text(&x, "z.cu", src, "register", "canon");
	cr_assert_eq(x.rc, KP_EXIT_OK, "%d", x.rc);
	cr_assert_not_null(strstr(x.out,
				  "        As[ty][tx] = (k0 + tx < K) ? A[ty * K + k0 + tx] : "
				  "static_cast<T>(0);\n"),
			   "%s", x.out);
	cr_assert_not_null(strstr(x.out, "        Bs[tx] = (ty == 0 && k0 + tx < K) ? B[k0 + tx] : "
					 "make_float4(0.f, 0.f, 0.f, 0.f);\n"),
			   "%s", x.out);
	cr_assert_null(strstr(x.out, "T a{"));
	run_release(&x);
}

/* --- 2: an if/else of several copies ---------------------------------------- */

static const char split_src[] = KHEAD
	"    for (int k0 = 0; k0 < K; k0 += T) {\n"
	"        if (k0 + ty < K) {\n"
	"            As[ty][tx] = row < M ? A[row * K + k0 + tx] : 0.0f;\n"
	"            Bs[ty][tx] = col < N ? B[(k0 + ty) * N + col] : 0.0f;\n"
	"        } else {\n"
	"            As[ty][tx] = 0.0f;\n"
	"            Bs[ty][tx] = 0;\n"
	"        }\n" KTAIL;

static const char split_canon[] =
	"        if (k0 + ty < K)\n"
	"            As[ty][tx] = row < M ? A[row * K + k0 + tx] : 0.0f;\n"
	"        else\n"
	"            As[ty][tx] = 0.0f;\n"
	"        if (k0 + ty < K)\n"
	"            Bs[ty][tx] = col < N ? B[(k0 + ty) * N + col] : 0.0f;\n"
	"        else\n"
	"            Bs[ty][tx] = 0;\n";

/* The if/else whose branches are blocks of copies, one per tile each,
 * becomes one if/else per tile with the same condition; the loop is then
 * pipelined (register staging: the ternary nested in the if is not a
 * pure copy). */
Test(canon_pass, split_if_else, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	run_t x;
	run_text(&x, "s.cu", split_src, "register", "canon");
	cr_assert_eq(x.rc, KP_EXIT_OK);
	const char *blk = strstr(split_src, "        if (k0 + ty < K) {");
	const char *end = strstr(blk, "        }\n") + strlen("        }\n");
	kp_strbuf from = KP_STRBUF_INIT;
	kp_strbuf_add(&from, blk, (size_t)(end - blk));
	char *want = replace_once(split_src, kp_strbuf_str(&from), split_canon);
	cr_assert_str_eq(x.out, want);
	free(want);
	kp_strbuf_release(&from);
	expect_diag(&x.r, "kpipe-canonicalized", 10,
		    "split the if/else of 2 copies (line 11) into one if/else per copy");
	run_release(&x);

	run_text(&x, "s.cu", split_src, "register", NULL);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	cr_assert_lt(diag_index(&x.r, "kpipe-partial-tile-write"), 0);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);

	/* without the pass: refused, and the message no longer asks for the
	 * else branch the code has */
	run_text(&x, "s.cu", split_src, "register", "inline,pipeline");
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	expect_diag(&x.r, "kpipe-partial-tile-write", 11,
		    "kpipe reads an if/else as a guarded copy");
	int i = diag_index(&x.r, "kpipe-partial-tile-write");
	cr_assert_null(strstr(x.r.diags[i].message, "store 0 in an else branch"));
	run_release(&x);
}

/* --- 3: declarations in the loop body --------------------------------------- */

static const char decl_src[] =
	"#define TB 16\n"
	"__global__ void d(const float *__restrict__ A, const float *__restrict__ B,\n"
	"                  float *__restrict__ C, int N, int K)\n"
	"{\n"
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    const int row = blockIdx.y * TB + ty, col = blockIdx.x * TB + tx;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += TB) {\n"
	"        __syncthreads();\n"
	"\n"
	"        // the tiles\n"
	"        __shared__ float As[TB][TB];\n"
	"        __shared__ float Bs[TB][TB];\n"
	"        float a;\n"
	"\n"
	"        As[ty][tx] = A[row * K + k0 + tx];\n"
	"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < TB; ++kk) {\n"
	"            a = As[ty][kk];\n"
	"            acc += a * Bs[kk][tx];\n"
	"        }\n"
	"    }\n"
	"    C[row * N + col] = acc;\n"
	"}\n";

static const char decl_canon[] = "    float acc = 0.0f;\n"
				 "    // the tiles\n"
				 "    __shared__ float As[TB][TB];\n"
				 "    __shared__ float Bs[TB][TB];\n"
				 "    float a;\n"
				 "    for (int k0 = 0; k0 < K; k0 += TB) {\n"
				 "        __syncthreads();\n"
				 "\n"
				 "        As[ty][tx] = A[row * K + k0 + tx];\n";

/* __shared__ tiles after the top barrier and an uninitialised scalar the
 * compute sets and reads move, with their comment, to just before the
 * loop (one blank line of the two around them goes too). */
Test(canon_pass, hoist_declarations, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	run_t x;
	run_text(&x, "d.cu", decl_src, "register", "canon");
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(strstr(x.out, decl_canon), "%s", x.out);
	cr_assert_eq(count_of(x.out, "float a;"), 1, "one 'float a;', before the loop");
	expect_diag(&x.r, "kpipe-canonicalized", 8,
		    "moved the declarations of 'As', 'Bs', 'a' before the loop");
	run_release(&x);

	run_text(&x, "d.cu", decl_src, "cp-async", NULL);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	cr_assert_not_null(strstr(x.out, "    __shared__ float As[2][TB][TB];\n"), "%s", x.out);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);
}

/* --- refusals ---------------------------------------------------------------- */

/* Kernel NAME whose K-loop's load phase is LOAD (the tiles As and Bs,
 * the indices of KHEAD). */
#define REFUSED(NAME, EXTRA, LOAD)                                                                 \
	"__global__ void " NAME "(const float *__restrict__ A, const float *__restrict__ B,\n"     \
	"    float *__restrict__ C, int M, int N, int K" EXTRA ")\n"                               \
	"{\n"                                                                                      \
	"    __shared__ float As[T][T];\n"                                                         \
	"    __shared__ float Bs[T][T];\n"                                                         \
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"                                      \
	"    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"                    \
	"    float acc = 0.0f;\n"                                                                  \
	"    for (int k0 = 0; k0 < K; k0 += T) {\n" LOAD KTAIL

static const char refused_src[] = "#define T 16\n"
	/* line 2: the temporary is read twice */
	REFUSED("used_twice", "",
		"        float a = 0.0f;\n"
		"        if (row < M && k0 + tx < K)\n"
		"            a = A[row * K + k0 + tx];\n"
		"        As[ty][tx] = a;\n"
		"        Bs[ty][tx] = a;\n")
	/* line 24: the guard has a side effect */
	REFUSED("guard_effect", "",
		"        int n = 0;\n"
		"        float a = 0.0f;\n"
		"        if (n++ < 1 && row < M)\n"
		"            a = A[row * K + k0 + tx];\n"
		"        As[ty][tx] = a;\n"
		"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n")
	/* line 47: the temporary does not start at 0 */
	REFUSED("not_zero", "",
		"        float a = 1.0f;\n"
		"        if (row < M)\n"
		"            a = A[row * K + k0 + tx];\n"
		"        As[ty][tx] = a;\n"
		"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n")
	/* line 69: the else branch stores the tiles in another order */
	REFUSED("swapped", "",
		"        if (k0 + ty < K) {\n"
		"            As[ty][tx] = A[row * K + k0 + tx];\n"
		"            Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
		"        } else {\n"
		"            Bs[ty][tx] = 0.0f;\n"
		"            As[ty][tx] = 0.0f;\n"
		"        }\n")
	/* line 93: the else branch stores 1 */
	REFUSED("else_one", "",
		"        if (k0 + ty < K) {\n"
		"            As[ty][tx] = A[row * K + k0 + tx];\n"
		"            Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
		"        } else {\n"
		"            As[ty][tx] = 0.0f;\n"
		"            Bs[ty][tx] = 1.0f;\n"
		"        }\n")
	/* line 117: the condition reads memory, evaluated once per copy after the split */
	REFUSED("cond_memory", ", const int *lim",
		"        if (k0 + ty < lim[0]) {\n"
		"            As[ty][tx] = A[row * K + k0 + tx];\n"
		"            Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
		"        } else {\n"
		"            As[ty][tx] = 0.0f;\n"
		"            Bs[ty][tx] = 0.0f;\n"
		"        }\n")
	/* line 141: the temporary has another type than the value */
	REFUSED("other_type", ", const double *D",
		"        float a = 0.0f;\n"
		"        if (row < M)\n"
		"            a = D[row * K + k0 + tx];\n"
		"        As[ty][tx] = a;\n"
		"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n")
	/* line 163: a declaration the compute uses whose value changes each iteration */
	"__global__ void decl_value(const float *__restrict__ A, const float *__restrict__ S,\n"
	"    float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float As[T][T];\n"
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += T) {\n"
	"        const float s = S[k0];\n"
	"        As[ty][tx] = A[ty * K + k0 + tx];\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < T; ++kk)\n"
	"            acc += As[ty][kk] * s;\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[ty * T + tx] = acc;\n"
	"}\n";

/* Each shape the pass must not rewrite: a remark at the loop says why, no
 * note, nothing written.  (With --variant cp-async: register staging
 * takes a copy through a temporary set from memory as it is, and the pass
 * leaves a loop alone that is pipelined as written.) */
Test(canon_pass, refusals, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	run_t x;
	run_text(&x, "r.cu", refused_src, "cp-async", NULL);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING, "%d", x.rc);
	cr_assert_null(x.out);
	cr_assert_eq(count_id(&x.r, "kpipe-canonicalized"), 0);
	expect_diag(
		&x.r, "kpipe-canon-refused", 10,
		"'a' is used elsewhere in the kernel, not only to carry the loaded value to 'As'");
	expect_diag(&x.r, "kpipe-canon-refused", 32,
		    "the condition 'n++ < 1 && row < M' has a side effect ('n++')");
	expect_diag(&x.r, "kpipe-canon-refused", 55, "'a' starts as '1.0f', not 0");
	expect_diag(&x.r, "kpipe-canon-refused", 77,
		    "the else branch stores 'Bs[ty][tx]' where the if stores 'As[ty][tx]'");
	expect_diag(&x.r, "kpipe-canon-refused", 101,
		    "the else branch stores '1.0f' in 'Bs[ty][tx]', not 0");
	expect_diag(&x.r, "kpipe-canon-refused", 125, "its condition reads 'lim[0]'");
	expect_diag(&x.r, "kpipe-canon-refused", 149,
		    "'a' (float) has another type than the value");
	expect_diag(&x.r, "kpipe-canon-refused", 169, "'s' is initialised each iteration");
	run_release(&x);
}

/* Hoisting must not change what a name means: an `a` of the kernel read
 * after the loop would be the moved one. */
Test(canon_pass, hoist_hides_a_name, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *src = replace_once(decl_src, "    C[row * N + col] = acc;\n",
				 "    C[row * N + col] = acc + a;\n");
	char *src2 = replace_once(src, "    float acc = 0.0f;\n",
				  "    float acc = 0.0f;\n    {\n    const float a = 1.0f;\n");
	char *src3 = replace_once(src2, "    C[row * N + col] = acc + a;\n",
				  "    C[row * N + col] = acc + a;\n    }\n");
	run_t x;
	run_text(&x, "h.cu", src3, "register", NULL);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING, "%d", x.rc);
	expect_diag(&x.r, "kpipe-canon-refused", 10, "'a' would hide another 'a' (line 26)");
	run_release(&x);
	free(src);
	free(src2);
	free(src3);
}

/* --- the trial through the inline pass, and the lists ------------------------ */

/* A loop refused both for its load helper and for its if/else of copies:
 * the canon pass's trial runs the inline pass, keeps the split, and the
 * inline pass then inlines the helper. */
Test(canon_pass, then_inlined, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	static const char src[] =
		"#define T 16\n"
		"__device__ void load_a(float (&dst)[T][T], const float *src, int ld, int c0)\n"
		"{\n"
		"    dst[threadIdx.y][threadIdx.x] = src[threadIdx.y * ld + c0 + threadIdx.x];\n"
		"}\n" REFUSED("with_helper", ", const float *D",
			      "        load_a(As, A, K, k0);\n"
			      "        __shared__ float Ds[T][T];\n"
			      "        if (k0 + ty < K) {\n"
			      "            Bs[ty][tx] = B[(k0 + ty) * N + col];\n"
			      "            Ds[ty][tx] = D[(k0 + ty) * N + col];\n"
			      "        } else {\n"
			      "            Bs[ty][tx] = 0.0f;\n"
			      "            Ds[ty][tx] = 0.0f;\n"
			      "        }\n");
	char *src2 = replace_once(src, "acc += As[ty][kk] * Bs[kk][tx];",
				  "acc += As[ty][kk] * (Bs[kk][tx] + Ds[kk][tx]);");
	run_t x;
	run_text(&x, "i.cu", src2, "register", NULL);
	cr_assert_eq(x.rc, KP_EXIT_OK, "%d", x.rc);
	expect_diag(&x.r, "kpipe-canonicalized", 14, "once the inline pass has run");
	expect_diag(&x.r, "kpipe-canonicalized", 14, "moved the declaration of 'Ds'");
	cr_assert_geq(diag_index(&x.r, "kpipe-inlined"), 0);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);
	free(src2);
}

/* --- the canon pass's shapes in the inline pass's trial ---------------------- */

/* A load helper whose copy loop goes through a guarded temporary (with a
 * static_assert before the store, as tutorials write it): inlined alone,
 * the loop has no variant; the inline pass's trial then writes the
 * guarded copies in the inlined code, and keeps both edits. */
#define HELPER_TEMP                                                                                \
	"#define T 16\n"                                                                           \
	"__device__ void ld(float (&tile)[T][T], const float *src, int ld, int rows, int cols,\n"  \
	"                   int r0, int c0)\n"                                                     \
	"{\n"                                                                                      \
	"    for (int i = 0; i < 1; ++i) {\n"                                                      \
	"        const int r = threadIdx.y, c = threadIdx.x;\n"                                    \
	"        float v{0.0f};\n"                                                                 \
	"        if (r0 + r < rows && c0 + c < cols) {\n"                                          \
	"            v = src[(r0 + r) * ld + c0 + c];\n"                                           \
	"        }\n"                                                                              \
	"        static_assert(T > 0, \"tiles\");\n"                                               \
	"        tile[r][c] = v;\n"                                                                \
	"    }\n"                                                                                  \
	"}\n"
static const char helper_temp_src[] =
	HELPER_TEMP REFUSED("with_temp", "",
			    "        ld(As, A, K, M, K, blockIdx.y * T, k0);\n"
			    "        ld(Bs, B, N, K, N, k0, blockIdx.x * T);\n");

Test(canon_in_inline, guarded_temporary_in_a_helper, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	/* the inline pass alone: the helper inlined and its copies written as
	 * guarded copies, in one kept change */
	run_t x;
	run_text(&x, "h.cu", helper_temp_src, "register", "inline");
	cr_assert_eq(x.rc, KP_EXIT_OK, "%d", x.rc);
	cr_assert_not_null(x.out);
	expect_diag(&x.r, "kpipe-inlined", 23,
		    "kpipe inlined the load helper 'ld'; then, in the inlined code, wrote the "
		    "copies through the temporaries 'v' into 'As', 'v' into 'Bs' as guarded "
		    "copies (TILE[..] = c ? x : 0), so that the loop is pipelined");
	cr_assert_eq(count_id(&x.r, "kpipe-inline-refused"), 0);
	cr_assert_not_null(
		strstr(x.out,
		       "As[r][c] = (r0 + r < M && k0 + c < K) ? A[(r0 + r) * K + k0 + c] : 0.0f;"),
		"%s", x.out);
	cr_assert_not_null(
		strstr(x.out,
		       "Bs[r][c] = (k0 + r < K && c0 + c < N) ? B[(k0 + r) * N + c0 + c] : 0.0f;"),
		"%s", x.out);
	/* the kernel's copies only: the helper keeps its temporary */
	cr_assert_eq(count_of(x.out, "float v{0.0f};"), 1, "%s", x.out);
	cr_assert_eq(count_of(x.out, "static_assert(T > 0, \"tiles\");"), 3, "%s", x.out);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);

	/* the default list: pipelined (register staging) */
	run_text(&x, "h.cu", helper_temp_src, "register", NULL);
	cr_assert_eq(x.rc, KP_EXIT_OK, "%d", x.rc);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	cr_assert_eq(count_id(&x.r, "kpipe-canonicalized"), 0);
	cr_assert_not_null(strstr(x.out,
				  "= (r0 + r < M && (k0 + T) + c < K) ? A[(r0 + r) * K + (k0 + "
				  "T) + c] : 0.0f;"),
			   "%s", x.out);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);
}

/* The canon pass's refusal in the inlined code, and the loop's own reason,
 * both in the remark; nothing written.  The kernel keeps the temporary,
 * the helper only stores it, and the compute phase reads it again. */
Test(canon_in_inline, refusal_says_both, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	static const char src[] =
		"#define T 16\n"
		"__device__ void st(float (&tile)[T][T], int r, int c, float x) { tile[r][c] = x; }\n" REFUSED(
			"later", "",
			"        float v = 0.0f;\n"
			"        if (row < M && k0 + tx < K)\n"
			"            v = A[row * K + k0 + tx];\n"
			"        st(As, ty, tx, v);\n"
			"        Bs[ty][tx] = B[(k0 + ty) * N + col];\n");
	char *src2 = replace_once(src, "acc += As[ty][kk] * Bs[kk][tx];",
				  "acc += As[ty][kk] * Bs[kk][tx] + v;");
	run_t x;
	run_text(&x, "r.cu", src2, "register", NULL);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING, "%d", x.rc);
	expect_diag(&x.r, "kpipe-inline-refused", 11,
		    "the loop is refused even once kpipe inlined the load helper 'st', so it is "
		    "left as written: 'v' holds a value the load phase reads from global memory");
	expect_diag(&x.r, "kpipe-inline-refused", 11,
		    "[kpipe-load-decl-used-later]; nor is the inlined load phase written in the "
		    "copy forms kpipe reads: the copy into 'As' through 'v' (line 16) is not "
		    "written as a guarded copy: 'v' is used elsewhere in the kernel");
	cr_assert_lt(diag_index(&x.r, "kpipe-inlined"), 0);
	cr_assert_lt(diag_index(&x.r, "kpipe-pipelined"), 0);
	run_release(&x);
	free(src2);
}

/* canon runs first in the default list and in --pad's. */
Test(canon_pass, lists)
{
	int n;
	const kp_pass *const *d = kp_pass_default(&n);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(d[0]->name, "canon");
	cr_assert_str_eq(d[1]->name, "inline");
	cr_assert_str_eq(d[2]->name, "pipeline");
	d = kp_pass_pad_list(0, &n);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(d[0]->name, "canon");
	cr_assert_eq(kp_pass_find("canon"), d[0]);
	d = kp_pass_pad_list(1, &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(d[0]->name, "pad");
}

/* --- 8: a copy loop counting with a variable of the kernel --------------- */

static const char counter_src[] =
	"#define T 16\n"
	"__global__ void k(const float *__restrict__ A, const float *__restrict__ B,\n"
	"                  float *__restrict__ C, int N, int K)\n"
	"{\n"
	"    __shared__ float As[T][T];\n"
	"    __shared__ float Bs[T][T];\n"
	"    int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    int l, k0, kk;\n"
	"    float acc = 0.0f;\n"
	"    for (k0 = 0; k0 < K; k0 += T) {\n"
	"        for (l = 0; l < 2; l++)\n"
	"            As[ty + 8 * l][tx] = A[(blockIdx.y * T + ty + 8 * l) * K + k0 + tx];\n"
	"        for (l = 0; l < 2; l++)\n"
	"            Bs[ty + 8 * l][tx] = B[(k0 + ty + 8 * l) * N + blockIdx.x * T + tx];\n"
	"        __syncthreads();\n"
	"        for (kk = 0; kk < T; kk++)\n"
	"            acc += As[ty][kk] * Bs[kk][tx];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    for (l = 0; l < 1; l++)\n"
	"        C[(blockIdx.y * T + ty) * N + blockIdx.x * T + tx] = acc;\n"
	"}\n";

/* Alone, the pass declares the two copy loops' counters and nothing else;
 * in the default list the loop is then pipelined; without the pass it is
 * refused. The counter read after its loops keeps it as it is. */
Test(canon_pass, copy_loop_counter, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	run_t x;
	run_text(&x, "t.cu", counter_src, "register", "canon");
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(x.out);
	char *a = replace_once(counter_src, "        for (l = 0; l < 2; l++)\n            As",
			       "        for (int l = 0; l < 2; l++)\n            As");
	char *b = replace_once(a, "        for (l = 0; l < 2; l++)\n            Bs",
			       "        for (int l = 0; l < 2; l++)\n            Bs");
	cr_assert_str_eq(x.out, b);
	free(a);
	free(b);
	expect_diag(&x.r, "kpipe-canonicalized", 10,
		    "gave 2 copy loops (the first on line 11) their own counter 'l'");
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);

	run_text(&x, "t.cu", counter_src, "register", NULL);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	run_release(&x);

	run_text(&x, "t.cu", counter_src, "register", "inline,pipeline");
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	cr_assert_geq(diag_index(&x.r, "kpipe-load-depends-on-compute"), 0);
	run_release(&x);

	char *late = replace_once(counter_src, "    for (l = 0; l < 1; l++)\n", "    if (l > 0)\n");
	run_text(&x, "t.cu", late, "register", NULL);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	expect_diag(&x.r, "kpipe-canon-refused", 10, "used outside the for-loops it counts");
	run_release(&x);
	free(late);
}
