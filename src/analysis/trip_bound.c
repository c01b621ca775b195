/*
 * trip_bound.c - the most trips a copy loop makes when its first value
 * depends on the thread (`for (y = threadIdx.y / 2; y < 128; y += 8)`):
 * the first value is never below a bound the expression proves (threadIdx
 * components are at least 0, and no part of it may wrap around), so no
 * thread makes more trips than a thread
 * starting there.  Register staging sizes its staging registers by that
 * count; each thread fills and empties only the slots of its own trips,
 * under the same loop header (kp_load.max_trips).
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

/* The least and the largest value of n over every thread, when n is
 * built from constants and threadIdx components with +, *, / and % by a
 * positive constant and >> by a constant, every part of it between 0 and
 * 2^31 - 1 (no wrap-around: a threadIdx component is at most 1023, .z
 * 63): 0, *min and *max; -1 when not proven. */
static int bounds(actx *c, const kp_node *n, int depth, long long *min, long long *max)
{
	const long long lim = 2147483647LL;
	n = kp_node_strip(n);
	if (!n || depth > 16)
		return -1;
	long long v;
	if (kp_eval(n, c->k, c->iv, &v) == 0) {
		*min = *max = v;
		return v >= 0 && v <= lim ? 0 : -1;
	}
	int comp;
	const char *b = kp_node_builtin(c->f, n, 1, &comp);
	if (b && !strcmp(b, "threadIdx")) {
		*min = 0;
		*max = comp == 2 ? 63 : 1023;
		return 0;
	}
	if (n->kind != KP_N_BINOP || n->nkids != 2 || !n->op)
		return -1;
	long long a0, a1, r0, r1, r;
	if (bounds(c, n->kids[0], depth + 1, &a0, &a1))
		return -1;
	switch (n->opk) {
	case KP_OP_ADD:
	case KP_OP_MUL:
		if (bounds(c, n->kids[1], depth + 1, &r0, &r1))
			return -1;
		if (n->opk == KP_OP_ADD) {
			*min = a0 + r0;
			*max = a1 + r1;
		} else {
			if (r1 > 0 && a1 > lim / r1)
				return -1;
			*min = a0 * r0;
			*max = a1 * r1;
		}
		return *max <= lim ? 0 : -1;
	case KP_OP_DIV:
	case KP_OP_REM:
	case KP_OP_SHR:
		if (kp_eval(n->kids[1], c->k, c->iv, &r) || r < 0 ||
		    (r == 0 && n->opk != KP_OP_SHR) || r > 62)
			return -1;
		*min = n->opk == KP_OP_DIV ? a0 / r : n->opk == KP_OP_REM ? 0 : a0 >> r;
		*max = n->opk == KP_OP_DIV ? a1 / r : n->opk == KP_OP_REM ? r - 1 : a1 >> r;
		return 0;
	default: return -1;
	}
}

double kp_range_max_trips(actx *c, const kp_range *r)
{
	long long lo, hi, s = 1, off = 0;
	if (!r->lo || !r->hi || !r->op || !r->step_ok || (!r->step_is_one && !r->step))
		return -1;
	long long lo_max;
	if (bounds(c, r->lo, 0, &lo, &lo_max) || kp_eval(r->hi, c->k, c->iv, &hi))
		return -1;
	if (r->hi_off && kp_eval(r->hi_off, c->k, c->iv, &off))
		return -1;
	if (r->step && kp_eval(r->step, c->k, c->iv, &s))
		return -1;
	hi -= off;
	if (s <= 0)
		return -1;
	if (r->opk == KP_OP_LT)
		return hi > lo ? (double)((hi - lo + s - 1) / s) : 0;
	if (r->opk == KP_OP_LE)
		return hi >= lo ? (double)((hi - lo) / s + 1) : 0;
	return -1;
}
