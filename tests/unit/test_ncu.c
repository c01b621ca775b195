/*
 * test_ncu.c - the Nsight Compute side of --profile (ncu.c): parsing a
 * captured `ncu --csv --page raw` report (header, units, one row, the
 * program's own lines mixed in), the errors ncu prints instead (no
 * permission, an unknown metric, no kernel), the --metrics list, and the
 * text and JSON of a two-version profile with the copy comparison.
 */
#include "kp_test.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "events.h"
#include "ncu.h"

static char *fixture(const char *name)
{
	char *text = NULL;
	char path[512];
	snprintf(path, sizeof(path), "%sncu/%s", KP_TEST_FIXTURES, name);
	cr_assert_eq(kp_read_file(path, &text, NULL), 0, "cannot read %s", path);
	return text;
}

Test(ncu, parses_one_launch)
{
	char *text = fixture("raw_one_launch.txt");
	kp_arena a = {0};
	kp_ncu_values v;
	int bad;
	char msg[256];
	cr_assert_eq(kp_ncu_parse(text, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_OK);
	cr_expect_str_eq(v.kernel, "transpose_shared(const float *, float *, int, int)");
	cr_expect(v.have[KP_NCU_BANK_LD]);
	cr_expect_eq(v.value[KP_NCU_BANK_LD], 64487424.0); /* thousands separators */
	cr_expect(v.have[KP_NCU_BANK_ST]);
	cr_expect_eq(v.value[KP_NCU_BANK_ST], 0.0);
	cr_expect_float_eq(v.value[KP_NCU_DRAM_PCT], 61.27, 1e-9);
	cr_expect_float_eq(v.value[KP_NCU_OCCUPANCY], 87.41, 1e-9);
	cr_expect_float_eq(v.value[KP_NCU_STALL_BARRIER], 3.12, 1e-9);
	cr_expect_float_eq(v.value[KP_NCU_STALL_LONG_SB], 11.80, 1e-9);
	cr_expect_not(v.have[KP_NCU_STALL_MIO], "n/a is absent, not 0");
	cr_expect_float_eq(v.value[KP_NCU_DURATION], 412350.0, 1e-6, "usecond -> ns");
	free(text);
	kp_arena_release(&a);
}

Test(ncu, errors_instead_of_a_report)
{
	kp_arena a = {0};
	kp_ncu_values v;
	int bad;
	char msg[256];
	const char *perm =
		"==PROF== Connected to process 77\n"
		"==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
		"NVIDIA GPU Performance Counters on the target device 0.\n";
	cr_expect_eq(kp_ncu_parse(perm, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_NOPERM);
	cr_expect(strstr(msg, "ERR_NVGPUCTRPERM") != NULL);

	const char *unknown =
		"==ERROR== Failed to find metric "
		"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio\n";
	cr_expect_eq(kp_ncu_parse(unknown, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_BAD_METRIC);
	cr_expect_eq(bad, KP_NCU_STALL_MIO);

	const char *none = "{\"event\":\"single\"}\n==WARNING== No kernels were profiled.\n";
	cr_expect_eq(kp_ncu_parse(none, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_NO_KERNEL);
	cr_expect(strstr(msg, "No kernels") != NULL);

	const char *junk = "==ERROR== The application returned an error code (4).\n";
	cr_expect_eq(kp_ncu_parse(junk, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_NO_REPORT);
	cr_expect(strstr(msg, "error code (4)") != NULL);
	cr_expect_eq(kp_ncu_parse(NULL, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_NO_REPORT);

	/* a header but no row: nothing was profiled */
	const char *empty = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
			    "\"\",\"\",\"nsecond\"\n";
	cr_expect_eq(kp_ncu_parse(empty, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_NO_KERNEL);
	kp_arena_release(&a);
}

Test(ncu, quoted_fields_and_metric_list)
{
	kp_arena a = {0};
	kp_ncu_values v;
	int bad;
	char msg[64];
	const char *csv = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
			  "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\"\n"
			  "\"\",\"\",\"msecond\",\"\"\n"
			  "\"0\",\"k<\"\"a,b\"\">(int)\",\"1.5\",\"17\"\n";
	cr_assert_eq(kp_ncu_parse(csv, &v, &bad, &a, msg, sizeof(msg)), KP_NCU_OK);
	cr_expect_str_eq(v.kernel, "k<\"a,b\">(int)");
	cr_expect_float_eq(v.value[KP_NCU_DURATION], 1.5e6, 1e-6);
	cr_expect_eq(v.value[KP_NCU_BANK_LD], 17.0);
	cr_expect_not(v.have[KP_NCU_DRAM_PCT], "a column ncu did not print is absent");

	int use[KP_NCU_NMETRICS];
	for (int m = 0; m < KP_NCU_NMETRICS; m++)
		use[m] = m == KP_NCU_BANK_LD || m == KP_NCU_DURATION;
	char *list = kp_ncu_metric_list(use);
	cr_expect_str_eq(list, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
			       "gpu__time_duration.sum");
	free(list);
	kp_arena_release(&a);
}

static kp_ncu_profile two_versions(kp_arena *a)
{
	kp_ncu_profile p = {.requested = 1, .size = "target", .ncu = "/usr/local/cuda/bin/ncu"};
	p.names[0] = "original";
	p.names[1] = "rewritten";
	char *text = fixture("raw_one_launch.txt");
	int bad;
	char msg[64];
	cr_assert_eq(kp_ncu_parse(text, &p.v[0], &bad, a, msg, sizeof(msg)), KP_NCU_OK);
	free(text);
	p.ran[0] = 1;
	p.ran[1] = 0;
	p.error[1] = "ncu profiled no kernel (exit 0)";
	p.copy_bytes = 536870912;
	p.copy_ms = 0.25;
	p.ms[0] = 0.4;
	p.ms[1] = 0.27;
	return p;
}

Test(ncu, render_side_by_side)
{
	kp_arena a = {0};
	kp_ncu_profile p = two_versions(&a);
	cr_expect_float_eq(kp_ncu_copy_fraction(&p, 0), 0.625, 1e-12);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_ncu_render_text(&sb, &p);
	const char *t = kp_strbuf_str(&sb);
	cr_expect(strstr(t, "shared load bank conflicts") && strstr(t, "64487424"), "%s", t);
	cr_expect(strstr(t, "62.5") != NULL, "copy fraction in %%: %s", t);
	cr_expect(strstr(t, "92.6") != NULL, "%s", t);
	cr_expect(strstr(t, "rewritten: not profiled: ncu profiled no kernel") != NULL, "%s", t);
	cr_expect(strstr(t, "n/a") != NULL, "%s", t);
	kp_strbuf_release(&sb);

	cJSON *j = kp_ncu_render_json(&p);
	cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "versions"), 0);
	cJSON *m = cJSON_GetObjectItem(v0, "metrics");
	cr_expect_eq(cJSON_GetObjectItem(m, "bank_conflicts_ld")->valuedouble, 64487424.0);
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(m, "stall_mio_throttle")));
	cr_expect_float_eq(cJSON_GetObjectItem(v0, "copy_fraction")->valuedouble, 0.625, 1e-12);
	cJSON *v1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "versions"), 1);
	cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(v1, "profiled")));
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(j, "skipped")));
	cJSON_Delete(j);
	kp_arena_release(&a);
}

Test(ncu, skipped_is_said)
{
	kp_ncu_profile p = {.requested = 1, .skip = "ncu (Nsight Compute) not found"};
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_ncu_render_text(&sb, &p);
	cr_expect(strstr(kp_strbuf_str(&sb), "profile: SKIPPED: ncu (Nsight Compute) not found"));
	kp_strbuf_release(&sb);
	cJSON *j = kp_ncu_render_json(&p);
	cr_expect_str_eq(cJSON_GetObjectItem(j, "skipped")->valuestring,
			 "ncu (Nsight Compute) not found");
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "versions")), 0);
	cJSON_Delete(j);

	/* not requested: nothing at all */
	kp_ncu_profile off = {0};
	kp_strbuf sb2 = KP_STRBUF_INIT;
	kp_ncu_render_text(&sb2, &off);
	cr_expect_eq(sb2.len, 0);
	kp_strbuf_release(&sb2);

	/* flops work: no copy comparison, and the reason is shown */
	kp_ncu_profile f = {.requested = 1, .size = "target", .copy_skip = "flops"};
	f.names[0] = "original";
	f.names[1] = "rewritten";
	f.ms[0] = f.ms[1] = 1;
	f.copy_ms = 1;
	cr_expect_lt(kp_ncu_copy_fraction(&f, 0), 0);
	kp_strbuf sb3 = KP_STRBUF_INIT;
	kp_ncu_render_text(&sb3, &f);
	cr_expect(strstr(kp_strbuf_str(&sb3), "copy comparison skipped: flops"));
	kp_strbuf_release(&sb3);
}

Test(ncu, copy_event)
{
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, "{\"event\":\"copy\",\"size\":\"target\",\"bytes\":536870912,"
				  "\"reps\":21,\"warmup\":3,\"median_ms\":0.25}\n");
	cr_assert_eq(kp_event_next(&rd, &e), 1);
	cr_expect_eq(e.kind, KP_EV_COPY);
	cr_expect_eq(e.bytes, 536870912.0);
	cr_expect_eq(e.median_ms, 0.25);
	cr_expect_eq(kp_event_next(&rd, &e), 0);
}
