/*
 * test_fixes.c - replacements for other tools (kp_fixes_merge: touching
 * edits and insertions at one offset become one replacement, applying the
 * merged list gives what kp_edits_apply gives, overlaps are refused) and
 * the clang-tidy export-fixes YAML (kp_fixes_yaml: the schema's keys,
 * quoting, one Diagnostic per id, an empty list); the replacements of
 * several edit lists applied in turn (kp_fixes_compose: applying them to
 * the source gives the last result, none two touch).  Applying the YAML with
 * clang-apply-replacements is tested in tests/cli/outputs.sh.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "edit.h"
#include "fixes.h"
#include "util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Applies merged fixes to src (sorted, non-overlapping). */
static char *apply_fixes(const kp_rw_fix *f, int n, const char *src)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t pos = 0;
	for (int i = 0; i < n; i++) {
		cr_assert(f[i].off >= pos, "fix %d starts before the previous one ends", i);
		kp_strbuf_add(&sb, src + pos, f[i].off - pos);
		kp_strbuf_adds(&sb, f[i].text);
		pos = f[i].off + f[i].len;
	}
	kp_strbuf_adds(&sb, src + pos);
	return kp_strbuf_detach(&sb);
}

static void same_as_apply(const kp_edits *e, const char *src)
{
	char *want = NULL;
	size_t wl = 0;
	cr_assert_eq(kp_edits_apply(e, src, strlen(src), &want, &wl), 0);
	kp_rw_fix *f = NULL;
	int n = 0;
	cr_assert_eq(kp_fixes_merge(e, NULL, &f, &n), 0);
	for (int i = 1; i < n; i++)
		cr_assert(f[i].off > f[i - 1].off + f[i - 1].len,
			  "fixes %d and %d touch: %u+%u, %u", i - 1, i, f[i - 1].off, f[i - 1].len,
			  f[i].off);
	char *got = apply_fixes(f, n, src);
	cr_assert_str_eq(got, want);
	free(got);
	free(want);
	kp_fixes_free(f, n);
}

Test(fixes, empty_list)
{
	kp_edits e = {0};
	kp_rw_fix *f = (kp_rw_fix *)1;
	int n = 5;
	cr_assert_eq(kp_fixes_merge(&e, NULL, &f, &n), 0);
	cr_assert_null(f);
	cr_assert_eq(n, 0);
}

Test(fixes, separate_edits_stay_separate)
{
	kp_edits e = {0};
	kp_edits_add(&e, 10, 2, "X");
	kp_edits_add(&e, 1, 0, "[2]");
	int owner[2] = {7, 3};
	kp_rw_fix *f = NULL;
	int n = 0;
	cr_assert_eq(kp_fixes_merge(&e, owner, &f, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].off, 1);
	cr_assert_eq(f[0].diag, 3);
	cr_assert_str_eq(f[0].text, "[2]");
	cr_assert_eq(f[1].off, 10);
	cr_assert_eq(f[1].len, 2);
	cr_assert_eq(f[1].diag, 7);
	kp_fixes_free(f, n);
	same_as_apply(&e, "0123456789abcdef");
	kp_edits_release(&e);
}

Test(fixes, inserts_at_one_offset_merge_in_order)
{
	kp_edits e = {0};
	kp_edits_add(&e, 4, 0, "a");
	kp_edits_add(&e, 4, 3, "R"); /* replacement at the same offset: after the inserts */
	kp_edits_add(&e, 4, 0, "b");
	kp_rw_fix *f = NULL;
	int n = 0;
	cr_assert_eq(kp_fixes_merge(&e, NULL, &f, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(f[0].off, 4);
	cr_assert_eq(f[0].len, 3);
	cr_assert_str_eq(f[0].text, "abR");
	kp_fixes_free(f, n);
	same_as_apply(&e, "0123456789");
	kp_edits_release(&e);
}

Test(fixes, touching_replacements_merge)
{
	kp_edits e = {0};
	kp_edits_add(&e, 2, 2, "X");
	kp_edits_add(&e, 4, 1, "Y");
	kp_edits_add(&e, 5, 0, "Z");
	kp_edits_add(&e, 8, 1, "W");
	kp_rw_fix *f = NULL;
	int n = 0;
	cr_assert_eq(kp_fixes_merge(&e, NULL, &f, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].off, 2);
	cr_assert_eq(f[0].len, 3);
	cr_assert_str_eq(f[0].text, "XYZ");
	kp_fixes_free(f, n);
	same_as_apply(&e, "0123456789");
	kp_edits_release(&e);
}

Test(fixes, overlap_is_refused)
{
	kp_edits e = {0};
	kp_edits_add(&e, 2, 4, "X");
	kp_edits_add(&e, 3, 1, "Y");
	kp_rw_fix *f = NULL;
	int n = 0;
	cr_assert_eq(kp_fixes_merge(&e, NULL, &f, &n), -1);
	cr_assert_null(f);
	kp_edits_release(&e);
}

/* Applies stages in turn to src, checks that kp_fixes_compose() gives
 * replacements (none two touching, all owned by 7) that turn src into the
 * result; returns the result. */
static char *compose_checked(kp_edits *st, int n, const char *src)
{
	const kp_edits *eds[8];
	size_t inlen[8];
	char *cur = kp_xstrdup(src);
	size_t len = strlen(src);
	for (int k = 0; k < n; k++) {
		char *next = NULL;
		size_t nl = 0;
		cr_assert_eq(kp_edits_apply(&st[k], cur, len, &next, &nl), 0, "stage %d", k);
		eds[k] = &st[k];
		inlen[k] = len;
		free(cur);
		cur = next;
		len = nl;
	}
	kp_rw_fix *f = NULL;
	int nf = 0;
	cr_assert_eq(kp_fixes_compose(eds, inlen, n, cur, len, 7, &f, &nf), 0);
	for (int i = 0; i < nf; i++) {
		cr_assert_eq(f[i].diag, 7);
		if (i)
			cr_assert(f[i].off > f[i - 1].off + f[i - 1].len, "fixes %d and %d touch",
				  i - 1, i);
	}
	char *got = apply_fixes(f, nf, src);
	cr_assert_str_eq(got, cur);
	free(got);
	kp_fixes_free(f, nf);
	return cur;
}

Test(fixes, compose_two_stages)
{
	const char *src = "int a[32][32];\nfor (;;) { body; }\n";
	kp_edits st[2] = {{0}, {0}};
	kp_edits_add(&st[0], 5, 0, "[2]");        /* int a[2][32][32]; */
	kp_edits_add(&st[0], 15, 18, "{ new; }"); /* the loop, replaced */
	/* stage 2 on "int a[2][32][32];\n{ new; }\n": pad inside stage 1's
	 * text and in source text, and add a line */
	kp_edits_add(&st[1], 15, 0, " + 1");
	kp_edits_add(&st[1], 24, 0, " more;");
	kp_edits_add(&st[1], 0, 0, "// top\n");
	char *out = compose_checked(st, 2, src);
	cr_assert_str_eq(out, "// top\nint a[2][32][32 + 1];\n{ new; more; }\n");
	free(out);
	kp_edits_release(&st[0]);
	kp_edits_release(&st[1]);
}

Test(fixes, compose_one_stage_and_none)
{
	const char *src = "abcdef";
	kp_edits st[1] = {{0}};
	kp_edits_add(&st[0], 2, 2, "XY");
	kp_edits_add(&st[0], 4, 0, "!");
	char *out = compose_checked(st, 1, src);
	cr_assert_str_eq(out, "abXY!ef");
	free(out);
	kp_rw_fix *f = (kp_rw_fix *)1;
	int n = 3;
	cr_assert_eq(kp_fixes_compose(NULL, NULL, 0, src, 6, 0, &f, &n), 0);
	cr_assert_null(f);
	cr_assert_eq(n, 0);
	kp_edits_release(&st[0]);
}

Test(fixes, compose_undo_and_ends)
{
	/* stage 2 deletes what stage 1 inserted, and edits both ends */
	const char *src = "0123456789";
	kp_edits st[3] = {{0}, {0}, {0}};
	kp_edits_add(&st[0], 5, 0, "INS"); /* 01234INS56789 */
	kp_edits_add(&st[1], 5, 3, "");    /* 0123456789 */
	kp_edits_add(&st[1], 0, 1, "<");   /* <123456789 */
	kp_edits_add(&st[1], 10, 0, ">");  /* <123456>789 */
	kp_edits_add(&st[2], 11, 0, "$");  /* at the end */
	char *out = compose_checked(st, 3, src);
	cr_assert_str_eq(out, "<123456>789$");
	free(out);
	for (int k = 0; k < 3; k++)
		kp_edits_release(&st[k]);
}

Test(fixes, compose_random_stages)
{
	srand(15);
	for (int round = 0; round < 300; round++) {
		char src[64];
		int sl = rand() % 40;
		for (int i = 0; i < sl; i++)
			src[i] = (char)('a' + rand() % 26);
		src[sl] = '\0';
		int n = 1 + rand() % 4;
		kp_edits st[4] = {{0}, {0}, {0}, {0}};
		size_t len = (size_t)sl;
		for (int k = 0; k < n; k++) {
			/* non-overlapping edits over a text of `len` bytes */
			size_t pos = 0, grow = 0;
			while (pos <= len && rand() % 3) {
				size_t off = pos + (size_t)rand() % (len - pos + 1);
				size_t l = (size_t)rand() % (len - off + 1);
				l = l > 5 ? 5 : l;
				char t[4] = {(char)('A' + rand() % 26), (char)('0' + k), 0, 0};
				t[rand() % 3] = '\0';
				kp_edits_add(&st[k], (unsigned)off, (unsigned)l, t);
				grow += strlen(t);
				grow -= l;
				pos = off + l + 1;
			}
			len += grow;
		}
		free(compose_checked(st, n, src));
		for (int k = 0; k < n; k++)
			kp_edits_release(&st[k]);
	}
}

static kp_rw_result sample_result(void)
{
	kp_rw_result r = {0};
	r.path = kp_xstrdup("k.cu");
	r.abs_path = kp_xstrdup("/src/k.cu");
	kp_rw_diag_add(&r, NULL, 3, 5, 40, "warning", "kpipe-smem-carried", "writes 'x'");
	int d = kp_rw_diag_add(&r, NULL, 9, 5, 120, "note", "kpipe-pipelined", "pipelined");
	kp_rw_diag_add(&r, NULL, 0, 0, -1, "error", NULL, "no id: not exported");
	r.fixes = kp_xcalloc(2, sizeof(*r.fixes));
	r.fixes[0] = (kp_rw_fix){10, 0, kp_xstrdup("[2]"), d};
	r.fixes[1] = (kp_rw_fix){120, 7, kp_xstrdup("a \"q\"\\\n\tb"), d};
	r.nfixes = 2;
	return r;
}

Test(fixes, yaml_has_the_clang_tidy_keys)
{
	kp_rw_result r = sample_result();
	const kp_rw_result *rp[1] = {&r};
	char *y = kp_fixes_yaml(rp, 1, "/src/k.cu", "/build");
	cr_assert(!strncmp(y, "---\nMainSourceFile:  \"/src/k.cu\"\nDiagnostics:\n", 46), "%s", y);
	cr_assert_not_null(strstr(y, "  - DiagnosticName:  \"kpipe-smem-carried\"\n"
				     "    DiagnosticMessage:\n"
				     "      Message:         \"writes 'x'\"\n"
				     "      FilePath:        \"/src/k.cu\"\n"
				     "      FileOffset:      40\n"
				     "      Replacements: []\n"
				     "    Level:           Warning\n"
				     "    BuildDirectory:  \"/build\"\n"),
			   "%s", y);
	cr_assert_not_null(strstr(y, "        - FilePath:        \"/src/k.cu\"\n"
				     "          Offset:          120\n"
				     "          Length:          7\n"
				     "          ReplacementText: \"a \\\"q\\\"\\\\\\n\\tb\"\n"),
			   "%s", y);
	cr_assert_not_null(strstr(y, "Level:           Remark"));
	cr_assert_null(strstr(y, "no id"));
	cr_assert(strlen(y) > 4 && !strcmp(y + strlen(y) - 4, "...\n"));
	free(y);
	kp_rw_result_release(&r);
}

Test(fixes, yaml_without_diagnostics)
{
	const kp_rw_result *rp[1] = {NULL};
	char *y = kp_fixes_yaml(rp, 0, "", NULL);
	cr_assert_str_eq(y, "---\nMainSourceFile:  \"\"\nDiagnostics: []\n...\n");
	free(y);
}

Test(fixes, yaml_quote_control_bytes)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_yaml_quote(&sb, "a\x01z\r");
	cr_assert_str_eq(kp_strbuf_str(&sb), "\"a\\x01z\\r\"");
	kp_strbuf_release(&sb);
}
