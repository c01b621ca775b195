/*
 * dyn_smem.c - dynamic (extern) shared memory: why a dynamic tile cannot
 * get a buffer per stage.  The parser marks the carve-outs of an extern
 * __shared__ array, and those of a static one of the kernel
 * (kp_decl.dyn_base: src/model/carves.c decides, frontend/parse_carve.c
 * records; static_carve.c checks the latter).
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

typedef struct {
	const kp_decl *base;
	const kp_decl *other;  /* another extern array the kernel names */
	const kp_node *direct; /* the base named outside a carve-out's initialiser */
	const kp_decl *carves[16];
	int ncarves;
} dyn_walk;

static int walk_dynamic(kp_node *n, kp_node *parent, void *ud)
{
	dyn_walk *w = ud;
	(void)parent;
	if (n->kind == KP_N_VARDECL && n->decl && n->decl->dyn_base == w->base) {
		if (w->ncarves < 16)
			w->carves[w->ncarves++] = n->decl;
		return 0; /* its initialiser names the base: not a direct use */
	}
	if (n->kind != KP_N_DECLREF || !n->decl)
		return 1;
	if (n->decl == w->base) {
		if (!w->direct)
			w->direct = n;
	} else if (kp_decl_is_extern_shared(n->decl) && !w->other)
		w->other = n->decl;
	return 1;
}

/* Why the dynamic tile t cannot get a buffer per stage in dynamic shared
 * memory (the extern region repeated once per stage, kp_stage_bytes
 * apart), or NULL. */
const char *kp_dynamic_tile_problem(kp_file *f, kp_kernel *k, const long long *iv, const kp_tile *t)
{
	kp_arena *a = &f->arena;
	const kp_decl *d = t->arr, *base = d->dyn_base ? d->dyn_base : d;
	if (k->is_device)
		return kp_arena_printf(
			a,
			"'%s' is dynamic shared memory of a __device__ function: the "
			"launches of its callers would have to change",
			d->name);
	if (t->in_loop)
		return kp_arena_printf(a, "'%s' is declared inside the loop", d->name);
	dyn_walk w = {base, NULL, NULL, {0}, 0};
	kp_node_walk(k->body, NULL, walk_dynamic, &w);
	if (w.other)
		return kp_arena_printf(
			a,
			"the kernel names two extern __shared__ arrays ('%s' and '%s'), "
			"which are one region",
			base->name, w.other->name);
	if (w.ncarves >= 16)
		return "more than 16 carve-outs of one dynamic array";
	if (w.ncarves && w.direct)
		return kp_arena_printf(
			a,
			"'%s' is used at line %d besides its carve-outs: kpipe cannot "
			"tell what else lives in the region",
			base->name, w.direct->line);
	for (int i = 0; i < w.ncarves; i++)
		for (int j = i + 1; j < w.ncarves; j++) {
			const kp_node *x = w.carves[i]->dyn_off, *y = w.carves[j]->dyn_off;
			long long vx = 0, vy = 0;
			int cx = !x || kp_eval(x, k, iv, &vx) == 0;
			int cy = !y || kp_eval(y, k, iv, &vy) == 0;
			int same = (cx && cy)     ? vx == vy
				   : (!cx && !cy) ? !strcmp(kp_node_text(f, x), kp_node_text(f, y))
						  : 0;
			if (same)
				return kp_arena_printf(
					a,
					"the carve-outs '%s' and '%s' of '%s' start at the "
					"same offset: they alias",
					w.carves[i]->name, w.carves[j]->name, base->name);
		}
	return NULL;
}
