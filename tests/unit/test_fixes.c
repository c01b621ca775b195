/*
 * test_fixes.c - replacements for other tools (kp_fixes_merge: touching
 * edits and insertions at one offset become one replacement, applying the
 * merged list gives what kp_edits_apply gives, overlaps are refused) and
 * the clang-tidy export-fixes YAML (kp_fixes_yaml: the schema's keys,
 * quoting, one Diagnostic per id, an empty list).  Applying the YAML with
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
