/*
 * copy_temp.c - copies through a temporary of the load phase (`T t =
 * A[i]; ... TILE[...] = t;`): found before the copies are read, so the
 * store of t is read as the copy of its value.
 */
#include "analyze.h"
#include "analyze_int.h"

#include <string.h>

static int count_refs(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	int r = n->kind == KP_N_DECLREF && n->decl == d;
	for (int i = 0; i < n->nkids; i++)
		r += count_refs(n->kids[i], d);
	return r;
}

/* Type spellings equal once const / volatile are dropped. */
int kp_same_unqualified(const char *a, const char *b)
{
	if (!a || !b)
		return 0;
	for (;;) {
		while (!strncmp(a, "const ", 6) || !strncmp(a, "volatile ", 9))
			a += *a == 'c' ? 6 : 9;
		while (!strncmp(b, "const ", 6) || !strncmp(b, "volatile ", 9))
			b += *b == 'c' ? 6 : 9;
		if (!*a || !*b || *a != *b)
			return !*a && !*b;
		a++;
		b++;
	}
}

/* Whether the statements v[from..to) leave what `value` reads alone (the
 * cp.async form evaluates VALUE at the copy, not where it was written). */
static int value_stable(kp_node *value, kp_node **v, int from, int to)
{
	kp_rw_set r = {0};
	kp_rw_collect(value, &r);
	int ok = 1;
	for (int i = from; i < to && ok; i++) {
		kp_rw_set w = {0};
		kp_rw_collect(v[i], &w);
		for (int j = 0; j < w.nw && ok; j++)
			ok = !kp_rw_has(r.r, r.nr, w.w[j]);
		ok = ok && w.ngs == 0;
		kp_rw_release(&w);
	}
	kp_rw_release(&r);
	return ok;
}

static void temps_in_list(actx *c, kp_node **v, int n);

static void temps_in_stmt(actx *c, kp_node *n)
{
	if (!n)
		return;
	if (n->kind == KP_N_COMPOUND)
		temps_in_list(c, n->kids, n->nkids);
	else if (n->kind == KP_N_FOR)
		temps_in_stmt(c, n->for_body);
}

/* The copy through the temporary declared by v[i], if it is one. */
static void temp_at(actx *c, kp_node **v, int n, int i)
{
	kp_node *ds = v[i];
	if (ds->kind != KP_N_DECLSTMT || ds->nkids != 1 || ds->kids[0]->kind != KP_N_VARDECL)
		return;
	kp_decl *t = ds->kids[0]->decl;
	if (!t || t->kind != KP_D_VAR || t->is_shared || t->is_array || t->is_pointer || !t->type ||
	    t->ty.is_ref)
		return;
	kp_copy_temp ct = {t, ds, NULL, t->init, NULL};
	int j = i + 1;
	if (!ct.value) { /* T t; t = VALUE; */
		for (; j < n && !count_refs(v[j], t); j++)
			;
		kp_node *as = j < n ? kp_assign_of(v[j]) : NULL;
		const kp_node *lhs = as ? kp_node_strip(as->kids[0]) : NULL;
		if (!lhs || lhs->kind != KP_N_DECLREF || lhs->decl != t || count_refs(v[j], t) != 1)
			return;
		ct.set_stmt = v[j];
		ct.value = as->kids[1];
		j++;
	}
	if (!kp_find_global_load(ct.value))
		return;
	int from = j;
	for (; j < n && !count_refs(v[j], t); j++)
		;
	kp_node *as = j < n ? kp_assign_of(v[j]) : NULL;
	kp_decl *tile;
	const kp_node *rhs = as ? kp_node_strip(as->kids[1]) : NULL;
	if (!rhs || rhs->kind != KP_N_DECLREF || rhs->decl != t ||
	    !kp_shared_lhs(as->kids[0], &tile) ||
	    count_refs(c->l->body, t) != (ct.set_stmt ? 2 : 1) ||
	    !value_stable(ct.value, v, from, j))
		return;
	ct.copy = as;
	kp_copy_temp *nt = kp_arena_alloc(&c->f->arena, sizeof(*nt) * (size_t)(c->ntemps + 1));
	if (c->ntemps)
		memcpy(nt, c->temps, sizeof(*nt) * (size_t)c->ntemps);
	nt[c->ntemps++] = ct;
	c->temps = nt;
}

static void temps_in_list(actx *c, kp_node **v, int n)
{
	for (int i = 0; i < n; i++) {
		temp_at(c, v, n, i);
		temps_in_stmt(c, v[i]);
	}
}

/* Every copy through a temporary in the load phase. */
void kp_find_temps(actx *c)
{
	kp_loop *l = c->l;
	temps_in_list(c, l->stmts + l->load_b, l->load_e - l->load_b);
}

const kp_copy_temp *kp_temp_of_copy(const actx *c, const kp_node *as)
{
	for (int i = 0; i < c->ntemps; i++)
		if (c->temps[i].copy == as)
			return &c->temps[i];
	return NULL;
}
