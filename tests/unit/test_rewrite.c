/*
 * test_rewrite.c - the rewrite driver's passes (rewrite.c, pass.h): the
 * default list gives the output and fixes kpipe gave before passes existed
 * (golden outputs, fixes pinned in tests/fixtures/passes/); a test pass
 * that pads shared arrays, run after pipelining, sees the pipelined code
 * (a re-parse) and its edits land, run before it too; a pass whose edit
 * does not compile is caught by the guard on the final text, and one that
 * breaks the code before another stops the passes; project headers go
 * through every pass; the fixes of a file several passes changed apply to
 * the original to give the final text (by hand and with
 * clang-apply-replacements), owned by the kpipe-pipelined note.
 */
#include "kp_test.h"

#include "arch.h"
#include "fixes.h"
#include "pass.h"
#include "rewrite.h"

#include <limits.h>

#define SAMPLES KPIPE_SOURCE_DIR "/samples/"
#define PROJ KP_TEST_FIXTURES "headers/proj/"

/* --- test passes ------------------------------------------------------------ */

/* What test-pad saw: one entry per shared array it padded. */
typedef struct {
	char file[64]; /* the model's file name */
	char name[32];
	int ndims;
	char dim0[32]; /* the first bound as spelled */
} seen_array;
static seen_array seen[32];
static int nseen;

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Pads the innermost bound of every __shared__ array of two dimensions or
 * more (`[32]` -> `[32 + 1]`), one note owning the edits of a model. */
static void pad_run(kp_pass_ctx *c)
{
	kp_file *f = c->f;
	int di = -1;
	for (int i = 0; i < f->ndecls; i++) {
		const kp_decl *d = f->decls[i];
		if (d->kind != KP_D_VAR || !d->is_shared || !d->is_array || !d->in_main ||
		    d->ndims < 2)
			continue;
		cr_assert_eq(f->src[d->name_end - 1], ']', "%s: no ']' at the end", d->name);
		cr_assert_lt(nseen, 32);
		seen_array *s = &seen[nseen++];
		snprintf(s->file, sizeof(s->file), "%s", base_name(f->path));
		snprintf(s->name, sizeof(s->name), "%s", d->name);
		s->ndims = d->ndims;
		snprintf(s->dim0, sizeof(s->dim0), "%s", d->dim_text[0] ? d->dim_text[0] : "");
		if (di < 0)
			di = kp_pass_diag(c, d->line, d->col, "note", "kpipe-test-padded",
					  "padded the shared arrays");
		kp_pass_edit(c, d->name_end - 1, 0, " + 1", di);
	}
}

static const kp_pass pad_pass = {"test-pad", "pads 2-D shared arrays (tests)", pad_run};

/* Declares a variable from an undeclared name at the top of every kernel:
 * code that does not compile. */
static void break_run(kp_pass_ctx *c)
{
	kp_file *f = c->f;
	for (int k = 0; k < f->nkernels; k++) {
		const kp_kernel *kr = f->kernels[k];
		int di = kp_pass_diag(c, kr->line, kr->col, "note", "kpipe-test-broke", "broke it");
		kp_pass_edit(c, kr->body->begin + 1, 0, " int kp_test_x = kp_test_undeclared;", di);
	}
}

static const kp_pass break_pass = {"test-break", "adds an error (tests)", break_run};

static void register_test_passes(void)
{
	cr_assert_eq(kp_pass_register(&pad_pass), 0);
	cr_assert_eq(kp_pass_register(&break_pass), 0);
	cr_assert_eq(kp_pass_register(&pad_pass), -1, "a name registers once");
	cr_assert_eq(kp_pass_find("test-pad"), &pad_pass);
}

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

/* --- running the driver -------------------------------------------------- */

typedef struct {
	kp_rw_result r;
	char *src; /* the input */
	size_t len;
	char *out; /* the main file's new text, or NULL */
	size_t outlen;
	int rc;
} run_t;

static const char *proj_args[] = {"-isystem", PROJ "vendor", "-I",
				  KP_TEST_FIXTURES "headers/outside"};

/* kp_rewrite_buffer() on `path` as `kpipe rewrite` calls it (headers too,
 * the flags given, sm_90); passes NULL: the default list. */
static void run_rewrite(run_t *x, const char *path, const char *variant, const char *passes,
			const char *const *args, int nargs)
{
	memset(x, 0, sizeof(*x));
	x->src = kp_test_read(path, &x->len);
	kp_rw_opts o = {0};
	o.arch = kp_arch_find("sm_90");
	cr_assert_not_null(o.arch);
	o.variant = variant;
	o.stages = 2;
	o.args = args;
	o.nargs = nargs;
	if (passes)
		o.passes = pass_list(passes, &o.npasses);
	kp_rw_input in = {
		.path = path, .contents = x->src, .len = x->len, .no_compdb = 1, .headers = 1};
	x->r.path = kp_xstrdup(path);
	x->r.abs_path = kp_rw_abs_path(path);
	x->rc = kp_rewrite_buffer(&o, &in, &x->r, &x->out, &x->outlen);
}

static void run_release(run_t *x)
{
	kp_rw_result_release(&x->r);
	free(x->src);
	free(x->out);
}

/* The fixes of r applied to src; they must be in order and none two touch
 * (clang-apply-replacements reports those as conflicts). */
static char *apply_fixes(const kp_rw_result *r, const char *src)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t pos = 0;
	for (int i = 0; i < r->nfixes; i++) {
		const kp_rw_fix *f = &r->fixes[i];
		cr_assert(i == 0 || f->off > pos, "%s: fix %d touches the one before", r->path, i);
		kp_strbuf_add(&sb, src + pos, f->off - pos);
		kp_strbuf_adds(&sb, f->text);
		pos = f->off + f->len;
	}
	kp_strbuf_adds(&sb, src + pos);
	return kp_strbuf_detach(&sb);
}

/* The fixes of r (and its headers) give its new text from the original. */
static void expect_fixes_give_text(const kp_rw_result *r, const char *src, const char *text)
{
	char *got = apply_fixes(r, src);
	cr_assert_str_eq(got, text, "%s: the fixes do not give the new text", r->path);
	free(got);
}

/* s with every `from` replaced by `to`. */
static char *replace_all(const char *s, const char *from, const char *to)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t fl = strlen(from);
	for (const char *p; (p = strstr(s, from)); s = p + fl) {
		kp_strbuf_add(&sb, s, (size_t)(p - s));
		kp_strbuf_adds(&sb, to);
	}
	kp_strbuf_adds(&sb, s);
	return kp_strbuf_detach(&sb);
}

/* The export-fixes YAML of r and its headers, the checkout's path as
 * @SRC@, equals tests/fixtures/passes/<fixture> (what kpipe wrote before
 * the passes: `kpipe rewrite ... --export-fixes`, run in build_sub);
 * KP_BLESS_FIXTURES=1 in the environment writes them anew. */
static void expect_yaml(const kp_rw_result *r, const char *build_sub, const char *fixture)
{
	char *src = realpath(KPIPE_SOURCE_DIR, NULL);
	cr_assert_not_null(src);
	kp_strbuf bd = KP_STRBUF_INIT;
	kp_strbuf_addf(&bd, "%s%s", src, build_sub);
	const kp_rw_result *one[8] = {r};
	cr_assert_lt(r->nheaders, 7);
	for (int h = 0; h < r->nheaders; h++)
		one[1 + h] = &r->headers[h];
	char *y = kp_fixes_yaml(one, 1 + r->nheaders, r->abs_path, kp_strbuf_str(&bd));
	char *got = replace_all(y, src, "@SRC@");
	if (getenv("KP_BLESS_FIXTURES")) { /* re-bless: write what kpipe gives now */
		kp_strbuf fp = KP_STRBUF_INIT;
		kp_strbuf_addf(&fp, "%s/tests/fixtures/passes/%s", src, fixture);
		FILE *w = fopen(kp_strbuf_str(&fp), "w");
		cr_assert_not_null(w);
		fputs(got, w);
		fclose(w);
		kp_strbuf_release(&fp);
	}
	char *want = kp_test_fixture("passes", fixture);
	cr_assert_str_eq(got, want, "the fixes differ from %s (KP_BLESS_FIXTURES=1 re-blesses)",
			 fixture);
	free(want);
	free(got);
	free(y);
	kp_strbuf_release(&bd);
	free(src);
}

/* The index of the first diagnostic of r with `id`, -1 when none. */
static int diag_index(const kp_rw_result *r, const char *id)
{
	for (int i = 0; i < r->ndiags; i++)
		if (r->diags[i].id && !strcmp(r->diags[i].id, id))
			return i;
	return -1;
}

/* The 1-based line of the first line of text holding `needle`. */
static int line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	cr_assert_not_null(p, "no '%s'", needle);
	int line = 1;
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

/* --- (a) the default list: what kpipe gave before ------------------------- */

static void expect_golden(const char *sample, const char *variant, const char *golden, int want_rc,
			  const char *fixture)
{
	kp_strbuf p = KP_STRBUF_INIT;
	kp_strbuf_addf(&p, "%s%s.cu", SAMPLES, sample);
	const char *lists[] = {NULL, "pipeline"};
	for (int l = 0; l < 2; l++) {
		run_t x;
		run_rewrite(&x, kp_strbuf_str(&p), variant, lists[l], NULL, 0);
		cr_assert_eq(x.rc, want_rc, "%s: rc %d", sample, x.rc);
		if (golden) {
			kp_strbuf g = KP_STRBUF_INIT;
			kp_strbuf_addf(&g, "%s/tests/golden/cases/%s/expected.stdout",
				       KPIPE_SOURCE_DIR, golden);
			char *want = kp_test_read(kp_strbuf_str(&g), NULL);
			cr_assert_not_null(x.out);
			cr_assert_str_eq(x.out, want, "%s: not the golden output", sample);
			expect_fixes_give_text(&x.r, x.src, x.out);
			free(want);
			kp_strbuf_release(&g);
		} else
			cr_assert_null(x.out);
		expect_yaml(&x.r, "", fixture);
		run_release(&x);
	}
	kp_strbuf_release(&p);
}

Test(rewrite_default, matmul_32x32_cp_async)
{
	expect_golden("matmul_32x32", "cp-async", "rewrite-matmul_32x32-cp-async", KP_EXIT_OK,
		      "matmul_32x32-cp-async.fixes.yaml");
}

Test(rewrite_default, multi_kernel_macros_register)
{
	expect_golden("multi_kernel_macros", "register", "rewrite-multi_kernel_macros-register",
		      KP_EXIT_OK, "multi_kernel_macros-register.fixes.yaml");
}

Test(rewrite_default, refused_smem_carry)
{
	expect_golden("refused_smem_carry", "register", NULL, KP_EXIT_NOTHING,
		      "refused_smem_carry-register.fixes.yaml");
}

Test(rewrite_default, headers)
{
	run_t x;
	run_rewrite(&x, PROJ "src/runner.cu", "auto", NULL, proj_args, 4);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_null(x.out, "runner.cu itself has no kernel");
	cr_assert_eq(x.r.nheaders, 2);
	for (int h = 0; h < x.r.nheaders; h++) {
		const kp_rw_result *hr = &x.r.headers[h];
		char *orig = kp_test_read(hr->abs_path, NULL);
		cr_assert_not_null(hr->text, "%s not rewritten", hr->path);
		expect_fixes_give_text(hr, orig, hr->text);
		free(orig);
	}
	expect_yaml(&x.r, "/tests/fixtures/headers/proj/src", "runner-auto.fixes.yaml");
	run_release(&x);
}

/* --- (b), (c) a second pass, after and before pipelining ------------------- */

/* What both orders share: pipelined, padded, one note each, the fixes
 * owned by the kpipe-pipelined note and giving the final text. */
static void expect_pipelined_and_padded(const run_t *x)
{
	cr_assert_eq(x->rc, KP_EXIT_OK);
	cr_assert_eq(x->r.status, KP_EXIT_OK);
	cr_assert_eq(x->r.pipelined, 1);
	cr_assert_not_null(x->out);
	cr_assert_not_null(strstr(x->out, "__shared__ float As[2][32][32 + 1];"), "%s", x->out);
	cr_assert_not_null(strstr(x->out, "__shared__ float Bs[2][32][32 + 1];"));
	cr_assert_not_null(strstr(x->out, "__pipeline_memcpy_async(&As["));
	cr_assert_eq(diag_index(&x->r, "kpipe-rewrite-invalid"), -1);
	int pip = diag_index(&x->r, "kpipe-pipelined");
	int pad = diag_index(&x->r, "kpipe-test-padded");
	cr_assert_geq(pip, 0);
	cr_assert_geq(pad, 0);
	/* the padding note points at As in the input */
	cr_assert_eq(x->r.diags[pad].line, line_of(x->src, "__shared__ float As"));
	cr_assert_eq(x->r.diags[pad].col, 22);
	cr_assert_eq(x->r.diags[pad].off, strstr(x->src, "As[32]") - x->src);
	cr_assert_gt(x->r.nfixes, 0);
	for (int i = 0; i < x->r.nfixes; i++)
		cr_assert_eq(x->r.fixes[i].diag, pip, "fix %d owned by %d", i, x->r.fixes[i].diag);
	expect_fixes_give_text(&x->r, x->src, x->out);
}

Test(rewrite_passes, pad_after_pipelining_sees_the_pipelined_code)
{
	register_test_passes();
	run_t x;
	run_rewrite(&x, SAMPLES "matmul_32x32.cu", "cp-async", "pipeline,test-pad", NULL, 0);
	/* it ran on a parse of the pipelined text: the [2] of the buffers */
	cr_assert_eq(nseen, 2);
	for (int i = 0; i < nseen; i++) {
		cr_assert_eq(seen[i].ndims, 3, "%s has %d dimensions", seen[i].name, seen[i].ndims);
		cr_assert_str_eq(seen[i].dim0, "2");
	}
	expect_pipelined_and_padded(&x);
	/* the kpipe-pipelined note where the default list puts it */
	run_t d;
	run_rewrite(&d, SAMPLES "matmul_32x32.cu", "cp-async", NULL, NULL, 0);
	const kp_rw_diag *a = &x.r.diags[diag_index(&x.r, "kpipe-pipelined")];
	const kp_rw_diag *b = &d.r.diags[diag_index(&d.r, "kpipe-pipelined")];
	cr_assert(a->line == b->line && a->col == b->col && a->off == b->off);
	run_release(&d);
	run_release(&x);
}

Test(rewrite_passes, pad_before_pipelining)
{
	register_test_passes();
	run_t x;
	run_rewrite(&x, SAMPLES "matmul_32x32.cu", "cp-async", "test-pad,pipeline", NULL, 0);
	cr_assert_eq(nseen, 2);
	for (int i = 0; i < nseen; i++) {
		cr_assert_eq(seen[i].ndims, 2);
		cr_assert_str_eq(seen[i].dim0, "32");
	}
	expect_pipelined_and_padded(&x);
	/* pipelining ran on the padded text; its note is moved back to the
	 * loop's place in the input */
	run_t d;
	run_rewrite(&d, SAMPLES "matmul_32x32.cu", "cp-async", NULL, NULL, 0);
	const kp_rw_diag *a = &x.r.diags[diag_index(&x.r, "kpipe-pipelined")];
	const kp_rw_diag *b = &d.r.diags[diag_index(&d.r, "kpipe-pipelined")];
	cr_assert(a->line == b->line && a->col == b->col && a->off == b->off,
		  "%d:%d (%ld), not %d:%d (%ld)", a->line, a->col, a->off, b->line, b->col, b->off);
	/* both orders end in the same text */
	run_t y;
	run_rewrite(&y, SAMPLES "matmul_32x32.cu", "cp-async", "pipeline,test-pad", NULL, 0);
	cr_assert_str_eq(x.out, y.out);
	run_release(&y);
	run_release(&d);
	run_release(&x);
}

Test(rewrite_passes, pad_alone_is_one_pass_that_edited)
{
	register_test_passes();
	run_t x;
	run_rewrite(&x, SAMPLES "matmul_32x32.cu", "auto", "test-pad", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(strstr(x.out, "__shared__ float As[32][32 + 1];"));
	/* its own edits as the fixes, owned by its note */
	int pad = diag_index(&x.r, "kpipe-test-padded");
	cr_assert_eq(x.r.nfixes, 2);
	for (int i = 0; i < x.r.nfixes; i++) {
		cr_assert_eq(x.r.fixes[i].diag, pad);
		cr_assert_str_eq(x.r.fixes[i].text, " + 1");
	}
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);
}

/* --- the guard on the final text ----------------------------------------- */

Test(rewrite_passes, guard_checks_the_last_pass)
{
	register_test_passes();
	run_t x;
	run_rewrite(&x, SAMPLES "matmul_32x32.cu", "cp-async", "pipeline,test-break", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	cr_assert_null(x.out);
	cr_assert_eq(x.r.nfixes, 0);
	cr_assert_eq(x.r.pipelined, 0);
	cr_assert_eq(x.r.refused, 1);
	int bad = diag_index(&x.r, "kpipe-rewrite-invalid");
	cr_assert_geq(bad, 0);
	cr_assert_not_null(strstr(x.r.diags[bad].message, "kp_test_undeclared"), "%s",
			   x.r.diags[bad].message);
	/* the notes of what was rewritten are gone */
	cr_assert_eq(diag_index(&x.r, "kpipe-pipelined"), -1);
	cr_assert_eq(diag_index(&x.r, "kpipe-test-broke"), -1);
	run_release(&x);
}

Test(rewrite_passes, broken_code_stops_the_passes)
{
	register_test_passes();
	run_t x;
	run_rewrite(&x, SAMPLES "matmul_32x32.cu", "cp-async", "test-break,pipeline", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	cr_assert_null(x.out);
	int skip = diag_index(&x.r, "kpipe-pass-skipped");
	cr_assert_geq(skip, 0);
	cr_assert_not_null(strstr(x.r.diags[skip].message, "pass 'pipeline'"));
	cr_assert_geq(diag_index(&x.r, "kpipe-rewrite-invalid"), 0);
	cr_assert_eq(x.r.loops, 0, "pipelining never ran");
	run_release(&x);
}

/* --- (d) project headers through both passes ------------------------------ */

static const kp_rw_result *header_named(const run_t *x, const char *name)
{
	for (int h = 0; h < x->r.nheaders; h++)
		if (!strcmp(base_name(x->r.headers[h].path), name))
			return &x->r.headers[h];
	cr_assert_fail("no result for %s", name);
	return NULL;
}

static void expect_header(const kp_rw_result *hr, const char *needle, int several)
{
	cr_assert_eq(hr->status, KP_EXIT_OK, "%s: status %d", hr->path, hr->status);
	cr_assert_not_null(hr->text);
	cr_assert_not_null(strstr(hr->text, needle), "%s: no '%s' in\n%s", hr->path, needle,
			   hr->text);
	cr_assert_eq(diag_index(hr, "kpipe-rewrite-invalid"), -1);
	char *orig = kp_test_read(hr->abs_path, NULL);
	expect_fixes_give_text(hr, orig, hr->text);
	free(orig);
	int pip = diag_index(hr, "kpipe-pipelined");
	cr_assert_geq(pip, 0);
	if (several)
		for (int i = 0; i < hr->nfixes; i++)
			cr_assert_eq(hr->fixes[i].diag, pip);
}

Test(rewrite_passes, headers_after_pipelining)
{
	register_test_passes();
	run_t x;
	run_rewrite(&x, PROJ "src/runner.cu", "auto", "pipeline,test-pad", proj_args, 4);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_null(x.out);
	cr_assert_eq(x.r.nheaders, 2);
	expect_header(header_named(&x, "tiled.cuh"), "__shared__ float As[2][TS][TS + 1];", 1);
	expect_header(header_named(&x, "tiled.cuh"), "__shared__ float Bs[2][TS][TS + 1];", 1);
	/* xs became two-dimensional: padded too */
	expect_header(header_named(&x, "rowdot.cuh"), "__shared__ float xs[2][RD_TILE + 1];", 1);
	int tiled = 0;
	for (int i = 0; i < nseen; i++)
		if (!strcmp(seen[i].file, "tiled.cuh")) {
			tiled++;
			cr_assert_eq(seen[i].ndims, 3);
			cr_assert_str_eq(seen[i].dim0, "2");
		}
	cr_assert_eq(tiled, 2);
	run_release(&x);
}

Test(rewrite_passes, headers_before_pipelining)
{
	register_test_passes();
	run_t x;
	run_rewrite(&x, PROJ "src/runner.cu", "auto", "test-pad,pipeline", proj_args, 4);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	expect_header(header_named(&x, "tiled.cuh"), "__shared__ float As[2][TS][TS + 1];", 1);
	/* xs was one-dimensional when test-pad ran: pipelining alone changed
	 * rowdot.cuh, and its fixes are the default list's */
	const kp_rw_result *rd = header_named(&x, "rowdot.cuh");
	expect_header(rd, "__shared__ float xs[2][RD_TILE];", 0);
	cr_assert_eq(nseen, 2);
	run_t d;
	run_rewrite(&d, PROJ "src/runner.cu", "auto", NULL, proj_args, 4);
	const kp_rw_result *dr = header_named(&d, "rowdot.cuh");
	cr_assert_eq(rd->nfixes, dr->nfixes);
	for (int i = 0; i < rd->nfixes; i++) {
		cr_assert(rd->fixes[i].off == dr->fixes[i].off &&
			  rd->fixes[i].len == dr->fixes[i].len);
		cr_assert_str_eq(rd->fixes[i].text, dr->fixes[i].text);
	}
	cr_assert_str_eq(rd->text, dr->text);
	run_release(&d);
	run_release(&x);
}

/* --- the fixes with clang-apply-replacements ----------------------------- */

Test(rewrite_passes, clang_apply_replacements, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	const char *car =
		kp_test_have_tool("clang-apply-replacements-19") ? "clang-apply-replacements-19"
		: kp_test_have_tool("clang-apply-replacements")  ? "clang-apply-replacements"
								 : NULL;
	if (!car)
		cr_skip_test("clang-apply-replacements is not installed");
	register_test_passes();
	char *src = kp_test_read(SAMPLES "matmul_32x32.cu", NULL);
	char *path = kp_test_path("k.cu");
	kp_test_write(path, src, strlen(src));
	char *fixes = kp_test_path("fixes");
	cr_assert_eq(mkdir(fixes, 0755), 0);
	run_t x;
	run_rewrite(&x, path, "cp-async", "test-pad,pipeline", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	const kp_rw_result *one[1] = {&x.r};
	char *y = kp_fixes_yaml(one, 1, x.r.abs_path, kp_test_dir);
	char *yp = kp_test_path("fixes/k.yaml");
	kp_test_write(yp, y, strlen(y));
	kp_strbuf cmd = KP_STRBUF_INIT;
	kp_strbuf_addf(&cmd, "%s '%s' 2>&1", car, fixes);
	cr_assert_eq(system(kp_strbuf_str(&cmd)), 0, "%s failed", car);
	char *got = kp_test_read(path, NULL);
	cr_assert_str_eq(got, x.out);
	free(got);
	kp_strbuf_release(&cmd);
	free(yp);
	free(y);
	run_release(&x);
	free(fixes);
	free(path);
	free(src);
}

/* --- the inline pass (pass_inline.c) ---------------------------------------- */

/* How many times `needle` occurs in text. */
static int count_of(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static const char inline_src[] =
	"#define BK 16\n"
	"template <int BM> __device__ void load_rows(int ld, const float *src, float *dst, int r)\n"
	"{\n"
	"    for (int i = 0; i + 4 <= BM; i += 4)\n"
	"        dst[(i + r / BK) * BK + r % BK] = src[(i + r / BK) * ld + r % BK];\n"
	"}\n"
	"template <int BM>\n"
	"__global__ void k(const float *__restrict__ A, float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float As[BM * BK];\n"
	"    const unsigned t = threadIdx.x;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += BK) {\n"
	"        load_rows<BM>(K, A, As, t);\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < BK; ++kk)\n"
	"            acc += As[(t % BM) * BK + kk];\n"
	"        A += BK;\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[blockIdx.x * 64 + t] = acc;\n"
	"}\n"
	"template __global__ void k<64>(const float *__restrict__, float *__restrict__, int);\n";

/* A template load helper, called with an unsigned where it takes an int:
 * inlined with the argument converted, its copy loop (`i + 4 <= BM`, 16
 * copies) staged in 16 registers, the helper kept; without the inline
 * pass, nothing is pipelined. */
Test(inline_pass, template_helper, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("h.cu");
	kp_test_write(path, inline_src, strlen(inline_src));
	run_t x;
	run_rewrite(&x, path, "register", NULL, NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(x.out);
	cr_assert_geq(diag_index(&x.r, "kpipe-inlined"), 0);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	cr_assert_eq(count_of(x.out, "__device__ void load_rows("), 1, "the helper is kept");
	cr_assert_eq(count_of(x.out, "load_rows<BM>(K, A, As, t);"), 0, "the call is replaced");
	/* the body's names: parameters replaced, the int one converted */
	cr_assert_not_null(strstr(x.out, "static_cast<int>(t) / BK"), "%s", x.out);
	cr_assert_not_null(strstr(x.out, "As[kp_stage ^ 1][(i + static_cast<int>(t) / BK) * BK"));
	/* 64 / 4 = 16 copies: the bound is BM - 4 */
	cr_assert_not_null(strstr(x.out, "(BM) - (4)"), "%s", x.out);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);
	run_rewrite(&x, path, "register", "pipeline", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	cr_assert_geq(diag_index(&x.r, "kpipe-load-in-helper"), 0);
	run_release(&x);
	free(path);
}

static const char macro_src[] =
	"#define T 16\n"
	"#define NEG(i, j) -As[i][j]\n"
	"#define AS(i, j) As[i][j]\n"
	"__global__ void m(const float *__restrict__ A, float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float As[T][T];\n"
	"    const int tx = threadIdx.x, ty = threadIdx.y;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += T) {\n"
	"        AS( ty ,tx ) = A[ty * K + k0 + tx];\n"
	"        __syncthreads();\n"
	"        for (int k = 0; k < T; ++k)\n"
	"            acc = acc-NEG(ty, k)*2.0f;\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[ty * T + tx] = acc;\n"
	"}\n";

/* Macros that name a tile in their bodies are expanded as the
 * preprocessor does (`acc-NEG(..)` keeps two minus tokens), then
 * re-indexed; the definitions stay. */
Test(inline_pass, tile_macros, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("m.cu");
	kp_test_write(path, macro_src, strlen(macro_src));
	run_t x;
	run_rewrite(&x, path, "cp-async", NULL, NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(x.out);
	int di = diag_index(&x.r, "kpipe-inlined");
	cr_assert_geq(di, 0);
	cr_assert_not_null(strstr(x.r.diags[di].message, "the macros AS, NEG"), "%s",
			   x.r.diags[di].message);
	cr_assert_not_null(strstr(x.out, "acc = acc- -As[kp_stage][ty][k]*2.0f;"), "%s", x.out);
	cr_assert_eq(count_of(x.out, "#define NEG(i, j) -As[i][j]"), 1);
	cr_assert_eq(count_of(x.out, "AS( ty ,tx )"), 0);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);
	free(path);
}

static const char header_helper_h[] =
	"// a project header's load helper\n"
	"#define HL_ZERO 0.0f\n"
	"template <typename T, int ROWS, int COLS, int SKEW = 0>\n"
	"__device__ void hl_load(T tile[ROWS][COLS + SKEW], const T *src, int ld, int rows_left,\n"
	"                        int tid)\n"
	"{\n"
	"    static_assert(COLS + SKEW >= COLS, \"skew\");\n"
	"    for (int e = tid; e < ROWS * COLS; e += 256) {\n"
	"        const int r = e / COLS, c = e % COLS;\n"
	"        tile[r][c] = r < rows_left ? src[r * ld + c] : static_cast<T>(HL_ZERO);\n"
	"    }\n"
	"}\n";

static const char header_helper_cu[] =
	"#include \"hl.cuh\"\n"
	"__global__ void hk(const float *__restrict__ A, float *__restrict__ C, int M, int K)\n"
	"{\n"
	"    __shared__ float As[32][16];\n"
	"    const int tid = threadIdx.x, m0 = blockIdx.x * 32;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"
	"        hl_load<float, 32, 16>(As, A + (size_t)m0 * K + k0, K, M - m0, tid);\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < 16; ++kk)\n"
	"            acc += As[tid % 32][kk];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[blockIdx.x * 256 + tid] = acc;\n"
	"}\n";

/* A template helper of a project header, called from a kernel that is not
 * a template (the argument types compared by libclang: `float (*)[16]`
 * given `float[32][16]`), with expressions for two arguments and its last
 * template argument left to its default: its body is copied into the
 * kernel, the expressions bound to const locals of the parameters' types,
 * SKEW replaced by its default 0 (its macro HL_ZERO is not redefined by the
 * file, so the copy may name it); the header is not edited and the helper
 * is not copied; without the inline pass, nothing is pipelined. */
Test(inline_pass, header_helper, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *hpath = kp_test_path("hl.cuh");
	char *path = kp_test_path("hk.cu");
	kp_test_write(hpath, header_helper_h, strlen(header_helper_h));
	kp_test_write(path, header_helper_cu, strlen(header_helper_cu));
	run_t x;
	run_rewrite(&x, path, "cp-async", NULL, NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(x.out);
	int di = diag_index(&x.r, "kpipe-inlined");
	cr_assert_geq(di, 0);
	cr_assert_not_null(strstr(x.r.diags[di].message,
				  "the load helper 'hl_load<float, 32, 16>'"),
			   "%s", x.r.diags[di].message);
	cr_assert_not_null(strstr(x.out, "const float *const src = A + (size_t)m0 * K + k0;"), "%s",
			   x.out);
	cr_assert_not_null(strstr(x.out, "const int rows_left = M - m0;"), "%s", x.out);
	cr_assert_not_null(strstr(x.out, "static_assert(16 + 0 >= 16, \"skew\");"), "%s", x.out);
	cr_assert_eq(count_of(x.out, "hl_load<float, 32, 16>(As"), 0, "the call is replaced");
	cr_assert_eq(count_of(x.out, "__device__ void hl_load"), 0, "the helper is not copied");
	cr_assert_eq(x.r.nheaders, 0, "no header is rewritten");
	char *h = kp_test_read(hpath, NULL);
	cr_assert_str_eq(h, header_helper_h, "the header is not edited");
	free(h);
	expect_fixes_give_text(&x.r, x.src, x.out);
	run_release(&x);
	run_rewrite(&x, path, "cp-async", "pipeline", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_NOTHING);
	cr_assert_geq(diag_index(&x.r, "kpipe-load-in-helper"), 0);
	run_release(&x);
	free(path);
	free(hpath);
}

static const char vec_helpers_src[] =
	"__device__ float4 ld4(const float *p) { return *reinterpret_cast<const float4 *>(p); }\n"
	"__device__ void st4(float *p, float4 v) { *reinterpret_cast<float4 *>(p) = v; }\n"
	"__global__ void vk(const float *__restrict__ A, float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float As[16][16];\n"
	"    const int t = threadIdx.x;\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"
	"        __syncthreads();\n"
	"        st4(&As[t / 4][4 * (t % 4)], ld4(A + (t / 4) * K + k0 + 4 * (t % 4)));\n"
	"        __syncthreads();\n"
	"        for (int kk = 0; kk < 16; ++kk)\n"
	"            acc += As[t % 16][kk];\n"
	"    }\n"
	"    C[blockIdx.x * 64 + t] = acc;\n"
	"}\n";

/* The barrier at the top of the loop, and the store helper handed the
 * load helper's call: st4's body is inlined, p replaced by the tile
 * address, v bound to ld4's expression (its parameter replaced by the
 * call's argument); the loop is then pipelined with cp.async. */
Test(inline_pass, barrier_top_nested, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("v.cu");
	kp_test_write(path, vec_helpers_src, strlen(vec_helpers_src));
	run_t x;
	run_rewrite(&x, path, "cp-async", "inline", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(x.out);
	cr_assert_geq(diag_index(&x.r, "kpipe-inlined"), 0);
	cr_assert_not_null(
		strstr(x.out,
		       "const float4 v = (*reinterpret_cast<const float4 *>((A + (t / 4) * K "
		       "+ k0 + 4 * (t % 4))));"),
		"%s", x.out);
	cr_assert_not_null(strstr(x.out,
				  "*reinterpret_cast<float4 *>((&As[t / 4][4 * (t % 4)])) = v;"),
			   "%s", x.out);
	run_release(&x);
	run_rewrite(&x, path, "cp-async", NULL, NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0);
	cr_assert_not_null(strstr(x.out, "__pipeline_memcpy_async"), "%s", x.out);
	run_release(&x);
	free(path);
}

static const char arg_types_src[] =
	"__device__ void by_row(float (*dst)[16], const float *src, int ld, int r0)\n"
	"{\n"
	"    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];\n"
	"}\n"
	"__device__ void by_void(void *dst, const float *src, int ld, int r0)\n"
	"{\n"
	"    ((float *)dst)[threadIdx.y * 16 + threadIdx.x] = src[(r0 + threadIdx.y) * ld + "
	"threadIdx.x];\n"
	"}\n"
	"__global__ void ka(const float *__restrict__ A, float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float As[16][16];\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"
	"        by_row(As, A, K, k0);\n"
	"        __syncthreads();\n"
	"        acc += As[threadIdx.y][threadIdx.x];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[threadIdx.y * 16 + threadIdx.x] = acc;\n"
	"}\n"
	"__global__ void kb(const float *__restrict__ A, float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float Bs[16][16];\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"
	"        by_void(Bs, A, K, k0);\n"
	"        __syncthreads();\n"
	"        acc += Bs[threadIdx.y][threadIdx.x];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[threadIdx.y * 16 + threadIdx.x] = acc;\n"
	"}\n";

/* Argument types compared by libclang, not as text: `float (*)[16]` given
 * `float[16][16]` is the array decayed, inlined; `void *` given it is a
 * conversion the substituted body would not make (pointer arithmetic,
 * overloads), refused with both types printed as clang spells them. */
Test(inline_pass, argument_types, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("a.cu");
	kp_test_write(path, arg_types_src, strlen(arg_types_src));
	run_t x;
	run_rewrite(&x, path, "register", NULL, NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	int di = diag_index(&x.r, "kpipe-inlined");
	cr_assert_geq(di, 0);
	cr_assert_not_null(strstr(x.r.diags[di].message, "'by_row'"));
	di = diag_index(&x.r, "kpipe-inline-refused");
	cr_assert_geq(di, 0);
	cr_assert_str_eq(
		x.r.diags[di].message,
		"the load helper 'by_void' is not inlined: argument 1 ('Bs', float[16][16]) "
		"does not have the type of parameter 'dst' (void *)");
	cr_assert_not_null(strstr(x.out, "As[kp_stage ^ 1][threadIdx.y][threadIdx.x] = "), "%s",
			   x.out);
	run_release(&x);
	free(path);
}

static const char global_arg_src[] =
	"__device__ int g_ld;\n"
	"__device__ void copy16(float (&dst)[16][16], const float *src, int ld, int r0)\n"
	"{\n"
	"    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];\n"
	"}\n"
	"__global__ void kg(const float *__restrict__ A, float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float As[16][16];\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += 16) {\n"
	"        copy16(As, A, g_ld, k0);\n"
	"        __syncthreads();\n"
	"        acc += As[threadIdx.y][threadIdx.x];\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[threadIdx.y * 16 + threadIdx.x] = acc;\n"
	"}\n";

/* A name the body could change (a __device__ global) is bound to a const
 * local, read once as the call reads it; the kernel's own names (k0, A)
 * are substituted. */
Test(inline_pass, global_argument_bound, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("g.cu");
	kp_test_write(path, global_arg_src, strlen(global_arg_src));
	run_t x;
	run_rewrite(&x, path, "cp-async", "inline", NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(x.out);
	cr_assert_not_null(strstr(x.out, "const int ld = g_ld;"), "%s", x.out);
	cr_assert_not_null(strstr(x.out,
				  "As[threadIdx.y][threadIdx.x] = A[(k0 + threadIdx.y) * ld + "
				  "threadIdx.x];"),
			   "%s", x.out);
	run_release(&x);
	free(path);
}

/* A load phase whose block computes the row in a local it then bumps
 * (`int r0 = k0; r0 += threadIdx.y;`): register staging's store copy keeps
 * only the tile stores, so the bump goes with the declaration; it stayed,
 * naming r0 where it is no longer declared, and the whole file was left
 * unrewritten (kpipe-rewrite-invalid). */
static const char local_bump_cu[] =
	"#define T 16\n"
	"__global__ void k_bump(const float *__restrict__ A, float *__restrict__ C, int K)\n"
	"{\n"
	"    __shared__ float As[T][T];\n"
	"    float acc = 0.0f;\n"
	"    for (int k0 = 0; k0 < K; k0 += T) {\n"
	"        {\n"
	"            int r0 = k0;\n"
	"            r0 += threadIdx.y;\n"
	"            As[threadIdx.y][threadIdx.x] = A[r0 * K + threadIdx.x];\n"
	"        }\n"
	"        __syncthreads();\n"
	"        acc += As[threadIdx.y][threadIdx.x] * 2.0f;\n"
	"        __syncthreads();\n"
	"    }\n"
	"    C[threadIdx.y * T + threadIdx.x] = acc;\n"
	"}\n";

Test(rewrite_default, register_store_drops_writes_of_dropped_locals, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	char *path = kp_test_path("bump.cu");
	kp_test_write(path, local_bump_cu, strlen(local_bump_cu));
	static const char *const variants[] = {"register", "register-ca", "register-2bar"};
	for (int v = 0; v < 3; v++) {
		run_t x;
		run_rewrite(&x, path, variants[v], NULL, NULL, 0);
		cr_assert_eq(x.rc, KP_EXIT_OK, "%s", variants[v]);
		cr_assert_not_null(x.out);
		cr_assert_eq(diag_index(&x.r, "kpipe-rewrite-invalid"), -1, "%s", variants[v]);
		cr_assert_geq(diag_index(&x.r, "kpipe-pipelined"), 0, "%s", variants[v]);
		/* prologue and fetch keep the bump; the store copy has none */
		cr_assert_eq(count_of(x.out, "int r0 ="), 2, "%s: %s", variants[v], x.out);
		cr_assert_eq(count_of(x.out, "r0 += threadIdx.y;"), 2, "%s: %s", variants[v],
			     x.out);
		cr_assert_not_null(strstr(x.out, "[threadIdx.y][threadIdx.x] = kp_reg0[0];"),
				   "%s: %s", variants[v], x.out);
		run_release(&x);
	}
	free(path);
}

/* Pointers into the tiles set before the loop (samples/matmul_tile_pointer):
 * a doubled tile's pointers are read one stage further at the current
 * stage; the one-buffer form leaves them as they are.  Without the
 * rebasing every stage but the first would read stage 0 (cpudiff fails
 * on such a text: tests/cpudiff). */
Test(rewrite_default, tile_pointers_read_at_the_stage)
{
	static const char *const variants[] = {"cp-async", "register", "register-ca"};
	for (int v = 0; v < 3; v++) {
		run_t x;
		run_rewrite(&x, SAMPLES "matmul_tile_pointer.cu", variants[v], NULL, NULL, 0);
		cr_assert_eq(x.rc, KP_EXIT_OK, "%s", variants[v]);
		cr_assert_not_null(x.out);
		cr_assert_not_null(
			strstr(x.out, "(a_thread + (kp_stage) * (sizeof(As[0]) / "
				      "sizeof(*a_thread)))[m * BK + k] * (b_thread + (kp_stage) * "
				      "(sizeof(Bs[0]) / sizeof(*b_thread)))[k * BN + n]"),
			"%s: %s", variants[v], x.out);
		/* the declarations before the loop are unchanged */
		cr_assert_not_null(strstr(x.out, "const float *a_thread = reinterpret_cast<const "
						 "float *>(As) + tile_m * BK;"));
		run_release(&x);
	}
	run_t x;
	run_rewrite(&x, SAMPLES "matmul_tile_pointer.cu", "register-2bar", NULL, NULL, 0);
	cr_assert_eq(x.rc, KP_EXIT_OK);
	cr_assert_not_null(strstr(x.out,
				  "acc[m][n] += a_thread[m * BK + k] * b_thread[k * BN + n];"),
			   "one buffer: the pointers as written: %s", x.out);
	run_release(&x);
}
