/*
 * loads.c - the copies of the load phase: each global->shared store
 * (plain, guarded by a ternary or an if/else, staged through a register
 * of the source, or through a temporary), its source, width and scope
 * (the copy loops and conditions around it), and the loads kpipe cannot
 * read (a carve-out, a helper that fills the tile).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "liveness.h"

#include <string.h>

/* Whether a type spelling is `name` with cv-qualifiers at most
 * ("const float4" is float4). */
static int is_type_named(const char *type, const char *name)
{
	size_t nl = strlen(name);
	for (;;) {
		if (!strncmp(type, "const ", 6))
			type += 6;
		else if (!strncmp(type, "volatile ", 9))
			type += 9;
		else
			break;
	}
	if (strncmp(type, name, nl))
		return 0;
	type += nl;
	while (!strncmp(type, " const", 6) || !strncmp(type, " volatile", 9))
		type += type[1] == 'c' ? 6 : 9;
	return !*type;
}

/* A value copied as it is: the copy constructor that a ternary such as
 * `c ? FLOAT4(p[i]) : make_float4(0.f, 0.f, 0.f, 0.f)` puts around the
 * const float4 it reads (a call named as its type, of one argument of
 * that type). */
static kp_node *strip_copy_ctor(kp_node *n)
{
	n = (kp_node *)kp_node_strip(n);
	while (n && n->kind == KP_N_CALL && n->nkids == 1 && n->name && n->name[0] && n->type &&
	       n->kids[0]->type && is_type_named(n->type, n->name) &&
	       is_type_named(n->kids[0]->type, n->name))
		n = (kp_node *)kp_node_strip(n->kids[0]);
	return n;
}

/* A pure global load expression: P[i], *(T*)&P[i], *reinterpret_cast<const T*>(P + i),
 * FLOAT4(P[i]) (reinterpret_cast<float4 *>(&P[i])[0] from a macro), and
 * o.P[i] through a pointer member of an object held by value
 * (kp_member_pointer: the root is then the member) */
kp_node *kp_global_load_root(kp_node *n)
{
	n = strip_copy_ctor(n);
	if (!n || (n->kind != KP_N_SUBSCRIPT && !(n->kind == KP_N_UNOP && n->opk == KP_OP_DEREF)))
		return NULL;
	kp_node *r = kp_lvalue_root(n);
	if (r && r->decl && !r->decl->is_shared && !r->decl->is_pointer &&
	    n->kind == KP_N_SUBSCRIPT)
		return kp_member_pointer(n->kids[0]);
	if (!r || !r->decl || r->decl->is_shared || !r->decl->is_pointer)
		return NULL;
	return r;
}

kp_node *kp_member_pointer(kp_node *n)
{
	kp_node *m = (kp_node *)kp_node_strip(n);
	if (!m || m->kind != KP_N_MEMBER || m->nkids != 1 || !m->decl || !m->decl->is_pointer ||
	    m->decl->is_shared || m->decl->is_array)
		return NULL;
	const kp_node *o = kp_node_strip(m->kids[0]);
	if (!o || o->kind != KP_N_DECLREF || !o->decl || o->decl->is_pointer || o->decl->is_array ||
	    o->decl->is_shared || (o->decl->kind != KP_D_PARM && o->decl->kind != KP_D_VAR) ||
	    (o->type && strchr(o->type, '&')))
		return NULL;
	return m;
}

static void add_load(actx *c, kp_load *ld)
{
	kp_loop *l = c->l;
	kp_load *nl = kp_arena_alloc(&c->f->arena, sizeof(*nl) * (size_t)(l->nloads + 1));
	if (l->nloads)
		memcpy(nl, l->loads, sizeof(*nl) * (size_t)l->nloads);
	nl[l->nloads++] = *ld;
	l->loads = nl;
}

kp_node *kp_assign_of(kp_node *stmt)
{
	kp_node *s = stmt;
	while (s && s->kind == KP_N_COMPOUND && s->nkids == 1)
		s = s->kids[0];
	if (s && (s->kind == KP_N_OTHER || s->kind == KP_N_PAREN) && s->nkids == 1 &&
	    kp_is_assign(s->kids[0]))
		s = s->kids[0];
	return kp_is_assign(s) ? s : NULL;
}

int kp_shared_lhs(kp_node *lhs, kp_decl **tile)
{
	kp_node *r = kp_lvalue_root(lhs);
	if (r && r->decl && r->decl->is_shared && r->decl->is_array) {
		*tile = r->decl;
		return 1;
	}
	return 0;
}

kp_node *kp_find_global_load(kp_node *n)
{
	if (!n)
		return NULL;
	kp_node *r = kp_global_load_root(n);
	if (r)
		return r;
	for (int i = 0; i < n->nkids; i++) {
		r = kp_find_global_load(n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

/* The load phase's extent [*b, *e) in the file; 0 when it is empty. */
static int load_extent(const kp_loop *l, unsigned *b, unsigned *e)
{
	if (l->load_e <= l->load_b)
		return 0;
	*b = l->stmts[l->load_b]->begin;
	*e = l->stmts[l->load_e - 1]->end;
	return 1;
}

typedef struct {
	const kp_decl *d;
	unsigned b, e;
	int outside;
} scratch_walk;

static int use_outside(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	scratch_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d && (n->begin < w->b || n->begin >= w->e))
		w->outside = 1;
	return !w->outside;
}

/* A scratch register of the load phase: a local of the kernel declared
 * before the loop (`float ldg_a[4];`), not a reference, pointer or
 * static, that the kernel names only inside this loop's load phase.
 * Every rewritten form runs the load phase once per tile, in tile order,
 * and nothing else touches the scratch register, so its values evolve as
 * in the original. */
int kp_is_scratch(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d)
{
	unsigned b, e;
	if (!d || d->kind != KP_D_VAR || d->is_shared || d->is_pointer || !d->type ||
	    d->ty.is_ref || !k->body || !load_extent(l, &b, &e))
		return 0;
	if (d->begin < k->body->begin || d->end > l->node->begin)
		return 0;
	if (d->begin + 7 <= f->len && !strncmp(f->src + d->begin, "static ", 7))
		return 0;
	scratch_walk w = {d, b, e, 0};
	/* the declaration itself names it outside: skip its statement */
	for (int i = 0; i < k->body->nkids && !w.outside; i++) {
		kp_node *st = k->body->kids[i];
		if (st->begin <= d->begin && st->end >= d->end && st->kind == KP_N_DECLSTMT)
			continue;
		kp_node_walk(st, k->body, use_outside, &w);
	}
	return !w.outside;
}

int kp_find_assign_load(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	kp_assign_walk *w = ud;
	if (w->load)
		return 0;
	if (kp_is_assign(n) && n->nkids == 2) {
		kp_node *r = kp_lvalue_root(n->kids[0]);
		if (r && r->decl == w->d)
			w->load = kp_find_global_load(n->kids[1]);
	}
	return !w->load;
}

typedef struct {
	const actx *c;
	const kp_decl *via;
	int other; /* a write the store after the math could not drop */
} stage_writes;

typedef struct {
	const actx *c;
	const kp_decl *d;
	int named;
} lhs_walk;

/* A write through a pointer into w->d (`vp[3 - i] = 0.f`). */
static int writes_through_pointer_into(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	lhs_walk *w = ud;
	int plain, through;
	kp_node *t = w->named ? NULL : kp_write_target(n, &plain);
	if (t && kp_written_var(w->c->f, w->c->k, t, &through) == w->d && through)
		w->named = 1;
	return !w->named;
}

static int names_in_shared_store(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	lhs_walk *w = ud;
	if (w->named)
		return 0;
	if (kp_is_assign(n) && n->nkids == 2) {
		kp_node *r = kp_lvalue_root(n->kids[0]);
		if (r && r->decl && r->decl->is_shared && kp_node_names_decl(n->kids[0], w->d))
			w->named = 1;
	}
	return !w->named;
}

/* Another copy's staging register (two vectors staged in one load phase,
 * each masked through a pointer): a local declared in the load phase, not
 * a pointer, that a global load fills by its initialiser or a plain
 * assignment, that is written through a pointer into it, and that no
 * shared store's target names.  The store after the math drops its writes
 * as it drops this copy's (its declaration and writes go with the fetch).
 * Temporaries written only directly are left to the canon pass, which
 * makes them guarded copies that cp.async can take too. */
static int other_stage_local(const actx *c, const kp_decl *d)
{
	const kp_loop *l = c->l;
	unsigned b, e;
	if (!d || d->kind != KP_D_VAR || d->is_shared || d->is_pointer || !d->type ||
	    d->ty.is_ref || !load_extent(l, &b, &e) || d->begin < b || d->end > e)
		return 0;
	kp_node *g = d->init ? kp_find_global_load(d->init) : NULL;
	if (!g) {
		kp_assign_walk w = {d, NULL};
		for (int i = l->load_b; i < l->load_e && !w.load; i++)
			kp_node_walk(l->stmts[i], NULL, kp_find_assign_load, &w);
		g = w.load;
	}
	lhs_walk masked = {c, d, 0};
	for (int i = l->load_b; g && i < l->load_e && !masked.named; i++)
		kp_node_walk(l->stmts[i], NULL, writes_through_pointer_into, &masked);
	lhs_walk lw = {c, d, 0};
	for (int i = l->load_b; masked.named && i < l->load_e && !lw.named; i++)
		kp_node_walk(l->stmts[i], NULL, names_in_shared_store, &lw);
	return g && masked.named && !lw.named;
}

/* Writes in the load phase other than tile stores, plain `=` to the staging
 * register and copy-loop headers: register staging's store part keeps
 * them, which only the staging register's writes allow. */
static int find_other_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	stage_writes *w = ud;
	if (n->kind == KP_N_FOR) {
		kp_node_walk(n->for_cond, n, find_other_write, w);
		kp_node_walk(n->for_body, n, find_other_write, w);
		return 0; /* its init and step are the copy loop's own */
	}
	int plain, through;
	kp_node *t = kp_write_target(n, &plain);
	/* a store through a pointer into the staging register is a write of it
	 * (the masking of a loaded vector's tail); into any other variable, a
	 * write the store after the math could not drop */
	const kp_decl *d = t ? kp_written_var(w->c->f, w->c->k, t, &through) : NULL;
	if (d && through && d != w->via && !other_stage_local(w->c, d))
		w->other = 1;
	else if (d && !d->is_shared &&
		 !(plain && (d == w->via || kp_is_scratch(w->c->f, w->c->k, w->c->l, d) ||
			     kp_var_phase_private(w->c->f, w->c->k, w->c->l, d) ||
			     other_stage_local(w->c, d))))
		w->other = 1;
	return !w->other;
}

/* The source's own register staging: the stored value reads a local of
 * the load phase (declared in it, or a scratch register declared before
 * the loop: used in the load phase alone, or private to each phase,
 * liveness.h) whose initialiser or an assignment in the load phase loads
 * from global memory (`float4 v = A4[i]; As[c + 0][r] = v.x; ...`, a tile
 * transposed on its way in).  Returns that load's root and sets *via to
 * the local. */
static kp_node *staged_load(actx *c, kp_node *n, const kp_decl **via)
{
	if (!n)
		return NULL;
	const kp_loop *l = c->l;
	kp_decl *d = n->kind == KP_N_DECLREF ? n->decl : NULL;
	unsigned b, e;
	if (d && d->kind == KP_D_VAR && !d->is_shared && load_extent(l, &b, &e)) {
		int inside = d->begin >= b && d->end <= e;
		kp_node *g = inside && d->init ? kp_find_global_load(d->init) : NULL;
		if (!g && (inside || kp_is_scratch(c->f, c->k, l, d) ||
			   kp_var_phase_private(c->f, c->k, l, d))) {
			kp_assign_walk w = {d, NULL};
			for (int i = l->load_b; i < l->load_e && !w.load; i++)
				kp_node_walk(l->stmts[i], NULL, kp_find_assign_load, &w);
			g = w.load;
		}
		stage_writes sw = {c, d, 0};
		for (int i = l->load_b; g && i < l->load_e && !sw.other; i++)
			kp_node_walk(l->stmts[i], NULL, find_other_write, &sw);
		if (g && !sw.other) {
			*via = d;
			return g;
		}
	}
	for (int i = 0; i < n->nkids; i++) {
		kp_node *g = staged_load(c, n->kids[i], via);
		if (g)
			return g;
	}
	return NULL;
}

static void fill_copy(actx *c, kp_load *ld, kp_node *lhs, kp_node *rhs)
{
	ld->lhs = lhs;
	ld->rhs = rhs;
	ld->elem_type = lhs->type ? lhs->type : "?";
	ld->bytes = lhs->type_size;
	if (ld->bytes < 0)
		ld->bytes = kp_bound_size(c, lhs->type);
	long long esz = ld->tile ? kp_elem_size_of(c, ld->tile) : -1;
	if (ld->bytes < 0 && ld->tile)
		ld->bytes = esz;
	ld->vector = 1;
	if (esz > 0 && ld->bytes > esz)
		ld->vector = (int)(ld->bytes / esz);
	kp_node *root = kp_global_load_root(rhs);
	if (!root) {
		/* a converting copy (__half2float(A[i]), 2.0f * A[i]): staged in
		 * registers as computed, never a cp.async */
		kp_node *g = kp_find_global_load(rhs);
		if (!g)
			g = staged_load(c, rhs, &ld->via);
		if (g) {
			ld->src = g->decl;
			ld->src_base = g;
			ld->pure = 0;
		}
	}
	if (root) {
		ld->src = root->decl;
		ld->src_base = root;
		kp_node *sr = strip_copy_ctor(rhs);
		ld->pure = sr->type && lhs->type && ld->bytes > 0 &&
			   (sr->type_size == ld->bytes || sr->type_size < 0);
		/* converting copies (half -> float ...) are not pure; a template
		 * type parameter is compared as bound by the instantiation */
		if (ld->src->elem_type && ld->tile && ld->vector == 1 && ld->src->is_pointer) {
			const char *pt = ld->src->type;
			const char *et = ld->tile->elem_type;
			int uses_param = 0;
			int same = pt && et ? kp_same_pointee(c, pt, et, &uses_param) : -1;
			/* clang's canonical types decide where neither depends on a
			 * template parameter (`real` of `typedef float real;` is
			 * float, a typedef of float4 is float4; a tile pointer's
			 * pointee); where they cannot, the copy is pure only when
			 * the spellings name the same type */
			int canon = kp_same_canon(ld->src, ld->tile);
			if (canon >= 0) {
				if (!canon)
					ld->pure = 0;
			} else if (uses_param) {
				if (same != 1)
					ld->pure = 0;
			} else if (pt && et && same != 1)
				ld->pure = 0; /* neither clang nor the spellings say the same */
		}
	}
}

/* Where a statement of the load phase sits: its copy loops and the
 * conditions around it (kp_load.loops, kp_load.under). */
typedef struct {
	kp_node *loops[4];
	int depth;
	kp_node *under[4];
	int under_else[4];
	int nunder;
} load_scope;

static void scope_copy(kp_file *f, kp_load *ld, const load_scope *sc)
{
	ld->depth = sc->depth;
	for (int i = 0; i < sc->depth && i < 4; i++)
		ld->loops[i] = sc->loops[i];
	ld->nunder = sc->nunder;
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < sc->nunder && i < 4; i++) {
		const kp_node *g = sc->under[i];
		ld->under[i] = sc->under[i];
		ld->under_else[i] = sc->under_else[i];
		kp_strbuf_addf(&sb, "%s%s%s (%s)", i ? ", " : "",
			       sc->under_else[i] ? "else of " : "",
			       g->kind == KP_N_SWITCH ? "switch" : "if",
			       g->nkids ? kp_node_text(f, g->kids[0]) : "?");
	}
	ld->under_text = sb.len ? kp_arena_strdup(&f->arena, kp_strbuf_str(&sb)) : NULL;
	kp_strbuf_release(&sb);
}

static int classify_store(actx *c, kp_node *stmt, const load_scope *sc)
{
	kp_node *as = kp_assign_of(stmt);
	kp_decl *tile = NULL;
	if (as && kp_shared_lhs(as->kids[0], &tile)) {
		kp_load ld = {0};
		ld.stmt = as;
		ld.tile = tile;
		ld.line = as->line;
		scope_copy(c->f, &ld, sc);
		/* through a temporary: the copy of the temporary's value */
		const kp_copy_temp *ct = kp_temp_of_copy(c, as);
		kp_node *val = ct ? ct->value : as->kids[1];
		if (ct) {
			ld.tmp_decl = ct->decl_stmt;
			ld.tmp_set = ct->set_stmt;
		}
		kp_node *rhs = (kp_node *)kp_node_strip(val);
		if (rhs->kind == KP_N_CONDOP && rhs->nkids == 3) {
			kp_node *a = rhs->kids[1], *b = rhs->kids[2];
			ld.guard = KP_G_TERNARY;
			ld.cond = rhs->kids[0];
			if (kp_is_zero_value(b)) {
				fill_copy(c, &ld, as->kids[0], a);
				ld.otherwise = kp_node_text(c->f, b);
			} else {
				fill_copy(c, &ld, as->kids[0], rhs);
				ld.pure = 0;
				ld.otherwise = kp_node_text(c->f, b);
			}
		} else {
			fill_copy(c, &ld, as->kids[0], val);
		}
		if (!ct)
			kp_check_copy_spelled(c, &ld, as, rhs);
		else if (!kp_spelled_assign(c->f, as) || ct->value->from_macro || rhs->from_macro)
			/* the temporary's value is edited where it is written */
			kp_ana_refuse(
				c, ld.stmt, "kpipe-macro-array",
				"the copy into '%s' through the temporary '%s' is written inside a "
				"macro body",
				ld.tile->name, ct->var->name);
		/* a temporary of another type converts on the way */
		if (ct && !kp_same_unqualified(ct->var->type, kp_node_strip(val)->type))
			ld.pure = 0;
		add_load(c, &ld);
		return 1;
	}
	if (stmt->kind == KP_N_IF && stmt->nkids == 3) {
		kp_node *a1 = kp_assign_of(stmt->kids[1]), *a2 = kp_assign_of(stmt->kids[2]);
		kp_decl *t1 = NULL, *t2 = NULL;
		if (a1 && a2 && kp_shared_lhs(a1->kids[0], &t1) &&
		    kp_shared_lhs(a2->kids[0], &t2) && t1 == t2 &&
		    !strcmp(kp_node_text(c->f, a1->kids[0]), kp_node_text(c->f, a2->kids[0]))) {
			kp_load ld = {0};
			ld.stmt = stmt;
			ld.tile = t1;
			ld.line = stmt->line;
			scope_copy(c->f, &ld, sc);
			ld.guard = KP_G_IFELSE;
			ld.cond = stmt->kids[0];
			if (kp_is_zero_value(a2->kids[1])) {
				fill_copy(c, &ld, a1->kids[0], a1->kids[1]);
				ld.zero_stmt = a2;
				ld.otherwise = kp_node_text(c->f, a2->kids[1]);
			} else if (kp_is_zero_value(a1->kids[1])) {
				fill_copy(c, &ld, a2->kids[0], a2->kids[1]);
				ld.zero_stmt = a1;
				ld.otherwise = kp_node_text(c->f, a1->kids[1]);
				ld.guard_inverted = 1;
			} else {
				fill_copy(c, &ld, a1->kids[0], a1->kids[1]);
				ld.zero_stmt = a2; /* the other arm: staged like the first */
				ld.pure = 0;
				ld.otherwise = kp_node_text(c->f, a2->kids[1]);
			}
			kp_check_copy_spelled(c, &ld, ld.zero_stmt == a2 ? a1 : a2, NULL);
			add_load(c, &ld);
			return 1;
		}
	}
	return 0;
}

/* A call's callee as spelled (`wt::loadFromGmem`): a dependent call in a
 * template has no resolved name. */
const char *kp_callee_name(kp_file *f, const kp_node *n)
{
	if (n->name && n->name[0])
		return n->name;
	const char *t = n->in_main ? kp_node_text(f, n) : NULL;
	size_t len = 0;
	while (t && (kp_is_ident_char(t[len]) || (t[len] == ':' && t[len + 1] == ':') ||
		     (len && t[len] == ':' && t[len - 1] == ':')))
		len++;
	return len ? kp_arena_printf(&f->arena, "%.*s", (int)len, t) : "?";
}

/* A nested statement of the load phase: its copy loop or its condition
 * joins the scope of the statements inside it. */
static void scan_loads(actx *c, kp_node *n, load_scope sc);

static void scan_nested(actx *c, kp_node *n, load_scope sc)
{
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO) {
		/* a copy loop; a while or do loop has no counted range, so its
		 * copies get no trip count (register staging refuses them: one
		 * staging register per execution needs the count) */
		if (sc.depth < 4)
			sc.loops[sc.depth] = n;
		sc.depth++;
		c->l->loads_in_loops = 1;
		if (n->kind == KP_N_FOR) /* only the body holds copies */
			scan_loads(c, n->for_body, sc);
		else
			for (int i = 0; i < n->nkids; i++)
				scan_loads(c, n->kids[i], sc);
		return;
	}
	/* an if or a switch: the statements of its branches run under its
	 * condition (kids[0]) */
	scan_loads(c, n->nkids ? n->kids[0] : NULL, sc);
	for (int i = 1; i < n->nkids; i++) {
		load_scope in = sc;
		if (in.nunder < 4) {
			in.under[in.nunder] = n;
			in.under_else[in.nunder] = n->kind == KP_N_IF && i == 2;
		}
		in.nunder++;
		scan_loads(c, n->kids[i], in);
	}
}

static void scan_loads(actx *c, kp_node *n, load_scope sc)
{
	if (!n)
		return;
	if (classify_store(c, n, &sc))
		return;
	kp_node *as = kp_assign_of(n);
	kp_node *root = as ? kp_lvalue_root(as->kids[0]) : NULL;
	const kp_decl *arr = root ? kp_carve_out_of(c->k, root->decl) : NULL;
	if (arr) {
		c->l->loads_carve_out = 1;
		if (arr->dyn_base)
			kp_ana_refuse(
				c, n, "kpipe-dynamic-smem",
				"the tile '%s' is carved out of '%s', itself a carve-out of '%s': "
				"kpipe places carve-outs of the extern array itself, each at its "
				"own offset",
				root->decl->name, arr->name, arr->dyn_base->name);
		else if (kp_decl_is_extern_shared(arr))
			kp_ana_refuse(
				c, n, "kpipe-dynamic-smem",
				"the tile '%s' is a pointer into the dynamic (extern) shared array "
				"'%s' that kpipe cannot place (declared in the loop or changed)",
				root->decl->name, arr->name);
		else
			kp_ana_refuse(
				c, n, "kpipe-tile-escapes",
				"the tile '%s' is a pointer into the shared array '%s' (a "
				"carve-out): kpipe pipelines tiles declared as __shared__ arrays",
				root->decl->name, arr->name);
		return;
	}
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO ||
	    n->kind == KP_N_IF || n->kind == KP_N_SWITCH) {
		scan_nested(c, n, sc);
		return;
	}
	/* a call handed a shared array in the load phase: a helper that fills
	 * it (a call in a template kernel may name no declaration yet:
	 * `wt::loadFromGmem<BM, BN>(..., As, Bs, ...)` is resolved per
	 * instantiation) */
	if (n->kind == KP_N_CALL &&
	    (!n->decl || n->decl->kind == KP_D_FUNC || n->decl->kind == KP_D_OTHER)) {
		for (int i = 0; i < n->nkids; i++) {
			kp_node *a = (kp_node *)kp_node_strip(n->kids[i]);
			kp_node *r = a ? kp_lvalue_root(a) : NULL;
			if (r && r->decl && r->decl->is_shared && r->decl->is_array) {
				c->l->loads_in_helper = 1;
				kp_ana_refuse(
					c, n, "kpipe-load-in-helper",
					"the tile '%s' is filled inside the helper '%s': the loop as "
					"written has no copy to pipeline; kpipe rewrite inlines the "
					"helper first where it can (a remark says why not)",
					r->decl->name, kp_callee_name(c->f, n));
				return;
			}
		}
	}
	for (int i = 0; i < n->nkids; i++)
		scan_loads(c, n->kids[i], sc);
}

void kp_find_loads(actx *c)
{
	kp_loop *l = c->l;
	kp_find_temps(c);
	for (int i = l->load_b; i < l->load_e; i++)
		scan_loads(c, l->stmts[i], (load_scope){0});
}
