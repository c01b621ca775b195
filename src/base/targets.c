/*
 * targets.c - several targets at once (arch.h): an ordered set of table
 * entries, parsed from a comma list, and the limits a group of them
 * shares, which a rewrite meant for all of them must respect.
 */
#include "arch.h"

#include <stdio.h>
#include <string.h>

int kp_targets_add(kp_targets *t, const kp_arch *a)
{
	int at = 0;
	for (int i = 0; i < t->n; i++) {
		if (t->v[i] == a)
			return 0;
		if (t->v[i]->cc < a->cc)
			at = i + 1;
	}
	if (t->n == KP_MAX_TARGETS)
		return -1;
	memmove(&t->v[at + 1], &t->v[at], sizeof(t->v[0]) * (size_t)(t->n - at));
	t->v[at] = a;
	t->n++;
	return 0;
}

int kp_targets_parse(kp_targets *t, const char *list, char *bad, int nbad)
{
	t->n = 0;
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(n < 63 ? n : 63), p);
		const kp_arch *a = n ? kp_arch_find(name) : NULL;
		if (!a || kp_targets_add(t, a)) {
			snprintf(bad, (size_t)nbad, "%s", name);
			return -1;
		}
		p += n;
		p += *p == ',';
	}
	if (!t->n) {
		snprintf(bad, (size_t)nbad, "%s", list);
		return -1;
	}
	return 0;
}

#define LESS(field)                                                                                \
	do {                                                                                       \
		if (v[i]->field < out->field)                                                      \
			out->field = v[i]->field;                                                  \
	} while (0)

void kp_arch_common(const kp_arch *const *v, int n, kp_arch *out)
{
	*out = *v[0];
	for (int i = 1; i < n; i++) {
		if (v[i]->cc < out->cc) {
			out->name = v[i]->name;
			out->cc = v[i]->cc;
			out->family = v[i]->family;
		}
		LESS(smem_per_sm);
		LESS(smem_static_per_block);
		LESS(smem_optin_per_block);
		LESS(max_threads_per_sm);
		LESS(max_threads_per_block);
		LESS(max_blocks_per_sm);
		LESS(max_warps_per_sm);
		LESS(regs_per_sm);
		LESS(regs_per_block);
		LESS(max_regs_per_thread);
		LESS(has_cp_async);
		if (v[i]->smem_reserved_per_block > out->smem_reserved_per_block)
			out->smem_reserved_per_block = v[i]->smem_reserved_per_block;
		if (v[i]->reg_alloc_unit > out->reg_alloc_unit)
			out->reg_alloc_unit = v[i]->reg_alloc_unit;
	}
}

void kp_targets_names(const kp_arch *const *v, int n, char *buf, int nbuf)
{
	int used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && used < nbuf; i++) {
		int w = snprintf(buf + used, (size_t)(nbuf - used), "%s%s", i ? "," : "",
				 v[i]->name);
		if (w < 0)
			break;
		used += w;
	}
}
