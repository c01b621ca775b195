/*
 * gpu_judge.c - the verdicts of `kpipe validate`'s steps 3 (gpu-run), 4
 * (benchmark) and 5 (sanitizer) from a kp_gpu_result: each step's status,
 * summary and findings on the kp_validate_result.  Nothing here prints.
 */
#include "gpu_run.h"
#include "gpu_run_int.h"

#include <math.h> /* macros only (isfinite, INFINITY): no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- verdicts --------------------------------------------------------- */

/* Step 3 gets the whole reason, steps 4 and 5 its head ("no CUDA device")
 * and a pointer to step 3. */
void kp_gpu_skip_steps(kp_validate_result *r, int sanitize, const char *head, const char *reason)
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

/* Whether a finding of step 3 names cell z (its kp_gpu_cell_label()), or the
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
	const char *label = kp_gpu_cell_label(g, z->name, z->inst);
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
		const char *at = kp_gpu_cell_label(g, e->size, e->inst);
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
		const char *at = kp_gpu_cell_label(g, z->name, z->inst);
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
	const char *last = kp_gpu_cell_label(g, g->last_begin_size ? g->last_begin_size : "?",
					     g->last_begin_inst);
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
						    kp_gpu_cell_label(g, z->name, z->inst));
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
				speedup, kp_gpu_cell_label(g, g->timed_size, g->insts[i]),
				o->median_ms, n->median_ms, spread);
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
					     kp_gpu_cell_label(g, g->timed_size, g->insts[i]));
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

const char *kp_gpu_san_status_name(kp_san_status s)
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
		kp_gpu_skip_steps(r, sanitize, "no CUDA device", kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		return;
	}
	judge_run(r, g);
	judge_benchmark(r, g);
	judge_sanitizer(r, g, sanitize);
}
