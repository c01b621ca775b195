/*
 * load_writes.c - rule over what the load phase writes besides its tiles.
 * Pipelined, the next tile's load phase runs before this tile's compute
 * phase and the statements after its closing barrier (the prefetch), so a
 * write of the load phase moves ahead of them: memory it writes must be
 * proven disjoint from everything they read or write
 * (kpipe-memory-order), a write kpipe cannot name is refused
 * (kpipe-unknown-effect), and a variable of the thread it changes through
 * a reference, a pointer, a call or asm must not be one they use
 * (kpipe-load-side-effect).  The tiles are the tile rules' business and a
 * direct write of a variable is dependences.c's.
 */
#include "effects.h"
#include "rules.h"

/* The first read or write of the compute phase or of the statements after
 * the closing barrier that may be w's memory, or NULL; *written says which. */
static const kp_effect *overlap(const kp_effects *e, const kp_effect *w, int *written)
{
	static const kp_phase ph[] = {KP_PH_COMP, KP_PH_AFTER};
	for (int s = 0; s < 2; s++)
		for (size_t p = 0; p < KP_ARRAY_LEN(ph); p++) {
			const kp_effect_set *set = s ? &e->wr[ph[p]] : &e->rd[ph[p]];
			for (int i = 0; i < set->n; i++)
				if (kp_loc_may_alias(&w->loc, &set->v[i].loc)) {
					*written = s;
					return &set->v[i];
				}
		}
	return NULL;
}

static void check_write(kp_rule_ctx *c, const kp_effects *e, const kp_effect *w)
{
	kp_file *f = c->f;
	const kp_loop *l = c->l;
	if (w->loc.kind == KP_LOC_TILE)
		return;
	if (kp_rule_direct_local_write(l, w))
		return;
	int written = 0;
	const kp_effect *o = overlap(e, w, &written);
	if (!o)
		return;
	int line = w->at ? w->at->line : l->node->line;
	int oline = o->at ? o->at->line : l->node->line;
	const char *what = written ? "writes" : "reads";
	if (w->loc.kind == KP_LOC_UNKNOWN)
		kp_rule_refuse(c, w->at, "kpipe-unknown-effect",
			       "the load phase writes memory kpipe cannot name%s (line %d): "
			       "pipelined, the next tile's load phase runs before this tile's "
			       "compute phase, and nothing proves that the compute phase does not "
			       "read or write that memory (it %s %s at line %d)",
			       kp_effect_how(f, w), line, what, kp_loc_text(f, &o->loc), oline);
	else if (w->loc.kind == KP_LOC_LOCAL)
		kp_rule_refuse(c, w->at, "kpipe-load-side-effect",
			       "the load phase writes %s%s (line %d), which the compute phase "
			       "%s (line %d): pipelined, the next tile's load phase would change "
			       "it first",
			       kp_loc_text(f, &w->loc), kp_effect_how(f, w), line, what, oline);
	else
		kp_rule_refuse(c, w->at, "kpipe-memory-order",
			       "the load phase writes %s%s (line %d), which may be the memory the "
			       "compute phase %s at line %d (%s): pipelined, the next tile's load "
			       "phase runs before this tile's compute phase; mark the pointers "
			       "__restrict__ (and const what is only read) if they never overlap",
			       kp_loc_text(f, &w->loc), kp_effect_how(f, w), line, what, oline,
			       kp_loc_text(f, &o->loc));
}

static void check(kp_rule_ctx *c)
{
	const kp_effects *e = c->l->effects;
	if (!e)
		return;
	for (int i = 0; i < e->wr[KP_PH_LOAD].n; i++)
		check_write(c, e, &e->wr[KP_PH_LOAD].v[i]);
}

const kp_rule kp_rule_load_writes = {
	"kpipe-memory-order",
	"the load phase writes nothing, besides its tiles, that the compute phase reads or "
	"writes, and nothing kpipe cannot name",
	check,
};
