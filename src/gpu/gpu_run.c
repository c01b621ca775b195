/*
 * gpu_run.c - steps 3 (gpu-run), 4 (benchmark) and 5 (sanitizer) of
 * `kpipe validate`.  Writes the harness sources (gpu_gen.c) into a build
 * directory, compiles the embedded host program and one shared library per
 * version with nvcc (in parallel), runs the harness once for every requested
 * size (checks, and timing at `target`), then compute-sanitizer on the
 * rewritten kernel at `small`, and turns the harness's JSON-lines events into
 * step verdicts and findings on the kp_validate_result.
 *
 * It looks for a device first (libcuda.so.1, cuInit, cuDeviceGetCount) and
 * builds nothing without one, unless a build directory was named.  Child
 * processes (proc.c) get a time limit and their own process group, so a
 * hung kernel (a deadlock in a broken pipeline) is killed with everything
 * it started.  Nothing here prints.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_run.h"
#include "build_cache.h"
#include "events.h"
#include "proc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h> /* macros only (isfinite, INFINITY): no libm */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kpipe_harness_src.h" /* generated: kp_harness_bytes[] */

const char *kp_gpu_harness_source(void) { return (const char *)kp_harness_bytes; }

static double dmax(double a, double b) { return a > b ? a : b; }
static double dabs(double a) { return a < 0 ? -a : a; }

static const char *const sanitizer_tools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};

/* ---- result ----------------------------------------------------------- */

kp_gpu_result *kp_gpu_result_new(void)
{
	kp_gpu_result *g = kp_xcalloc(1, sizeof(kp_gpu_result));
	g->ninsts = 1;
	return g;
}

void kp_gpu_result_free(kp_gpu_result *g)
{
	if (!g)
		return;
	free(g->sizes);
	free(g->errors);
	kp_arena_release(&g->arena);
	free(g);
}

/* The index of instantiation inst ("<64>") in g->insts, added when new
 * (while there is room); 0 for NULL (one instantiation) or when full. */
static int inst_index(kp_gpu_result *g, const char *inst)
{
	if (!inst)
		return 0;
	int i = 0;
	while (i < g->ninsts && (!g->insts[i] || strcmp(g->insts[i], inst)))
		i++;
	if (i < g->ninsts)
		return i;
	if (g->ninsts == 1 && !g->insts[0])
		i = g->ninsts = 0; /* the first named one replaces the unnamed */
	if (g->ninsts == KP_LAUNCH_MAX_INSTS)
		return 0;
	g->insts[g->ninsts] = kp_arena_strdup(&g->arena, inst);
	return g->ninsts++;
}

/* The (size, instantiation) cell, added when new and add is set; inst
 * NULL with one instantiation. */
static kp_gpu_size *find_size(kp_gpu_result *g, const char *name, const char *inst, int add)
{
	if (inst)
		inst = g->insts[inst_index(g, inst)];
	for (int i = 0; i < g->nsizes; i++)
		if (!strcmp(g->sizes[i].name, name) &&
		    (inst ? g->sizes[i].inst && !strcmp(g->sizes[i].inst, inst)
			  : !g->sizes[i].inst))
			return &g->sizes[i];
	if (!add)
		return NULL;
	if (g->nsizes == g->scap) {
		g->scap = g->scap ? 2 * g->scap : 8;
		g->sizes = kp_xrealloc(g->sizes, sizeof(*g->sizes) * (size_t)g->scap);
	}
	kp_gpu_size *z = &g->sizes[g->nsizes++];
	memset(z, 0, sizeof(*z));
	z->name = kp_arena_strdup(&g->arena, name);
	z->inst = inst;
	return z;
}

/* ---- device probe ----------------------------------------------------- */

int kp_gpu_probe(char *why, size_t whysz)
{
	typedef int (*init_fn)(unsigned);
	typedef int (*count_fn)(int *);
	typedef int (*errstr_fn)(int, const char **);
	/* Kept open: a driver that was initialised is not unloaded. */
	static void *h;
	if (!h)
		h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, whysz, "no NVIDIA driver (libcuda.so.1 cannot be loaded)");
		return 0;
	}
	init_fn init = NULL;
	count_fn count = NULL;
	errstr_fn errstr = NULL;
	void *p = dlsym(h, "cuInit");
	memcpy(&init, &p, sizeof(p));
	p = dlsym(h, "cuDeviceGetCount");
	memcpy(&count, &p, sizeof(p));
	p = dlsym(h, "cuGetErrorString");
	memcpy(&errstr, &p, sizeof(p));
	if (!init || !count) {
		snprintf(why, whysz, "the NVIDIA driver (libcuda.so.1) has no cuInit");
		return 0;
	}
	int n = 0, rc = init(0);
	if (rc == 0)
		rc = count(&n);
	if (rc != 0) {
		const char *s = NULL;
		if (errstr)
			errstr(rc, &s);
		snprintf(why, whysz, "the CUDA driver reports error %d (%s)", rc,
			 s ? s : "no description");
		return 0;
	}
	if (n == 0) {
		snprintf(why, whysz, "the CUDA driver reports no device");
		return 0;
	}
	return 1;
}

/* ---- harness events --------------------------------------------------- */

/* "size 'small'", or with several instantiations "size 'small' of
 * instantiation <64>" (in g's arena). */
static const char *cell_label(kp_gpu_result *g, const char *size, const char *inst)
{
	return inst ? kp_arena_printf(&g->arena, "size '%s' of instantiation %s", size, inst)
		    : kp_arena_printf(&g->arena, "size '%s'", size);
}

static const char *adup(kp_gpu_result *g, const char *s)
{
	return s ? kp_arena_strdup(&g->arena, s) : NULL;
}

static int version_index(const char *v)
{
	return !v ? -1 : !strcmp(v, KP_GPU_ORIGINAL) ? 0 : !strcmp(v, KP_GPU_REWRITTEN) ? 1 : -1;
}

static void add_error(kp_gpu_result *g, const kp_event *e)
{
	if (g->nerrors == g->ecap) {
		g->ecap = g->ecap ? 2 * g->ecap : 8;
		g->errors = kp_xrealloc(g->errors, sizeof(*g->errors) * (size_t)g->ecap);
	}
	kp_gpu_error *x = &g->errors[g->nerrors++];
	x->fatal = e->kind == KP_EV_FATAL;
	x->version = e->version ? adup(g, e->version) : "";
	x->size = e->size ? adup(g, e->size) : "";
	x->inst = adup(g, e->inst);
	x->stage = x->fatal ? "fatal" : e->stage ? adup(g, e->stage) : "";
	x->msg = e->msg ? adup(g, e->msg) : "";
}

/* A value the harness printed with jnum(): null (NaN here) stands for
 * inf/NaN. */
static const char *fmt_value(char *buf, size_t sz, double v)
{
	if (!isnan(v))
		snprintf(buf, sz, "%.9g", v);
	else
		snprintf(buf, sz, "NaN");
	return buf;
}

static void absorb_check(kp_gpu_result *g, const kp_event *e, kp_gpu_check *c)
{
	c->have = 1;
	c->ok = e->ok;
	c->elements = e->elements;
	c->mismatches = e->mismatches;
	c->unwritten = e->unwritten;
	c->differ = e->differ;
	c->clobbered = e->clobbered_inputs;
	c->max_abs = !isnan(e->max_abs) ? e->max_abs : c->differ ? INFINITY : 0.0;
	c->max_rel = !isnan(e->max_rel) ? e->max_rel : c->differ ? INFINITY : 0.0;
	if (!e->has_first)
		return;
	char got[64], want[64];
	const char *arg = e->first_arg ? e->first_arg : "?";
	long idx = (long)e->first_index;
	fmt_value(want, sizeof(want), e->first_want);
	if (e->first_unwritten)
		c->first = kp_arena_printf(&g->arena, "%s[%ld] never written, expected %s", arg,
					   idx, want);
	else
		c->first = kp_arena_printf(&g->arena, "%s[%ld] = %s, expected %s", arg, idx,
					   fmt_value(got, sizeof(got), e->first_got), want);
}

static void absorb_device(kp_gpu_result *g, const kp_event *e)
{
	g->have_device = 1;
	g->device_name = adup(g, e->device_name);
	g->device_cc = adup(g, e->cc);
	g->device_sms = e->sms;
	g->device_clock_mhz = e->clock_mhz;
	g->driver = e->driver;
	g->runtime = e->runtime;
}

static void absorb_attrs(kp_gpu_attrs *a, const kp_event *e)
{
	a->have = 1;
	a->regs = e->regs;
	a->smem_static = e->smem_static;
	a->local_bytes = e->local_bytes;
	a->max_threads = e->max_threads;
	a->blocks_per_sm = e->blocks_per_sm;
	a->threads = e->threads;
}

static void absorb_time(kp_gpu_result *g, kp_gpu_time *t, const kp_event *e)
{
	t->have = 1;
	t->reps = e->reps;
	t->warmup = e->warmup;
	t->median_ms = e->median_ms;
	t->min_ms = e->min_ms;
	t->max_ms = e->max_ms;
	t->mean_ms = e->mean_ms;
	t->work = isnan(e->work) ? 0 : e->work;
	if (e->work_kind)
		g->work_kind = adup(g, e->work_kind);
}

void kp_gpu_absorb_events(kp_gpu_result *g, const char *text)
{
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, text);
	while (kp_event_next(&rd, &e)) {
		int vi = version_index(e.version);
		int ii = e.kind == KP_EV_ATTRS || e.kind == KP_EV_TIME ? inst_index(g, e.inst) : 0;
		switch (e.kind) {
		case KP_EV_DEVICE: absorb_device(g, &e); break;
		case KP_EV_ATTRS:
			if (vi >= 0)
				absorb_attrs(&g->attrs[ii][vi], &e);
			break;
		case KP_EV_BEGIN:
			g->last_begin_version = adup(g, e.version);
			g->last_begin_size = adup(g, e.size);
			g->last_begin_inst = adup(g, e.inst);
			break;
		case KP_EV_BASELINE:
			if (e.size) {
				kp_gpu_baseline *b = &find_size(g, e.size, e.inst, 1)->base;
				b->have = 1;
				b->ok = e.ok;
				b->elements = e.elements;
				b->unwritten = e.unwritten;
				b->nondeterministic = e.nondeterministic;
			}
			break;
		case KP_EV_CHECK:
			if (e.size && vi == 1)
				absorb_check(g, &e, &find_size(g, e.size, e.inst, 1)->check);
			break;
		case KP_EV_TIME:
			if (vi >= 0)
				absorb_time(g, &g->time[ii][vi], &e);
			break;
		case KP_EV_ERROR:
		case KP_EV_FATAL: add_error(g, &e); break;
		case KP_EV_DONE: g->done = 1; break;
		case KP_EV_COPY:
			g->profile.copy_bytes = e.bytes;
			g->profile.copy_ms = e.median_ms;
			break;
		default: break;
		}
	}
}

/* ---- compute-sanitizer ------------------------------------------------ */

/* The number after `key` on the first line holding it, or -1. */
static long number_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ')
		p++;
	return isdigit((unsigned char)*p) ? strtol(p, NULL, 10) : -1;
}

void kp_gpu_parse_sanitizer(kp_gpu_result *g, kp_gpu_sanitizer *s, const char *text, int rc,
			    int timed_out)
{
	long errors = -1, warnings = 0;
	/* RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings) */
	const char *race = strstr(text, "RACECHECK SUMMARY:");
	if (race) {
		const char *paren = strchr(race, '(');
		const char *eol = strchr(race, '\n');
		if (paren && (!eol || paren < eol)) {
			char *end;
			errors = strtol(paren + 1, &end, 10);
			const char *comma = strchr(end, ',');
			warnings = comma ? strtol(comma + 1, NULL, 10) : 0;
		}
	}
	long summary = number_after(text, "ERROR SUMMARY:");
	if (summary >= 0)
		errors = (errors > 0 ? errors : 0) + summary;
	int ran = strstr(text, "\"event\":\"single\"") != NULL;
	char *lower = kp_xstrdup(text);
	for (char *c = lower; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	int unsupported = strstr(lower, "not supported") != NULL;
	free(lower);
	if (timed_out)
		s->status = KP_SAN_TIMEOUT;
	else if (unsupported && !ran)
		s->status = KP_SAN_UNSUPPORTED;
	else if (rc == 86 || errors > 0)
		s->status = KP_SAN_FAIL;
	else if (rc == 0 && ran)
		s->status = KP_SAN_PASS;
	else
		s->status = KP_SAN_ERROR;
	s->exit_status = rc;
	s->errors = errors > 0 ? (int)errors : 0;
	s->warnings = (int)warnings;
	s->excerpt = NULL;
	if (s->status == KP_SAN_PASS && !warnings)
		return;
	/* The tool's own lines ("========= ..."), at most 8 plus the summaries;
	 * everything when it printed none. */
	kp_strbuf sb = KP_STRBUF_INIT, sum = KP_STRBUF_INIT;
	int kept = 0, more = 0, any = 0;
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		int tool_line = len > 9 && !strncmp(line, "=========", 9);
		int blank = 1;
		for (size_t i = 0; i < len; i++)
			blank &= line[i] == '=' || line[i] == ' ';
		if (tool_line && !blank) {
			any = 1;
			if (kept < 8) {
				kp_strbuf_add(&sb, line, len);
				kp_strbuf_addc(&sb, '\n');
				kept++;
			} else {
				more = 1;
				if (memmem(line, len, "SUMMARY", 7)) {
					kp_strbuf_add(&sum, line, len);
					kp_strbuf_addc(&sum, '\n');
				}
			}
		}
		line += len + (line[len] == '\n');
	}
	if (!any) {
		/* the last 8 lines of whatever it printed */
		int n = 0;
		const char *start = text + strlen(text);
		while (start > text && n < 9)
			if (*--start == '\n')
				n++;
		kp_strbuf_adds(&sb, start + (*start == '\n'));
	}
	if (more)
		kp_strbuf_adds(&sb, "========= ...\n");
	kp_strbuf_adds(&sb, kp_strbuf_str(&sum));
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	s->excerpt = kp_arena_strdup(&g->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	kp_strbuf_release(&sum);
}

/* ---- verdicts --------------------------------------------------------- */

/* Step 3 gets the whole reason, steps 4 and 5 its head ("no CUDA device")
 * and a pointer to step 3. */
static void skip_gpu_steps(kp_validate_result *r, int sanitize, const char *head,
			   const char *reason)
{
	kp_validate_set_step(&r->steps[2], KP_STEP_SKIPPED, "%s", reason);
	for (int s = 3; s < 5; s++)
		kp_validate_set_step(&r->steps[s], KP_STEP_SKIPPED, "%s (see step 3)", head);
	if (!sanitize) {
		kp_validate_set_step(&r->steps[4], KP_STEP_SKIPPED,
				     "not requested (--no-sanitize)");
		r->steps[4].not_requested = 1;
	}
}

/* The harness's error that says there is no usable device, or NULL. */
static const kp_gpu_error *device_error(const kp_gpu_result *g)
{
	if (g->have_device)
		return NULL;
	for (int i = 0; i < g->nerrors; i++)
		if (!strncmp(g->errors[i].stage, "cudaGetDevice", 13))
			return &g->errors[i];
	return NULL;
}

/* Whether a finding of step 3 names cell z (its cell_label()), or the
 * harness reported an error at its size for every instantiation (a
 * `requires` the size violates) or for its own. */
static int cell_mentioned(const kp_validate_result *r, kp_gpu_result *g, const kp_gpu_size *z)
{
	for (int i = 0; i < g->nerrors; i++) {
		const kp_gpu_error *e = &g->errors[i];
		if (!strcmp(e->size, z->name) &&
		    (!e->inst || (z->inst && !strcmp(e->inst, z->inst))))
			return 1;
	}
	const char *label = cell_label(g, z->name, z->inst);
	for (int i = 0; i < r->nfindings; i++)
		if (r->findings[i].step == KP_STEP_GPU_RUN && strstr(r->findings[i].message, label))
			return 1;
	return 0;
}

static void judge_run(kp_validate_result *r, kp_gpu_result *g)
{
	const int S = KP_STEP_GPU_RUN;
	int fatal = 0;
	for (int i = 0; i < g->nerrors; i++) {
		const kp_gpu_error *e = &g->errors[i];
		if (e->fatal) {
			fatal = 1;
			continue;
		}
		const char *at = cell_label(g, e->size, e->inst);
		if (!strcmp(e->version, KP_GPU_REWRITTEN))
			kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
					    "the rewritten kernel failed at %s (%s): %s", at,
					    e->stage, e->msg);
		else if (!strcmp(e->version, KP_GPU_ORIGINAL))
			kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
					    "the original kernel failed at %s (%s): %s", at,
					    e->stage, e->msg);
		else if (!strcmp(e->stage, "requires"))
			kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
					    "%s not run: %s (launch description)", at, e->msg);
		else
			kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
					    "harness error at %s (%s): %s", at, e->stage, e->msg);
	}
	for (int i = 0; i < g->nsizes; i++) {
		const kp_gpu_size *z = &g->sizes[i];
		const kp_gpu_baseline *b = &z->base;
		const char *at = cell_label(g, z->name, z->inst);
		if (b->have && !b->ok && b->elements > 0) {
			if (b->unwritten)
				kp_validate_finding(
					r, KP_FIND_ERROR, S, NULL,
					"%s: the original kernel never wrote %ld of %ld output "
					"elements: the launch description's counts or grid do not "
					"match the kernel",
					at, b->unwritten, b->elements);
			if (b->nondeterministic)
				kp_validate_finding(
					r, KP_FIND_ERROR, S, NULL,
					"%s: %ld output elements of the original differ between "
					"two runs (a race in the original?): the comparison is "
					"unreliable",
					at, b->nondeterministic);
		}
		const kp_gpu_check *c = &z->check;
		if (c->have && !c->ok) {
			kp_strbuf sb = KP_STRBUF_INIT;
			kp_strbuf_addf(&sb, "%s: ", at);
			if (c->mismatches)
				kp_strbuf_addf(&sb, "%ld of %ld elements wrong", c->mismatches,
					       c->elements);
			if (c->unwritten)
				kp_strbuf_addf(&sb, " (%ld never written)", c->unwritten);
			if (c->clobbered)
				kp_strbuf_addf(&sb, "%s%ld input buffer%s modified",
					       c->mismatches ? "; " : "", c->clobbered,
					       c->clobbered == 1 ? "" : "s");
			if (c->first)
				kp_strbuf_addf(&sb, "; first: %s", c->first);
			if (c->mismatches && !c->unwritten && isfinite(c->max_abs))
				kp_strbuf_addf(&sb, "; max abs error %.3g, max rel error %.3g",
					       c->max_abs, c->max_rel);
			kp_validate_finding(r, KP_FIND_ERROR, S, NULL, "%s", kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
		}
	}
	const char *last =
		cell_label(g, g->last_begin_size ? g->last_begin_size : "?", g->last_begin_inst);
	if (g->timed_out)
		kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
				    "the harness did not finish within %d s (last started: the %s "
				    "kernel at %s; a deadlock?)",
				    g->run_timeout_s,
				    g->last_begin_version ? g->last_begin_version : "?", last);
	else if (fatal)
		kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
				    "the CUDA context was lost after the %s kernel at %s: the "
				    "rest of the run was abandoned",
				    g->last_begin_version ? g->last_begin_version : "?", last);
	else if (g->harness_rc != 0 && !kp_validate_first_error(r, S))
		kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
				    "the harness exited with status %d%s%s", g->harness_rc,
				    g->harness_err ? ": " : "",
				    g->harness_err ? g->harness_err : "");
	if (!g->timed_out && !fatal)
		for (int i = 0; i < g->nsizes; i++) {
			const kp_gpu_size *z = &g->sizes[i];
			if (!z->check.have && !cell_mentioned(r, g, z))
				kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
						    "%s: no result from the harness",
						    cell_label(g, z->name, z->inst));
		}

	kp_step *st = &r->steps[S - 1];
	const kp_finding *e = kp_validate_first_error(r, S);
	if (e) {
		kp_validate_set_step(st, KP_STEP_FAILED, "%s", e->message);
		return;
	}
	int n = 0;
	long differ = 0;
	double max_abs = 0, max_rel = 0;
	kp_strbuf names = KP_STRBUF_INIT;
	for (int i = 0; i < g->nsizes; i++) {
		const kp_gpu_check *c = &g->sizes[i].check;
		if (!c->have)
			continue;
		int seen = 0; /* the size of another instantiation's cell */
		for (int j = 0; j < i; j++)
			seen |= g->sizes[j].check.have &&
				!strcmp(g->sizes[j].name, g->sizes[i].name);
		if (!seen)
			kp_strbuf_addf(&names, "%s%s", n++ ? ", " : "", g->sizes[i].name);
		differ += c->differ;
		max_abs = dmax(max_abs, c->max_abs);
		max_rel = dmax(max_rel, c->max_rel);
	}
	/* every cell was compared (a missing one is an error above) */
	kp_strbuf insts = KP_STRBUF_INIT;
	for (int i = 0; g->ninsts > 1 && i < g->ninsts; i++)
		kp_strbuf_addf(&insts, "%s%s", i ? ", " : " for each of ", g->insts[i]);
	if (n == 0)
		kp_validate_set_step(st, KP_STEP_FAILED, "no size was compared");
	else if (differ == 0)
		kp_validate_set_step(
			st, KP_STEP_PASSED,
			"the rewritten kernel's output is bit-identical to the original's "
			"at %d size%s (%s)%s",
			n, n == 1 ? "" : "s", kp_strbuf_str(&names), kp_strbuf_str(&insts));
	else
		kp_validate_set_step(
			st, KP_STEP_PASSED,
			"the rewritten kernel's output matches the original's at %d size%s "
			"(%s)%s: max abs error %.3g, max rel error %.3g (tolerance abs %g, "
			"rel %g)",
			n, n == 1 ? "" : "s", kp_strbuf_str(&names), kp_strbuf_str(&insts), max_abs,
			max_rel, g->tol_abs, g->tol_rel);
	kp_strbuf_release(&names);
	kp_strbuf_release(&insts);
}

/* The rewritten kernel against the original at the timed size, for
 * instantiation i: its speedup, the medians' difference and the larger
 * spread; -1 slower beyond the spread, 0 within it (noise), 1 faster. */
static int bench_compare(const kp_gpu_result *g, int i, double *speedup, double *diff,
			 double *spread)
{
	const kp_gpu_time *o = &g->time[i][0], *n = &g->time[i][1];
	*speedup = n->median_ms > 0 ? o->median_ms / n->median_ms : 0;
	*diff = dabs(o->median_ms - n->median_ms);
	*spread = dmax(o->max_ms - o->min_ms, n->max_ms - n->min_ms);
	return *diff < *spread ? 0 : *speedup >= 1 ? 1 : -1;
}

/* Step 4 with several instantiations: failed when one is slower beyond
 * the spread, else every instantiation's speedup. */
static void judge_benchmark_insts(kp_step *st, kp_gpu_result *g)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < g->ninsts; i++) {
		const kp_gpu_time *o = &g->time[i][0], *n = &g->time[i][1];
		double speedup, diff, spread;
		int c = bench_compare(g, i, &speedup, &diff, &spread);
		if (c < 0) {
			kp_validate_set_step(
				st, KP_STEP_FAILED,
				"the rewritten kernel is slower: %.3fx at %s (median %.4f -> %.4f ms, "
				"beyond the spread of %.4f ms)",
				speedup, cell_label(g, g->timed_size, g->insts[i]), o->median_ms,
				n->median_ms, spread);
			kp_strbuf_release(&sb);
			return;
		}
		kp_strbuf_addf(&sb, "%s%.3fx for %s (median %.4f -> %.4f ms%s)", i ? ", " : "",
			       speedup, g->insts[i], o->median_ms, n->median_ms,
			       c ? "" : ", within the spread: noise");
	}
	kp_validate_set_step(st, KP_STEP_PASSED, "the rewritten kernel at size '%s': %s",
			     g->timed_size, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
}

static void judge_benchmark(kp_validate_result *r, kp_gpu_result *g)
{
	kp_step *st = &r->steps[KP_STEP_BENCHMARK - 1];
	if (!g->timed_size) {
		kp_validate_set_step(st, KP_STEP_SKIPPED,
				     "not requested: size 'target' is not among --sizes");
		st->not_requested = 1;
		return;
	}
	for (int i = 0; i < g->ninsts; i++) {
		const kp_gpu_time *o = &g->time[i][0], *n = &g->time[i][1];
		if (!o->have || !n->have) {
			kp_validate_set_step(st, KP_STEP_SKIPPED,
					     "the %s kernel was not timed at %s (see step 3)",
					     !n->have ? "rewritten" : "original",
					     cell_label(g, g->timed_size, g->insts[i]));
			return;
		}
	}
	if (r->steps[KP_STEP_GPU_RUN - 1].status == KP_STEP_FAILED)
		kp_validate_finding(
			r, KP_FIND_WARNING, KP_STEP_BENCHMARK, NULL,
			"step 3 failed: the timings are of a kernel whose output is wrong "
			"or unchecked");
	if (g->ninsts > 1) {
		judge_benchmark_insts(st, g);
		return;
	}
	const kp_gpu_time *o = &g->time[0][0], *n = &g->time[0][1];
	double speedup, diff, spread;
	int c = bench_compare(g, 0, &speedup, &diff, &spread);
	if (c == 0)
		kp_validate_set_step(
			st, KP_STEP_PASSED,
			"no difference beyond the spread at size '%s': %.3fx (medians "
			"%.4f -> %.4f ms differ by %.4f ms, the spread is %.4f ms): noise",
			g->timed_size, speedup, o->median_ms, n->median_ms, diff, spread);
	else if (c > 0)
		kp_validate_set_step(
			st, KP_STEP_PASSED,
			"the rewritten kernel is %.3fx as fast at size '%s' (median %.4f -> "
			"%.4f ms, beyond the spread of %.4f ms)",
			speedup, g->timed_size, o->median_ms, n->median_ms, spread);
	else
		kp_validate_set_step(
			st, KP_STEP_FAILED,
			"the rewritten kernel is slower: %.3fx at size '%s' (median %.4f -> "
			"%.4f ms, beyond the spread of %.4f ms)",
			speedup, g->timed_size, o->median_ms, n->median_ms, spread);
}

static const char *san_status_name(kp_san_status s)
{
	switch (s) {
	case KP_SAN_PASS: return "pass";
	case KP_SAN_FAIL: return "FAIL";
	case KP_SAN_ERROR: return "ERROR";
	case KP_SAN_TIMEOUT: return "TIMEOUT";
	case KP_SAN_UNSUPPORTED: return "not supported";
	default: return "not run";
	}
}

/* " (instantiations <32>, <64>)" with several, else "" (in g's arena):
 * one sanitizer run launches each of them once. */
static const char *insts_note(kp_gpu_result *g)
{
	if (g->ninsts < 2)
		return "";
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < g->ninsts; i++)
		kp_strbuf_addf(&sb, "%s%s", i ? ", " : " (instantiations ", g->insts[i]);
	kp_strbuf_addc(&sb, ')');
	const char *out = kp_arena_strdup(&g->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return out;
}

static void judge_sanitizer(kp_validate_result *r, kp_gpu_result *g, int sanitize)
{
	const int S = KP_STEP_SANITIZER;
	kp_step *st = &r->steps[S - 1];
	if (!sanitize) {
		kp_validate_set_step(st, KP_STEP_SKIPPED, "not requested (--no-sanitize)");
		st->not_requested = 1;
		return;
	}
	if (g->san_skip || g->nsan == 0) {
		kp_validate_set_step(st, KP_STEP_SKIPPED, "%s",
				     g->san_skip ? g->san_skip : "compute-sanitizer did not run");
		return;
	}
	int warnings = 0, supported = 0;
	kp_strbuf tools = KP_STRBUF_INIT;
	for (int i = 0; i < g->nsan; i++) {
		const kp_gpu_sanitizer *s = &g->san[i];
		switch (s->status) {
		case KP_SAN_FAIL:
			kp_validate_finding(r, KP_FIND_ERROR, S, NULL,
					    "%s: %d error%s on the rewritten kernel at size '%s'%s",
					    s->tool, s->errors, s->errors == 1 ? "" : "s",
					    g->sanitize_size, insts_note(g));
			break;
		case KP_SAN_ERROR:
			kp_validate_finding(
				r, KP_FIND_ERROR, S, NULL,
				"%s: the run did not finish normally (exit status %d%s)", s->tool,
				s->exit_status,
				s->exit_status == 3 ? ": the kernel failed under the tool" : "");
			break;
		case KP_SAN_TIMEOUT:
			kp_validate_finding(r, KP_FIND_ERROR, S, NULL, "%s: timed out after %d s",
					    s->tool, g->sanitize_timeout_s);
			break;
		case KP_SAN_UNSUPPORTED:
			kp_validate_finding(r, KP_FIND_NOTE, S, NULL,
					    "%s: not supported on this device or kernel", s->tool);
			break;
		default:
			supported++;
			kp_strbuf_addf(&tools, "%s%s", tools.len ? ", " : "", s->tool);
			warnings += s->warnings;
			if (s->warnings)
				kp_validate_finding(r, KP_FIND_WARNING, S, NULL, "%s: %d warning%s",
						    s->tool, s->warnings,
						    s->warnings == 1 ? "" : "s");
		}
	}
	const kp_finding *e = kp_validate_first_error(r, S);
	if (e)
		kp_validate_set_step(st, KP_STEP_FAILED, "%s", e->message);
	else if (!supported)
		kp_validate_set_step(st, KP_STEP_SKIPPED, "no sanitizer tool is supported here");
	else
		kp_validate_set_step(st, KP_STEP_PASSED,
				     "%s: no errors on the rewritten kernel at size '%s'%s%s",
				     kp_strbuf_str(&tools), g->sanitize_size, insts_note(g),
				     warnings ? " (warnings below)" : "");
	kp_strbuf_release(&tools);
}

void kp_gpu_judge(kp_validate_result *r, int sanitize)
{
	kp_gpu_result *g = r->gpu;
	const kp_gpu_error *de = device_error(g);
	if (de || (!g->have_device && g->no_device && !g->harness_ran)) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_adds(&sb, "no CUDA device: ");
		if (g->no_device)
			kp_strbuf_adds(&sb, g->no_device);
		if (de)
			kp_strbuf_addf(&sb, "%sthe harness says %s: %s", g->no_device ? "; " : "",
				       de->stage, de->msg);
		if (g->dir)
			kp_strbuf_addf(&sb, " (the harness is built in %s)", g->dir);
		skip_gpu_steps(r, sanitize, "no CUDA device", kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		return;
	}
	judge_run(r, g);
	judge_benchmark(r, g);
	judge_sanitizer(r, g, sanitize);
}

/* ---- building and running --------------------------------------------- */

typedef struct {
	kp_gpu_result *g;
	const char *dir;
	int keep; /* the caller's directory (--gpu-dir): not removed */
} workdir;

static const char *wpath(workdir *w, const char *name)
{
	return kp_arena_printf(&w->g->arena, "%s/%s", w->dir, name);
}

static int write_text(workdir *w, const char *name, const char *text, const char **path)
{
	*path = wpath(w, name);
	return kp_write_file_atomic(*path, text, strlen(text));
}

static void workdir_release(workdir *w)
{
	if (!w->keep && w->dir)
		kp_remove_tree(w->dir);
}

/* Opens w in dir (created when missing, kept) or, without dir, in a new
 * temporary directory kpipe-PURPOSE-XXXXXX (removed by workdir_release).
 * Returns 0, -1 when dir cannot be created, -2 when no temporary directory
 * can be; why (whysz bytes) then says so. */
static int workdir_open(workdir *w, const char *dir, const char *purpose, char *why, size_t whysz)
{
	kp_gpu_result *g = w->g;
	if (dir) {
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			snprintf(why, whysz, "cannot create %s: %s", dir, strerror(errno));
			return -1;
		}
		w->dir = kp_arena_strdup(&g->arena, dir);
		w->keep = 1;
		return 0;
	}
	char *d = kp_tempdir(purpose);
	if (!d) {
		snprintf(why, whysz, "cannot create a temporary directory in %s",
			 kp_tempdir_base());
		return -2;
	}
	w->dir = kp_arena_strdup(&g->arena, d);
	free(d);
	return 0;
}

/* The toolkit root: o->cuda_root, else "/x" from nvcc's real path
 * "/x/bin/nvcc" (*buf holds it; the caller frees *buf). */
static const char *cuda_root_of(const kp_gpu_opts *o, char **buf)
{
	*buf = NULL;
	if (o->cuda_root)
		return o->cuda_root;
	*buf = realpath(o->nvcc, NULL);
	char *s = *buf ? strrchr(*buf, '/') : NULL;
	if (s) {
		*s = '\0';
		s = strrchr(*buf, '/');
		if (s)
			*s = '\0';
	}
	return *buf;
}

/* The first lines of a log that say "error", else its first lines. */
static const char *log_excerpt(kp_gpu_result *g, const char *path, int max_lines)
{
	char *text = NULL;
	if (kp_read_file(path, &text, NULL) != 0)
		return NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int pass = 0; pass < 2 && !sb.len; pass++) {
		int n = 0;
		for (const char *line = text; *line && n < max_lines;) {
			size_t len = strcspn(line, "\n");
			if (pass == 1 || memmem(line, len, "error", 5)) {
				kp_strbuf_add(&sb, line, len);
				kp_strbuf_addc(&sb, '\n');
				n++;
			}
			line += len + (line[len] == '\n');
		}
	}
	free(text);
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	const char *out = kp_arena_strdup(&g->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return out;
}

static const char *first_line(kp_arena *a, const char *text)
{
	return kp_arena_strndup(a, text, strcspn(text, "\n"));
}

/* argv under construction */
typedef struct {
	const char **v;
	int n, cap;
} args;

static void arg(args *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		a->v = kp_xrealloc(a->v, sizeof(char *) * (size_t)a->cap);
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static char *const *argv_of(args *a) { return (char *const *)a->v; }

static void rpath_args(args *a, kp_arena *ar, const char *root)
{
	static const char *const libdirs[] = {"lib64", "lib", "targets/x86_64-linux/lib",
					      "targets/sbsa-linux/lib"};
	if (!root)
		return;
	for (size_t i = 0; i < KP_ARRAY_LEN(libdirs); i++) {
		const char *d = kp_arena_printf(ar, "%s/%s", root, libdirs[i]);
		struct stat st;
		if (stat(d, &st) == 0 && S_ISDIR(st.st_mode)) {
			arg(a, "-Xlinker");
			arg(a, kp_arena_printf(ar, "-rpath,%s", d));
		}
	}
}

static const char *find_sanitizer(kp_arena *a, const kp_gpu_opts *o, const char *root)
{
	if (o->sanitizer)
		return kp_is_executable(o->sanitizer) ? o->sanitizer : NULL;
	const char *slash = strrchr(o->nvcc, '/');
	const char *cands[3] = {
		slash ? kp_arena_printf(a, "%.*s/compute-sanitizer", (int)(slash - o->nvcc),
					o->nvcc)
		      : NULL,
		root ? kp_arena_printf(a, "%s/compute-sanitizer/compute-sanitizer", root) : NULL,
		root ? kp_arena_printf(a, "%s/bin/compute-sanitizer", root) : NULL,
	};
	for (int i = 0; i < 3; i++)
		if (kp_is_executable(cands[i]))
			return cands[i];
	char *p = kp_find_on_path("compute-sanitizer");
	const char *found = p ? kp_arena_strdup(a, p) : NULL;
	free(p);
	return found;
}

/* Is the spec's kernel among the kernels step 1 kept (after --kernel)? */
static int spec_kernel_selected(const kp_validate_result *r, const kp_launch_spec *spec)
{
	const char *id = strrchr(spec->kernel, ':');
	id = id ? id + 1 : spec->kernel;
	for (int i = 0; i < r->nkernels; i++) {
		kp_kernel_res k = {.name = r->kernels[i].name,
				   .demangled = r->kernels[i].demangled};
		if (kp_resources_name_matches(&k, id))
			return 1;
	}
	return 0;
}

static const char *nvcc_arch(const kp_validate_result *r)
{
	if (!strncmp(r->arch, "sm_", 3) || !r->target)
		return r->arch;
	return r->target->name;
}

/* Writes the harness sources and builds the harness and one library per
 * version (names[i] from files[i]) side by side.  Returns NULL, or why the
 * build failed (in g's arena; g->build_log holds nvcc's lines). */
/* The cache key of build a (build_cache.h), NULL without a cache: its
 * arguments, those in the work directory taken relative to it (a second
 * tune harness run builds in another directory), and the contents of
 * files[0..nfiles). */
static char *build_key(const kp_gpu_opts *o, const workdir *w, const args *a,
		       const char *const *files, int nfiles)
{
	if (!o->cache_dir)
		return NULL;
	size_t dl = strlen(w->dir);
	const char **k = kp_xcalloc((size_t)a->n + 1, sizeof(char *));
	for (int i = 0; i < a->n; i++)
		k[i] = strncmp(a->v[i], w->dir, dl) ? a->v[i] : a->v[i] + dl;
	char *key = kp_build_key(k, a->n, files, nfiles);
	free(k);
	return key;
}

/* Starts the builds a[0..n) (a[0] the harness, a[v + 1] the library of
 * version v) but those whose output the cache holds (keys[i]: copied from
 * it, status 0), and waits for them. */
static void start_builds(const kp_gpu_opts *o, args *a, kp_proc *p, const char **logs, char **keys,
			 int n, const char *harness, const char *const *libs)
{
	for (int i = 0; i < n; i++) {
		const char *out = i ? libs[i - 1] : harness;
		if (keys[i] &&
		    kp_build_cache_get(o->cache_dir, keys[i], i ? "so" : "harness", out)) {
			p[i] = (kp_proc){.started = 1, .fd = -1};
			free(keys[i]); /* in the cache already */
			keys[i] = NULL;
			continue;
		}
		kp_proc_opts po = {.out_path = logs[i], .stdin_null = 1, .timeout_s = 900};
		kp_proc_start(&p[i], argv_of(&a[i]), &po);
	}
	kp_proc_wait(p, n);
}

static const char *build_versions(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w,
				  const char *root, const char *arch_name, const char *const *names,
				  const char *const *files, int n, const char **harness,
				  const char **libs)
{
	const kp_launch_spec *spec = o->spec;
	char err[512];
	const char *hdr_path = NULL, *main_path = NULL;
	const char **src = kp_xcalloc((size_t)n, sizeof(char *));
	const char *why = NULL;
	char *hdr = kp_gpu_gen_spec_header(spec);
	int rc = write_text(w, "kpipe_bench_spec.h", hdr, &hdr_path);
	free(hdr);
	if (rc == 0)
		rc = write_text(w, "bench_main.cu", kp_gpu_harness_source(), &main_path);
	if (rc)
		why = kp_arena_printf(&g->arena, "cannot write into %s: %s", w->dir, strerror(-rc));
	for (int v = 0; v < n && !why; v++) {
		char *abs = realpath(files[v], NULL);
		char *text = NULL, *smem = NULL;
		if (!abs || kp_read_file(abs, &text, NULL) != 0)
			why = kp_arena_printf(&g->arena, "cannot read %s", files[v]);
		else if (kp_gpu_launch_override(text, &smem, err, sizeof(err)) < 0)
			why = kp_arena_printf(&g->arena, "%s: %s", files[v], err);
		char *launcher = NULL;
		if (!why) {
			char label[256];
			snprintf(label, sizeof(label), "%s / %s", spec->name, names[v]);
			char *via = kp_gpu_launch_via(text, spec->kernel);
			launcher =
				kp_gpu_gen_launcher(spec, abs, label, smem, via, err, sizeof(err));
			free(via);
			if (!launcher)
				why = kp_arena_strdup(&g->arena, err);
		}
		if (!why) {
			const char *name = kp_arena_printf(&g->arena, "%s.launch.cu", names[v]);
			if ((rc = write_text(w, name, launcher, &src[v])))
				why = kp_arena_printf(&g->arena, "cannot write into %s: %s", w->dir,
						      strerror(-rc));
		}
		free(abs);
		free(text);
		free(smem);
		free(launcher);
	}
	if (why) {
		free(src);
		return why;
	}

	/* nvcc n + 1 times, side by side */
	const char *arch = kp_arena_printf(&g->arena, "-arch=%s", arch_name);
	const char **logs = kp_xcalloc((size_t)n + 1, sizeof(char *));
	args *a = kp_xcalloc((size_t)n + 1, sizeof(args));
	kp_proc *p = kp_xcalloc((size_t)n + 1, sizeof(kp_proc));
	*harness = wpath(w, "harness");
	logs[0] = wpath(w, "harness.build.log");
	arg(&a[0], o->nvcc);
	arg(&a[0], "-O2");
	arg(&a[0], "-std=c++17");
	arg(&a[0], "-cudart");
	arg(&a[0], "shared");
	arg(&a[0], "-I");
	arg(&a[0], w->dir);
	rpath_args(&a[0], &g->arena, root);
	arg(&a[0], "-o");
	arg(&a[0], *harness);
	arg(&a[0], main_path);
	arg(&a[0], "-ldl");
	for (int v = 0; v < n; v++) {
		args *x = &a[v + 1];
		libs[v] = wpath(w, kp_arena_printf(&g->arena, "%s.so", names[v]));
		logs[v + 1] = wpath(w, kp_arena_printf(&g->arena, "%s.build.log", names[v]));
		arg(x, o->nvcc);
		arg(x, "-O3");
		arg(x, arch);
		arg(x, "-lineinfo");
		arg(x, "-shared");
		arg(x, "-Xcompiler");
		arg(x, "-fPIC,-fvisibility=hidden");
		arg(x, "-cudart");
		arg(x, "shared");
		rpath_args(x, &g->arena, root);
		for (int i = 0; i < o->nnvcc_args; i++)
			arg(x, o->nvcc_args[i]);
		arg(x, "-o");
		arg(x, libs[v]);
		arg(x, src[v]);
	}
	char **keys = kp_xcalloc((size_t)n + 1, sizeof(char *));
	keys[0] = build_key(o, w, &a[0], (const char *[]){main_path, hdr_path}, 2);
	for (int v = 0; v < n; v++)
		keys[v + 1] =
			build_key(o, w, &a[v + 1], (const char *[]){hdr_path, src[v], files[v]}, 3);
	start_builds(o, a, p, logs, keys, n + 1, *harness, libs);
	for (int i = 0; i <= n; i++) {
		free(a[i].v);
		if (keys[i] && p[i].status == 0)
			kp_build_cache_put(o->cache_dir, keys[i], i ? "so" : "harness",
					   i ? libs[i - 1] : *harness);
		free(keys[i]);
	}
	free(keys);
	for (int i = 0; i <= n && !why; i++) {
		if (p[i].status == 0)
			continue;
		g->build_log = log_excerpt(g, logs[i], 20);
		const char *what =
			i == 0 ? "the harness"
			       : kp_arena_printf(&g->arena, "the launcher of the %s%s",
						 names[i - 1],
						 i == 1 ? " (does the launch description match the "
							  "kernel's signature?)"
							: "");
		why = kp_arena_printf(&g->arena, "cannot build %s: %s", what,
				      p[i].timed_out    ? "nvcc timed out"
				      : p[i].status < 0 ? "nvcc could not be started"
				      : g->build_log && g->build_log[0]
					      ? first_line(&g->arena, g->build_log)
					      : "nvcc failed");
	}
	free(logs);
	free(a);
	free(p);
	free(src);
	return why;
}

/* Writes and builds everything; 0, or -1 with step 3 failed. */
static int build(kp_validate_result *r, const kp_gpu_opts *o, workdir *w, const char *root,
		 const char **harness, const char **libs)
{
	const char *files[2] = {o->original, o->rewritten};
	const char *names[2] = {KP_GPU_ORIGINAL, KP_GPU_REWRITTEN};
	const char *why =
		build_versions(r->gpu, o, w, root, nvcc_arch(r), names, files, 2, harness, libs);
	if (!why)
		return 0;
	kp_validate_set_step(&r->steps[KP_STEP_GPU_RUN - 1], KP_STEP_FAILED, "%s", why);
	return -1;
}

static void run_harness(kp_validate_result *r, const kp_gpu_opts *o, workdir *w,
			const char *harness, const char **libs)
{
	kp_gpu_result *g = r->gpu;
	args a = {0};
	char reps[16], warm[16];
	snprintf(reps, sizeof(reps), "%d", o->reps > 0 ? o->reps : 21);
	snprintf(warm, sizeof(warm), "%d", o->warmup > 0 ? o->warmup : 3);
	kp_strbuf sizes = KP_STRBUF_INIT;
	for (int i = 0; i < g->nsizes; i++)
		if (i == 0 || strcmp(g->sizes[i - 1].name, g->sizes[i].name)) /* once per size */
			kp_strbuf_addf(&sizes, "%s%s", i ? "," : "", g->sizes[i].name);
	arg(&a, harness);
	arg(&a, "--reps");
	arg(&a, reps);
	arg(&a, "--warmup");
	arg(&a, warm);
	arg(&a, "--sizes");
	arg(&a, kp_arena_strdup(&g->arena, kp_strbuf_str(&sizes)));
	arg(&a, "--lib");
	arg(&a, kp_arena_printf(&g->arena, "%s=%s", KP_GPU_ORIGINAL, libs[0]));
	arg(&a, "--lib");
	arg(&a, kp_arena_printf(&g->arena, "%s=%s", KP_GPU_REWRITTEN, libs[1]));
	if (g->timed_size) {
		arg(&a, "--time");
		arg(&a, g->timed_size);
	}
	if (o->profile)
		arg(&a, "--copy");
	kp_strbuf_release(&sizes);
	const char *out = wpath(w, "harness.events"), *err = wpath(w, "harness.stderr");
	kp_proc p;
	kp_proc_opts po = {
		.out_path = out, .err_path = err, .stdin_null = 1, .timeout_s = g->run_timeout_s};
	kp_proc_run(&p, argv_of(&a), &po);
	free(a.v);
	g->harness_ran = 1;
	g->harness_rc = p.status;
	g->timed_out = p.timed_out;
	char *text = NULL;
	if (kp_read_file(out, &text, NULL) == 0)
		kp_gpu_absorb_events(g, text);
	free(text);
	if (kp_read_file(err, &text, NULL) == 0 && text[0]) {
		/* the last 8 lines */
		const char *start = text + strlen(text);
		int n = 0;
		while (start > text && n < 9)
			if (*--start == '\n')
				n++;
		g->harness_err = kp_arena_strdup(&g->arena, start + (*start == '\n'));
	}
	free(text);
}

/* The harness launching `lib` (as `name`) once at `size`. */
static void single_argv(args *a, kp_arena *ar, const char *harness, const char *size,
			const char *name, const char *lib)
{
	arg(a, harness);
	arg(a, "--single");
	arg(a, "--sizes");
	arg(a, size);
	arg(a, "--lib");
	arg(a, kp_arena_printf(ar, "%s=%s", name, lib));
}

/* compute-sanitizer `tool` on one launch (--single) of the harness at
 * `size`, with the library `lib` under the harness name `name`. */
static void sanitizer_argv(args *a, kp_arena *ar, const char *san, const char *tool,
			   const char *harness, const char *size, const char *name, const char *lib)
{
	arg(a, san);
	arg(a, "--tool");
	arg(a, tool);
	arg(a, "--error-exitcode");
	arg(a, "86");
	arg(a, "--print-limit");
	arg(a, "20");
	single_argv(a, ar, harness, size, name, lib);
}

static void run_sanitizers(kp_validate_result *r, const kp_gpu_opts *o, workdir *w,
			   const char *root, const char *harness, const char *lib)
{
	kp_gpu_result *g = r->gpu;
	const char *san = find_sanitizer(&g->arena, o, root);
	if (!san) {
		g->san_skip = "compute-sanitizer not found (looked beside nvcc, in the toolkit's "
			      "compute-sanitizer/ and on $PATH)";
		return;
	}
	enum { N = KP_ARRAY_LEN(sanitizer_tools) };
	args a[N] = {{0}};
	kp_proc p[N];
	const char *outs[N];
	for (int i = 0; i < (int)N; i++) {
		outs[i] = wpath(w,
				kp_arena_printf(&g->arena, "sanitizer-%s.txt", sanitizer_tools[i]));
		sanitizer_argv(&a[i], &g->arena, san, sanitizer_tools[i], harness, g->sanitize_size,
			       KP_GPU_REWRITTEN, lib);
		kp_proc_opts po = {
			.out_path = outs[i], .stdin_null = 1, .timeout_s = g->sanitize_timeout_s};
		kp_proc_start(&p[i], argv_of(&a[i]), &po);
	}
	kp_proc_wait(p, N);
	for (int i = 0; i < (int)N; i++) {
		free(a[i].v);
		kp_gpu_sanitizer *s = &g->san[g->nsan++];
		s->tool = sanitizer_tools[i];
		s->seconds = p[i].seconds;
		char *text = NULL;
		if (kp_read_file(outs[i], &text, NULL) != 0)
			text = kp_xstrdup("");
		kp_gpu_parse_sanitizer(g, s, text, p[i].status, p[i].timed_out);
		free(text);
	}
}

/* ---- Nsight Compute (--profile) ---------------------------------------- */

static const char *find_ncu(kp_arena *a, const kp_gpu_opts *o, const char *root)
{
	if (o->ncu)
		return kp_is_executable(o->ncu) ? o->ncu : NULL;
	const char *slash = strrchr(o->nvcc, '/');
	const char *cands[3] = {
		slash ? kp_arena_printf(a, "%.*s/ncu", (int)(slash - o->nvcc), o->nvcc) : NULL,
		root ? kp_arena_printf(a, "%s/bin/ncu", root) : NULL,
		root ? kp_arena_printf(a, "%s/nsight-compute/ncu", root) : NULL,
	};
	for (int i = 0; i < 3; i++)
		if (kp_is_executable(cands[i]))
			return cands[i];
	char *p = kp_find_on_path("ncu");
	const char *found = p ? kp_arena_strdup(a, p) : NULL;
	free(p);
	return found;
}

/* ncu over one --single launch of the harness at `size` with the library
 * `lib` as `name`, kernels whose name contains `kernel` (the first one). */
static void ncu_argv(args *a, kp_arena *ar, const char *ncu, const char *metrics,
		     const char *kernel, const char *harness, const char *size, const char *name,
		     const char *lib)
{
	arg(a, ncu);
	arg(a, "--csv");
	arg(a, "--page");
	arg(a, "raw");
	arg(a, "--print-units");
	arg(a, "base");
	arg(a, "--metrics");
	arg(a, metrics);
	arg(a, "-k");
	arg(a, kp_arena_printf(ar, "regex:%s", kernel));
	arg(a, "-c");
	arg(a, "1");
	single_argv(a, ar, harness, size, name, lib);
}

/* Profiles version v; returns 0, or -1 when the counters are not
 * accessible (p->skip is then set). */
static int profile_one(kp_gpu_result *g, workdir *w, const char *ncu, const char *kernel,
		       const char *harness, const char *lib, int v, int use[KP_NCU_NMETRICS],
		       int timeout_s)
{
	kp_ncu_profile *p = &g->profile;
	for (;;) {
		char *metrics = kp_ncu_metric_list(use);
		args a = {0};
		const char *out = wpath(w, kp_arena_printf(&g->arena, "ncu-%s.csv", p->names[v]));
		ncu_argv(&a, &g->arena, ncu, metrics, kernel, harness, p->size, p->names[v], lib);
		kp_proc pr;
		kp_proc_opts po = {.out_path = out, .stdin_null = 1, .timeout_s = timeout_s};
		kp_proc_run(&pr, argv_of(&a), &po);
		free(a.v);
		free(metrics);
		char *text = NULL, msg[512];
		if (kp_read_file(out, &text, NULL) != 0)
			text = kp_xstrdup("");
		int bad;
		kp_ncu_status st = kp_ncu_parse(text, &p->v[v], &bad, &g->arena, msg, sizeof(msg));
		free(text);
		if (st == KP_NCU_BAD_METRIC && use[bad]) {
			use[bad] = 0;
			p->dropped =
				kp_arena_printf(&g->arena, "%s%s%s", p->dropped ? p->dropped : "",
						p->dropped ? ", " : "", kp_ncu_metrics[bad].metric);
			continue;
		}
		if (st == KP_NCU_NOPERM) {
			p->skip =
				"ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): "
				"run as root or load the driver with "
				"NVreg_RestrictProfilingToAdminUsers=0";
			return -1;
		}
		if (st == KP_NCU_OK)
			p->ran[v] = 1;
		else if (pr.timed_out)
			p->error[v] =
				kp_arena_printf(&g->arena, "ncu timed out after %d s", timeout_s);
		else
			p->error[v] = kp_arena_printf(&g->arena, "%s (exit %d)%s%s",
						      st == KP_NCU_NO_KERNEL
							      ? "ncu profiled no kernel"
							      : "ncu gave no report",
						      pr.status, msg[0] ? ": " : "", msg);
		return 0;
	}
}

/* --profile: ncu on one launch of both versions at the timed size, and the
 * copy comparison from the harness's "copy" event. */
static void run_profile(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w, const char *root,
			const char *harness, const char *const *names, const char *const *libs)
{
	kp_ncu_profile *p = &g->profile;
	p->names[0] = names[0];
	p->names[1] = names[1];
	p->size = g->timed_size ? g->timed_size
		  : g->nsizes   ? g->sizes[g->nsizes - 1].name
				: "small";
	p->ncu = find_ncu(&g->arena, o, root);
	if (!p->ncu) {
		p->skip = "ncu (Nsight Compute) not found (looked beside nvcc, in the toolkit's "
			  "bin/ and nsight-compute/, and on $PATH)";
		return;
	}
	p->skip = NULL;
	const char *kernel = strrchr(o->spec->kernel, ':');
	kernel = kernel ? kernel + 1 : o->spec->kernel;
	int use[KP_NCU_NMETRICS];
	for (int m = 0; m < KP_NCU_NMETRICS; m++)
		use[m] = 1;
	int timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300;
	for (int v = 0; v < 2; v++)
		if (profile_one(g, w, p->ncu, kernel, harness, libs[v], v, use, timeout_s) != 0)
			return;
	const char *kind = o->spec->work_kind;
	for (int v = 0; v < 2; v++)
		p->ms[v] = g->time[0][v].have ? g->time[0][v].median_ms : 0;
	if (!strcmp(kind, "flops"))
		p->copy_skip = "the launch description gives the work in flops (compute-bound): "
			       "not compared with a copy kernel";
	else if (!g->timed_size)
		p->copy_skip = "no size was timed ('target' not among --sizes)";
	else if (p->copy_ms <= 0)
		p->copy_skip = "the harness did not time the copy kernel";
}

/* Step 3 failed before the harness ran: steps 4 and 5 cannot run either. */
static void nothing_to_run(kp_validate_result *r, int sanitize)
{
	for (int s = 3; s < 5; s++)
		kp_validate_set_step(&r->steps[s], KP_STEP_SKIPPED, "no harness (see step 3)");
	if (!sanitize) {
		kp_validate_set_step(&r->steps[4], KP_STEP_SKIPPED,
				     "not requested (--no-sanitize)");
		r->steps[4].not_requested = 1;
	}
}

/* What the result keeps of the spec: its path, kernel, instantiations,
 * tolerance, work and size symbols. */
static void gpu_setup(kp_gpu_result *g, const kp_launch_spec *spec)
{
	g->spec_path = kp_arena_strdup(&g->arena, spec->path);
	if (spec->ninsts > 1) {
		g->kernel = kp_arena_strdup(&g->arena, spec->kernel);
		for (int i = 0; i < spec->ninsts && i < KP_LAUNCH_MAX_INSTS; i++)
			g->insts[i] = kp_arena_strdup(&g->arena, spec->insts[i]);
		g->ninsts = spec->ninsts < KP_LAUNCH_MAX_INSTS ? spec->ninsts : KP_LAUNCH_MAX_INSTS;
	} else
		g->kernel = kp_arena_printf(&g->arena, "%s%s", spec->kernel, spec->template_args);
	g->tol_abs = spec->tol_abs;
	g->tol_rel = spec->tol_rel;
	g->work_kind = spec->work_kind;
	g->nsymbols = spec->nsymbols;
	g->symbols = kp_arena_alloc(&g->arena, sizeof(char *) * (size_t)(spec->nsymbols + 1));
	for (int i = 0; i < spec->nsymbols; i++)
		g->symbols[i] = kp_arena_strdup(&g->arena, spec->symbols[i]);
}

/* The requested sizes in the spec's order, the timed one last, each once
 * per instantiation (the harness's order). */
static void gpu_sizes(kp_gpu_result *g, const kp_gpu_opts *o)
{
	const kp_launch_spec *spec = o->spec;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < spec->nsizes; i++) {
			const kp_launch_size *z = &spec->sizes[i];
			int wanted = !o->sizes;
			for (int k = 0; k < o->nsizes && !wanted; k++)
				wanted = !strcmp(o->sizes[k], z->name);
			if (!wanted || (pass == 0) == !strcmp(z->name, "target"))
				continue;
			long *vals = kp_arena_alloc(&g->arena,
						    sizeof(long) * (size_t)(spec->nsymbols + 1));
			memcpy(vals, z->vals, sizeof(long) * (size_t)spec->nsymbols);
			for (int k = 0; k < g->ninsts; k++) {
				kp_gpu_size *gz = find_size(g, z->name, g->insts[k], 1);
				gz->vals = vals;
				if (pass == 1)
					g->timed_size = gz->name;
			}
		}
	g->sanitize_size = "small";
}

static const kp_gpu_hooks gpu_hooks = {kp_gpu_render_text, kp_gpu_render_json, kp_gpu_result_free};

kp_gpu_result *kp_gpu_attach(kp_validate_result *r)
{
	r->gpu = kp_gpu_result_new();
	r->gpu_hooks = &gpu_hooks;
	return r->gpu;
}

int kp_validate_gpu(kp_validate_result *r, const kp_gpu_opts *o)
{
	kp_gpu_result *g = kp_gpu_attach(r);
	const kp_launch_spec *spec = o->spec;
	g->profile.requested = o->profile;
	g->profile.skip = "the GPU steps did not run (see step 3)";
	g->run_timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300;
	g->sanitize_timeout_s = o->sanitize_timeout_s > 0 ? o->sanitize_timeout_s : 300;
	for (int s = 2; s < 5; s++)
		kp_validate_set_step(&r->steps[s], KP_STEP_SKIPPED, "not run");

	if (r->compile_log) {
		skip_gpu_steps(r, o->sanitize, "not run", "the files do not compile (step 1)");
		return 0;
	}
	if (!spec) {
		skip_gpu_steps(r, o->sanitize, "no launch description",
			       o->spec_missing ? o->spec_missing : "no launch description");
		return 0;
	}
	gpu_setup(g, spec);
	if (o->kernel && !spec_kernel_selected(r, spec)) {
		char *why = kp_arena_printf(&g->arena,
					    "the launch description %s is for kernel '%s', which "
					    "--kernel '%s' does not select",
					    spec->path, g->kernel, o->kernel);
		skip_gpu_steps(r, o->sanitize, "not run", why);
		return 0;
	}
	gpu_sizes(g, o);

	char why[256];
	int dev = kp_gpu_probe(why, sizeof(why));
	if (!dev) {
		g->no_device = kp_arena_strdup(&g->arena, why);
		g->profile.skip = kp_arena_printf(&g->arena, "no CUDA device (%s)", why);
	}
	if (!dev && !o->dir) {
		kp_gpu_judge(r, o->sanitize);
		return 0;
	}

	workdir w = {.g = g};
	char wwhy[512];
	int wr = workdir_open(&w, o->dir, "gpu", wwhy, sizeof(wwhy));
	if (wr != 0) {
		kp_validate_set_step(&r->steps[2], KP_STEP_FAILED, "%s", wwhy);
		nothing_to_run(r, o->sanitize);
		return wr == -1 ? 0 : -1;
	}
	if (o->dir)
		g->dir = w.dir;
	char *root_buf;
	const char *root = cuda_root_of(o, &root_buf);
	const char *harness, *libs[2];
	if (build(r, o, &w, root, &harness, libs) == 0) {
		run_harness(r, o, &w, harness, libs);
		if (o->sanitize && g->have_device)
			run_sanitizers(r, o, &w, root, harness, libs[1]);
		static const char *const names[2] = {KP_GPU_ORIGINAL, KP_GPU_REWRITTEN};
		if (o->profile && g->have_device)
			run_profile(g, o, &w, root, harness, names, libs);
		kp_gpu_judge(r, o->sanitize);
	} else
		nothing_to_run(r, o->sanitize);
	free(root_buf);
	workdir_release(&w);
	return 0;
}

/* ---- several versions in one run (kpipe tune) ------------------------- */

/* Tools every tuned variant must pass: a variant that races can still
 * compute the original's numbers in a plain run. */
static const char *const tune_sanitizers[] = {"memcheck", "racecheck", "synccheck"};

const char *kp_gpu_not_a_candidate(const char *events, const char *name)
{
	const char *why = NULL;
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, events);
	while (!why && kp_event_next(&rd, &e)) {
		if (!e.version || strcmp(e.version, name) != 0)
			continue;
		if (e.kind == KP_EV_DROPPED)
			why = "not a candidate: stopped early as slower than the original";
		else if ((e.kind == KP_EV_CHECK && !e.ok) || e.kind == KP_EV_ERROR)
			why = "not a candidate: failed on the GPU";
	}
	kp_event_reader_release(&rd);
	return why;
}

/* compute-sanitizer on one launch of each variant (names[1..n-1]) that
 * could be chosen (kp_gpu_not_a_candidate()) at the `small` size; appends one
 * "sanitize" event line per variant and tool to *events
 * ({"event":"sanitize","version":...,"tool":...,"ok":...,"errors":N,
 * "msg":...}), one "sanitize-skip" line with the version for each variant
 * it leaves out, or one "sanitize-skip" line without a version when the
 * tool is not found. */
static void sanitize_versions(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w, const char *root,
			      const char *harness, const char *const *names,
			      const char *const *libs, int n, char **events)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, *events ? *events : "");
	if (sb.len && kp_strbuf_str(&sb)[sb.len - 1] != '\n')
		kp_strbuf_addc(&sb, '\n');
	const char *san = find_sanitizer(&g->arena, o, root);
	if (!san) {
		kp_strbuf_adds(&sb, "{\"event\":\"sanitize-skip\",\"msg\":\"compute-sanitizer not "
				    "found\"}\n");
		free(*events);
		*events = kp_strbuf_detach(&sb);
		return;
	}
	/* every candidate and tool side by side: one launch each, small size */
	enum { T = KP_ARRAY_LEN(tune_sanitizers) };
	int *cand = kp_xcalloc((size_t)(n > 0 ? n : 1), sizeof(int)), nc = 0;
	for (int v = 1; v < n; v++) {
		const char *why = kp_gpu_not_a_candidate(*events, names[v]);
		if (!why) {
			cand[nc++] = v;
			continue;
		}
		kp_strbuf_addf(&sb,
			       "{\"event\":\"sanitize-skip\",\"version\":\"%s\",\"msg\":\"%s\"}\n",
			       names[v], why);
	}
	int np = nc * (int)T;
	args *a = kp_xcalloc((size_t)(np > 0 ? np : 1), sizeof(*a));
	kp_proc *p = kp_xcalloc((size_t)(np > 0 ? np : 1), sizeof(*p));
	const char **outs = kp_xcalloc((size_t)(np > 0 ? np : 1), sizeof(*outs));
	for (int k = 0; k < np; k++) {
		int v = cand[k / (int)T], t = k % (int)T;
		outs[k] = wpath(w, kp_arena_printf(&g->arena, "sanitizer-%s-%s.txt", names[v],
						   tune_sanitizers[t]));
		sanitizer_argv(&a[k], &g->arena, san, tune_sanitizers[t], harness, "small",
			       names[v], libs[v]);
		kp_proc_opts po = {.out_path = outs[k],
				   .stdin_null = 1,
				   .timeout_s = o->sanitize_timeout_s > 0 ? o->sanitize_timeout_s
									  : 300};
		kp_proc_start(&p[k], argv_of(&a[k]), &po);
	}
	kp_proc_wait(p, np);
	for (int k = 0; k < np; k++) {
		int v = cand[k / (int)T], t = k % (int)T;
		free(a[k].v);
		kp_gpu_sanitizer s = {0};
		s.tool = tune_sanitizers[t];
		char *text = NULL;
		if (kp_read_file(outs[k], &text, NULL) != 0)
			text = kp_xstrdup("");
		kp_gpu_parse_sanitizer(g, &s, text, p[k].status, p[k].timed_out);
		free(text);
		int ok = s.status == KP_SAN_PASS || s.status == KP_SAN_UNSUPPORTED;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "event", "sanitize");
		cJSON_AddStringToObject(e, "version", names[v]);
		cJSON_AddStringToObject(e, "tool", s.tool);
		cJSON_AddBoolToObject(e, "ok", ok);
		cJSON_AddNumberToObject(e, "errors", s.errors);
		cJSON_AddNumberToObject(e, "seconds", p[k].seconds);
		if (!ok)
			cJSON_AddStringToObject(e, "msg",
						s.status == KP_SAN_TIMEOUT ? "timed out"
						: s.status == KP_SAN_ERROR
							? "the run did not finish normally"
							: "errors reported");
		char *line = cJSON_PrintUnformatted(e);
		kp_strbuf_addf(&sb, "%s\n", line);
		cJSON_free(line);
		cJSON_Delete(e);
	}
	free(a);
	free(p);
	free(outs);
	free(cand);
	free(*events);
	*events = kp_strbuf_detach(&sb);
}

/* Why tune's harness run failed: its first error event (else its first
 * fatal one), else the first line of its stderr.  Heap string. */
static char *harness_failure(const kp_proc *p, const char *events, const char *stderr_path)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "the harness %s", p->timed_out ? "timed out" : "failed");
	if (!p->timed_out)
		kp_strbuf_addf(&sb, " (exit %d)", p->status);
	char *stage = NULL, *msg = NULL;
	int found = 0; /* 1 a fatal event, 2 an error event */
	kp_event_reader rd;
	kp_event e;
	kp_event_reader_init(&rd, events);
	while (found < 2 && kp_event_next(&rd, &e)) {
		int rank = e.kind == KP_EV_ERROR ? 2 : e.kind == KP_EV_FATAL ? 1 : 0;
		if (rank <= found)
			continue;
		found = rank;
		free(stage);
		free(msg);
		stage = e.stage ? kp_xstrdup(e.stage) : NULL;
		msg = e.msg ? kp_xstrdup(e.msg) : NULL;
	}
	kp_event_reader_release(&rd);
	char *etext = NULL;
	if (msg)
		kp_strbuf_addf(&sb, ": %s%s%s", stage ? stage : "", stage ? ": " : "", msg);
	else if (kp_read_file(stderr_path, &etext, NULL) == 0 && etext[0])
		kp_strbuf_addf(&sb, ": %.*s", (int)strcspn(etext, "\n"), etext);
	free(etext);
	free(stage);
	free(msg);
	return kp_strbuf_detach(&sb);
}

/* Runs tune's harness on the built libraries: every size checked, each of
 * o->time_sizes (NULL: 'target') timed `rounds` times.  Returns 0 with its events in *events, or -1
 * with *err too (heap strings). */
static int run_versions_harness(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w,
				const char *harness, const char *const *names,
				const char *const *libs, int n, int rounds, char **events,
				char **err)
{
	args a = {0};
	char reps[16], warm[16], rnd[16];
	snprintf(reps, sizeof(reps), "%d", o->reps > 0 ? o->reps : 21);
	snprintf(warm, sizeof(warm), "%d", o->warmup > 0 ? o->warmup : 3);
	snprintf(rnd, sizeof(rnd), "%d", rounds > 0 ? rounds : 1);
	arg(&a, harness);
	arg(&a, "--reps");
	arg(&a, reps);
	arg(&a, "--warmup");
	arg(&a, warm);
	arg(&a, "--rounds");
	arg(&a, rnd);
	if (o->drop_slower_pct > 0) {
		arg(&a, "--drop-slower");
		arg(&a, kp_arena_printf(&g->arena, "%g", o->drop_slower_pct));
	}
	if (o->round_ms > 0) {
		arg(&a, "--round-ms");
		arg(&a, kp_arena_printf(&g->arena, "%g", o->round_ms));
	}
	if (o->sizes && o->nsizes > 0) {
		kp_strbuf sz = KP_STRBUF_INIT;
		for (int i = 0; i < o->nsizes; i++)
			kp_strbuf_addf(&sz, "%s%s", i ? "," : "", o->sizes[i]);
		arg(&a, "--sizes");
		arg(&a, kp_arena_strdup(&g->arena, kp_strbuf_str(&sz)));
		kp_strbuf_release(&sz);
	}
	arg(&a, "--time");
	if (o->time_sizes && o->ntime_sizes > 0) {
		kp_strbuf tz = KP_STRBUF_INIT;
		for (int i = 0; i < o->ntime_sizes; i++)
			kp_strbuf_addf(&tz, "%s%s", i ? "," : "", o->time_sizes[i]);
		arg(&a, kp_arena_strdup(&g->arena, kp_strbuf_str(&tz)));
		kp_strbuf_release(&tz);
	} else
		arg(&a, "target");
	for (int i = 0; i < n; i++) {
		arg(&a, "--lib");
		arg(&a, kp_arena_printf(&g->arena, "%s=%s", names[i], libs[i]));
	}
	const char *out = wpath(w, "harness.events"), *er = wpath(w, "harness.stderr");
	kp_proc p;
	kp_proc_opts po = {.out_path = out,
			   .err_path = er,
			   .stdin_null = 1,
			   .timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300};
	kp_proc_run(&p, argv_of(&a), &po);
	free(a.v);
	if (kp_read_file(out, events, NULL) != 0)
		*events = kp_xstrdup("");
	if (!p.timed_out && p.status == 0)
		return 0;
	*err = harness_failure(&p, *events, er);
	return -1;
}

/* The "phase" events of kp_gpu_run_versions(): build t0..t1, run t1..t2,
 * sanitize t2..t3 (t3 0: not run). */
static void append_phases(char **events, double t0, double t1, double t2, double t3)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, *events ? *events : "");
	if (sb.len && kp_strbuf_str(&sb)[sb.len - 1] != '\n')
		kp_strbuf_addc(&sb, '\n');
	kp_strbuf_addf(&sb, "{\"event\":\"phase\",\"phase\":\"build\",\"seconds\":%.3f}\n",
		       t1 - t0);
	kp_strbuf_addf(&sb, "{\"event\":\"phase\",\"phase\":\"run\",\"seconds\":%.3f}\n", t2 - t1);
	if (t3 > 0)
		kp_strbuf_addf(&sb,
			       "{\"event\":\"phase\",\"phase\":\"sanitize\",\"seconds\":%.3f}\n",
			       t3 - t2);
	free(*events);
	*events = kp_strbuf_detach(&sb);
}

int kp_gpu_run_versions(const kp_gpu_opts *o, const kp_gpu_version *v, int n, int rounds,
			char **events, char **err)
{
	*events = NULL;
	*err = NULL;
	kp_gpu_result *g = kp_gpu_result_new();
	workdir w = {.g = g};
	char why[256];
	if ((!kp_gpu_probe(why, sizeof(why)) && !o->dir) ||
	    workdir_open(&w, o->dir, "tune", why, sizeof(why)) != 0) {
		*err = kp_xstrdup(why);
		kp_gpu_result_free(g);
		return -1;
	}
	char *root_buf;
	const char *root = cuda_root_of(o, &root_buf);
	const char **names = kp_xcalloc((size_t)n, sizeof(char *));
	const char **files = kp_xcalloc((size_t)n, sizeof(char *));
	const char **libs = kp_xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		names[i] = v[i].name;
		files[i] = v[i].path;
	}
	const char *harness = NULL;
	double t0 = kp_now(), t1 = 0, t2 = 0;
	const char *bw = build_versions(g, o, &w, root, o->arch, names, files, n, &harness, libs);
	int rc = -1;
	if (bw) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%s", bw);
		if (g->build_log && g->build_log[0])
			kp_strbuf_addf(&sb, "\n%s", g->build_log);
		*err = kp_strbuf_detach(&sb);
	} else {
		t1 = kp_now();
		rc = run_versions_harness(g, o, &w, harness, names, libs, n, rounds, events, err);
		t2 = kp_now();
		if (rc == 0 && o->sanitize)
			sanitize_versions(g, o, &w, root, harness, names, libs, n, events);
		append_phases(events, t0, t1, t2, rc == 0 && o->sanitize ? kp_now() : 0);
	}
	free(names);
	free(files);
	free(libs);
	free(root_buf);
	workdir_release(&w);
	kp_gpu_result_free(g);
	return rc;
}

/* `kpipe tune --profile`: the original and the chosen variant again, timed
 * at 'target' beside the copy kernel, then ncu on one launch of each. */
static void profile_pair_run(kp_gpu_result *g, const kp_gpu_opts *o, workdir *w, const char *root,
			     const kp_gpu_version *v)
{
	static const char *const hnames[2] = {KP_GPU_ORIGINAL, KP_GPU_REWRITTEN};
	const char *files[2] = {v[0].path, v[1].path}, *libs[2], *harness = NULL;
	const char *bw = build_versions(g, o, w, root, o->arch, hnames, files, 2, &harness, libs);
	if (bw) {
		g->profile.skip = kp_arena_printf(&g->arena, "the profiling build failed: %s", bw);
		return;
	}
	const kp_gpu_opts one = {.spec = o->spec,
				 .reps = o->reps,
				 .warmup = o->warmup,
				 .run_timeout_s = o->run_timeout_s,
				 .profile = 1};
	g->timed_size = "target";
	find_size(g, "target", NULL, 1);
	kp_validate_result r = {.gpu = g};
	run_harness(&r, &one, w, harness, libs);
	if (!g->time[0][0].have || !g->time[0][1].have) {
		g->profile.skip = kp_arena_printf(
			&g->arena,
			"the harness did not time both versions at 'target' (exit %d)%s%s",
			g->harness_rc, g->harness_err ? ": " : "",
			g->harness_err ? first_line(&g->arena, g->harness_err) : "");
		return;
	}
	const char *names[2] = {v[0].name, v[1].name};
	run_profile(g, o, w, root, harness, names, libs);
}

kp_gpu_result *kp_gpu_profile_pair(const kp_gpu_opts *o, const kp_gpu_version *v)
{
	kp_gpu_result *g = kp_gpu_result_new();
	g->profile.requested = 1;
	g->profile.names[0] = kp_arena_strdup(&g->arena, v[0].name);
	g->profile.names[1] = kp_arena_strdup(&g->arena, v[1].name);
	g->run_timeout_s = o->run_timeout_s > 0 ? o->run_timeout_s : 300;
	char why[256];
	if (!kp_gpu_probe(why, sizeof(why))) {
		g->profile.skip = kp_arena_printf(&g->arena, "no CUDA device (%s)", why);
		return g;
	}
	workdir w = {.g = g};
	if (workdir_open(&w, NULL, "profile", why, sizeof(why)) != 0) {
		g->profile.skip = kp_arena_strdup(&g->arena, why);
		return g;
	}
	char *root_buf;
	const char *root = cuda_root_of(o, &root_buf);
	profile_pair_run(g, o, &w, root, v);
	free(root_buf);
	workdir_release(&w);
	return g;
}

/* ---- rendering -------------------------------------------------------- */

static void size_values(kp_strbuf *sb, const kp_gpu_result *g, const kp_gpu_size *z)
{
	for (int k = 0; z->vals && k < g->nsymbols; k++)
		kp_strbuf_addf(sb, "%s%s=%ld", k ? " " : "", g->symbols[k], z->vals[k]);
}

static const char *version_str(char *buf, size_t sz, int v)
{
	snprintf(buf, sz, "%d.%d", v / 1000, (v % 1000) / 10);
	return buf;
}

static void text_indented(kp_strbuf *sb, const char *text, const char *prefix)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		kp_strbuf_adds(sb, prefix);
		kp_strbuf_add(sb, p, len);
		kp_strbuf_addc(sb, '\n');
		p += len + (p[len] == '\n');
	}
}

/* The width of the instantiation column: 0 with one instantiation. */
static int inst_width(const kp_gpu_result *g)
{
	int iw = 0;
	for (int i = 0; g->ninsts > 1 && i < g->ninsts; i++)
		iw = (int)strlen(g->insts[i]) > iw ? (int)strlen(g->insts[i]) : iw;
	return iw && iw < 13 ? 13 : iw;
}

static void text_run(kp_strbuf *sb, const kp_gpu_result *g)
{
	if (g->spec_path && g->ninsts > 1) {
		kp_strbuf_addf(sb, "  launch: %s, kernel %s, instantiations ", g->spec_path,
			       g->kernel);
		for (int i = 0; i < g->ninsts; i++)
			kp_strbuf_addf(sb, "%s%s", i ? ", " : "", g->insts[i]);
		kp_strbuf_addf(sb, ", tolerance abs %g, rel %g\n", g->tol_abs, g->tol_rel);
	} else if (g->spec_path)
		kp_strbuf_addf(sb, "  launch: %s, kernel %s, tolerance abs %g, rel %g\n",
			       g->spec_path, g->kernel, g->tol_abs, g->tol_rel);
	if (g->build_log)
		text_indented(sb, g->build_log, "  | ");
	if (g->have_device) {
		char d[16], rt[16];
		kp_strbuf_addf(sb, "  device: %s (cc %s, %d SMs, %d MHz), driver %s, runtime %s\n",
			       g->device_name ? g->device_name : "?",
			       g->device_cc ? g->device_cc : "?", g->device_sms,
			       g->device_clock_mhz, version_str(d, sizeof(d), g->driver),
			       version_str(rt, sizeof(rt), g->runtime));
		int width = 4;
		for (int i = 0; i < g->nsizes; i++) {
			kp_strbuf v = KP_STRBUF_INIT;
			size_values(&v, g, &g->sizes[i]);
			if ((int)v.len > width)
				width = (int)v.len;
			kp_strbuf_release(&v);
		}
		/* with several instantiations, a first column names the cell's */
		int iw = inst_width(g);
		kp_strbuf_adds(sb, "    ");
		if (iw)
			kp_strbuf_addf(sb, "%-*s ", iw, "instantiation");
		kp_strbuf_addf(sb, "%-8s %-*s %10s  %s\n", "size", width, "problem", "elements",
			       "rewritten vs original");
		for (int i = 0; i < g->nsizes; i++) {
			const kp_gpu_size *z = &g->sizes[i];
			const kp_gpu_check *c = &z->check;
			kp_strbuf v = KP_STRBUF_INIT;
			size_values(&v, g, z);
			kp_strbuf_adds(sb, "    ");
			if (iw)
				kp_strbuf_addf(sb, "%-*s ", iw, z->inst ? z->inst : "");
			kp_strbuf_addf(sb, "%-8s %-*s ", z->name, width, kp_strbuf_str(&v));
			kp_strbuf_release(&v);
			if (!c->have) {
				kp_strbuf_addf(sb, "%10s  not compared\n", "-");
				continue;
			}
			kp_strbuf_addf(sb, "%10ld  ", c->elements);
			if (c->ok && !c->differ)
				kp_strbuf_adds(sb, "exact\n");
			else if (c->ok)
				kp_strbuf_addf(sb, "within tolerance: max abs %.3g, rel %.3g\n",
					       c->max_abs, c->max_rel);
			else
				kp_strbuf_addf(sb, "FAIL: %ld wrong, %ld never written%s\n",
					       c->mismatches, c->unwritten,
					       c->clobbered ? ", input modified" : "");
		}
	}
	if (g->dir)
		kp_strbuf_addf(sb, "  build kept in %s\n", g->dir);
}

static void rate(char *buf, size_t sz, const kp_gpu_result *g, const kp_gpu_time *t)
{
	if (t->work > 0 && t->median_ms > 0 && g->work_kind && g->work_kind[0])
		snprintf(buf, sz, "%.0f", t->work / (t->median_ms * 1e-3) / 1e9);
	else
		snprintf(buf, sz, "-");
}

/* The rows of instantiation i: the original and the rewritten kernel. */
static void text_times(kp_strbuf *sb, const kp_gpu_result *g, int i, int iw)
{
	static const char *const names[] = {"original", "rewritten"};
	for (int v = 0; v < 2; v++) {
		const kp_gpu_time *t = &g->time[i][v];
		const kp_gpu_attrs *a = &g->attrs[i][v];
		kp_strbuf_adds(sb, "    ");
		if (iw)
			kp_strbuf_addf(sb, "%-*s ", iw, g->insts[i]);
		if (!t->have) {
			kp_strbuf_addf(sb, "%-10s %10s\n", names[v], "-");
			continue;
		}
		char mm[48], r[32], sp[16] = "-", regs[16] = "-", blk[16] = "-";
		snprintf(mm, sizeof(mm), "%.4f-%.4f", t->min_ms, t->max_ms);
		rate(r, sizeof(r), g, t);
		if (g->time[i][0].have && t->median_ms > 0)
			snprintf(sp, sizeof(sp), "%.3fx", g->time[i][0].median_ms / t->median_ms);
		if (a->have) {
			snprintf(regs, sizeof(regs), "%d", a->regs);
			snprintf(blk, sizeof(blk), "%d", a->blocks_per_sm);
		}
		kp_strbuf_addf(sb, "%-10s %10.4f  %-19s %8s  %8s  %5s  %9s\n", names[v],
			       t->median_ms, mm, r, sp, regs, blk);
	}
}

static void text_benchmark(kp_strbuf *sb, const kp_gpu_result *g)
{
	int timed = 0;
	for (int i = 0; i < g->ninsts; i++)
		timed |= g->time[i][0].have || g->time[i][1].have;
	if (!timed)
		return;
	const char *unit = g->work_kind && !strcmp(g->work_kind, "bytes") ? "GB/s" : "GFLOP/s";
	int iw = inst_width(g);
	kp_strbuf_adds(sb, "    ");
	if (iw)
		kp_strbuf_addf(sb, "%-*s ", iw, "instantiation");
	kp_strbuf_addf(sb, "%-10s %10s  %-19s %8s  %8s  %5s  %9s\n", "version", "median ms",
		       "min-max ms", unit, "speedup", "regs", "blocks/SM");
	for (int i = 0; i < g->ninsts; i++)
		text_times(sb, g, i, iw);
	const kp_gpu_time *t = g->time[0][1].have ? &g->time[0][1] : &g->time[0][0];
	const kp_gpu_size *z = NULL;
	for (int i = 0; i < g->nsizes; i++)
		if (g->timed_size && !strcmp(g->sizes[i].name, g->timed_size))
			z = &g->sizes[i];
	kp_strbuf_addf(sb, "    size '%s'", g->timed_size ? g->timed_size : "?");
	if (z && z->vals) {
		kp_strbuf_adds(sb, " (");
		size_values(sb, g, z);
		kp_strbuf_adds(sb, ")");
	}
	kp_strbuf_addf(sb, ": median of %d launches after %d warm-ups, cudaEvent per launch\n",
		       t->reps, t->warmup);
}

static void text_sanitizer(kp_strbuf *sb, const kp_gpu_result *g)
{
	for (int i = 0; i < g->nsan; i++) {
		const kp_gpu_sanitizer *s = &g->san[i];
		char st[64];
		if (s->status == KP_SAN_FAIL)
			snprintf(st, sizeof(st), "FAIL (%d error%s)", s->errors,
				 s->errors == 1 ? "" : "s");
		else
			snprintf(st, sizeof(st), "%s", san_status_name(s->status));
		kp_strbuf_addf(sb, "    %-10s %-22s %5.1f s\n", s->tool, st, s->seconds);
		if (s->excerpt)
			text_indented(sb, s->excerpt, "      ");
	}
}

void kp_gpu_render_text(kp_strbuf *sb, const kp_validate_result *r, int step)
{
	const kp_gpu_result *g = r->gpu;
	if (!g)
		return;
	if (step == KP_STEP_GPU_RUN)
		text_run(sb, g);
	else if (step == KP_STEP_BENCHMARK) {
		text_benchmark(sb, g);
		kp_ncu_render_text(sb, &g->profile);
	} else if (step == KP_STEP_SANITIZER)
		text_sanitizer(sb, g);
}

static void add_num_or_null(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *json_time(const kp_gpu_result *g, int i, int v)
{
	const kp_gpu_time *t = &g->time[i][v];
	if (!t->have)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "median_ms", t->median_ms);
	cJSON_AddNumberToObject(o, "min_ms", t->min_ms);
	cJSON_AddNumberToObject(o, "max_ms", t->max_ms);
	cJSON_AddNumberToObject(o, "mean_ms", t->mean_ms);
	cJSON_AddNumberToObject(o, "reps", t->reps);
	cJSON_AddNumberToObject(o, "warmup", t->warmup);
	if (t->work > 0 && t->median_ms > 0 && g->work_kind && g->work_kind[0])
		cJSON_AddNumberToObject(o, !strcmp(g->work_kind, "bytes") ? "gbps" : "gflops",
					t->work / (t->median_ms * 1e-3) / 1e9);
	const kp_gpu_attrs *a = &g->attrs[i][v];
	if (a->have) {
		cJSON_AddNumberToObject(o, "regs", a->regs);
		cJSON_AddNumberToObject(o, "smem_static", a->smem_static);
		cJSON_AddNumberToObject(o, "local_bytes", a->local_bytes);
		cJSON_AddNumberToObject(o, "blocks_per_sm", a->blocks_per_sm);
	}
	return o;
}

/* "sizes": one object per size (per instantiation and size with several). */
static void json_sizes(cJSON *o, const kp_gpu_result *g)
{
	cJSON *sizes = cJSON_AddArrayToObject(o, "sizes");
	for (int i = 0; i < g->nsizes; i++) {
		const kp_gpu_size *z = &g->sizes[i];
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "name", z->name);
		if (z->inst)
			cJSON_AddStringToObject(s, "instantiation", z->inst);
		cJSON *vals = cJSON_AddObjectToObject(s, "values");
		for (int k = 0; z->vals && k < g->nsymbols; k++)
			cJSON_AddNumberToObject(vals, g->symbols[k], (double)z->vals[k]);
		if (z->base.have) {
			cJSON *b = cJSON_AddObjectToObject(s, "original");
			cJSON_AddBoolToObject(b, "ok", z->base.ok);
			cJSON_AddNumberToObject(b, "elements", (double)z->base.elements);
			cJSON_AddNumberToObject(b, "unwritten", (double)z->base.unwritten);
			cJSON_AddNumberToObject(b, "nondeterministic",
						(double)z->base.nondeterministic);
		} else
			cJSON_AddNullToObject(s, "original");
		const kp_gpu_check *c = &z->check;
		if (c->have) {
			cJSON *x = cJSON_AddObjectToObject(s, "check");
			cJSON_AddBoolToObject(x, "ok", c->ok);
			cJSON_AddNumberToObject(x, "elements", (double)c->elements);
			cJSON_AddNumberToObject(x, "mismatches", (double)c->mismatches);
			cJSON_AddNumberToObject(x, "unwritten", (double)c->unwritten);
			cJSON_AddNumberToObject(x, "differ", (double)c->differ);
			cJSON_AddNumberToObject(x, "clobbered_inputs", (double)c->clobbered);
			add_num_or_null(x, "max_abs", c->max_abs);
			add_num_or_null(x, "max_rel", c->max_rel);
			add_str_or_null(x, "first_mismatch", c->first);
		} else
			cJSON_AddNullToObject(s, "check");
		cJSON_AddItemToArray(sizes, s);
	}
}

/* The two versions' times of instantiation i and their comparison, into b. */
static void json_pair(cJSON *b, const kp_gpu_result *g, int i)
{
	cJSON_AddItemToObject(b, "original", json_time(g, i, 0));
	cJSON_AddItemToObject(b, "rewritten", json_time(g, i, 1));
	const kp_gpu_time *t0 = &g->time[i][0], *t1 = &g->time[i][1];
	if (t0->have && t1->have && t1->median_ms > 0) {
		double spread = dmax(t0->max_ms - t0->min_ms, t1->max_ms - t1->min_ms);
		cJSON_AddNumberToObject(b, "speedup", t0->median_ms / t1->median_ms);
		cJSON_AddNumberToObject(b, "spread_ms", spread);
		cJSON_AddBoolToObject(b, "noise", dabs(t0->median_ms - t1->median_ms) < spread);
	}
}

/* "benchmark": the times at the timed size (per instantiation with
 * several: "instantiations"), or null. */
static void json_benchmark(cJSON *o, const kp_gpu_result *g)
{
	int timed = 0;
	for (int i = 0; i < g->ninsts; i++)
		timed |= g->time[i][0].have || g->time[i][1].have;
	if (!timed) {
		cJSON_AddNullToObject(o, "benchmark");
		return;
	}
	cJSON *b = cJSON_AddObjectToObject(o, "benchmark");
	add_str_or_null(b, "size", g->timed_size);
	cJSON_AddStringToObject(b, "work_kind", g->work_kind ? g->work_kind : "");
	if (g->ninsts < 2) {
		json_pair(b, g, 0);
		return;
	}
	cJSON *arr = cJSON_AddArrayToObject(b, "instantiations");
	for (int i = 0; i < g->ninsts; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "instantiation", g->insts[i]);
		json_pair(x, g, i);
		cJSON_AddItemToArray(arr, x);
	}
}

void *kp_gpu_render_json(const kp_validate_result *r)
{
	const kp_gpu_result *g = r->gpu;
	cJSON *o = cJSON_CreateObject();
	add_str_or_null(o, "spec", g->spec_path);
	add_str_or_null(o, "kernel", g->kernel);
	if (g->ninsts > 1) {
		cJSON *in = cJSON_AddArrayToObject(o, "instantiations");
		for (int i = 0; i < g->ninsts; i++)
			cJSON_AddItemToArray(in, cJSON_CreateString(g->insts[i]));
	}
	add_str_or_null(o, "dir", g->dir);
	add_str_or_null(o, "no_device", g->no_device);
	if (g->have_device) {
		cJSON *d = cJSON_AddObjectToObject(o, "device");
		add_str_or_null(d, "name", g->device_name);
		add_str_or_null(d, "cc", g->device_cc);
		cJSON_AddNumberToObject(d, "sms", g->device_sms);
		cJSON_AddNumberToObject(d, "clock_mhz", g->device_clock_mhz);
		cJSON_AddNumberToObject(d, "driver", g->driver);
		cJSON_AddNumberToObject(d, "runtime", g->runtime);
	} else
		cJSON_AddNullToObject(o, "device");
	cJSON *tol = cJSON_AddObjectToObject(o, "tolerance");
	cJSON_AddNumberToObject(tol, "abs", g->tol_abs);
	cJSON_AddNumberToObject(tol, "rel", g->tol_rel);
	json_sizes(o, g);
	json_benchmark(o, g);
	cJSON *san = cJSON_AddArrayToObject(o, "sanitizer");
	for (int i = 0; i < g->nsan; i++) {
		const kp_gpu_sanitizer *s = &g->san[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "tool", s->tool);
		cJSON_AddStringToObject(x, "status", san_status_name(s->status));
		cJSON_AddNumberToObject(x, "errors", s->errors);
		cJSON_AddNumberToObject(x, "warnings", s->warnings);
		cJSON_AddNumberToObject(x, "exit_status", s->exit_status);
		cJSON_AddNumberToObject(x, "seconds", s->seconds);
		add_str_or_null(x, "excerpt", s->excerpt);
		cJSON_AddItemToArray(san, x);
	}
	add_str_or_null(o, "sanitize_size", g->nsan ? g->sanitize_size : NULL);
	if (g->harness_ran) {
		cJSON *h = cJSON_AddObjectToObject(o, "harness");
		cJSON_AddNumberToObject(h, "exit_status", g->harness_rc);
		cJSON_AddBoolToObject(h, "timed_out", g->timed_out);
	} else
		cJSON_AddNullToObject(o, "harness");
	add_str_or_null(o, "build_log", g->build_log);
	if (g->profile.requested)
		cJSON_AddItemToObject(o, "profile", (cJSON *)kp_ncu_render_json(&g->profile));
	else
		cJSON_AddNullToObject(o, "profile");
	return o;
}
