/*
 * gpu_result.c - the result of `kpipe validate`'s GPU steps (kp_gpu_result:
 * one cell per size and instantiation) and what fills it: the harness's
 * JSON-lines events (decoded by events.c) and compute-sanitizer's output.
 * Nothing here prints.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_run.h"
#include "events.h"
#include "gpu_run_int.h"

#include <ctype.h>
#include <math.h> /* macros only (isfinite, INFINITY): no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
kp_gpu_size *kp_gpu_find_size(kp_gpu_result *g, const char *name, const char *inst, int add)
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

/* ---- harness events --------------------------------------------------- */

/* "size 'small'", or with several instantiations "size 'small' of
 * instantiation <64>" (in g's arena). */
const char *kp_gpu_cell_label(kp_gpu_result *g, const char *size, const char *inst)
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
				kp_gpu_baseline *b = &kp_gpu_find_size(g, e.size, e.inst, 1)->base;
				b->have = 1;
				b->ok = e.ok;
				b->elements = e.elements;
				b->unwritten = e.unwritten;
				b->nondeterministic = e.nondeterministic;
			}
			break;
		case KP_EV_CHECK:
			if (e.size && vi == 1)
				absorb_check(g, &e, &kp_gpu_find_size(g, e.size, e.inst, 1)->check);
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
