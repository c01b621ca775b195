/*
 * analyze_targets.c - the plan per target in `kpipe analyze`
 * (analyze_targets.h).
 */
#include "analyze_targets.h"

#include <stdio.h>

int kp_an_multi(const kp_cli *o) { return o->targets.n >= 2; }

/* The static shared memory of `bufs` buffers of the loop's tiles with
 * `extra` bytes beside (every instantiation: the most), -1 unknown. */
static long long tile_bytes(const kp_loop *l, int bufs, long long extra)
{
	if (l->nper_inst <= 0)
		return l->tile_bytes > 0 ? l->tile_bytes * bufs + l->other_smem + extra : -1;
	long long most = -1;
	for (int i = 0; i < l->nper_inst; i++) {
		const kp_loop *q = l->per_inst[i];
		if (q->tile_bytes <= 0)
			return -1;
		long long b = q->tile_bytes * bufs + q->other_smem + extra;
		if (b > most)
			most = b;
	}
	return most;
}

/* What p's buffers take, -1 unknown or dynamic; the loop as written (one
 * buffer) where tp keeps it for the older targets. */
static long long plan_bytes(const kp_loop *l, const kp_tplan *tp, const kp_plan *p)
{
	if (tp && tp->lo_asis && p == &tp->lo)
		return tile_bytes(l, 1, 0);
	if (!p->xform || p->dynamic)
		return -1;
	return tile_bytes(l, p->xform->buffers(p->stages),
			  p->xform->own_smem ? p->xform->own_smem(p->stages) : 0);
}

static void plan_text(const kp_plan *p, char *buf, size_t n)
{
	if (p->xform)
		snprintf(buf, n, "%s, %d stages", p->xform->name, p->stages);
	else
		snprintf(buf, n, "refused [%s]", p->refuse_id);
}

void kp_an_text_targets(kp_file *f, const kp_loop *l, const kp_cli *o)
{
	kp_tplan tp;
	kp_plan_targets(&tp, f, l, &o->targets, o->variant, o->stages);
	char names[256];
	kp_targets_names(o->targets.v, o->targets.n, names, (int)sizeof(names));
	if (tp.split && tp.lo_asis)
		printf("    plan for %s: one source, #if __CUDA_ARCH__ >= %d0: %s, %d stages: %s; "
		       "#else: the loop as written: %s\n",
		       names, tp.guard_cc, tp.hi.xform->name, tp.hi.stages, tp.hi.why,
		       tp.lo.refuse_msg);
	else if (tp.split)
		printf("    plan for %s: one source, #if __CUDA_ARCH__ >= %d0: %s, %d stages: %s; "
		       "#else: %s, %d stages: %s\n",
		       names, tp.guard_cc, tp.hi.xform->name, tp.hi.stages, tp.hi.why,
		       tp.lo.xform->name, tp.lo.stages, tp.lo.why);
	else if (tp.one.xform)
		printf("    plan for %s: %s, %d stages: %s%s%s%s\n", names, tp.one.xform->name,
		       tp.one.stages, tp.one.why, tp.why_one ? " (" : "",
		       tp.why_one ? tp.why_one : "", tp.why_one ? ")" : "");
	else
		printf("    plan for %s: refused [%s] %s\n", names, tp.one.refuse_id,
		       tp.one.refuse_msg);
	for (int i = 0; i < o->targets.n; i++) {
		const kp_arch *a = o->targets.v[i];
		const kp_plan *p = kp_tplan_for(&tp, a);
		char pt[128];
		if (tp.lo_asis && p == &tp.lo)
			snprintf(pt, sizeof(pt), "as written");
		else
			plan_text(p, pt, sizeof(pt));
		long long b = plan_bytes(l, &tp, p);
		printf("      %-7s %-24s", a->name, pt);
		if (p->xform && p->dynamic)
			printf(" %lld B dynamic", p->dyn_bytes);
		else if (b >= 0)
			printf(" %lld B", b);
		printf(" (static %d KB, opt-in %d KB per block)\n", a->smem_static_per_block / 1024,
		       a->smem_optin_per_block / 1024);
	}
}

void kp_an_json_targets(cJSON *j, kp_file *f, const kp_loop *l, const kp_cli *o)
{
	kp_tplan tp;
	kp_plan_targets(&tp, f, l, &o->targets, o->variant, o->stages);
	if (tp.split)
		cJSON_AddNumberToObject(j, "split_cc", tp.guard_cc);
	else
		cJSON_AddNullToObject(j, "split_cc");
	cJSON *arr = cJSON_AddArrayToObject(j, "targets");
	for (int i = 0; i < o->targets.n; i++) {
		const kp_arch *a = o->targets.v[i];
		const kp_plan *p = kp_tplan_for(&tp, a);
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", a->name);
		if (tp.lo_asis && p == &tp.lo) { /* the loop as written there */
			cJSON_AddNullToObject(x, "variant");
			cJSON_AddTrueToObject(x, "as_written");
			cJSON_AddStringToObject(x, "why", p->refuse_msg);
		} else if (p->xform) {
			cJSON_AddStringToObject(x, "variant", p->xform->name);
			cJSON_AddNumberToObject(x, "stages", p->stages);
			cJSON_AddStringToObject(x, "why", p->why);
		} else {
			cJSON_AddNullToObject(x, "variant");
			cJSON_AddStringToObject(x, "refused", p->refuse_id);
			cJSON_AddStringToObject(x, "why", p->refuse_msg);
		}
		long long b = plan_bytes(l, &tp, p);
		if (b >= 0)
			cJSON_AddNumberToObject(x, "smem_bytes", (double)b);
		else
			cJSON_AddNullToObject(x, "smem_bytes");
		cJSON_AddNumberToObject(x, "dynamic_smem", p->dynamic ? (double)p->dyn_bytes : 0);
		cJSON_AddNumberToObject(x, "smem_static_limit", a->smem_static_per_block);
		cJSON_AddNumberToObject(x, "smem_optin_limit", a->smem_optin_per_block);
		cJSON_AddItemToArray(arr, x);
	}
}
