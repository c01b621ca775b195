/*
 * test_edit.c - edit lists (kp_edits_apply: ordering, stable inserts,
 * overlap and range checks) and the unified diff (kp_diff: hunk headers,
 * inserts, deletes, changes at either end, missing final newline, hunk
 * splitting and merging), with round trips through patch -p1 and
 * git apply when those tools are installed; where a result's bytes come
 * from (kp_edits_origin, kp_edits_runs); edits of a result composed
 * with the edits that gave it (kp_edits_compose).
 */
#include "kp_test.h"

#include "edit.h"
#include "util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* KNOWN BUG (reported, not fixed here): kp_diff gives a hunk only 2
 * trailing context lines, not 3, whenever 7 or more unchanged lines follow
 * it: the hunk-end loop in edit.c stops on the 7th equal line without
 * including it, then backs up `eqrun - ctx` lines as if it had.  GNU patch
 * applies such hunks only "with fuzz 1" (and rejects them under
 * --fuzz=0).  The tests that need the fix are disabled through this
 * switch; set it to 1 once edit.c is fixed. */
#define KP_DIFF_CONTEXT_FIXED 1

/* --- helpers -------------------------------------------------------------- */

/* Applies `e` to the NUL-terminated `src`; asserts success; caller frees. */
static char *apply_ok(const kp_edits *e, const char *src)
{
	char *out = NULL;
	size_t outlen = 0;
	int rc = kp_edits_apply(e, src, strlen(src), &out, &outlen);
	cr_assert_eq(rc, 0, "kp_edits_apply failed");
	cr_assert_not_null(out);
	cr_assert_eq(outlen, strlen(out), "outlen %zu, strlen %zu", outlen, strlen(out));
	return out;
}

static int apply_rc(const kp_edits *e, const char *src)
{
	char *out = NULL;
	size_t outlen = 12345;
	int rc = kp_edits_apply(e, src, strlen(src), &out, &outlen);
	if (rc) {
		/* nothing is handed out on failure */
		cr_expect_null(out);
		cr_expect_eq(outlen, 12345);
	}
	free(out);
	return rc;
}

static char *diff_s(const char *a, const char *b)
{
	char *d = kp_diff("a/f.txt", a, strlen(a), "b/f.txt", b, strlen(b));
	cr_assert_not_null(d);
	return d;
}

/* "1\n2\n...n\n" */
static char *numbered(int n)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 1; i <= n; i++)
		kp_strbuf_addf(&sb, "line %d\n", i);
	return kp_strbuf_detach(&sb);
}

/* `numbered(n)` with line `at` (1-based) replaced by `text` (NULL deletes it;
 * `insert` keeps the line and adds `text` before it). */
static char *edited(int n, int at, const char *text, int insert)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 1; i <= n; i++) {
		if (i == at && text)
			kp_strbuf_addf(&sb, "%s\n", text);
		if (i != at || insert)
			kp_strbuf_addf(&sb, "line %d\n", i);
	}
	if (at == n + 1 && text)
		kp_strbuf_addf(&sb, "%s\n", text);
	return kp_strbuf_detach(&sb);
}

static int count_hunks(const char *d)
{
	int n = 0;
	for (const char *p = d; (p = strstr(p, "@@ -")); p += 4)
		if (p == d || p[-1] == '\n')
			n++;
	return n;
}

/* The n-th (0-based) "@@ ... @@" header line, without its newline. */
static char *hunk_header(const char *d, int n)
{
	const char *p = d;
	for (;;) {
		p = strstr(p, "@@ -");
		cr_assert_not_null(p, "no hunk %d in:\n%s", n, d);
		if (p == d || p[-1] == '\n') {
			if (n-- == 0)
				break;
		}
		p += 4;
	}
	const char *e = strchr(p, '\n');
	cr_assert_not_null(e);
	return kp_xstrndup(p, (size_t)(e - p));
}

static void expect_header(const char *d, int n, const char *want)
{
	char *h = hunk_header(d, n);
	cr_expect_str_eq(h, want, "hunk %d: got '%s', want '%s' in:\n%s", n, h, want, d);
	free(h);
}

/* --- kp_edits_apply --------------------------------------------------------- */

Test(edits_apply, empty_list_is_identity)
{
	kp_edits e = {0};
	const char *src = "int main(void)\n{\n\treturn 0;\n}\n";
	char *out = apply_ok(&e, src);
	cr_expect_str_eq(out, src);
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, empty_list_on_empty_source)
{
	kp_edits e = {0};
	char *out = NULL;
	size_t outlen = 99;
	cr_assert_eq(kp_edits_apply(&e, "", 0, &out, &outlen), 0);
	cr_assert_not_null(out);
	cr_expect_eq(outlen, 0);
	cr_expect_str_eq(out, "");
	free(out);
}

Test(edits_apply, identity_keeps_bytes_after_len)
{
	/* only the first len bytes are the source */
	kp_edits e = {0};
	kp_edits_add(&e, 2, 1, "X");
	char *out = NULL;
	size_t outlen = 0;
	cr_assert_eq(kp_edits_apply(&e, "abcdef", 4, &out, &outlen), 0);
	cr_expect_eq(outlen, 4);
	cr_expect_str_eq(out, "abXd");
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, replace_insert_delete)
{
	kp_edits e = {0};
	const char *src = "0123456789";
	kp_edits_add(&e, 1, 2, "AB"); /* replace "12" */
	kp_edits_add(&e, 4, 0, "<");  /* insert before '4' */
	kp_edits_add(&e, 6, 2, "");   /* delete "67" */
	kp_edits_add(&e, 10, 0, "$"); /* append at the end */
	kp_edits_add(&e, 0, 0, "^");  /* insert at the start */
	char *out = apply_ok(&e, src);
	cr_expect_str_eq(out, "^0AB3<4589$");
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, applied_in_offset_order_whatever_the_add_order)
{
	const char *src = "aaa bbb ccc ddd";
	kp_edits e1 = {0}, e2 = {0};
	/* forwards */
	kp_edits_add(&e1, 0, 3, "A");
	kp_edits_add(&e1, 4, 3, "B");
	kp_edits_add(&e1, 8, 3, "C");
	kp_edits_add(&e1, 12, 3, "D");
	/* scrambled */
	kp_edits_add(&e2, 8, 3, "C");
	kp_edits_add(&e2, 12, 3, "D");
	kp_edits_add(&e2, 0, 3, "A");
	kp_edits_add(&e2, 4, 3, "B");
	char *o1 = apply_ok(&e1, src), *o2 = apply_ok(&e2, src);
	cr_expect_str_eq(o1, "A B C D");
	cr_expect_str_eq(o2, "A B C D");
	free(o1);
	free(o2);
	kp_edits_release(&e1);
	kp_edits_release(&e2);
}

Test(edits_apply, inserts_at_one_offset_keep_insertion_order)
{
	kp_edits e = {0};
	kp_edits_add(&e, 3, 0, "1");
	kp_edits_add(&e, 0, 0, "x");
	kp_edits_add(&e, 3, 0, "2");
	kp_edits_add(&e, 3, 0, "3");
	kp_edits_add(&e, 6, 0, "y");
	kp_edits_add(&e, 3, 0, "4");
	char *out = apply_ok(&e, "abcdef");
	cr_expect_str_eq(out, "xabc1234defy");
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, many_inserts_at_one_offset_stay_stable)
{
	/* enough to make an unstable sort show itself */
	kp_edits e = {0};
	kp_strbuf want = KP_STRBUF_INIT;
	for (int i = 0; i < 200; i++) {
		char t[16];
		snprintf(t, sizeof(t), "<%d>", i);
		kp_edits_add(&e, 1, 0, t);
		kp_edits_add(&e, (unsigned)(i % 2 ? 2 : 0), 0, ""); /* noise */
		kp_strbuf_adds(&want, t);
	}
	kp_strbuf full = KP_STRBUF_INIT;
	kp_strbuf_addf(&full, "a%sb", kp_strbuf_str(&want));
	char *out = apply_ok(&e, "ab");
	cr_expect_str_eq(out, kp_strbuf_str(&full));
	free(out);
	kp_strbuf_release(&want);
	kp_strbuf_release(&full);
	kp_edits_release(&e);
}

Test(edits_apply, insert_at_end_of_a_replacement)
{
	kp_edits e = {0};
	kp_edits_add(&e, 1, 2, "XY");
	kp_edits_add(&e, 3, 0, "!");
	char *out = apply_ok(&e, "abcd");
	cr_expect_str_eq(out, "aXY!d");
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, insert_added_before_a_replacement_at_its_start)
{
	kp_edits e = {0};
	kp_edits_add(&e, 1, 0, "!");
	kp_edits_add(&e, 1, 2, "XY");
	char *out = apply_ok(&e, "abcd");
	cr_expect_str_eq(out, "a!XYd");
	free(out);
	kp_edits_release(&e);
}

/* KNOWN BUG (reported, not fixed here): a zero-length insert at the start
 * of a replaced range does not overlap it, yet kp_edits_apply returns -1
 * when the insert was added after the replacement (sorting by (off, seq)
 * puts the replacement first; the insert then starts before `pos`).
 * Enable when fixed. */
Test(edits_apply, insert_added_after_a_replacement_at_its_start)
{
	kp_edits e = {0};
	kp_edits_add(&e, 1, 2, "XY");
	kp_edits_add(&e, 1, 0, "!");
	char *out = NULL;
	size_t outlen = 0;
	cr_expect_eq(kp_edits_apply(&e, "abcd", 4, &out, &outlen), 0);
	if (out)
		cr_expect_str_eq(out, "a!XYd");
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, overlap_is_refused)
{
	const char *src = "0123456789";
	kp_edits e = {0};
	kp_edits_add(&e, 2, 4, "x"); /* [2, 6) */
	kp_edits_add(&e, 5, 2, "y"); /* [5, 7) */
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	/* nested, added in either order */
	kp_edits_add(&e, 3, 1, "in");
	kp_edits_add(&e, 1, 6, "out");
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	/* two replacements of the same range */
	kp_edits_add(&e, 4, 2, "a");
	kp_edits_add(&e, 4, 2, "b");
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	/* an insert strictly inside a replaced range */
	kp_edits_add(&e, 2, 4, "r");
	kp_edits_add(&e, 4, 0, "i");
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);
}

Test(edits_apply, adjacent_ranges_are_not_an_overlap)
{
	kp_edits e = {0};
	kp_edits_add(&e, 4, 2, "B");
	kp_edits_add(&e, 2, 2, "A"); /* [2,4) then [4,6) */
	char *out = apply_ok(&e, "0123456789");
	cr_expect_str_eq(out, "01AB6789");
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, out_of_range_is_refused)
{
	const char *src = "0123456789"; /* len 10 */
	kp_edits e = {0};
	kp_edits_add(&e, 9, 2, "x"); /* [9, 11) */
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	kp_edits_add(&e, 11, 0, "x"); /* insert past the end */
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	kp_edits_add(&e, 0xFFFFFFFFu, 1, "x"); /* off + len wraps in 32 bits */
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	kp_edits_add(&e, 1, 0xFFFFFFFFu, "x");
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	/* a good edit does not rescue a bad one */
	kp_edits_add(&e, 0, 1, "ok");
	kp_edits_add(&e, 10, 1, "bad");
	cr_expect_eq(apply_rc(&e, src), -1);
	kp_edits_release(&e);

	/* the last byte and the end are in range */
	kp_edits_add(&e, 9, 1, "N");
	kp_edits_add(&e, 10, 0, "!");
	char *out = apply_ok(&e, src);
	cr_expect_str_eq(out, "012345678N!");
	free(out);
	kp_edits_release(&e);
}

Test(edits_apply, edits_own_their_text)
{
	kp_edits e = {0};
	char buf[8];
	strcpy(buf, "new");
	kp_edits_add(&e, 0, 3, buf);
	strcpy(buf, "XXX");
	char *out = apply_ok(&e, "old!");
	cr_expect_str_eq(out, "new!");
	free(out);
	kp_edits_release(&e);
	cr_expect_eq(e.n, 0);
	cr_expect_null(e.v);
	kp_edits_release(&e); /* twice is harmless */
}

/* --- kp_edits_compose ------------------------------------------------------ */

/* apply(compose(a, b)) on src is apply(b) on apply(a) on src. */
static void expect_composes(const kp_edits *a, const kp_edits *b, const char *src, kp_edits *out)
{
	char *mid = apply_ok(a, src);
	char *want = apply_ok(b, mid);
	cr_assert_eq(kp_edits_compose(a, src, strlen(src), b, out), 0);
	char *got = apply_ok(out, src);
	cr_expect_str_eq(got, want, "src '%s' mid '%s'", src, mid);
	free(mid);
	free(want);
	free(got);
}

/* The inline pass's case: b changes text inside what a inserted (a call
 * replaced by a body), and moves a line out before the loop (source text
 * before a's edit); a's other edit, untouched, stays as it was. */
Test(edits_compose, inside_and_outside_an_edit)
{
	const char *src = "pre;\nloop { call(); tail; }\nX";
	kp_edits a = {0}, b = {0}, out = {0};
	kp_edits_add(&a, 12, 7, "{ int v = 0; if (g) v = A[i]; T[i] = v; }");
	kp_edits_add(&a, 28, 1, "Y");
	char *mid = apply_ok(&a, src);
	const char *body = strstr(mid, "int v = 0; ");
	cr_assert_not_null(body);
	size_t p = (size_t)(body - mid);
	kp_edits_add(&b, (unsigned)p, 11, "");                             /* the declaration */
	kp_edits_add(&b, (unsigned)(strstr(mid, "if (g)") - mid), 17, ""); /* the if */
	kp_edits_add(&b, (unsigned)(strstr(mid, "= v;") - mid) + 2, 1, "g ? A[i] : 0");
	kp_edits_add(&b, 5, 0, "int h;\n"); /* source text: before the loop */
	free(mid);
	expect_composes(&a, &b, src, &out);
	char *got = apply_ok(&out, src);
	cr_expect_str_eq(got, "pre;\nint h;\nloop { { T[i] = g ? A[i] : 0; } tail; }\nY");
	free(got);
	/* the untouched edit of a is one of out's, as it was */
	int same = 0;
	for (int i = 0; i < out.n; i++)
		same += out.v[i].off == 28 && out.v[i].len == 1 && !strcmp(out.v[i].text, "Y");
	cr_expect_eq(same, 1);
	cr_expect_eq(out.n, 3);
	kp_edits_release(&a);
	kp_edits_release(&b);
	kp_edits_release(&out);
}

/* Edits of b across an edge of a's text, at its edges, over a whole
 * deletion of a: one edit of the source range they cover. */
Test(edits_compose, across_the_edges)
{
	const char *src = "0123456789";
	static const struct {
		unsigned off, len;
		const char *text;
	} bs[] = {{1, 4, "<>"}, {3, 0, "^"}, {6, 0, "$"}, {2, 5, ""}, {0, 9, "all"}, {4, 3, "m"}};
	for (size_t i = 0; i < sizeof(bs) / sizeof(bs[0]); i++) {
		kp_edits a = {0}, b = {0}, out = {0};
		kp_edits_add(&a, 3, 2, "abc"); /* "012abc56789" */
		kp_edits_add(&a, 7, 1, "");    /* "012abc5689" */
		kp_edits_add(&a, 9, 0, "+");   /* "012abc568+9" */
		kp_edits_add(&b, bs[i].off, bs[i].len, bs[i].text);
		expect_composes(&a, &b, src, &out);
		kp_edits_release(&a);
		kp_edits_release(&b);
		kp_edits_release(&out);
	}
}

/* Random lists: every composition gives the same text. */
Test(edits_compose, random_lists)
{
	unsigned seed = 12345;
#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 16) % (n)
	const char *src = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(src);
	for (int round = 0; round < 500; round++) {
		kp_edits a = {0}, b = {0}, out = {0};
		for (size_t pos = RND(4); pos < len; pos += 1 + RND(6)) {
			size_t l = RND(3);
			if (pos + l > len)
				l = len - pos;
			static const char *const texts[] = {"", "X", "YY", "ZZZ"};
			kp_edits_add(&a, (unsigned)pos, (unsigned)l, texts[RND(4)]);
			pos += l;
		}
		char *mid = apply_ok(&a, src);
		size_t mlen = strlen(mid);
		for (size_t pos = RND(4); pos < mlen; pos += 1 + RND(6)) {
			size_t l = RND(5);
			if (pos + l > mlen)
				l = mlen - pos;
			static const char *const texts[] = {"", "q", "rs", "tuv"};
			kp_edits_add(&b, (unsigned)pos, (unsigned)l, texts[RND(4)]);
			pos += l;
		}
		free(mid);
		expect_composes(&a, &b, src, &out);
		kp_edits_release(&a);
		kp_edits_release(&b);
		kp_edits_release(&out);
	}
#undef RND
}

/* A list that does not apply: -1, nothing added. */
Test(edits_compose, refuses_lists_that_do_not_apply)
{
	kp_edits a = {0}, b = {0}, out = {0};
	kp_edits_add(&a, 1, 2, "x");
	kp_edits_add(&b, 50, 0, "y");
	cr_expect_eq(kp_edits_compose(&a, "abcd", 4, &b, &out), -1);
	cr_expect_eq(out.n, 0);
	kp_edits_release(&a);
	kp_edits_release(&b);
}

/* --- kp_diff ------------------------------------------------------------------ */

Test(diff, identical_is_empty)
{
	char *a = numbered(20);
	char *d = diff_s(a, a);
	cr_expect_str_eq(d, "");
	free(d);
	d = kp_diff("a/x", "", 0, "b/x", "", 0);
	cr_expect_str_eq(d, "");
	free(d);
	d = diff_s("no newline", "no newline");
	cr_expect_str_eq(d, "");
	free(d);
	free(a);
}

Test(diff, single_line_change)
{
	char *a = numbered(10), *b = edited(10, 5, "LINE FIVE", 0);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -2,7 +2,7 @@\n"
			    " line 2\n"
			    " line 3\n"
			    " line 4\n"
			    "-line 5\n"
			    "+LINE FIVE\n"
			    " line 6\n"
			    " line 7\n"
			    " line 8\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, labels_are_printed_as_given)
{
	char *d = kp_diff("a/src/k.cu", "x\n", 2, "b/src/k.cu", "y\n", 2);
	cr_expect_str_eq(d, "--- a/src/k.cu\n+++ b/src/k.cu\n@@ -1,1 +1,1 @@\n-x\n+y\n");
	free(d);
}

Test(diff, pure_insert)
{
	char *a = numbered(10), *b = edited(10, 6, "NEW", 1); /* before line 6 */
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -3,6 +3,7 @@\n"
			    " line 3\n"
			    " line 4\n"
			    " line 5\n"
			    "+NEW\n"
			    " line 6\n"
			    " line 7\n"
			    " line 8\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, pure_delete)
{
	char *a = numbered(10), *b = edited(10, 5, NULL, 0);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -2,7 +2,6 @@\n"
			    " line 2\n"
			    " line 3\n"
			    " line 4\n"
			    "-line 5\n"
			    " line 6\n"
			    " line 7\n"
			    " line 8\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, change_at_start)
{
	char *a = numbered(5), *b = edited(5, 1, "FIRST", 0);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -1,4 +1,4 @@\n"
			    "-line 1\n"
			    "+FIRST\n"
			    " line 2\n"
			    " line 3\n"
			    " line 4\n");
	free(d);
	free(a);
	free(b);
}

/* The same with 7+ unchanged lines after the change (see KP_DIFF_CONTEXT_FIXED). */
Test(diff, change_at_start_of_a_long_file, .disabled = !KP_DIFF_CONTEXT_FIXED)
{
	char *a = numbered(30), *b = edited(30, 1, "FIRST", 0);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -1,4 +1,4 @@\n"
			    "-line 1\n"
			    "+FIRST\n"
			    " line 2\n"
			    " line 3\n"
			    " line 4\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, single_line_change_in_a_long_file, .disabled = !KP_DIFF_CONTEXT_FIXED)
{
	char *a = numbered(40), *b = edited(40, 20, "TWENTY", 0);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -17,7 +17,7 @@\n"
			    " line 17\n"
			    " line 18\n"
			    " line 19\n"
			    "-line 20\n"
			    "+TWENTY\n"
			    " line 21\n"
			    " line 22\n"
			    " line 23\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, insert_at_start)
{
	char *a = numbered(5), *b = edited(5, 1, "HEAD", 1);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -1,3 +1,4 @@\n"
			    "+HEAD\n"
			    " line 1\n"
			    " line 2\n"
			    " line 3\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, change_at_end)
{
	char *a = numbered(10), *b = edited(10, 10, "LAST", 0);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -7,4 +7,4 @@\n"
			    " line 7\n"
			    " line 8\n"
			    " line 9\n"
			    "-line 10\n"
			    "+LAST\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, append_at_end)
{
	char *a = numbered(10), *b = edited(10, 11, "TAIL", 0);
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -8,3 +8,4 @@\n"
			    " line 8\n"
			    " line 9\n"
			    " line 10\n"
			    "+TAIL\n");
	free(d);
	free(a);
	free(b);
}

Test(diff, from_and_to_an_empty_file)
{
	char *d = kp_diff("a/f", "", 0, "b/f", "x\ny\n", 4);
	cr_expect_str_eq(d, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	free(d);
	d = kp_diff("a/f", "x\ny\n", 4, "b/f", "", 0);
	cr_expect_str_eq(d, "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n");
	free(d);
}

Test(diff, no_trailing_newline_on_both_sides)
{
	char *d = diff_s("a\nb\nc", "a\nb\nC");
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -1,3 +1,3 @@\n"
			    " a\n"
			    " b\n"
			    "-c\n"
			    "\\ No newline at end of file\n"
			    "+C\n"
			    "\\ No newline at end of file\n");
	free(d);
}

Test(diff, newline_added_at_end)
{
	char *d = diff_s("a\nb", "a\nb\n");
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -1,2 +1,2 @@\n"
			    " a\n"
			    "-b\n"
			    "\\ No newline at end of file\n"
			    "+b\n");
	free(d);
}

Test(diff, unterminated_context_line)
{
	/* the last line, unchanged and without '\n', is context */
	char *d = diff_s("a\nb\nc", "A\nb\nc");
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -1,3 +1,3 @@\n"
			    "-a\n"
			    "+A\n"
			    " b\n"
			    " c\n"
			    "\\ No newline at end of file\n");
	free(d);
}

Test(diff, two_far_changes_make_two_hunks)
{
	char *a = numbered(30);
	/* b: lines 2 and 25 changed */
	char *b = NULL;
	{
		kp_strbuf sb = KP_STRBUF_INIT;
		for (int i = 1; i <= 30; i++)
			kp_strbuf_addf(&sb,
				       i == 2    ? "TWO\n"
				       : i == 25 ? "TWENTY-FIVE\n"
						 : "line %d\n",
				       i);
		b = kp_strbuf_detach(&sb);
	}
	char *d = diff_s(a, b);
	cr_expect_eq(count_hunks(d), 2, "%s", d);
	char *h0 = hunk_header(d, 0), *h1 = hunk_header(d, 1);
	cr_expect(!strncmp(h0, "@@ -1,", 6), "%s", h0);
	cr_expect(!strncmp(h1, "@@ -22,", 7), "%s", h1);
	cr_expect_str_eq(h1, "@@ -22,7 +22,7 @@");
	cr_expect(strstr(d, "-line 2\n+TWO\n") != NULL);
	cr_expect(strstr(d, "-line 25\n+TWENTY-FIVE\n") != NULL);
	/* nothing between the hunks is printed */
	cr_expect(strstr(d, " line 10\n") == NULL, "%s", d);
	free(h0);
	free(h1);
	free(d);
	free(a);
	free(b);
}

/* Myers' paper's example (ABCABBA -> CBABAC): the shortest edit script
 * deletes 3 lines and adds 2 (D = 5); the region is all of both files, so
 * a longer script shows up in the counts. */
Test(diff, shortest_edit_script)
{
	char *d = diff_s("A\nB\nC\nA\nB\nB\nA\n", "C\nB\nA\nB\nA\nC\n");
	int del = 0, add = 0;
	for (const char *p = strchr(d, '\n') + 1; (p = strchr(p, '\n')) != NULL;) {
		p++;
		del += *p == '-';
		add += *p == '+';
	}
	cr_expect_eq(del, 3, "%s", d);
	cr_expect_eq(add, 2, "%s", d);
	free(d);
}

/* A 30,000-line file with three far-apart one-line changes gives three
 * small hunks: the diff's cost follows the differences, not the file
 * (the table of the longest-common-subsequence diff it replaced held
 * 900 million cells here, over its limit, and wrote the whole region
 * deleted and added). */
Test(diff, long_file_few_changes)
{
	enum { N = 30000 };
	char *a = numbered(N);
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 1; i <= N; i++)
		kp_strbuf_addf(&sb,
			       i == 5       ? "FIVE\n"
			       : i == 15000 ? "MIDDLE\n"
			       : i == 29990 ? "END\n"
					    : "line %d\n",
			       i);
	char *b = kp_strbuf_detach(&sb);
	char *d = diff_s(a, b);
	cr_expect_eq(count_hunks(d), 3, "%.300s", d);
	cr_expect_lt(strlen(d), 600u, "%zu bytes", strlen(d));
	cr_expect(strstr(d, "-line 15000\n+MIDDLE\n") != NULL);
	free(d);
	free(a);
	free(b);
}

/* GNU diff gives "@@ -1,5 +1,5 @@" for the first hunk (see KP_DIFF_CONTEXT_FIXED). */
Test(diff, hunk_before_another_has_three_trailing_lines, .disabled = !KP_DIFF_CONTEXT_FIXED)
{
	char *a = numbered(30);
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 1; i <= 30; i++)
		kp_strbuf_addf(&sb, i == 2 ? "TWO\n" : i == 25 ? "TWENTY-FIVE\n" : "line %d\n", i);
	char *b = kp_strbuf_detach(&sb);
	char *d = diff_s(a, b);
	expect_header(d, 0, "@@ -1,5 +1,5 @@");
	expect_header(d, 1, "@@ -22,7 +22,7 @@");
	free(d);
	free(a);
	free(b);
}

/* Lines `x` and `y` changed in a numbered(n) file. */
static char *two_changes(int n, int x, int y)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 1; i <= n; i++)
		if (i == x || i == y)
			kp_strbuf_addf(&sb, "CHANGED %d\n", i);
		else
			kp_strbuf_addf(&sb, "line %d\n", i);
	return kp_strbuf_detach(&sb);
}

Test(diff, near_changes_merge_into_one_hunk)
{
	/* 20 lines: fewer than 7 unchanged lines follow the last change */
	char *a = numbered(20);
	char *b = two_changes(20, 10, 14); /* 3 equal lines between */
	char *d = diff_s(a, b);
	cr_expect_eq(count_hunks(d), 1, "%s", d);
	expect_header(d, 0, "@@ -7,11 +7,11 @@");
	free(d);
	free(b);
	/* up to 2 * 3 equal lines between two changes still merge */
	b = two_changes(20, 10, 17);
	d = diff_s(a, b);
	cr_expect_eq(count_hunks(d), 1, "%s", d);
	expect_header(d, 0, "@@ -7,14 +7,14 @@");
	free(d);
	free(b);
	/* 7 equal lines between: two hunks */
	b = two_changes(20, 10, 18);
	d = diff_s(a, b);
	cr_expect_eq(count_hunks(d), 2, "%s", d);
	expect_header(d, 1, "@@ -15,6 +15,6 @@");
	free(d);
	free(b);
	free(a);
}

/* The same in the middle of a longer file (see KP_DIFF_CONTEXT_FIXED). */
Test(diff, near_changes_merge_in_a_long_file, .disabled = !KP_DIFF_CONTEXT_FIXED)
{
	char *a = numbered(40);
	char *b = two_changes(40, 10, 17);
	char *d = diff_s(a, b);
	cr_expect_eq(count_hunks(d), 1, "%s", d);
	expect_header(d, 0, "@@ -7,14 +7,14 @@");
	free(d);
	free(b);
	b = two_changes(40, 10, 18);
	d = diff_s(a, b);
	cr_expect_eq(count_hunks(d), 2, "%s", d);
	expect_header(d, 0, "@@ -7,7 +7,7 @@");
	expect_header(d, 1, "@@ -15,7 +15,7 @@");
	free(d);
	free(b);
	free(a);
}

Test(diff, replace_block_with_different_length)
{
	const char *a = "keep 1\nkeep 2\nold a\nold b\nold c\nkeep 3\nkeep 4\n";
	const char *b = "keep 1\nkeep 2\nnew a\nkeep 3\nkeep 4\n";
	char *d = diff_s(a, b);
	cr_expect_str_eq(d, "--- a/f.txt\n"
			    "+++ b/f.txt\n"
			    "@@ -1,7 +1,5 @@\n"
			    " keep 1\n"
			    " keep 2\n"
			    "-old a\n"
			    "-old b\n"
			    "-old c\n"
			    "+new a\n"
			    " keep 3\n"
			    " keep 4\n");
	free(d);
}

Test(diff, crlf_lines_are_kept_verbatim)
{
	char *d = diff_s("a\r\nb\r\n", "a\r\nB\r\n");
	cr_expect_str_eq(d, "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n");
	free(d);
}

/* --- round trips through patch -p1 and git apply ------------------------------ */

static void write_at(const char *rel, const char *data, size_t len)
{
	char *path = kp_test_path(rel);
	kp_test_write(path, data, len);
	free(path);
}

static char *read_at(const char *rel, size_t *len)
{
	char *path = kp_test_path(rel);
	char *s = kp_test_read(path, len);
	free(path);
	return s;
}

/* Writes a into tree/src/k.cu, the diff into p.diff, runs `cmd` in tree/
 * (the patch tool) and checks the result is b.  `log` gets the tool's
 * output. */
static void round_trip(const char *a, size_t alen, const char *b, size_t blen, const char *cmd,
		       char **log)
{
	kp_strbuf sh = KP_STRBUF_INIT;
	kp_strbuf_addf(&sh, "rm -rf '%s/tree' && mkdir -p '%s/tree/src'", kp_test_dir, kp_test_dir);
	cr_assert_eq(system(kp_strbuf_str(&sh)), 0);
	kp_strbuf_release(&sh);
	write_at("tree/src/k.cu", a, alen);
	char *d = kp_diff("a/src/k.cu", a, alen, "b/src/k.cu", b, blen);
	write_at("p.diff", d, strlen(d));
	free(d);
	kp_strbuf_addf(&sh, "cd '%s/tree' && %s < ../p.diff > ../log 2>&1", kp_test_dir, cmd);
	int rc = system(kp_strbuf_str(&sh));
	kp_strbuf_release(&sh);
	size_t ll;
	*log = read_at("log", &ll);
	cr_assert_eq(rc, 0, "'%s' failed:\n%s", cmd, *log);
	size_t len;
	char *got = read_at("tree/src/k.cu", &len);
	cr_expect_eq(len, blen, "patched file is %zu bytes, expected %zu (%s)", len, blen, cmd);
	cr_expect(len == blen && !memcmp(got, b, blen), "patched file differs (%s)", cmd);
	free(got);
}

/* A deterministic set of edited versions of a 120-line file: scattered
 * replacements, inserts and deletes, near and far, at both ends, with and
 * without a final newline. */
static char *variant(const char *base_lines[], int n, unsigned seed, int final_nl)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	unsigned s = seed * 2654435761u + 1;
	for (int i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		unsigned r = (s >> 16) % 23;
		if (r == 0)
			continue; /* delete */
		if (r == 1)
			kp_strbuf_addf(&sb, "inserted %u.%d\n", seed, i);
		if (r == 2)
			kp_strbuf_addf(&sb, "replaced %u.%d\n", seed, i);
		else
			kp_strbuf_addf(&sb, "%s\n", base_lines[i]);
	}
	if (!final_nl && sb.len)
		sb.len--, sb.buf[sb.len] = '\0';
	return kp_strbuf_detach(&sb);
}

static void fuzz_round_trips(const char *cmd)
{
	enum { N = 120 };
	const char *lines[N];
	char store[N][32];
	for (int i = 0; i < N; i++) {
		/* repeated lines make the LCS choices interesting */
		snprintf(store[i], sizeof(store[i]), i % 7 == 0 ? "    }" : "    x%d += y;",
			 i % 13);
		lines[i] = store[i];
	}
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < N; i++)
		kp_strbuf_addf(&sb, "%s\n", lines[i]);
	char *base = kp_strbuf_detach(&sb);
	for (unsigned seed = 1; seed <= 12; seed++) {
		char *v = variant(lines, N, seed, seed % 3 != 0);
		char *log = NULL;
		round_trip(base, strlen(base), v, strlen(v), cmd, &log);
		free(log);
		log = NULL;
		/* and back */
		round_trip(v, strlen(v), base, strlen(base), cmd, &log);
		free(log);
		free(v);
	}
	free(base);
}

Test(diff_round_trip, patch_p1, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	if (!kp_test_have_tool("patch"))
		cr_skip("patch is not installed");
	char *a = numbered(40);
	char *b = two_changes(40, 3, 30);
	char *log = NULL;
	round_trip(a, strlen(a), b, strlen(b), "patch -p1 --batch", &log);
	free(log);
	free(a);
	free(b);
}

Test(diff_round_trip, patch_p1_no_final_newline, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	if (!kp_test_have_tool("patch"))
		cr_skip("patch is not installed");
	const char *a = "one\ntwo\nthree";
	const char *b = "one\nTWO\nthree\nfour";
	char *log = NULL;
	round_trip(a, strlen(a), b, strlen(b), "patch -p1 --batch", &log);
	free(log);
	log = NULL;
	round_trip(b, strlen(b), a, strlen(a), "patch -p1 --batch", &log);
	free(log);
}

Test(diff_round_trip, patch_p1_many_edits, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	if (!kp_test_have_tool("patch"))
		cr_skip("patch is not installed");
	fuzz_round_trips("patch -p1 --batch");
}

Test(diff_round_trip, git_apply, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove)
{
	if (!kp_test_have_tool("git"))
		cr_skip("git is not installed");
	char *a = numbered(40);
	char *b = two_changes(40, 3, 30);
	char *log = NULL;
	round_trip(a, strlen(a), b, strlen(b), "git apply -", &log);
	free(log);
	free(a);
	free(b);
}

Test(diff_round_trip, git_apply_many_edits, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove)
{
	if (!kp_test_have_tool("git"))
		cr_skip("git is not installed");
	fuzz_round_trips("git apply -");
}

/* Strict: no fuzz allowed (see KP_DIFF_CONTEXT_FIXED). */
Test(diff_round_trip, patch_without_fuzz, .init = kp_test_tmpdir_make,
     .fini = kp_test_tmpdir_remove, .disabled = !KP_DIFF_CONTEXT_FIXED)
{
	if (!kp_test_have_tool("patch"))
		cr_skip("patch is not installed");
	fuzz_round_trips("patch -p1 --batch --fuzz=0");
}

/* --- kp_edits_origin: where a byte of the result comes from ---------------- */

Test(edits_origin, source_and_edit_text)
{
	/* "abcdef" -> "aXYcd" + "Z" + "ef": replace "b" by "XY", insert "Z" at 4 */
	const char *src = "abcdef";
	kp_edits e = {0};
	kp_edits_add(&e, 4, 0, "Z");
	kp_edits_add(&e, 1, 1, "XY");
	char *out = NULL;
	size_t n = 0;
	cr_assert_eq(kp_edits_apply(&e, src, strlen(src), &out, &n), 0);
	cr_assert_str_eq(out, "aXYcdZef");
	size_t so = 99;
	cr_expect_eq(kp_edits_origin(&e, 0, &so), -1);
	cr_expect_eq(so, 0);
	cr_expect_eq(kp_edits_origin(&e, 1, &so), 1, "X comes from edit 1");
	cr_expect_eq(kp_edits_origin(&e, 2, &so), 1, "Y too");
	cr_expect_eq(kp_edits_origin(&e, 3, &so), -1);
	cr_expect_eq(so, 2, "c is source byte 2");
	cr_expect_eq(kp_edits_origin(&e, 4, &so), -1);
	cr_expect_eq(so, 3);
	cr_expect_eq(kp_edits_origin(&e, 5, &so), 0, "Z comes from edit 0");
	cr_expect_eq(kp_edits_origin(&e, 6, &so), -1);
	cr_expect_eq(so, 4, "e is source byte 4");
	cr_expect_eq(kp_edits_origin(&e, 8, &so), -1);
	cr_expect_eq(so, 6, "the end maps to the end");
	free(out);
	kp_edits_release(&e);
}

Test(edits_origin, no_edits_is_identity)
{
	kp_edits e = {0};
	size_t so = 99;
	cr_expect_eq(kp_edits_origin(&e, 3, &so), -1);
	cr_expect_eq(so, 3);
}

/* --- kp_edits_runs: the source text a result keeps -------------------------- */

Test(edits_runs, runs_between_edits)
{
	/* "abcdef" -> "a" "XY" "cd" "Z" "ef" */
	kp_edits e = {0};
	kp_edits_add(&e, 4, 0, "Z");
	kp_edits_add(&e, 1, 1, "XY");
	kp_edit_run *r = NULL;
	int n = 0;
	cr_assert_eq(kp_edits_runs(&e, 6, &r, &n), 0);
	cr_assert_eq(n, 3);
	size_t want[3][3] = {{0, 0, 1}, {3, 2, 2}, {6, 4, 2}}; /* out, src, len */
	for (int i = 0; i < 3; i++)
		cr_expect(r[i].out == want[i][0] && r[i].src == want[i][1] &&
				  r[i].len == want[i][2],
			  "run %d: %zu %zu %zu", i, r[i].out, r[i].src, r[i].len);
	free(r);
	kp_edits_release(&e);
}

Test(edits_runs, whole_source_replaced_and_none)
{
	kp_edits e = {0};
	kp_edit_run *r = NULL;
	int n = 0;
	cr_assert_eq(kp_edits_runs(&e, 5, &r, &n), 0);
	cr_assert(n == 1 && r[0].out == 0 && r[0].src == 0 && r[0].len == 5);
	free(r);
	kp_edits_add(&e, 0, 5, "new");
	cr_assert_eq(kp_edits_runs(&e, 5, &r, &n), 0);
	cr_assert_eq(n, 0);
	free(r);
	kp_edits_add(&e, 2, 1, "x");
	cr_assert_eq(kp_edits_runs(&e, 5, &r, &n), -1, "overlap");
	cr_assert_null(r);
	kp_edits_release(&e);
}
