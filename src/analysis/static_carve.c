/*
 * static_carve.c - tiles carved out of a static __shared__ array of the
 * kernel (`__shared__ char buf[N]; float *As = (float *)buf; float *Bs =
 * (float *)(buf + 4096);`): which arrays are such regions, why a carve-out
 * cannot get a buffer per stage, and the region's bytes for the budget.
 * Each carve-out is a tile of known element type at a constant byte
 * offset; its extent runs to the next carve-out's offset (or the end of
 * the array), so distinct offsets make disjoint tiles, as distinct arrays
 * are (an access is taken to stay inside its tile, as an array index stays
 * inside its bounds).  The rewrite repeats the whole array once per buffer
 * (its bound becomes `S * (N)`) and stage s of a carve-out is the same
 * pointer s arrays further (transforms/render.c).
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

#define MAX_CARVES 16

typedef struct {
	const kp_decl *base;
	const kp_node *direct; /* the base named outside a carve-out's initialiser */
	const kp_decl *carves[MAX_CARVES];
	int ncarves;
} carve_walk;

static int walk_carves(kp_node *n, kp_node *parent, void *ud)
{
	carve_walk *w = ud;
	(void)parent;
	if (n->kind == KP_N_VARDECL && n->decl && n->decl->dyn_base == w->base) {
		if (w->ncarves < MAX_CARVES)
			w->carves[w->ncarves] = n->decl;
		w->ncarves++;
		return 0; /* its initialiser names the base: not a direct use */
	}
	if (n->kind == KP_N_DECLREF && n->decl == w->base && !w->direct)
		w->direct = n;
	return 1;
}

/* The byte offset of carve-out d in its array: 0 when it is the array, -1
 * when the offset is not a constant. */
static long long carve_offset(const kp_kernel *k, const long long *iv, const kp_decl *d)
{
	long long v = 0;
	if (!d->dyn_off)
		return 0;
	if (kp_eval(d->dyn_off, k, iv, &v) != 0)
		return -1;
	return v * (d->dyn_base->elem_size > 0 ? d->dyn_base->elem_size : 1);
}

/* Bytes of the static array base, -1 when not known. */
static long long region_bytes(const kp_decl *base)
{
	long long b = base->elem_size;
	for (int i = 0; i < base->ndims && b > 0; i++)
		b = base->dims[i] > 0 ? b * base->dims[i] : -1;
	return b;
}

static const char *offsets_problem(kp_arena *a, const kp_kernel *k, const long long *iv,
				   const carve_walk *w, long long n)
{
	long long off[MAX_CARVES];
	for (int i = 0; i < w->ncarves; i++) {
		const kp_decl *d = w->carves[i];
		off[i] = carve_offset(k, iv, d);
		if (off[i] < 0)
			return kp_arena_printf(
				a,
				"the carve-out '%s' of '%s' starts at an offset that is "
				"not a constant: kpipe cannot prove the carve-outs "
				"disjoint",
				d->name, w->base->name);
		if (off[i] >= n)
			return kp_arena_printf(
				a,
				"the carve-out '%s' starts at byte %lld, past the %lld B "
				"of '%s'",
				d->name, off[i], n, w->base->name);
		if (d->pointee_align > 0 && off[i] % d->pointee_align)
			return kp_arena_printf(
				a,
				"the carve-out '%s' starts at byte %lld of '%s', not a "
				"multiple of its element's alignment (%lld)",
				d->name, off[i], w->base->name, d->pointee_align);
		if (d->pointee_align > 16)
			return kp_arena_printf(
				a,
				"the carve-out '%s' has elements aligned to %lld B: the "
				"copies of '%s' keep 16",
				d->name, d->pointee_align, w->base->name);
	}
	for (int i = 0; i < w->ncarves; i++)
		for (int j = i + 1; j < w->ncarves; j++)
			if (off[i] == off[j])
				return kp_arena_printf(
					a,
					"the carve-outs '%s' and '%s' of '%s' start at "
					"the same offset (byte %lld): they overlap",
					w->carves[i]->name, w->carves[j]->name, w->base->name,
					off[i]);
	return NULL;
}

const char *kp_static_carve_problem(kp_file *f, const kp_kernel *k, const long long *iv,
				    const kp_tile *t)
{
	kp_arena *a = &f->arena;
	const kp_decl *d = t->arr, *base = d->dyn_base;
	if (t->in_loop)
		return kp_arena_printf(a, "the carve-out '%s' is declared inside the loop",
				       d->name);
	if (!base->in_main || base->bounds_hidden || base->ndims != 1 || !base->dim_text[0] ||
	    base->name_end < 2 || f->src[base->name_end - 1] != ']')
		return kp_arena_printf(a,
				       "the declaration of '%s' (one bound, spelled after its "
				       "name) is what kpipe repeats per stage, and it cannot be "
				       "edited",
				       base->name);
	long long n = region_bytes(base);
	if (n <= 0)
		return kp_arena_printf(a, "the size of '%s' is not known", base->name);
	if (n % 16)
		return kp_arena_printf(a,
				       "'%s' has %lld B, not a multiple of 16: its copies per "
				       "stage would not keep the alignment of the first",
				       base->name, n);
	carve_walk w = {base, NULL, {0}, 0};
	kp_node_walk(k->body, NULL, walk_carves, &w);
	if (w.ncarves > MAX_CARVES)
		return kp_arena_printf(a, "more than %d carve-outs of '%s'", MAX_CARVES,
				       base->name);
	if (w.direct)
		return kp_arena_printf(a,
				       "'%s' is used at line %d besides its carve-outs: kpipe "
				       "cannot tell what else lives in it",
				       base->name, w.direct->line);
	return offsets_problem(a, k, iv, &w, n);
}

/* Whether an earlier loaded tile of l is a carve-out of base. */
static int base_seen(const kp_loop *l, int upto, const kp_decl *base)
{
	for (int i = 0; i < upto; i++)
		if (l->tiles[i].loaded && l->tiles[i].arr->dyn_base == base)
			return 1;
	return 0;
}

void kp_static_carve_tiles(actx *c)
{
	kp_loop *l = c->l;
	l->carve_tiles = 0;
	for (int i = 0; i < l->ntiles; i++) {
		kp_tile *t = &l->tiles[i];
		if (!t->loaded || !kp_decl_is_static_carve(t->arr))
			continue;
		/* the region counts once, with its first loaded carve-out */
		t->bytes = base_seen(l, i, t->arr->dyn_base) ? 0 : region_bytes(t->arr->dyn_base);
		if (!kp_static_carve_problem(c->f, c->k, c->iv, t))
			l->carve_tiles++;
	}
}

int kp_static_carve_region_loaded(const kp_loop *l, const kp_decl *base)
{
	return base_seen(l, l->ntiles, base);
}
