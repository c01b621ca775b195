/*
 * test_tune.c - kpipe tune's decision (tune.c) on captured harness events:
 * the fastest qualifying variant wins only beyond the spread, a variant
 * with a wrong result, an error or a failed static step never wins, the
 * spread is the round-to-round one, and a broken baseline stops the choice.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tune.h"
#include "util.h"

/* Events of one run: per version, `rounds` time events whose launches are
 * the given medians +- jitter. */
static void add_time(kp_strbuf *sb, const char *ver, int round, double ms, double jitter)
{
	kp_strbuf_addf(
		sb,
		"{\"event\":\"time\",\"version\":\"%s\",\"size\":\"target\",\"round\":%d,"
		"\"reps\":3,\"warmup\":1,\"median_ms\":%g,\"work\":2e9,\"work_kind\":\"flops\","
		"\"all_ms\":[%g,%g,%g]}\n",
		ver, round, ms, ms - jitter, ms, ms + jitter);
}

static void add_check(kp_strbuf *sb, const char *ver, const char *size, int ok)
{
	if (ok)
		kp_strbuf_addf(
			sb,
			"{\"event\":\"check\",\"version\":\"%s\",\"size\":\"%s\",\"ok\":true,"
			"\"elements\":100,\"mismatches\":0,\"first_mismatch\":null}\n",
			ver, size);
	else
		kp_strbuf_addf(
			sb,
			"{\"event\":\"check\",\"version\":\"%s\",\"size\":\"%s\",\"ok\":false,"
			"\"elements\":100,\"mismatches\":3,\"first_mismatch\":{\"arg\":\"C\","
			"\"index\":17,\"got\":0.5,\"want\":0.25,\"unwritten\":false}}\n",
			ver, size);
}

static const char *const names[] = {"register", "cp-async", "cp-async-s3", "cp-async-s4"};

/* original 1.00 ms; register/cp-async/s3/s4 at the given medians, all
 * checked ok at two sizes unless bad[i]. */
static char *run_text(const double med[4], const int bad[4], int rounds, double jitter)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "{\"event\":\"device\",\"name\":\"NVIDIA H200\",\"cc\":\"9.0\"}\n");
	kp_strbuf_addf(&sb, "not json, ignored\n");
	const char *sizes[2] = {"small", "target"};
	for (int z = 0; z < 2; z++) {
		kp_strbuf_addf(&sb,
			       "{\"event\":\"baseline\",\"size\":\"%s\",\"ok\":true,"
			       "\"elements\":100,\"unwritten\":0,\"nondeterministic\":0}\n",
			       sizes[z]);
		for (int i = 0; i < 4; i++)
			if (med[i] > 0)
				add_check(&sb, names[i], sizes[z], !bad[i]);
	}
	for (int r = 0; r < rounds; r++) {
		/* the rounds drift: +-1% around the medians */
		double d = (r % 2 ? 1.01 : 0.99);
		add_time(&sb, "original", r, 1.0 * d, jitter);
		for (int i = 0; i < 4; i++)
			if (med[i] > 0)
				add_time(&sb, names[i], r, med[i] * d, jitter);
	}
	kp_strbuf_addf(&sb, "{\"event\":\"done\"}\n");
	return kp_strbuf_detach(&sb);
}

static kp_tune_choice decide(const char *text, const int elig[4], kp_tune_run *run)
{
	kp_tune_choice ch;
	memset(run, 0, sizeof(*run));
	kp_tune_absorb(run, text);
	cr_assert_eq(kp_tune_decide(run, names, elig, 4, &ch), 0, "%s", ch.reason);
	return ch;
}

Test(tune, fastest_beyond_spread_wins)
{
	double med[4] = {0.80, 0.90, 0.85, 0.95};
	int bad[4] = {0}, elig[4] = {1, 1, 1, 1};
	char *t = run_text(med, bad, 5, 0.001);
	kp_tune_run run;
	kp_tune_choice ch = decide(t, elig, &run);
	cr_assert_eq(ch.winner, 0, "%s", ch.reason);
	cr_assert_float_eq(ch.speedup, 1.25, 1e-3);
	cr_assert_str_eq(run.device, "NVIDIA H200");
	cr_assert_str_eq(run.timed_size, "target");
	cr_assert_str_eq(run.work_kind, "flops");
	const kp_tune_version *o = kp_tune_find(&run, "original");
	cr_assert_eq(o->rounds, 5);
	cr_assert_eq(o->nsamples, 15);
	/* round medians 0.99 and 1.01: spread 0.02 ms, not the launch jitter */
	cr_assert_float_eq(o->spread_ms, 0.02, 1e-9);
	cr_assert(strstr(ch.reason, "register is the fastest"), "%s", ch.reason);
	kp_tune_run_release(&run);
	free(t);
}

Test(tune, gain_within_spread_keeps_original)
{
	/* 0.995 ms against 1.00 ms with rounds 2% apart: noise */
	double med[4] = {0.995, 0, 0, 0};
	int bad[4] = {0}, elig[4] = {1, 0, 0, 0};
	char *t = run_text(med, bad, 4, 0.001);
	kp_tune_run run;
	kp_tune_choice ch = decide(t, elig, &run);
	cr_assert_eq(ch.winner, -1);
	cr_assert_eq(ch.best, 0);
	cr_assert(strstr(ch.reason, "original is kept"), "%s", ch.reason);
	kp_tune_run_release(&run);
	free(t);
}

Test(tune, slower_variant_never_written)
{
	double med[4] = {1.2, 1.1, 0, 0};
	int bad[4] = {0}, elig[4] = {1, 1, 0, 0};
	char *t = run_text(med, bad, 3, 0.001);
	kp_tune_run run;
	kp_tune_choice ch = decide(t, elig, &run);
	cr_assert_eq(ch.winner, -1, "%s", ch.reason);
	cr_assert_eq(ch.best, 1);
	kp_tune_run_release(&run);
	free(t);
}

Test(tune, wrong_result_excluded_even_when_fastest)
{
	double med[4] = {0.5, 0.9, 0.8, 0};
	int bad[4] = {1, 0, 0, 0}, elig[4] = {1, 1, 1, 0};
	char *t = run_text(med, bad, 3, 0.001);
	kp_tune_run run;
	kp_tune_choice ch = decide(t, elig, &run);
	cr_assert_eq(ch.winner, 2, "%s", ch.reason);
	char why[512];
	cr_assert_not(kp_tune_qualifies(kp_tune_find(&run, "register"), why, sizeof(why)));
	cr_assert(strstr(why, "wrong results: size 'small': 3 mismatches, first C[17] = 0.5, "
			      "expected 0.25"),
		  "%s", why);
	kp_tune_run_release(&run);
	free(t);
}

Test(tune, static_failure_excluded_even_when_fastest)
{
	double med[4] = {0.5, 0.9, 0, 0};
	int bad[4] = {0}, elig[4] = {0, 1, 0, 0};
	char *t = run_text(med, bad, 3, 0.001);
	kp_tune_run run;
	kp_tune_choice ch = decide(t, elig, &run);
	cr_assert_eq(ch.winner, 1, "%s", ch.reason);
	kp_tune_run_release(&run);
	free(t);
}

Test(tune, error_event_excludes)
{
	double med[4] = {0.5, 0.9, 0, 0};
	int bad[4] = {0}, elig[4] = {1, 1, 0, 0};
	char *t = run_text(med, bad, 3, 0.001);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb,
		       "%s{\"event\":\"error\",\"version\":\"register\",\"size\":\"target\","
		       "\"stage\":\"launch\",\"msg\":\"too many resources requested\"}\n",
		       t);
	kp_tune_run run;
	kp_tune_choice ch = decide(kp_strbuf_str(&sb), elig, &run);
	cr_assert_eq(ch.winner, 1, "%s", ch.reason);
	char why[512];
	kp_tune_qualifies(kp_tune_find(&run, "register"), why, sizeof(why));
	cr_assert_str_eq(why, "launch at size 'target': too many resources requested");
	kp_tune_run_release(&run);
	kp_strbuf_release(&sb);
	free(t);
}

Test(tune, nothing_qualifies_keeps_original)
{
	double med[4] = {0.5, 0, 0, 0};
	int bad[4] = {1, 0, 0, 0}, elig[4] = {1, 0, 0, 0};
	char *t = run_text(med, bad, 2, 0.001);
	kp_tune_run run;
	kp_tune_choice ch = decide(t, elig, &run);
	cr_assert_eq(ch.winner, -1);
	cr_assert_eq(ch.best, -1);
	cr_assert(strstr(ch.reason, "no variant passed validation"), "%s", ch.reason);
	kp_tune_run_release(&run);
	free(t);
}

Test(tune, one_round_uses_launch_spread)
{
	double med[4] = {0.9, 0, 0, 0};
	int bad[4] = {0}, elig[4] = {1, 0, 0, 0};
	char *t = run_text(med, bad, 1, 0.2);
	kp_tune_run run;
	kp_tune_choice ch = decide(t, elig, &run);
	/* launches 0.79..1.19 and 0.691..1.091: spread 0.4 ms > gain 0.099 */
	cr_assert_float_eq(kp_tune_find(&run, "original")->spread_ms, 0.4, 1e-9);
	cr_assert_eq(ch.winner, -1, "%s", ch.reason);
	kp_tune_run_release(&run);
	free(t);
}

Test(tune, broken_baseline_stops)
{
	const char *t = "{\"event\":\"baseline\",\"size\":\"small\",\"ok\":false,\"elements\":10,"
			"\"unwritten\":4,\"nondeterministic\":0}\n";
	kp_tune_run run = {0};
	kp_tune_absorb(&run, t);
	kp_tune_choice ch;
	int elig[4] = {1, 1, 1, 1};
	cr_assert_eq(kp_tune_decide(&run, names, elig, 4, &ch), -1);
	cr_assert(strstr(ch.reason, "left 4 output elements unwritten"), "%s", ch.reason);
	kp_tune_run_release(&run);
}

Test(tune, untimed_original_stops)
{
	kp_tune_run run = {0};
	kp_tune_absorb(&run, "");
	kp_tune_choice ch;
	int elig[4] = {1, 1, 1, 1};
	cr_assert_eq(kp_tune_decide(&run, names, elig, 4, &ch), -1);
	cr_assert(strstr(ch.reason, "not timed"), "%s", ch.reason);
	kp_tune_run_release(&run);
}

/* A variant that computes the original's numbers but fails racecheck (a
 * missing barrier the warps happened to survive) never wins: the next
 * fastest clean one does. */
Test(tune, sanitizer_failure_excluded_even_when_fastest)
{
	double med[4] = {0.80, 0.90, 0, 0};
	int bad[4] = {0}, elig[4] = {1, 1, 0, 0};
	char *t = run_text(med, bad, 3, 0.001);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, t);
	const char *tools[3] = {"memcheck", "racecheck", "synccheck"};
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 3; k++) {
			int fails = i == 0 && k == 1;
			kp_strbuf_addf(&sb,
				       "{\"event\":\"sanitize\",\"version\":\"%s\",\"tool\":\"%s\","
				       "\"ok\":%s,\"errors\":%d%s}\n",
				       names[i], tools[k], fails ? "false" : "true", fails ? 8 : 0,
				       fails ? ",\"msg\":\"errors reported\"" : "");
		}
	kp_tune_run run;
	kp_tune_choice ch = decide(kp_strbuf_str(&sb), elig, &run);
	cr_assert_eq(ch.winner, 1, "%s", ch.reason);
	const kp_tune_version *r = kp_tune_find(&run, "register");
	cr_assert_eq(r->sanitized, 3);
	char why[512];
	cr_assert_not(kp_tune_qualifies(r, why, sizeof(why)));
	cr_assert(strstr(why, "racecheck: 8 errors"), "%s", why);
	cr_assert(kp_tune_qualifies(kp_tune_find(&run, "cp-async"), why, sizeof(why)), "%s", why);
	kp_tune_run_release(&run);
	kp_strbuf_release(&sb);
	free(t);
}
