/*
 * events.c - decodes the harness's JSON-lines events (see events.h) with
 * cJSON, one line at a time, into kp_event's typed fields.
 */
#include "events.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h> /* NAN only: no libm */
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct {
	const char *name;
	kp_event_kind kind;
} kinds[] = {
	{"device", KP_EV_DEVICE},     {"attrs", KP_EV_ATTRS},
	{"begin", KP_EV_BEGIN},       {"baseline", KP_EV_BASELINE},
	{"check", KP_EV_CHECK},       {"time", KP_EV_TIME},
	{"error", KP_EV_ERROR},       {"fatal", KP_EV_FATAL},
	{"single", KP_EV_SINGLE},     {"done", KP_EV_DONE},
	{"sanitize", KP_EV_SANITIZE}, {"sanitize-skip", KP_EV_SANITIZE_SKIP},
	{"copy", KP_EV_COPY},         {"dropped", KP_EV_DROPPED},
	{"phase", KP_EV_PHASE},
};

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

static int is_true(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static void release_line(kp_event_reader *r)
{
	cJSON_Delete(r->json);
	r->json = NULL;
	free(r->all);
	r->all = NULL;
}

void kp_event_reader_init(kp_event_reader *r, const char *text)
{
	memset(r, 0, sizeof(*r));
	r->p = text ? text : "";
}

void kp_event_reader_release(kp_event_reader *r)
{
	release_line(r);
	r->p = "";
}

/* The next line that is a JSON object with a string "event", or NULL. */
static cJSON *next_object(kp_event_reader *r)
{
	while (*r->p) {
		const char *line = r->p;
		size_t len = strcspn(line, "\n");
		r->p += len + (line[len] == '\n');
		const char *q = line;
		while (q < line + len && isspace((unsigned char)*q))
			q++;
		if (q == line + len || *q != '{')
			continue;
		cJSON *e = cJSON_ParseWithLength(q, len - (size_t)(q - line));
		if (e && cJSON_IsObject(e) && str(e, "event"))
			return e;
		cJSON_Delete(e);
	}
	return NULL;
}

static void decode_first_mismatch(kp_event *e, const cJSON *j)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "first_mismatch");
	e->first_index = -1;
	e->first_got = e->first_want = NAN;
	if (!cJSON_IsObject(f))
		return;
	e->has_first = 1;
	e->first_arg = str(f, "arg");
	e->first_index = num(f, "index", -1);
	e->first_unwritten = is_true(f, "unwritten");
	e->first_got = num(f, "got", NAN);
	e->first_want = num(f, "want", NAN);
}

static void decode_all_ms(kp_event_reader *r, kp_event *e, const cJSON *j)
{
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(j, "all_ms");
	e->all_entries = cJSON_GetArraySize(all);
	if (e->all_entries <= 0)
		return;
	r->all = kp_xcalloc((size_t)e->all_entries, sizeof(double));
	const cJSON *x;
	cJSON_ArrayForEach(x, all)
	{
		if (cJSON_IsNumber(x))
			r->all[e->nall_ms++] = x->valuedouble;
	}
	e->all_ms = r->all;
}

int kp_event_next(kp_event_reader *r, kp_event *e)
{
	release_line(r);
	cJSON *j = next_object(r);
	if (!j)
		return 0;
	r->json = j;
	memset(e, 0, sizeof(*e));
	e->name = str(j, "event");
	e->kind = KP_EV_OTHER;
	for (size_t i = 0; i < KP_ARRAY_LEN(kinds); i++)
		if (!strcmp(e->name, kinds[i].name))
			e->kind = kinds[i].kind;
	e->version = str(j, "version");
	e->size = str(j, "size");
	e->inst = str(j, "inst");
	e->ok = is_true(j, "ok");
	e->device_name = str(j, "name");
	e->cc = str(j, "cc");
	e->sms = (int)num(j, "sms", 0);
	e->clock_mhz = (int)num(j, "clock_mhz", 0);
	e->driver = (int)num(j, "driver", 0);
	e->runtime = (int)num(j, "runtime", 0);
	e->regs = (int)num(j, "regs", 0);
	e->smem_static = (int)num(j, "smem_static", 0);
	e->local_bytes = (int)num(j, "local_bytes", 0);
	e->max_threads = (int)num(j, "max_threads", 0);
	e->blocks_per_sm = (int)num(j, "blocks_per_sm", 0);
	e->threads = (int)num(j, "threads", 0);
	e->elements = (long)num(j, "elements", 0);
	e->unwritten = (long)num(j, "unwritten", 0);
	e->nondeterministic = (long)num(j, "nondeterministic", 0);
	e->mismatches = (long)num(j, "mismatches", 0);
	e->differ = (long)num(j, "differ", 0);
	e->clobbered_inputs = (long)num(j, "clobbered_inputs", 0);
	e->max_abs = num(j, "max_abs", NAN);
	e->max_rel = num(j, "max_rel", NAN);
	decode_first_mismatch(e, j);
	e->reps = (int)num(j, "reps", 0);
	e->warmup = (int)num(j, "warmup", 0);
	e->round = (int)num(j, "round", 0);
	e->median_ms = num(j, "median_ms", 0);
	e->min_ms = num(j, "min_ms", 0);
	e->max_ms = num(j, "max_ms", 0);
	e->mean_ms = num(j, "mean_ms", 0);
	e->work = num(j, "work", NAN);
	e->work_kind = str(j, "work_kind");
	e->bytes = num(j, "bytes", 0);
	decode_all_ms(r, e, j);
	e->stage = str(j, "stage");
	e->msg = str(j, "msg");
	e->tool = str(j, "tool");
	e->errors = (long)num(j, "errors", 0);
	e->seconds = num(j, "seconds", 0);
	e->rounds = (int)num(j, "rounds", 0);
	e->speedup = num(j, "speedup", NAN);
	e->phase = str(j, "phase");
	return 1;
}
