/*
 * test_sarif.c - the SARIF 2.1.0 log (kp_sarif_log): the required
 * top-level fields (version, $schema, runs[].tool.driver.name), one rule
 * per id with its helpUri into docs/diagnostics.md and ruleIndex pointing
 * at it, levels, locations with %SRCROOT%, fixes as byte-offset
 * replacements, and URI encoding of paths.  The whole log is validated
 * against the official schema in tests/cli/outputs.sh.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "sarif.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static cJSON *get(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	cr_assert_not_null(v, "missing key '%s'", k);
	return v;
}

Test(sarif, uri_encoding)
{
	char *u = kp_sarif_uri("src/a b#c.cu");
	cr_assert_str_eq(u, "src/a%20b%23c.cu");
	free(u);
	u = kp_sarif_uri("/abs/k.cu");
	cr_assert_str_eq(u, "file:///abs/k.cu");
	free(u);
}

Test(sarif, rule_ids)
{
	kp_rw_diag d = {0};
	d.level = "error";
	d.line = 3;
	cr_assert_str_eq(kp_sarif_rule_id(&d), "clang-diagnostic-error");
	d.line = 0;
	cr_assert_str_eq(kp_sarif_rule_id(&d), "kpipe-error");
	d.id = "kpipe-smem-carried";
	cr_assert_str_eq(kp_sarif_rule_id(&d), "kpipe-smem-carried");
}

Test(sarif, log_shape)
{
	kp_rw_result r = {0};
	r.path = kp_xstrdup("src/k.cu");
	kp_rw_diag_add(&r, NULL, 3, 5, 40, "warning", "kpipe-smem-carried", "writes 'x'");
	int d = kp_rw_diag_add(&r, NULL, 9, 5, 120, "note", "kpipe-pipelined", "pipelined");
	kp_rw_diag_add(&r, NULL, 12, 1, -1, "remark", "kpipe-smem-carried", "again");
	r.fixes = kp_xcalloc(1, sizeof(*r.fixes));
	r.fixes[0] = (kp_rw_fix){120, 7, kp_xstrdup("new"), d};
	r.nfixes = 1;
	const kp_rw_result *rp[1] = {&r};
	char *s = kp_sarif_log(rp, 1, "/work", 0, 1);
	cJSON *log = cJSON_Parse(s);
	cr_assert_not_null(log, "not JSON: %s", s);
	cr_assert_str_eq(get(log, "version")->valuestring, "2.1.0");
	cr_assert_not_null(strstr(get(log, "$schema")->valuestring, "sarif-schema-2.1.0.json"));
	cJSON *run = cJSON_GetArrayItem(get(log, "runs"), 0);
	cJSON *driver = get(get(run, "tool"), "driver");
	cr_assert_str_eq(get(driver, "name")->valuestring, "kpipe");
	cJSON *rules = get(driver, "rules");
	cr_assert_eq(cJSON_GetArraySize(rules), 2);
	cr_assert_str_eq(get(cJSON_GetArrayItem(rules, 0), "helpUri")->valuestring,
			 KPIPE_DOCS_URL "diagnostics.md#kpipe-smem-carried");
	cr_assert(!strncmp(KPIPE_DOCS_URL, "https://", 8) ||
			  !strncmp(KPIPE_DOCS_URL, "file:///", 8),
		  "helpUri is absolute");
	cr_assert_str_eq(get(get(get(run, "originalUriBaseIds"), "%SRCROOT%"), "uri")->valuestring,
			 "file:///work/");
	cJSON *res = get(run, "results");
	cr_assert_eq(cJSON_GetArraySize(res), 3);
	cJSON *r0 = cJSON_GetArrayItem(res, 0), *r1 = cJSON_GetArrayItem(res, 1),
	      *r2 = cJSON_GetArrayItem(res, 2);
	cr_assert_str_eq(get(r0, "level")->valuestring, "warning");
	cr_assert_str_eq(get(r2, "level")->valuestring, "note");
	cr_assert_eq(get(r2, "ruleIndex")->valueint, 0);
	cr_assert_eq(get(r1, "ruleIndex")->valueint, 1);
	cJSON *pl = get(cJSON_GetArrayItem(get(r0, "locations"), 0), "physicalLocation");
	cr_assert_str_eq(get(get(pl, "artifactLocation"), "uri")->valuestring, "src/k.cu");
	cr_assert_str_eq(get(get(pl, "artifactLocation"), "uriBaseId")->valuestring, "%SRCROOT%");
	cr_assert_eq(get(get(pl, "region"), "startLine")->valueint, 3);
	cr_assert_null(cJSON_GetObjectItemCaseSensitive(r0, "fixes"));
	cJSON *fix = cJSON_GetArrayItem(get(r1, "fixes"), 0);
	cJSON *rep = cJSON_GetArrayItem(
		get(cJSON_GetArrayItem(get(fix, "artifactChanges"), 0), "replacements"), 0);
	cr_assert_eq(get(get(rep, "deletedRegion"), "byteOffset")->valueint, 120);
	cr_assert_eq(get(get(rep, "deletedRegion"), "byteLength")->valueint, 7);
	cr_assert_str_eq(get(get(rep, "insertedContent"), "text")->valuestring, "new");
	cJSON_Delete(log);
	free(s);
	kp_rw_result_release(&r);
}

/* Without --sarif-all only refusals and errors are results (a pipelined
 * loop is no finding); a "// kpipe: ignore" suppression is an inSource
 * suppression. */
Test(sarif, refusals_only_and_suppressions)
{
	kp_rw_result r = {0};
	r.path = kp_xstrdup("k.cu");
	kp_rw_diag_add(&r, NULL, 3, 5, 40, "warning", "kpipe-smem-carried", "writes 'x'");
	kp_rw_diag_add(&r, NULL, 9, 5, 120, "note", "kpipe-pipelined", "pipelined");
	kp_rw_diag_add(&r, NULL, 12, 1, -1, "remark", "kpipe-already-pipelined", "done");
	int s1 = kp_rw_diag_add(&r, NULL, 20, 1, -1, "warning", "kpipe-divergent-barrier", "x");
	r.diags[s1].suppressed = 1;
	const kp_rw_result *rp[1] = {&r};
	char *s = kp_sarif_log(rp, 1, NULL, 1, 0);
	cJSON *log = cJSON_Parse(s);
	cr_assert_not_null(log);
	cJSON *run = cJSON_GetArrayItem(get(log, "runs"), 0);
	cJSON *res = get(run, "results");
	cr_assert_eq(cJSON_GetArraySize(res), 2, "%s", s);
	cr_assert_str_eq(get(cJSON_GetArrayItem(res, 0), "ruleId")->valuestring,
			 "kpipe-smem-carried");
	cr_assert_null(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(res, 0), "suppressions"));
	cJSON *sup = get(cJSON_GetArrayItem(res, 1), "suppressions");
	cr_assert_str_eq(get(cJSON_GetArrayItem(sup, 0), "kind")->valuestring, "inSource");
	cr_assert_eq(cJSON_GetArraySize(get(get(get(run, "tool"), "driver"), "rules")), 2);
	cJSON_Delete(log);
	free(s);
	kp_rw_result_release(&r);
}

/* The offset of a point inside 1-based line `line` of src (its second
 * byte), or one past the end for a line beyond it. */
static size_t in_line(const char *src, int line)
{
	const char *p = src;
	for (int l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return p ? (size_t)(p - src) + 1 : strlen(src) + 1;
}

/* kp_rw_ignored: the comment on the line or the line before, with no id
 * (all) or naming the id. */
Test(sarif, ignore_comments)
{
	const char *src = "a;\n"
			  "// kpipe: ignore kpipe-smem-carried -- the sum is carried on purpose\n"
			  "for (;;) {\n"
			  "  x; // kpipe: ignore\n"
			  "  y; // kpipe: ignored\n"
			  "  s = \"//\"; // kpipe: ignore kpipe-a, kpipe-b\n"
			  "}\n";
	size_t n = strlen(src);
	cr_assert(kp_rw_ignored(src, n, in_line(src, 3), "kpipe-smem-carried"));
	cr_assert(kp_rw_ignored(src, n, in_line(src, 2), "kpipe-smem-carried"));
	cr_assert(!kp_rw_ignored(src, n, in_line(src, 3), "kpipe-other"));
	cr_assert(!kp_rw_ignored(src, n, in_line(src, 1), "kpipe-smem-carried"));
	cr_assert(!kp_rw_ignored(src, n, 0, "kpipe-smem-carried"));
	cr_assert(kp_rw_ignored(src, n, in_line(src, 4), "kpipe-anything"));
	cr_assert(kp_rw_ignored(src, n, in_line(src, 5), "kpipe-anything"),
		  "the line before says ignore");
	cr_assert(!kp_rw_ignored(src, n, in_line(src, 6), "kpipe-c"),
		  "'ignored' is no suppression");
	cr_assert(kp_rw_ignored(src, n, in_line(src, 6), "kpipe-b"));
	cr_assert(!kp_rw_ignored(src, n, n, "kpipe-b"), "the last line");
	cr_assert(!kp_rw_ignored(src, n, n + 5, "kpipe-b"), "past the end");
}
