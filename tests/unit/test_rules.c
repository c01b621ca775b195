/*
 * test_rules.c - the table of legality rules (src/analysis/rules/rules.c):
 * every entry refuses with a registered diagnostic id (src/base/diag_ids.c),
 * has a one-line summary and a check, and appears once; the table keeps
 * the order analyze.c's inline checks had (the first rules are those moved
 * out of analyze.c, before the copy and effect rules).
 */
#include "diag_ids.h"
#include "rules.h"

#include <criterion/criterion.h>
#include <string.h>

Test(rules, every_rule_is_registered)
{
	cr_assert_gt(kp_nrules, 0);
	cr_assert_null(kp_rules[kp_nrules]);
	for (int i = 0; i < kp_nrules; i++) {
		const kp_rule *r = kp_rules[i];
		cr_assert_not_null(r);
		cr_assert_not_null(kp_diag_id_find(r->id), "rule %d: '%s' is not registered", i,
				   r->id);
		cr_assert(r->summary && r->summary[0] && !strchr(r->summary, '\n'), "rule %d", i);
		cr_assert_not_null(r->check, "rule %d", i);
		for (int j = 0; j < i; j++)
			cr_assert_neq(kp_rules[j], r, "rule %d is in the table twice", i);
	}
}

/* The rules moved out of analyze.c run first, in their old order: one
 * reason per id and loop keeps the first, so the order is visible. */
Test(rules, order)
{
	static const char *const first[] = {
		"kpipe-no-tile-load",
		"kpipe-compute-writes-tile",
		"kpipe-load-depends-on-compute",
		"kpipe-partial-tile-write",
		"kpipe-loop-shape",
		"kpipe-cond-side-effect",
		"kpipe-memory-order",
		"kpipe-hidden-induction",
		"kpipe-load-depends-on-compute",
		"kpipe-tile-escapes",
		"kpipe-copy-not-trivial",
	};
	cr_assert_geq(kp_nrules, (int)(sizeof(first) / sizeof(first[0])));
	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++)
		cr_assert_str_eq(kp_rules[i]->id, first[i], "rule %zu", i);
}
