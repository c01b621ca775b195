/*
 * tile_ptr.c - pointers into a tile: a pointer declared before the loop
 * into a loaded tile and read only as P[i] in the compute phase is an
 * alias of the tile (kp_tile.alias), which the rewrite re-indexes with
 * it.
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

/* The tile a pointer's initialiser points into: `(T *)TILE`,
 * `reinterpret_cast<T *>(TILE) + e`, `(T *)&TILE[0][0] + e`... with at
 * least one explicit cast (the address of the tile's first element, the
 * same whatever its dimensions), or NULL.  *ref is the tile's reference. */
const kp_decl *kp_alias_target(kp_node *init, kp_node **ref)
{
	kp_node *n = init;
	int casts = 0;
	for (int guard = 0; n && guard < 16; guard++) {
		if (n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ADD && n->nkids == 2)
			n = n->kids[0];
		else if ((n->kind == KP_N_CAST || n->kind == KP_N_PAREN || n->kind == KP_N_OTHER) &&
			 n->nkids) {
			casts += n->kind == KP_N_CAST;
			n = n->kids[n->nkids - 1];
		} else
			break;
	}
	if (!n || n->kind != KP_N_DECLREF || !n->decl || !casts)
		return NULL;
	*ref = n;
	return n->decl;
}

typedef struct {
	const kp_loop *l;
	const kp_decl *tile;
	unsigned comp_b, comp_e; /* the compute phase's text */
	kp_node *refs[4];        /* the tile's references in alias initialisers */
	const kp_decl *alias[4];
	int n;
	const kp_decl *p; /* check_alias_use: the alias looked at */
	kp_node *ok[64];  /* its reads P[i] */
	int nok;
	kp_node *bad; /* its first other use */
} alias_walk;

static int find_alias(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	alias_walk *w = ud;
	if (n->kind != KP_N_VARDECL || !n->decl || !n->decl->is_pointer || !n->decl->init ||
	    !n->in_main || n->begin >= w->l->node->begin || w->n >= 4)
		return 1;
	kp_node *ref = NULL;
	if (kp_alias_target(n->decl->init, &ref) == w->tile) {
		w->refs[w->n] = ref;
		w->alias[w->n++] = n->decl;
	}
	return 1;
}

/* Every use of w->p but reads `P[i]` in the compute phase goes to bad. */
static int check_alias_use(kp_node *n, kp_node *parent, void *ud)
{
	alias_walk *w = ud;
	if (n->kind == KP_N_SUBSCRIPT && n->nkids == 2) {
		kp_node *b = n->kids[0];
		while (b && (b->kind == KP_N_OTHER || b->kind == KP_N_PAREN) && b->nkids == 1)
			b = b->kids[0];
		int written = parent && (((parent->kind == KP_N_BINOP && parent->op &&
					   parent->opk == KP_OP_ASSIGN) ||
					  parent->kind == KP_N_ASSIGNOP) &&
					 parent->nkids && parent->kids[0] == n);
		written |= parent && parent->kind == KP_N_UNOP;
		/* `reinterpret_cast<const float4 *>(&P[i])[0]`: a read of P
		 * through the address of one of its elements */
		kp_node *inner = b;
		while (inner &&
		       (inner->kind == KP_N_OTHER || inner->kind == KP_N_PAREN ||
			inner->kind == KP_N_CAST) &&
		       inner->nkids)
			inner = inner->kids[inner->nkids - 1];
		if (inner && inner->kind == KP_N_UNOP && inner->op && inner->opk == KP_OP_ADDR &&
		    inner->nkids == 1 && inner->kids[0]->kind == KP_N_SUBSCRIPT &&
		    inner->kids[0]->nkids == 2) {
			b = inner->kids[0]->kids[0];
			while (b && (b->kind == KP_N_OTHER || b->kind == KP_N_PAREN) &&
			       b->nkids == 1)
				b = b->kids[0];
		}
		if (b && b->kind == KP_N_DECLREF && b->decl == w->p && !written &&
		    kp_node_in(n, w->comp_b, w->comp_e) && w->nok < 64)
			w->ok[w->nok++] = b;
		return 1;
	}
	if (n->kind != KP_N_DECLREF || n->decl != w->p || w->bad)
		return 1;
	for (int i = 0; i < w->nok; i++)
		if (w->ok[i] == n)
			return 1;
	w->bad = n;
	return 1;
}

/* Pointers into loaded tile t declared before the loop: each one read only
 * as P[i] in the compute phase (never written, moved, handed on or used
 * elsewhere) becomes an alias of t (kp_tile.alias), and its initialiser's
 * reference to t is no use "before the loop" (rules/tile_escapes.c). */
static void tile_aliases(actx *c, kp_tile *t)
{
	kp_loop *l = c->l;
	if (t->arr->dyn_base || kp_decl_is_dynamic_smem(t->arr) || l->comp_b >= l->comp_e ||
	    t->elems <= 0)
		return;
	alias_walk w = {.l = l, .tile = t->arr};
	w.comp_b = l->stmts[l->comp_b]->begin;
	w.comp_e = l->stmts[l->comp_e - 1]->end;
	kp_node_walk(c->k->body, NULL, find_alias, &w);
	for (int i = 0; i < w.n; i++) {
		w.p = w.alias[i];
		/* a pointer to the tile's element type: a stage is then
		 * sizeof(TILE[0]) / sizeof(*p) elements further */
		const char *pt = w.p->type ? w.p->type : "";
		const char *star = strrchr(pt, '*');
		if (!star || !t->arr->elem_type)
			continue;
		size_t plen = (size_t)(star - pt);
		while (plen && pt[plen - 1] == ' ')
			plen--;
		const char *pointee =
			kp_strip_cv(&c->f->arena, kp_arena_strndup(&c->f->arena, pt, plen));
		if (strcmp(pointee, kp_strip_cv(&c->f->arena, t->arr->elem_type)) != 0)
			continue;
		w.nok = 0;
		w.bad = NULL;
		kp_node_walk(c->k->body, NULL, check_alias_use, &w);
		if (w.bad || !w.nok)
			continue;
		t->alias[t->naliases++] = w.p;
	}
}

void kp_find_tile_aliases(actx *c)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->ntiles; i++) {
		kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		t->naliases = 0;
		if (c->k->body && l->node->in_main)
			tile_aliases(c, t);
	}
}
