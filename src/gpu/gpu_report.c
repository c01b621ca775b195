/*
 * gpu_report.c - the reports of `kpipe validate`'s GPU steps: the text
 * lines of steps 3-5 (kp_gpu_render_text) and their JSON
 * (kp_gpu_render_json), from the kp_gpu_result.  Nothing here prints: the
 * caller writes what it gets.
 */
#include "gpu_run.h"
#include "gpu_run_int.h"

#include <cjson/cJSON.h>
#include <math.h> /* macros only (isfinite, INFINITY): no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			snprintf(st, sizeof(st), "%s", kp_gpu_san_status_name(s->status));
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
		cJSON_AddStringToObject(x, "status", kp_gpu_san_status_name(s->status));
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
