/*
 * test_render.c - the transforms' text helpers that need no parse:
 * kp_reindent (prefix on non-empty lines; blank lines and preprocessor
 * lines untouched) and kp_render over a source range with substitution
 * lists (order, nesting: the wider substitution wins, ranges outside
 * [b, e) ignored, inserts at the boundaries), and kp_fresh_name (the names
 * a rewrite declares avoid those of the translation unit), kp_strip_comments
 * (the repeated prologue copies keep no comment) and kp_addr_of (no
 * &*reinterpret_cast).
 */
#include "transform.h"
#include "util.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- kp_reindent ------------------------------------------------------------ */

/* Parameters are copied into a freshly exec'd worker, so they hold their
 * strings inline. */
struct reindent_case {
	char text[96];
	char prefix[8];
	char want[160];
};

ParameterizedTestParameters(reindent, cases)
{
	static struct reindent_case params[] = {
		{"", "    ", ""},
		{"a;", "    ", "    a;"},
		{"a;\n", "\t", "\ta;\n"},
		{"a;\nb;\n", "  ", "  a;\n  b;\n"},
		/* blank lines stay empty (no trailing whitespace) */
		{"a;\n\nb;\n", "  ", "  a;\n\n  b;\n"},
		{"\n\n", "  ", "\n\n"},
		{"a;\r\n\r\nb;\r\n", "  ", "  a;\r\n\r\n  b;\r\n"},
		/* preprocessor lines keep column 0 */
		{"#pragma unroll\nfor (;;) {}\n", "    ", "#pragma unroll\n    for (;;) {}\n"},
		{"#if X\nx;\n#endif\n", "\t", "#if X\n\tx;\n#endif\n"},
		/* already indented lines get the prefix on top */
		{"if (c)\n    x;\n", "  ", "  if (c)\n      x;\n"},
		/* a '#' that is not at the start of the line is just text */
		{"s = \"#\";\n", "  ", "  s = \"#\";\n"},
		/* the empty prefix changes nothing */
		{"a;\n  b;\n", "", "a;\n  b;\n"},
	};
	return cr_make_param_array(struct reindent_case, params,
				   sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct reindent_case *c, reindent, cases)
{
	char *got = kp_reindent(c->text, c->prefix);
	cr_assert_not_null(got);
	cr_expect_str_eq(got, c->want, "kp_reindent(\"%s\", \"%s\")", c->text, c->prefix);
	free(got);
}

Test(reindent, result_is_a_fresh_copy)
{
	const char *text = "x;\n";
	char *got = kp_reindent(text, "");
	cr_assert_neq((void *)got, (void *)text);
	cr_expect_str_eq(got, text);
	free(got);
}

/* --- kp_render ---------------------------------------------------------------- */

/* A kp_file around a literal: kp_render only reads src/len. */
static kp_file file_of(const char *src)
{
	kp_file f;
	memset(&f, 0, sizeof(f));
	f.src = (char *)src;
	f.len = strlen(src);
	return f;
}

static const char SRC[] = "acc += As[ty][kk] * Bs[kk][tx];";
/*                         0123456789012345678901234567890
 *                         0         1         2         3   */

Test(render, no_substitutions_copies_the_range)
{
	kp_file f = file_of(SRC);
	kp_subs s = {0};
	char *got = kp_render(&f, 0, (unsigned)f.len, &s);
	cr_expect_str_eq(got, SRC);
	free(got);
	got = kp_render(&f, 7, 17, &s);
	cr_expect_str_eq(got, "As[ty][kk]");
	free(got);
	got = kp_render(&f, 5, 5, &s);
	cr_expect_str_eq(got, "");
	free(got);
}

Test(render, substitutions_in_any_order)
{
	kp_file f = file_of(SRC);
	kp_subs s = {0};
	kp_subs_add(&s, 20, 2, "Bs[kp_stage]"); /* Bs */
	kp_subs_add(&s, 7, 2, "As[kp_stage]");  /* As */
	kp_subs_add(&s, 0, 3, "sum");           /* acc */
	char *got = kp_render(&f, 0, (unsigned)f.len, &s);
	cr_expect_str_eq(got, "sum += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];");
	free(got);
	kp_subs_release(&s);
	cr_expect_eq(s.n, 0);
	cr_expect_null(s.v);
}

Test(render, subs_own_their_text)
{
	kp_file f = file_of(SRC);
	kp_subs s = {0};
	char buf[8];
	strcpy(buf, "ACC");
	kp_subs_add(&s, 0, 3, buf);
	strcpy(buf, "zzz");
	char *got = kp_render(&f, 0, 6, &s);
	cr_expect_str_eq(got, "ACC +=");
	free(got);
	kp_subs_release(&s);
}

Test(render, wider_substitution_wins)
{
	kp_file f = file_of(SRC);
	/* narrow first, wide second */
	kp_subs s = {0};
	kp_subs_add(&s, 7, 2, "NARROW"); /* As */
	kp_subs_add(&s, 7, 10, "WIDE");  /* As[ty][kk] */
	char *got = kp_render(&f, 0, (unsigned)f.len, &s);
	cr_expect_str_eq(got, "acc += WIDE * Bs[kk][tx];");
	free(got);
	kp_subs_release(&s);

	/* wide first, narrow second, narrow one strictly inside */
	kp_subs_add(&s, 7, 10, "WIDE");
	kp_subs_add(&s, 10, 2, "inner");  /* ty */
	kp_subs_add(&s, 14, 2, "inner2"); /* kk */
	got = kp_render(&f, 0, (unsigned)f.len, &s);
	cr_expect_str_eq(got, "acc += WIDE * Bs[kk][tx];");
	free(got);
	kp_subs_release(&s);

	/* three levels: the outermost wins */
	kp_subs_add(&s, 10, 2, "L3");
	kp_subs_add(&s, 9, 4, "L2"); /* [ty] */
	kp_subs_add(&s, 0, (unsigned)f.len - 1, "L1");
	got = kp_render(&f, 0, (unsigned)f.len, &s);
	cr_expect_str_eq(got, "L1;");
	free(got);
	kp_subs_release(&s);
}

Test(render, nested_substitution_and_a_disjoint_one)
{
	kp_file f = file_of(SRC);
	kp_subs s = {0};
	kp_subs_add(&s, 10, 2, "IGNORED");       /* inside the wide one */
	kp_subs_add(&s, 7, 10, "As[s][ty][kk]"); /* wide */
	kp_subs_add(&s, 20, 2, "Bs[s]");         /* disjoint: applied */
	char *got = kp_render(&f, 0, (unsigned)f.len, &s);
	cr_expect_str_eq(got, "acc += As[s][ty][kk] * Bs[s][kk][tx];");
	free(got);
	kp_subs_release(&s);
}

Test(render, out_of_range_subs_are_ignored)
{
	kp_file f = file_of(SRC);
	kp_subs s = {0};
	kp_subs_add(&s, 0, 3, "before");    /* entirely before b = 7 */
	kp_subs_add(&s, 5, 4, "straddle");  /* [5, 9) starts before b */
	kp_subs_add(&s, 15, 4, "straddle"); /* [15, 19) ends after e = 17 */
	kp_subs_add(&s, 20, 2, "after");    /* entirely after e */
	kp_subs_add(&s, 10, 2, "TY");       /* inside: applied */
	char *got = kp_render(&f, 7, 17, &s);
	cr_expect_str_eq(got, "As[TY][kk]");
	free(got);
	kp_subs_release(&s);
}

Test(render, inserts_at_the_range_boundaries)
{
	kp_file f = file_of(SRC);
	kp_subs s = {0};
	kp_subs_add(&s, 7, 0, "<");  /* at b: inside */
	kp_subs_add(&s, 17, 0, ">"); /* at e: inside (off + len <= e) */
	kp_subs_add(&s, 9, 0, "[kp_stage]");
	char *got = kp_render(&f, 7, 17, &s);
	cr_expect_str_eq(got, "<As[kp_stage][ty][kk]>");
	free(got);
	kp_subs_release(&s);
}

Test(render, substitution_covering_the_whole_range)
{
	kp_file f = file_of(SRC);
	kp_subs s = {0};
	kp_subs_add(&s, 7, 10, "X");
	char *got = kp_render(&f, 7, 17, &s);
	cr_expect_str_eq(got, "X");
	free(got);
	kp_subs_release(&s);
}

Test(render, many_substitutions)
{
	/* "a a a ... a" with every 'a' replaced: grows the list past its
	 * first allocation */
	kp_strbuf src = KP_STRBUF_INIT, want = KP_STRBUF_INIT;
	kp_subs s = {0};
	for (int i = 0; i < 100; i++) {
		kp_strbuf_adds(&src, "a ");
		kp_strbuf_addf(&want, "v%d ", i);
	}
	kp_file f = file_of(kp_strbuf_str(&src));
	for (int i = 99; i >= 0; i--) {
		char t[16];
		snprintf(t, sizeof(t), "v%d", i);
		kp_subs_add(&s, (unsigned)(2 * i), 1, t);
	}
	char *got = kp_render(&f, 0, (unsigned)f.len, &s);
	cr_expect_str_eq(got, kp_strbuf_str(&want));
	free(got);
	kp_subs_release(&s);
	kp_strbuf_release(&src);
	kp_strbuf_release(&want);
}

/* --- kp_fresh_name (model.c): the names transforms declare ------------------ */

/* A file whose translation unit uses these (sorted) names. */
static kp_file file_using(const char **names, int n)
{
	kp_file f;
	memset(&f, 0, sizeof(f));
	f.idents = names;
	f.nidents = n;
	return f;
}

Test(fresh_name, unused_base_is_kept)
{
	static const char *names[] = {"acc", "kp_reg1", "x"};
	kp_file f = file_using(names, 3);
	cr_expect_str_eq(kp_fresh_name(&f, "kp_stage"), "kp_stage");
	cr_expect_str_eq(kp_fresh_name(&f, "kp_reg0"), "kp_reg0");
	cr_expect(kp_file_uses_name(&f, "kp_reg1"));
	cr_expect(!kp_file_uses_name(&f, "kp_reg0"));
	kp_arena_release(&f.arena);
}

Test(fresh_name, first_unused_suffix)
{
	static const char *names[] = {"kp_has_next", "kp_stage", "kp_stage_1", "kp_stage_3"};
	kp_file f = file_using(names, 4);
	cr_expect_str_eq(kp_fresh_name(&f, "kp_stage"), "kp_stage_2");
	cr_expect_str_eq(kp_fresh_name(&f, "kp_has_next"), "kp_has_next_1");
	kp_arena_release(&f.arena);
}

Test(fresh_name, one_answer_per_base_and_file)
{
	static const char *names[] = {"kp_stage"};
	kp_file f = file_using(names, 1);
	const char *a = kp_fresh_name(&f, "kp_stage");
	const char *b = kp_fresh_name(&f, "kp_stage");
	cr_expect_str_eq(a, "kp_stage_1");
	cr_expect_eq((void *)a, (void *)b, "a second loop of the file gets the same name");
	kp_arena_release(&f.arena);
}

Test(fresh_name, two_bases_never_share_a_name)
{
	/* kp_reg1 is taken, so its fresh name is kp_reg1_1; a base spelled
	 * kp_reg1_1 must then get another one */
	static const char *names[] = {"kp_reg1"};
	kp_file f = file_using(names, 1);
	cr_expect_str_eq(kp_fresh_name(&f, "kp_reg1"), "kp_reg1_1");
	cr_expect_str_eq(kp_fresh_name(&f, "kp_reg1_1"), "kp_reg1_1_1");
	kp_arena_release(&f.arena);
}

/* --- kp_strip_comments: the repeated copies of a load phase ---------------- */

static void expect_stripped(const char *text, const char *want)
{
	char *got = kp_strip_comments(text);
	cr_assert_str_eq(got, want, "kp_strip_comments(\"%s\")", text);
	free(got);
}

Test(strip_comments, line_comments_go_code_stays)
{
	/* a line holding only a comment goes, a trailing one is cut */
	expect_stripped("  // load A\n  As[t] = A[i]; // coalesced\n", "  As[t] = A[i];\n");
	expect_stripped("a;\n\nb;\n", "a;\n\nb;\n");
	/* inside string and character literals nothing is a comment */
	expect_stripped("s = \"//x\"; // c\n", "s = \"//x\";\n");
	expect_stripped("c = '/'; d = '\\''; // c\n", "c = '/'; d = '\\'';\n");
	/* a line of one block comment goes; other block comments, continued
	 * comments and raw strings stay */
	expect_stripped("  /* helper inlined */\n  a;\n", "  a;\n");
	expect_stripped("  /* a */ b; /* c */\n", "  /* a */ b; /* c */\n");
	expect_stripped("a; /* x */ // y\n", "a; /* x */ // y\n");
	expect_stripped("// a \\\nb;\n", "// a \\\nb;\n");
	expect_stripped("s = R\"(x)\"; // c\n", "s = R\"(x)\"; // c\n");
	/* no newline at the end */
	expect_stripped("a; // c", "a;");
}

/* --- kp_addr_of: &*reinterpret_cast<T *>(p) is the cast ------------------- */

static void expect_addr(const char *lvalue, const char *want)
{
	char *got = kp_addr_of(lvalue);
	cr_assert_str_eq(got, want, "kp_addr_of(\"%s\")", lvalue);
	free(got);
}

Test(addr_of, dereferenced_cast_gives_the_pointer)
{
	expect_addr("*reinterpret_cast<float4 *>(&As[0][r][c])",
		    "reinterpret_cast<float4 *>(&As[0][r][c])");
	expect_addr("*reinterpret_cast<const float4 *>(\n    &K[(k + 1) * d])",
		    "reinterpret_cast<const float4 *>(\n    &K[(k + 1) * d])");
	/* anything else keeps its & */
	expect_addr("As[t][i]", "&As[t][i]");
	expect_addr("*reinterpret_cast<float4 *>(p) + 0", "&*reinterpret_cast<float4 *>(p) + 0");
	expect_addr("*reinterpret_cast<float (*)[4]>(p)[1]",
		    "&*reinterpret_cast<float (*)[4]>(p)[1]");
	expect_addr("*p", "&*p");
}
