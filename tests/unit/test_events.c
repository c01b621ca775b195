/*
 * test_events.c - the decoder of the harness's event stream (events.c):
 * which lines are events, the typed fields of each kind, and the values a
 * line leaves out (NULL, 0 or NaN).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "events.h"

Test(events, skips_what_is_not_an_event)
{
	const char *text = "compiling...\n"
			   "\n"
			   "[1, 2]\n"
			   "{\"no_event\": 1}\n"
			   "{\"event\": 3}\n"
			   "{\"event\":\"done\"\n" /* cut short */
			   "========= ERROR SUMMARY: 0 errors\n"
			   "  {\"event\":\"done\"}";
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, text);
	cr_assert_eq(kp_event_next(&rd, &e), 1);
	cr_expect_eq(e.kind, KP_EV_DONE);
	cr_expect_str_eq(e.name, "done");
	cr_expect_eq(kp_event_next(&rd, &e), 0);
	cr_expect_eq(kp_event_next(&rd, &e), 0);
	kp_event_reader_init(&rd, NULL);
	cr_expect_eq(kp_event_next(&rd, &e), 0);
}

Test(events, kinds_and_fields)
{
	const char *text =
		"{\"event\":\"device\",\"name\":\"NVIDIA H200\",\"cc\":\"9.0\",\"sms\":132,"
		"\"clock_mhz\":1980,\"driver\":13000,\"runtime\":12080}\n"
		"{\"event\":\"check\",\"version\":\"rewritten\",\"size\":\"small\",\"ok\":false,"
		"\"elements\":64,\"mismatches\":3,\"unwritten\":1,\"differ\":3,"
		"\"clobbered_inputs\":0,\"max_abs\":null,\"max_rel\":0.5,"
		"\"first_mismatch\":{\"arg\":\"C\",\"index\":17,\"got\":0.51,\"want\":null}}\n"
		"{\"event\":\"time\",\"version\":\"original\",\"size\":\"target\",\"inst\":\"<64>\","
		"\"round\":2,"
		"\"reps\":3,\"warmup\":1,\"median_ms\":1.5,\"min_ms\":1,\"max_ms\":2,"
		"\"mean_ms\":1.5,\"work\":2e9,\"work_kind\":\"flops\",\"all_ms\":[1,null,2]}\n"
		"{\"event\":\"sanitize\",\"version\":\"cp-async\",\"tool\":\"racecheck\","
		"\"ok\":false,\"errors\":2,\"seconds\":1.25,\"msg\":\"errors reported\"}\n"
		"{\"event\":\"future-kind\"}\n";
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, text);

	cr_assert(kp_event_next(&rd, &e));
	cr_expect_eq(e.kind, KP_EV_DEVICE);
	cr_expect_str_eq(e.device_name, "NVIDIA H200");
	cr_expect_str_eq(e.cc, "9.0");
	cr_expect_eq(e.sms, 132);
	cr_expect_eq(e.runtime, 12080);
	cr_expect_null(e.version);

	cr_assert(kp_event_next(&rd, &e));
	cr_expect_eq(e.kind, KP_EV_CHECK);
	cr_expect_str_eq(e.version, "rewritten");
	cr_expect_str_eq(e.size, "small");
	cr_expect_null(e.inst);
	cr_expect_not(e.ok);
	cr_expect_eq(e.elements, 64);
	cr_expect_eq(e.mismatches, 3);
	cr_expect(isnan(e.max_abs));
	cr_expect_eq(e.max_rel, 0.5);
	cr_expect(e.has_first);
	cr_expect_str_eq(e.first_arg, "C");
	cr_expect_eq(e.first_index, 17);
	cr_expect_eq(e.first_got, 0.51);
	cr_expect(isnan(e.first_want));
	cr_expect(isnan(e.work));

	cr_assert(kp_event_next(&rd, &e));
	cr_expect_eq(e.kind, KP_EV_TIME);
	cr_expect_str_eq(e.inst, "<64>");
	cr_expect_eq(e.round, 2);
	cr_expect_eq(e.reps, 3);
	cr_expect_eq(e.median_ms, 1.5);
	cr_expect_eq(e.work, 2e9);
	cr_expect_str_eq(e.work_kind, "flops");
	cr_expect_eq(e.all_entries, 3);
	cr_assert_eq(e.nall_ms, 2);
	cr_expect_eq(e.all_ms[0], 1);
	cr_expect_eq(e.all_ms[1], 2);
	cr_expect_not(e.has_first);
	cr_expect_eq(e.first_index, -1);

	cr_assert(kp_event_next(&rd, &e));
	cr_expect_eq(e.kind, KP_EV_SANITIZE);
	cr_expect_str_eq(e.tool, "racecheck");
	cr_expect_eq(e.errors, 2);
	cr_expect_eq(e.seconds, 1.25);
	cr_expect_str_eq(e.msg, "errors reported");

	cr_assert(kp_event_next(&rd, &e));
	cr_expect_eq(e.kind, KP_EV_OTHER);
	cr_expect_str_eq(e.name, "future-kind");
	cr_expect_eq(e.median_ms, 0);
	cr_expect_null(e.all_ms);

	cr_expect_not(kp_event_next(&rd, &e));
}

/* A reader left before the end is released without a leak (the sanitizer
 * build checks). */
Test(events, release_early)
{
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, "{\"event\":\"time\",\"all_ms\":[1]}\n{\"event\":\"done\"}\n");
	cr_assert(kp_event_next(&rd, &e));
	kp_event_reader_release(&rd);
	cr_expect_not(kp_event_next(&rd, &e));
}
