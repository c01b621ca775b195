/*
 * tune.c - reads a harness run of the original and its candidate variants
 * and picks the one to write (see tune.h for the rules).  cJSON reads the
 * event lines; the statistics are plain medians over the launches, and the
 * spread is the difference between the slowest and the fastest round's
 * median, so a gain has to survive the run-to-run noise, not only the
 * launch-to-launch jitter.
 */
#define _GNU_SOURCE
#include "tune.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static char *dup_or_null(const char *s) { return s ? kp_xstrdup(s) : NULL; }

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(x) ? x->valuestring : NULL;
}

static double num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(x) ? x->valuedouble : dflt;
}

static kp_tune_version *version(kp_tune_run *run, const char *name)
{
	for (int i = 0; i < run->n; i++)
		if (!strcmp(run->v[i].name, name))
			return &run->v[i];
	run->v = kp_xrealloc(run->v, sizeof(*run->v) * (size_t)(run->n + 1));
	kp_tune_version *v = &run->v[run->n++];
	memset(v, 0, sizeof(*v));
	v->name = kp_xstrdup(name);
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void absorb_check(kp_tune_version *v, const cJSON *e, const char *size)
{
	v->sizes_checked++;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "ok")))
		return;
	v->sizes_failed++;
	if (v->first_failure)
		return;
	kp_strbuf sb = KP_STRBUF_INIT;
	long mism = (long)num(e, "mismatches", 0), clob = (long)num(e, "clobbered_inputs", 0);
	kp_strbuf_addf(&sb, "size '%s': ", size);
	if (mism)
		kp_strbuf_addf(&sb, "%ld mismatch%s", mism, mism == 1 ? "" : "es");
	if (clob)
		kp_strbuf_addf(&sb, "%san input buffer was modified", mism ? ", " : "");
	if (!mism && !clob)
		kp_strbuf_addf(&sb, "output differs");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "first_mismatch");
	if (cJSON_IsObject(f)) {
		const char *arg = str(f, "arg");
		kp_strbuf_addf(&sb, ", first %s[%.0f]", arg ? arg : "?", num(f, "index", -1));
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "unwritten")))
			kp_strbuf_addf(&sb, " never written");
		else
			kp_strbuf_addf(&sb, " = %g, expected %g", num(f, "got", 0), num(f, "want", 0));
	}
	v->first_failure = kp_strbuf_detach(&sb);
}

static void absorb_time(kp_tune_run *run, kp_tune_version *v, const cJSON *e, const char *size)
{
	if (!run->timed_size)
		run->timed_size = kp_xstrdup(size);
	if (strcmp(run->timed_size, size))
		return;
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(e, "all_ms");
	int n = cJSON_GetArraySize(all);
	if (n <= 0)
		return;
	v->samples = kp_xrealloc(v->samples, sizeof(double) * (size_t)(v->nsamples + n));
	double *round = kp_xcalloc((size_t)n, sizeof(double));
	int k = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, all)
	{
		if (cJSON_IsNumber(x)) {
			v->samples[v->nsamples++] = x->valuedouble;
			round[k++] = x->valuedouble;
		}
	}
	if (v->rounds < KP_TUNE_MAX_ROUNDS && k > 0)
		v->round_median[v->rounds++] = median(round, k);
	free(round);
	run->work = num(e, "work", run->work);
	const char *wk = str(e, "work_kind");
	if (wk && !run->work_kind)
		run->work_kind = kp_xstrdup(wk);
}

void kp_tune_absorb(kp_tune_run *run, const char *events)
{
	const char *p = events ? events : "";
	while (*p) {
		size_t len = strcspn(p, "\n");
		cJSON *e = cJSON_ParseWithLength(p, len);
		p += len + (p[len] == '\n');
		if (!e)
			continue;
		const char *ev = str(e, "event"), *ver = str(e, "version"), *size = str(e, "size");
		if (!ev) {
			cJSON_Delete(e);
			continue;
		}
		if (!strcmp(ev, "device") && !run->device)
			run->device = dup_or_null(str(e, "name"));
		else if (!strcmp(ev, "done"))
			run->done = 1;
		else if (!strcmp(ev, "baseline")) {
			run->baseline_sizes++;
			if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "ok"))) {
				run->baseline_failed++;
				if (!run->baseline_why) {
					char buf[256];
					snprintf(buf, sizeof(buf),
						 "size '%s': the original left %.0f output elements "
						 "unwritten and %.0f not deterministic",
						 size ? size : "?", num(e, "unwritten", 0),
						 num(e, "nondeterministic", 0));
					run->baseline_why = kp_xstrdup(buf);
				}
			}
		} else if (!strcmp(ev, "check") && ver && size)
			absorb_check(version(run, ver), e, size);
		else if (!strcmp(ev, "time") && ver && size)
			absorb_time(run, version(run, ver), e, size);
		else if (!strcmp(ev, "sanitize") && ver) {
			kp_tune_version *v = version(run, ver);
			v->sanitized++;
			if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "ok")) &&
			    !v->sanitizer_failure) {
				char buf[256];
				const char *tool = str(e, "tool"), *msg = str(e, "msg");
				snprintf(buf, sizeof(buf), "%s: %.0f error%s%s%s",
					 tool ? tool : "sanitizer", num(e, "errors", 0),
					 num(e, "errors", 0) == 1 ? "" : "s", msg ? ", " : "",
					 msg ? msg : "");
				v->sanitizer_failure = kp_xstrdup(buf);
			}
		} else if ((!strcmp(ev, "error") || !strcmp(ev, "fatal")) && ver &&
			   strcmp(ver, "harness")) {
			kp_tune_version *v = version(run, ver);
			if (!v->error) {
				char buf[512];
				const char *st = str(e, "stage"), *msg = str(e, "msg");
				snprintf(buf, sizeof(buf), "%s%s%s%s: %s", st ? st : "error",
					 size && *size ? " at size '" : "", size && *size ? size : "",
					 size && *size ? "'" : "", msg ? msg : "failed");
				v->error = kp_xstrdup(buf);
			}
		}
		cJSON_Delete(e);
	}
	for (int i = 0; i < run->n; i++) {
		kp_tune_version *v = &run->v[i];
		if (!v->nsamples)
			continue;
		double *tmp = kp_xcalloc((size_t)v->nsamples, sizeof(double));
		memcpy(tmp, v->samples, sizeof(double) * (size_t)v->nsamples);
		v->median_ms = median(tmp, v->nsamples);
		double lo = tmp[0], hi = tmp[v->nsamples - 1];
		free(tmp);
		if (v->rounds >= 2) {
			lo = hi = v->round_median[0];
			for (int r = 1; r < v->rounds; r++) {
				lo = v->round_median[r] < lo ? v->round_median[r] : lo;
				hi = v->round_median[r] > hi ? v->round_median[r] : hi;
			}
		}
		v->spread_ms = hi - lo;
	}
}

void kp_tune_run_release(kp_tune_run *run)
{
	for (int i = 0; i < run->n; i++) {
		free(run->v[i].name);
		free(run->v[i].first_failure);
		free(run->v[i].error);
		free(run->v[i].sanitizer_failure);
		free(run->v[i].samples);
	}
	free(run->v);
	free(run->device);
	free(run->timed_size);
	free(run->work_kind);
	free(run->baseline_why);
	memset(run, 0, sizeof(*run));
}

const kp_tune_version *kp_tune_find(const kp_tune_run *run, const char *name)
{
	for (int i = 0; i < run->n; i++)
		if (!strcmp(run->v[i].name, name))
			return &run->v[i];
	return NULL;
}

int kp_tune_qualifies(const kp_tune_version *v, char *why, size_t whysz)
{
	const char *w = NULL;
	char buf[512];
	if (!v)
		w = "not run";
	else if (v->error) {
		snprintf(buf, sizeof(buf), "%s", v->error);
		w = buf;
	} else if (v->sizes_failed) {
		snprintf(buf, sizeof(buf), "wrong results: %s",
			 v->first_failure ? v->first_failure : "a check failed");
		w = buf;
	} else if (v->sanitizer_failure) {
		snprintf(buf, sizeof(buf), "compute-sanitizer %s", v->sanitizer_failure);
		w = buf;
	} else if (!v->sizes_checked)
		w = "not checked against the original";
	else if (!v->nsamples)
		w = "not timed";
	if (w && why)
		snprintf(why, whysz, "%s", w);
	return w == NULL;
}

int kp_tune_decide(const kp_tune_run *run, const char *const *names, const int *eligible, int n,
		   kp_tune_choice *out)
{
	memset(out, 0, sizeof(*out));
	out->winner = out->best = -1;
	const kp_tune_version *o = kp_tune_find(run, "original");
	if (run->baseline_failed) {
		snprintf(out->reason, sizeof(out->reason),
			 "the original's own output is not reproducible (%s): nothing can be "
			 "compared with it",
			 run->baseline_why ? run->baseline_why : "baseline failed");
		return -1;
	}
	if (!o || !o->nsamples) {
		snprintf(out->reason, sizeof(out->reason), "the original was not timed%s%s",
			 o && o->error ? ": " : "", o && o->error ? o->error : "");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!eligible[i])
			continue;
		const kp_tune_version *v = kp_tune_find(run, names[i]);
		if (!kp_tune_qualifies(v, NULL, 0))
			continue;
		if (out->best < 0 || v->median_ms < kp_tune_find(run, names[out->best])->median_ms)
			out->best = i;
	}
	if (out->best < 0) {
		snprintf(out->reason, sizeof(out->reason),
			 "no variant passed validation: the original is kept");
		return 0;
	}
	const kp_tune_version *b = kp_tune_find(run, names[out->best]);
	double spread = o->spread_ms > b->spread_ms ? o->spread_ms : b->spread_ms;
	double gain = o->median_ms - b->median_ms;
	out->spread_ms = spread;
	out->speedup = b->median_ms > 0 ? o->median_ms / b->median_ms : 0;
	if (gain > spread) {
		out->winner = out->best;
		snprintf(out->reason, sizeof(out->reason),
			 "%s is the fastest: %.3fx (median %.4f -> %.4f ms, %.4f ms faster, "
			 "beyond the spread of %.4f ms)",
			 names[out->best], out->speedup, o->median_ms, b->median_ms, gain, spread);
	} else
		snprintf(out->reason, sizeof(out->reason),
			 "no variant beats the original by more than the spread: the fastest, "
			 "%s, is %.3fx (median %.4f -> %.4f ms; the spread is %.4f ms): the "
			 "original is kept",
			 names[out->best], out->speedup, o->median_ms, b->median_ms, spread);
	return 0;
}
