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

/* "size 'small'", or "size 'small' of instantiation <64>" (in buf). */
static const char *cell(char *buf, size_t sz, const char *size, const char *inst)
{
	if (inst)
		snprintf(buf, sz, "size '%s' of instantiation %s", size ? size : "?", inst);
	else
		snprintf(buf, sz, "size '%s'", size ? size : "?");
	return buf;
}

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
	char at[256];
	kp_strbuf_addf(&sb, "%s: ", cell(at, sizeof(at), e->size, e->inst));
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

/* The index of the cell (size, inst) in run->sizes and run->insts, added
 * when new; -1 when full. */
static int timed_index(kp_tune_run *run, const char *size, const char *inst)
{
	for (int k = 0; k < run->nsizes; k++)
		if (!strcmp(run->sizes[k], size) &&
		    (inst ? run->insts[k] && !strcmp(run->insts[k], inst) : !run->insts[k]))
			return k;
	if (run->nsizes == KP_TUNE_MAX_SIZES)
		return -1;
	run->sizes[run->nsizes] = kp_xstrdup(size);
	run->insts[run->nsizes] = dup_or_null(inst);
	return run->nsizes++;
}

/* A "time" event: its launches and its round median join the version's
 * timing at the event's size (rounds in the order they come, so a second
 * harness run's rounds follow the first's). */
static void absorb_time(kp_tune_run *run, kp_tune_version *v, const kp_event *e)
{
	int k = timed_index(run, e->size, e->inst);
	if (k < 0 || e->all_entries <= 0)
		return;
	kp_tune_timing *tm = &v->t[k];
	int n = e->nall_ms;
	tm->samples = kp_xrealloc(tm->samples, sizeof(double) * (size_t)(tm->nsamples + n));
	memcpy(tm->samples + tm->nsamples, e->all_ms, sizeof(double) * (size_t)n);
	tm->nsamples += n;
	if (tm->rounds < KP_TUNE_MAX_ROUNDS && n > 0) {
		double *round = kp_xcalloc((size_t)n, sizeof(double));
		memcpy(round, e->all_ms, sizeof(double) * (size_t)n);
		tm->round_median[tm->rounds++] = median(round, n);
		free(round);
	}
	if (!isnan(e->work))
		run->work[k] = e->work;
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
	char buf[512], at[256];
	snprintf(buf, sizeof(buf),
		 "%s: the original left %ld output elements unwritten and %ld not "
		 "deterministic",
		 cell(at, sizeof(at), e->size, e->inst), e->unwritten, e->nondeterministic);
	run->baseline_why = kp_xstrdup(buf);
}

static void absorb_dropped(kp_tune_run *run, kp_tune_version *v, const kp_event *e)
{
	int k = timed_index(run, e->size, e->inst);
	if (k >= 0)
		v->t[k].dropped = e->rounds > 0 ? e->rounds : 1;
}

static void absorb_phase(kp_tune_run *run, const kp_event *e)
{
	if (!e->phase)
		return;
	if (!strcmp(e->phase, "build"))
		run->build_s += e->seconds;
	else if (!strcmp(e->phase, "run"))
		run->run_s += e->seconds;
	else if (!strcmp(e->phase, "sanitize"))
		run->sanitize_s += e->seconds;
}

int kp_tune_dropped(const kp_tune_run *run, const kp_tune_version *v)
{
	for (int k = 0; v && k < run->nsizes; k++)
		if (v->t[k].dropped)
			return 1;
	return 0;
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
	char buf[768], at[256];
	const char *size = e->size && *e->size ? e->size : NULL;
	snprintf(buf, sizeof(buf), "%s%s%s: %s", e->stage ? e->stage : "error", size ? " at " : "",
		 size ? cell(at, sizeof(at), size, e->inst) : "", e->msg ? e->msg : "failed");
	v->error = kp_xstrdup(buf);
}

/* The median of every launch, and the spread: max - min of the round
 * medians (of the launches with one round). */
static void summarise(kp_tune_timing *v)
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
		case KP_EV_DROPPED:
			if (ver && size)
				absorb_dropped(run, version(run, ver), &e);
			break;
		case KP_EV_PHASE: absorb_phase(run, &e); break;
		case KP_EV_ERROR:
		case KP_EV_FATAL:
			if (ver && strcmp(ver, "harness"))
				absorb_error(version(run, ver), &e);
			break;
		default: break;
		}
	}
	for (int i = 0; i < run->n; i++)
		for (int k = 0; k < run->nsizes; k++)
			summarise(&run->v[i].t[k]);
}

void kp_tune_run_release(kp_tune_run *run)
{
	for (int i = 0; i < run->n; i++) {
		free(run->v[i].name);
		free(run->v[i].first_failure);
		free(run->v[i].error);
		free(run->v[i].sanitizer_failure);
		for (int k = 0; k < KP_TUNE_MAX_SIZES; k++)
			free(run->v[i].t[k].samples);
	}
	free(run->v);
	free(run->device);
	for (int k = 0; k < run->nsizes; k++) {
		free(run->sizes[k]);
		free(run->insts[k]);
	}
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

const char *kp_tune_cell(const kp_tune_run *run, int k, char *buf, size_t sz)
{
	return cell(buf, sz, k < run->nsizes ? run->sizes[k] : "target",
		    k < run->nsizes ? run->insts[k] : NULL);
}

int kp_tune_ninsts(const kp_tune_run *run)
{
	int n = 0;
	for (int k = 0; k < run->nsizes; k++) {
		int seen = !run->insts[k];
		for (int j = 0; j < k && !seen; j++)
			seen = run->insts[j] && !strcmp(run->insts[j], run->insts[k]);
		n += !seen;
	}
	return n;
}

int kp_tune_nsizes(const kp_tune_run *run)
{
	int n = 0;
	for (int k = 0; k < run->nsizes; k++) {
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = !strcmp(run->sizes[j], run->sizes[k]);
		n += !seen;
	}
	return n;
}

/* The first timed cell in which v has no launch, or -1; 0 (cell 0 is
 * then 'target') when nothing was timed at all. */
static int untimed_cell(const kp_tune_run *run, const kp_tune_version *v)
{
	if (!run->nsizes)
		return 0;
	for (int k = 0; k < run->nsizes; k++)
		if (!v->t[k].nsamples)
			return k;
	return -1;
}

int kp_tune_qualifies(const kp_tune_run *run, const kp_tune_version *v, char *why, size_t whysz)
{
	const char *w = NULL;
	int untimed = v ? untimed_cell(run, v) : -1;
	char buf[512], at[256];
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
	else if (untimed >= 0 && run->nsizes > 1) {
		snprintf(buf, sizeof(buf), "not timed at %s",
			 kp_tune_cell(run, untimed, at, sizeof(at)));
		w = buf;
	} else if (untimed >= 0)
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

static double disagreement(const kp_tune_timing *v)
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

double kp_tune_geomean(const double *x, int n)
{
	if (n <= 0)
		return 0;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += log(x[i]);
	return exp(s / n);
}

#define BOOTSTRAP 2000

/* Fewer than KP_TUNE_MIN_PAIRED rounds at some size: at every size the
 * medians of all launches, and the larger spread as the noise; the ratios
 * and their bounds combined over the sizes by geometric mean. */
static void compare_unpaired(const kp_tune_version *o, const kp_tune_version *v, int ns,
			     kp_tune_cmp *out)
{
	double sp[KP_TUNE_MAX_SIZES], lo[KP_TUNE_MAX_SIZES], hi[KP_TUNE_MAX_SIZES];
	for (int k = 0; k < ns; k++) {
		const kp_tune_timing *a = &o->t[k], *b = &v->t[k];
		double spread = a->spread_ms > b->spread_ms ? a->spread_ms : b->spread_ms;
		if (b->median_ms <= 0 || a->median_ms <= 0 || a->median_ms - spread <= 0) {
			out->speedup = out->lo = out->hi = 0;
			return;
		}
		sp[k] = out->size_speedup[k] = a->median_ms / b->median_ms;
		lo[k] = (a->median_ms - spread) / b->median_ms;
		hi[k] = (a->median_ms + spread) / b->median_ms;
	}
	out->speedup = kp_tune_geomean(sp, ns);
	out->lo = kp_tune_geomean(lo, ns);
	out->hi = kp_tune_geomean(hi, ns);
}

void kp_tune_compare(const kp_tune_run *run, const kp_tune_version *o, const kp_tune_version *v,
		     kp_tune_cmp *out)
{
	memset(out, 0, sizeof(*out));
	int ns = run->nsizes > 0 ? run->nsizes : 1;
	out->nsizes = ns;
	int n[KP_TUNE_MAX_SIZES], fewest = KP_TUNE_MAX_ROUNDS;
	for (int k = 0; k < ns; k++) {
		double dv = disagreement(&v->t[k]), dori = disagreement(&o->t[k]);
		double d = dv > dori ? dv : dori;
		out->disagreement = d > out->disagreement ? d : out->disagreement;
		n[k] = o->t[k].rounds < v->t[k].rounds ? o->t[k].rounds : v->t[k].rounds;
		fewest = n[k] < fewest ? n[k] : fewest;
	}
	if (fewest < KP_TUNE_MIN_PAIRED) {
		compare_unpaired(o, v, ns, out);
		return;
	}
	/* per size: the log ratios of the rounds and their mean */
	double logr[KP_TUNE_MAX_SIZES][KP_TUNE_MAX_ROUNDS];
	double total = 0;
	for (int k = 0; k < ns; k++) {
		double sum = 0;
		for (int r = 0; r < n[k]; r++) {
			logr[k][r] = log(o->t[k].round_median[r] / v->t[k].round_median[r]);
			sum += logr[k][r];
		}
		out->size_speedup[k] = exp(sum / n[k]);
		total += sum / n[k];
	}
	out->paired = fewest;
	out->speedup = exp(total / ns);
	double *means = kp_xcalloc(BOOTSTRAP, sizeof(double));
	unsigned long long x = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)fewest;
	for (int b = 0; b < BOOTSTRAP; b++) {
		double m = 0;
		for (int k = 0; k < ns; k++) {
			double s = 0;
			for (int r = 0; r < n[k]; r++)
				s += logr[k][next_rand(&x) % (unsigned long long)n[k]];
			m += s / n[k];
		}
		means[b] = m / ns;
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
	int untimed = o ? untimed_cell(run, o) : 0;
	if (!o || untimed >= 0) {
		char at[256];
		snprintf(out->reason, sizeof(out->reason), "the original was not timed%s%s%s%s",
			 run->nsizes > 1 ? " at " : "",
			 run->nsizes > 1 ? kp_tune_cell(run, untimed, at, sizeof(at)) : "",
			 o && o->error ? ": " : "", o && o->error ? o->error : "");
		return -1;
	}
	kp_tune_cmp best = {0}, win = {0};
	for (int i = 0; i < n; i++) {
		if (!eligible[i])
			continue;
		const kp_tune_version *v = kp_tune_find(run, names[i]);
		if (!kp_tune_qualifies(run, v, NULL, 0))
			continue;
		kp_tune_cmp c;
		kp_tune_compare(run, o, v, &c);
		if (out->best < 0 || c.speedup > best.speedup) {
			out->best = i;
			best = c;
		}
		if (c.lo > 1.0 && !kp_tune_dropped(run, v) &&
		    (out->winner < 0 || c.speedup > win.speedup)) {
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
	out->spread_ms = o->t[0].spread_ms > b->t[0].spread_ms ? o->t[0].spread_ms
							       : b->t[0].spread_ms;
	out->more_rounds = c->disagreement > KP_TUNE_DISAGREE && c->lo <= 1.0 && c->hi > 1.0;
	char basis[160];
	int m = snprintf(basis, sizeof(basis),
			 c->paired ? "paired over %d rounds" : "one round: launch spread",
			 c->paired);
	int ni = kp_tune_ninsts(run), nz = kp_tune_nsizes(run);
	if (ni > 1 && nz > 1)
		snprintf(basis + m, sizeof(basis) - (size_t)m,
			 ", geometric mean over %d cells: %d instantiations x %d sizes",
			 run->nsizes, ni, nz);
	else if (ni > 1)
		snprintf(basis + m, sizeof(basis) - (size_t)m,
			 ", geometric mean over %d instantiations", run->nsizes);
	else if (run->nsizes > 1)
		snprintf(basis + m, sizeof(basis) - (size_t)m, ", geometric mean over %d sizes",
			 run->nsizes);
	char medians[96] = "";
	if (run->nsizes <= 1)
		snprintf(medians, sizeof(medians), "; median %.4f -> %.4f ms", o->t[0].median_ms,
			 b->t[0].median_ms);
	if (out->winner >= 0)
		snprintf(out->reason, sizeof(out->reason),
			 "%s is the fastest: %.3fx, 95%% interval %.3f-%.3f (%s%s)", names[k],
			 c->speedup, c->lo, c->hi, basis, medians);
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
