/*
 * validate_result.c - recording on a kp_validate_result: findings, step
 * verdicts, and the exit code they add up to (see validate_result.h).
 */
#include "validate_result.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *kp_step_status_name(kp_step_status s)
{
	switch (s) {
	case KP_STEP_PASSED: return "PASSED";
	case KP_STEP_FAILED: return "FAILED";
	default: return "SKIPPED";
	}
}

void kp_validate_finding(kp_validate_result *r, kp_find_level level, int step, const char *kernel,
			 const char *fmt, ...)
{
	if (r->nfindings == r->fcap) {
		r->fcap = r->fcap ? r->fcap * 2 : 16;
		r->findings = kp_xrealloc(r->findings, (size_t)r->fcap * sizeof(*r->findings));
	}
	kp_strbuf sb = KP_STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	kp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	kp_finding *f = &r->findings[r->nfindings++];
	f->level = level;
	f->step = step;
	f->kernel = kernel;
	f->message = kp_arena_strndup(&r->arena, kp_strbuf_str(&sb), sb.len);
	kp_strbuf_release(&sb);
}

void kp_validate_set_step(kp_step *s, kp_step_status st, const char *fmt, ...)
{
	s->status = st;
	s->not_requested = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

const kp_finding *kp_validate_first_error(const kp_validate_result *r, int step)
{
	for (int i = 0; i < r->nfindings; i++)
		if (r->findings[i].step == step && r->findings[i].level == KP_FIND_ERROR)
			return &r->findings[i];
	return NULL;
}

int kp_validate_exit_code(const kp_validate_result *r)
{
	int skipped = 0;
	for (int i = 0; i < (r->gpu ? 5 : 2); i++) {
		if (r->steps[i].status == KP_STEP_FAILED)
			return 4;
		skipped |= r->steps[i].status == KP_STEP_SKIPPED && !r->steps[i].not_requested;
	}
	return skipped ? 6 : 0;
}
