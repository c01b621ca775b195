/*
 * loaded_tiles.c - rule: what keeps a loaded tile from being
 * multi-buffered: the compute phase writes it (kpipe-compute-writes-tile),
 * it is dynamic shared memory kpipe cannot place (kpipe-dynamic-smem), its
 * declaration or a use of it comes from a macro (kpipe-macro-array), or it
 * is read after the loop (kpipe-tile-read-after-loop).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "last_tile.h"
#include "pure.h"
#include "refill.h"
#include "rules.h"

#include <string.h>

static int refs_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	void **a = ud;
	kp_decl *d = a[0];
	unsigned after = *(unsigned *)a[1];
	if (n->kind == KP_N_DECLREF && n->decl == d && n->in_main && n->begin >= after)
		a[2] = n;
	return a[2] == NULL;
}

static int find_macro_ref(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	void **a = ud;
	if (n->kind == KP_N_DECLREF && n->decl == a[0] && !n->name_editable)
		a[1] = n;
	return a[1] == NULL;
}

typedef struct {
	const kp_decl *d;
	const kp_node *call;
} tile_call_walk;

static int find_tile_call(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	tile_call_walk *w = ud;
	if (w->call)
		return 0;
	if (n->kind == KP_N_CALL && n->sync == KP_SYNC_NONE)
		for (int i = kp_call_first_arg(n); i < n->nkids; i++) {
			const kp_node *a = kp_node_strip(n->kids[i]);
			if (a && a->kind == KP_N_DECLREF && a->decl == w->d &&
			    kp_call_arg_write(n, i))
				w->call = n;
		}
	return 1;
}

/* The call of the compute phase that is handed the tile d where it may
 * write it (never one whose parameter is a pointer or reference to
 * const), or NULL (the tile is written otherwise). */
static const kp_node *tile_call(const kp_loop *l, const kp_decl *d)
{
	tile_call_walk w = {d, NULL};
	for (int i = l->comp_b; i < l->comp_e && !w.call; i++)
		kp_node_walk(l->stmts[i], NULL, find_tile_call, &w);
	return w.call;
}

/* kp_tile_refilled_after() as this check has always called it: before the
 * tile's aliases were found (tile_ptr.c), so with none.  Whether a tile
 * with aliases should count as refilled is an open question; this keeps
 * the behaviour of the check as it was inside analyze.c. */
static int refilled_after(kp_rule_ctx *c, const kp_tile *t)
{
	kp_tile bare = *t;
	bare.naliases = 0;
	return kp_tile_refilled_after(c->f, c->k, c->l, &bare);
}

/* What keeps each loaded tile from being multi-buffered (the tiles are
 * analyze.c's, collect_tiles). */
static void check(kp_rule_ctx *c)
{
	const kp_rw_set *cw = &c->rw->comp;
	kp_loop *l = c->l;
	kp_node *n = l->node;
	for (int i = 0; i < l->ntiles; i++) {
		kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		if (kp_rw_has(cw->w, cw->nw, t->arr)) {
			const kp_node *call = tile_call(l, t->arr);
			if (call)
				kp_rule_refuse(
					c, call, "kpipe-compute-writes-tile",
					"the compute phase passes the loaded tile '%s' to '%s', "
					"which may write it: %s",
					t->arr->name, kp_callee_name(c->f, call),
					call->decl && call->decl->nparam_ty >= 0 &&
							!call->decl->variadic
						? "its parameter is not a pointer or reference "
						  "to const"
						: "a call whose parameter types kpipe cannot "
						  "see (no declaration yet, dependent in a "
						  "template, or `...`)");
			else
				kp_rule_refuse(c, n, "kpipe-compute-writes-tile",
					       "the compute phase writes the loaded tile '%s'",
					       t->arr->name);
		}
		if (kp_decl_is_dynamic_smem(t->arr)) {
			const char *why = kp_dynamic_tile_problem(c->f, c->k, c->iv, t);
			if (why)
				kp_rule_refuse(c, n, "kpipe-dynamic-smem", "%s", why);
		}
		if (kp_decl_is_static_carve(t->arr)) {
			const char *why = kp_static_carve_problem(c->f, c->k, c->iv, t);
			if (why)
				kp_rule_refuse(c, n, "kpipe-static-carve", "%s", why);
		}
		if (!t->arr->in_main || t->arr->bounds_hidden)
			kp_rule_refuse(
				c, n, "kpipe-macro-array",
				"the declaration of '%s' comes from a macro (or its bounds from a "
				"typedef) and cannot be edited",
				t->arr->name);
		/* references spelled inside a macro body cannot be re-indexed */
		void *mr[2] = {t->arr, NULL};
		kp_node_walk(l->body, NULL, find_macro_ref, mr);
		if (mr[1])
			kp_rule_refuse(
				c, mr[1], "kpipe-macro-array",
				"'%s' is used inside a macro body; kpipe can only re-index uses "
				"spelled in the source (macro arguments are fine); kpipe rewrite "
				"expands such macros in the loop first where it can (a remark "
				"says why not)",
				t->arr->name);
		/* read after the loop */
		if (n->in_main && c->k->body) {
			unsigned after = n->end;
			void *a[3] = {t->arr, &after, NULL};
			kp_node_walk(c->k->body, NULL, refs_after, a);
			const kp_node *around = a[2] ? kp_loop_around(c->k, l, a[2]) : NULL;
			if (around)
				kp_rule_refuse(
					c, a[2], "kpipe-tile-read-after-loop",
					"'%s' is read after the loop, in the loop around it at "
					"line %d: the last tile would be observable there",
					t->arr->name, around->line);
			else if (a[2] && !refilled_after(c, t) && kp_tile_last_after(c->k, l, t))
				t->last_after = 1;
			else if (a[2] && !refilled_after(c, t))
				kp_rule_refuse(
					c, a[2], "kpipe-tile-read-after-loop",
					"'%s' is read after the loop: the last tile would be observable",
					t->arr->name);
		}
	}
}

const kp_rule kp_rule_loaded_tiles = {
	"kpipe-compute-writes-tile",
	"a loaded tile is written by the compute phase, is dynamic shared memory kpipe cannot "
	"place, comes from a macro, or is read after the loop",
	check,
};
