/*
 * phase_effects.c - the default-deny rule over the loop's effect sets
 * (effects.h): what the next tile's loads, the loop condition and the
 * increment read must not be written by the compute phase or the
 * statements after the closing barrier (the induction variables' own
 * bumps apart), global memory those write must be proven disjoint from
 * what the loads read, and a write kpipe cannot name blocks the rewrite.
 * The direct writes of a variable are dependences.c's checks; this rule
 * refuses what reaches memory through a reference, a pointer, a call or
 * asm.
 */
#include "effects.h"
#include "rules.h"

static const char *phase_name(kp_phase p)
{
	return p == KP_PH_COMP ? "the compute phase" : "a statement after the closing barrier";
}

static const char *reader(kp_file *f, kp_phase p, const kp_effect *r)
{
	if (p == KP_PH_COND)
		return "the loop condition";
	if (p == KP_PH_INC)
		return "the loop increment";
	return kp_arena_printf(&f->arena, "the load phase (line %d)", r->at ? r->at->line : 0);
}

/* What the next tile and the loop's control read: the load phase (tiles and
 * the body's own variables apart), the condition and the increment. */
/* Whether n is the statement of an induction variable's bump: the rewrite
 * advances that variable's uses, so a read through the same name is no
 * conflict. */
static int bump_stmt(const kp_loop *l, const kp_node *n)
{
	for (int i = 0; i < l->nind; i++)
		if (l->ind[i].stmt == n)
			return 1;
	return 0;
}

static const kp_effect *read_of(const kp_loop *l, const kp_effects *e, const kp_effect *w,
				kp_phase *rp)
{
	int bump = bump_stmt(l, w->at);
	static const kp_phase ph[] = {KP_PH_COND, KP_PH_INC, KP_PH_LOAD};
	for (size_t p = 0; p < KP_ARRAY_LEN(ph); p++)
		for (int i = 0; i < e->rd[ph[p]].n; i++) {
			const kp_effect *r = &e->rd[ph[p]].v[i];
			if (r->loc.kind == KP_LOC_TILE ||
			    (r->loc.kind == KP_LOC_LOCAL && kp_rule_loop_local(l, r->loc.decl)) ||
			    (bump && r->via == w->via))
				continue;
			if (kp_loc_may_alias(&w->loc, &r->loc)) {
				*rp = ph[p];
				return r;
			}
		}
	return NULL;
}

/* The first read of memory kpipe cannot name by what the rewrite runs a
 * tile ahead (the loop condition, the increment, the load phase), its
 * phase into *rp; or NULL. */
static const kp_effect *unknown_read(const kp_effects *e, kp_phase *rp)
{
	static const kp_phase ph[] = {KP_PH_COND, KP_PH_INC, KP_PH_LOAD};
	for (size_t p = 0; p < KP_ARRAY_LEN(ph); p++)
		for (int i = 0; i < e->rd[ph[p]].n; i++)
			if (e->rd[ph[p]].v[i].loc.kind == KP_LOC_UNKNOWN) {
				*rp = ph[p];
				return &e->rd[ph[p]].v[i];
			}
	return NULL;
}

/* Whether d is a tile the load phase loads. */
static int loaded_tile(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].arr == d && l->tiles[i].loaded)
			return 1;
	return 0;
}

static void check_write(kp_rule_ctx *c, const kp_effects *e, kp_phase ph, const kp_effect *w)
{
	kp_file *f = c->f;
	kp_loop *l = c->l;
	int line = w->at ? w->at->line : l->node->line;
	if (w->loc.kind == KP_LOC_UNKNOWN) {
		kp_rule_refuse(c, w->at, "kpipe-unknown-effect",
			       "%s writes memory kpipe cannot name%s (line %d): nothing proves "
			       "that the next tile's loads, the loop condition or the code after "
			       "the loop do not read it",
			       phase_name(ph), kp_effect_how(f, w), line);
		return;
	}
	if (w->loc.kind == KP_LOC_TILE) {
		/* the tile rules (loaded_tiles.c, tile_escapes.c) and
		 * dependences.c's kpipe-smem-carried cover the tiles and shared
		 * arrays the loads are seen to read; memory they read that
		 * kpipe cannot name may be this array (a view's pointer into it) */
		kp_phase rp = KP_PH_LOAD;
		const kp_effect *r = unknown_read(e, &rp);
		if (r && !loaded_tile(l, w->loc.decl))
			kp_rule_refuse(c, w->at, "kpipe-unknown-effect",
				       "%s writes the shared array '%s' (line %d), and %s reads "
				       "memory kpipe cannot name%s: it may be that array, which "
				       "the rewrite would read a tile ahead, before the write",
				       phase_name(ph), w->loc.decl ? w->loc.decl->name : "?", line,
				       reader(f, rp, r), kp_effect_how(f, r));
		return;
	}
	if (kp_rule_direct_local_write(l, w))
		return; /* a direct write: dependences.c's checks */
	kp_phase rp;
	const kp_effect *r = read_of(l, e, w, &rp);
	if (!r)
		return;
	if (w->loc.kind == KP_LOC_LOCAL)
		kp_rule_refuse(c, w->at, "kpipe-load-depends-on-compute",
			       "%s writes %s%s (line %d), which %s reads: the rewrite reads it a "
			       "tile ahead, before the write",
			       phase_name(ph), kp_loc_text(f, &w->loc), kp_effect_how(f, w), line,
			       reader(f, rp, r));
	else if (r->loc.decl == w->loc.decl)
		kp_rule_refuse(
			c, w->at, "kpipe-memory-order",
			"%s writes %s%s (line %d), which %s also reads: the rewrite reads it "
			"a tile ahead, before the write",
			phase_name(ph), kp_loc_text(f, &w->loc), kp_effect_how(f, w), line,
			reader(f, rp, r));
	else
		kp_rule_refuse(c, w->at, "kpipe-memory-order",
			       "%s writes %s%s (line %d), which may be the memory %s reads (%s): "
			       "the prefetch of the next tile would miss the write; mark the "
			       "pointers __restrict__ (and const what is only read)",
			       phase_name(ph), kp_loc_text(f, &w->loc), kp_effect_how(f, w), line,
			       reader(f, rp, r), kp_loc_text(f, &r->loc));
}

static void check(kp_rule_ctx *c)
{
	const kp_effects *e = c->l->effects;
	if (!e)
		return;
	static const kp_phase ph[] = {KP_PH_COMP, KP_PH_AFTER};
	for (size_t p = 0; p < KP_ARRAY_LEN(ph); p++)
		for (int i = 0; i < e->wr[ph[p]].n; i++)
			check_write(c, e, ph[p], &e->wr[ph[p]].v[i]);
}

const kp_rule kp_rule_phase_effects = {
	"kpipe-unknown-effect",
	"the compute phase writes nothing the next tile's loads or the loop's control read, "
	"and nothing kpipe cannot name",
	check,
};
