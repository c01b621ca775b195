/*
 * tune.c - reads a harness run of the original and its candidate variants
 * and picks the one to write (see tune.h for the rules).  events.c decodes
 * the event lines; the statistics are plain medians over the launches, and the
 * spread is the difference between the slowest and the fastest round's
 * median, so a gain has to survive the run-to-run noise, not only the
 * launch-to-launch jitter.
 */
#define _GNU_SOURCE
#include "tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "util.h"

static char *dup_or_null(const char *s) { return s ? kp_xstrdup(s) : NULL; }

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

/* null (NaN) in the event: printed as 0 */
static double or0(double x) { return isnan(x) ? 0 : x; }

static void absorb_check(kp_tune_version *v, const kp_event *e)
{
	v->sizes_checked++;
	if (e->ok)
		return;
	v->sizes_failed++;
	if (v->first_failure)
		return;
	kp_strbuf sb = KP_STRBUF_INIT;
	long mism = e->mismatches, clob = e->clobbered_inputs;
	kp_strbuf_addf(&sb, "size '%s': ", e->size);
	if (mism)
		kp_strbuf_addf(&sb, "%ld mismatch%s", mism, mism == 1 ? "" : "es");
	if (clob)
		kp_strbuf_addf(&sb, "%san input buffer was modified", mism ? ", " : "");
	if (!mism && !clob)
		kp_strbuf_addf(&sb, "output differs");
	if (e->has_first) {
		kp_strbuf_addf(&sb, ", first %s[%.0f]", e->first_arg ? e->first_arg : "?",
			       e->first_index);
		if (e->first_unwritten)
			kp_strbuf_addf(&sb, " never written");
		else
			kp_strbuf_addf(&sb, " = %g, expected %g", or0(e->first_got),
				       or0(e->first_want));
	}
	v->first_failure = kp_strbuf_detach(&sb);
}

static void absorb_time(kp_tune_run *run, kp_tune_version *v, const kp_event *e)
{
	if (!run->timed_size)
		run->timed_size = kp_xstrdup(e->size);
	if (strcmp(run->timed_size, e->size))
		return;
	if (e->all_entries <= 0)
		return;
	int n = e->nall_ms;
	v->samples = kp_xrealloc(v->samples, sizeof(double) * (size_t)(v->nsamples + n));
	memcpy(v->samples + v->nsamples, e->all_ms, sizeof(double) * (size_t)n);
	v->nsamples += n;
	if (v->rounds < KP_TUNE_MAX_ROUNDS && n > 0) {
		double *round = kp_xcalloc((size_t)n, sizeof(double));
		memcpy(round, e->all_ms, sizeof(double) * (size_t)n);
		v->round_median[v->rounds++] = median(round, n);
		free(round);
	}
	if (!isnan(e->work))
		run->work = e->work;
	if (e->work_kind && !run->work_kind)
		run->work_kind = kp_xstrdup(e->work_kind);
}

static void absorb_baseline(kp_tune_run *run, const kp_event *e)
{
	run->baseline_sizes++;
	if (e->ok)
		return;
	run->baseline_failed++;
	if (run->baseline_why)
		return;
	char buf[256];
	snprintf(buf, sizeof(buf),
		 "size '%s': the original left %ld output elements unwritten and %ld not "
		 "deterministic",
		 e->size ? e->size : "?", e->unwritten, e->nondeterministic);
	run->baseline_why = kp_xstrdup(buf);
}

static void absorb_sanitize(kp_tune_version *v, const kp_event *e)
{
	v->sanitized++;
	if (e->ok || v->sanitizer_failure)
		return;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s: %ld error%s%s%s", e->tool ? e->tool : "sanitizer",
		 e->errors, e->errors == 1 ? "" : "s", e->msg ? ", " : "", e->msg ? e->msg : "");
	v->sanitizer_failure = kp_xstrdup(buf);
}

static void absorb_error(kp_tune_version *v, const kp_event *e)
{
	if (v->error)
		return;
	char buf[512];
	const char *size = e->size && *e->size ? e->size : NULL;
	snprintf(buf, sizeof(buf), "%s%s%s%s: %s", e->stage ? e->stage : "error",
		 size ? " at size '" : "", size ? size : "", size ? "'" : "",
		 e->msg ? e->msg : "failed");
	v->error = kp_xstrdup(buf);
}

/* The median of every launch, and the spread: max - min of the round
 * medians (of the launches with one round). */
static void summarise(kp_tune_version *v)
{
	if (!v->nsamples)
		return;
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

void kp_tune_absorb(kp_tune_run *run, const char *events)
{
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, events);
	while (kp_event_next(&rd, &e)) {
		const char *ver = e.version, *size = e.size;
		switch (e.kind) {
		case KP_EV_DEVICE:
			if (!run->device)
				run->device = dup_or_null(e.device_name);
			break;
		case KP_EV_DONE: run->done = 1; break;
		case KP_EV_BASELINE: absorb_baseline(run, &e); break;
		case KP_EV_CHECK:
			if (ver && size)
				absorb_check(version(run, ver), &e);
			break;
		case KP_EV_TIME:
			if (ver && size)
				absorb_time(run, version(run, ver), &e);
			break;
		case KP_EV_SANITIZE:
			if (ver)
				absorb_sanitize(version(run, ver), &e);
			break;
		case KP_EV_ERROR:
		case KP_EV_FATAL:
			if (ver && strcmp(ver, "harness"))
				absorb_error(version(run, ver), &e);
			break;
		default: break;
		}
	}
	for (int i = 0; i < run->n; i++)
		summarise(&run->v[i]);
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

int kp_tune_runs_variant(const kp_validate_result *res, int static_rc, char *note, size_t notesz)
{
	if (static_rc != 0) {
		snprintf(note, notesz, "%s", res->steps[0].reason);
		return 0;
	}
	const kp_step *r = &res->steps[0], *x = &res->steps[1];
	if (r->status == KP_STEP_FAILED) {
		snprintf(note, notesz, "step 1 %s: %s", r->name, r->reason);
		return 0;
	}
	if (x->status == KP_STEP_FAILED)
		snprintf(note, notesz, "step 1 %s; SASS overlap: FAILED (%s), timed anyway",
			 kp_step_status_name(r->status), x->reason);
	else
		snprintf(note, notesz, "step 1 %s, step 2 %s", kp_step_status_name(r->status),
			 kp_step_status_name(x->status));
	return 1;
}

void kp_tune_features_of(const kp_validate_result *res, const char *kernel, kp_tune_features *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < res->nkernels; i++) {
		const kp_validate_kernel *k = &res->kernels[i];
		if (!k->orig.present || !k->rew.present || !k->orig.res.is_entry)
			continue;
		if (kernel ? !kp_resources_name_matches(&k->rew.res, kernel) : k->unchanged)
			continue;
		out->known = 1;
		out->regs_o = k->orig.res.registers;
		out->regs_v = k->rew.res.registers;
		out->warps_o = k->orig.occ.warps_per_sm;
		out->warps_v = k->rew.occ.warps_per_sm;
		out->smem_o = k->orig.res.smem;
		out->smem_v = k->rew.res.smem;
		out->spills_v = k->rew.res.spill_stores + k->rew.res.spill_loads;
		return;
	}
}

/* xorshift64*: the bootstrap's resampling, seeded per comparison */
static unsigned long long next_rand(unsigned long long *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static double disagreement(const kp_tune_version *v)
{
	if (v->rounds < 2)
		return 0;
	double lo = v->round_median[0], hi = lo;
	for (int r = 1; r < v->rounds; r++) {
		lo = v->round_median[r] < lo ? v->round_median[r] : lo;
		hi = v->round_median[r] > hi ? v->round_median[r] : hi;
	}
	return lo > 0 ? hi / lo - 1 : 0;
}

#define BOOTSTRAP 2000

void kp_tune_compare(const kp_tune_version *o, const kp_tune_version *v, kp_tune_cmp *out)
{
	memset(out, 0, sizeof(*out));
	double dv = disagreement(v), dori = disagreement(o);
	out->disagreement = dv > dori ? dv : dori;
	int n = o->rounds < v->rounds ? o->rounds : v->rounds;
	if (n < KP_TUNE_MIN_PAIRED) {
		/* one or two rounds: the medians of all launches, and the
		 * larger spread as the noise */
		double spread = o->spread_ms > v->spread_ms ? o->spread_ms : v->spread_ms;
		out->speedup = v->median_ms > 0 ? o->median_ms / v->median_ms : 0;
		out->lo = v->median_ms > 0 ? (o->median_ms - spread) / v->median_ms : 0;
		out->hi = v->median_ms > 0 ? (o->median_ms + spread) / v->median_ms : 0;
		return;
	}
	double logr[KP_TUNE_MAX_ROUNDS];
	double sum = 0;
	for (int r = 0; r < n; r++) {
		logr[r] = log(o->round_median[r] / v->round_median[r]);
		sum += logr[r];
	}
	out->paired = n;
	out->speedup = exp(sum / n);
	double *means = kp_xcalloc(BOOTSTRAP, sizeof(double));
	unsigned long long x = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)n;
	for (int b = 0; b < BOOTSTRAP; b++) {
		double s = 0;
		for (int r = 0; r < n; r++)
			s += logr[next_rand(&x) % (unsigned long long)n];
		means[b] = s / n;
	}
	qsort(means, BOOTSTRAP, sizeof(double), cmp_double);
	out->lo = exp(means[(int)(0.025 * BOOTSTRAP)]);
	out->hi = exp(means[(int)(0.975 * BOOTSTRAP) - 1]);
	free(means);
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
	kp_tune_cmp best = {0}, win = {0};
	for (int i = 0; i < n; i++) {
		if (!eligible[i])
			continue;
		const kp_tune_version *v = kp_tune_find(run, names[i]);
		if (!kp_tune_qualifies(v, NULL, 0))
			continue;
		kp_tune_cmp c;
		kp_tune_compare(o, v, &c);
		if (out->best < 0 || c.speedup > best.speedup) {
			out->best = i;
			best = c;
		}
		if (c.lo > 1.0 && (out->winner < 0 || c.speedup > win.speedup)) {
			out->winner = i;
			win = c;
		}
	}
	if (out->best < 0) {
		snprintf(out->reason, sizeof(out->reason),
			 "no variant passed validation: the original is kept");
		return 0;
	}
	int k = out->winner >= 0 ? out->winner : out->best;
	const kp_tune_cmp *c = out->winner >= 0 ? &win : &best;
	const kp_tune_version *b = kp_tune_find(run, names[k]);
	out->speedup = c->speedup;
	out->ci_lo = c->lo;
	out->ci_hi = c->hi;
	out->spread_ms = o->spread_ms > b->spread_ms ? o->spread_ms : b->spread_ms;
	out->more_rounds = c->disagreement > KP_TUNE_DISAGREE && c->lo <= 1.0 && c->hi > 1.0;
	const char *how = c->paired ? "paired over %d rounds" : "one round: launch spread";
	char basis[64];
	snprintf(basis, sizeof(basis), how, c->paired);
	if (out->winner >= 0)
		snprintf(out->reason, sizeof(out->reason),
			 "%s is the fastest: %.3fx, 95%% interval %.3f-%.3f (%s; median %.4f -> "
			 "%.4f ms)",
			 names[k], c->speedup, c->lo, c->hi, basis, o->median_ms, b->median_ms);
	else if (c->hi < 1.0)
		snprintf(out->reason, sizeof(out->reason),
			 "every variant is slower: the best, %s, is %.3fx with a 95%% interval of "
			 "%.3f-%.3f (%s): the original is kept",
			 names[k], c->speedup, c->lo, c->hi, basis);
	else
		snprintf(
			out->reason, sizeof(out->reason),
			"no variant is faster beyond the noise: the best, %s, is %.3fx with a 95%% "
			"interval of %.3f-%.3f, which includes 1 (%s): a tie, the original is "
			"kept",
			names[k], c->speedup, c->lo, c->hi, basis);
	return 0;
}
