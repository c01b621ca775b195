/*
 * test_cli_lists.c - what the shell completions ask kpipe (the hidden
 * --list-variants and --list-options CMD, cli.c) comes from the registries:
 * a transform registered at run time is listed among the variants and the
 * choices of --variant without another line anywhere; every option a
 * command takes is in the option table (an unknown name fails the listing).
 */
#include "kp_test.h"

#include "cli.h"
#include "cmd.h"
#include "transform.h"

static const kp_transform trivial = {
	.name = "test-trivial",
	.label = "trivial (tests)",
	.summary = "nothing",
	.min_stages = 2,
	.max_stages = 2,
};

/* What fn writes to a memory stream, for `cmd` and `allowed`. */
static char *listing(const char *cmd, const char *const *allowed, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cr_assert_not_null(fp);
	if (cmd)
		*rc = kp_cli_list_options(fp, cmd, allowed);
	else
		kp_cli_list_variants(fp);
	fclose(fp);
	return buf;
}

Test(cli_lists, a_registered_transform_is_listed)
{
	cr_assert_eq(kp_transform_register_for_test(&trivial), 0);
	int rc = 0;
	char *v = listing(NULL, NULL, &rc);
	cr_expect(strstr(v, "auto\ncp-async\n") == v, "%s", v);
	cr_expect(strstr(v, "\ntma\n") && strstr(v, "\ntest-trivial\n"), "%s", v);
	free(v);
	char *o = listing("rewrite", kp_opts_rewrite, &rc);
	cr_expect_eq(rc, 0);
	cr_expect(strstr(o, "--variant\t-\t{auto cp-async register register-ca register-2bar bulk "
			    "tma test-trivial}\tpipelining variant\n"),
		  "%s", o);
	cr_expect(strstr(o, "\n--no-pad\t-\t-\t"), "%s", o);
	cr_expect(strstr(o, "\n-o\t--output\tfile\t"), "%s", o);
	cr_expect(strstr(o, "\n--exclude\t-\ttext...\t"), "%s", o);
	cr_expect(strstr(o, "\n--format\t-\t{text json sarif}\t"), "%s", o);
	cr_expect(strstr(o, "\n-U\t-\ttext...\t"), "%s", o);
	free(o);
	o = listing("validate", kp_opts_validate, &rc);
	cr_expect_eq(rc, 0);
	cr_expect(strstr(o, "--format\t-\t{text json}\t"), "%s", o);
	cr_expect_null(strstr(o, "--variant"), "%s", o);
	free(o);
}

Test(cli_lists, every_listed_option_is_in_the_table)
{
	const char *const *lists[] = {kp_opts_analyze, kp_opts_rewrite, kp_opts_tune,
				      kp_opts_validate, kp_opts_lsp};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		int rc = -2;
		free(listing("rewrite", lists[i], &rc));
		cr_expect_eq(rc, 0, "list %zu names an option cli.c does not know", i);
	}
	static const char *const bogus[] = {"--pad", "--no-such-option", NULL};
	int rc = 0;
	char *o = listing("rewrite", bogus, &rc);
	cr_expect_eq(rc, -1);
	cr_expect(strstr(o, "--pad\t"), "%s", o);
	free(o);
}
