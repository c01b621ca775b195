/*
 * canon_carve.c - shape 6 of the canon pass (docs/design.md, "The canon
 * pass"): a pointer carved out of a static __shared__ tile before the
 * loop (`float *P = &TILE[y][x];`, cuda-convnet2's `shHidActLoad`),
 * never changed, through which the load phase stores.  Each use of P,
 * all of them inside the loop, becomes P's initialiser, `(&TILE[y][x])`,
 * and P's declaration goes: the analysis then reads the stores as copies
 * into TILE, and the pipelined loop re-indexes TILE at its stage.  It is
 * the same program when the initialiser gives the same address wherever
 * P is used: it reads no memory, calls nothing, changes nothing, and
 * names only variables the kernel never changes (threadIdx and the like,
 * const locals, parameters), none of them hidden by another declaration
 * of the same name.
 */
#include "canon_shapes.h"

#include <string.h>

#define MAX_PTRS KP_CANON_MAX_SUBST

typedef struct {
	kp_file *f;
	const kp_kernel *k;
	const kp_decl *tile; /* the tile the initialiser points into */
	const kp_node *bad;
	const kp_decl *names[16]; /* the variables the initialiser names */
	int nnames;
} init_walk;

const kp_decl *kp_canon_ptr_tile(const kp_node *init, const kp_node **first)
{
	const kp_node *n = kp_node_strip(init);
	if (first)
		*first = NULL;
	if (n && n->kind == KP_N_UNOP && n->opk == KP_OP_ADDR && n->nkids == 1)
		n = kp_node_strip(n->kids[0]);
	while (n && n->kind == KP_N_SUBSCRIPT && n->nkids == 2) {
		if (first)
			*first = n->kids[1];
		n = kp_node_strip(n->kids[0]);
	}
	if (!n || n->kind != KP_N_DECLREF || !n->decl || !n->decl->is_shared || !n->decl->is_array)
		return NULL;
	return n->decl;
}

static int find_variant(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	init_walk *w = ud;
	int comp, bad = 0;
	switch (n->kind) {
	case KP_N_DECLREF:
		if (!n->decl)
			bad = 1;
		else if (n->decl == w->tile)
			break;
		else if (n->decl->kind == KP_D_VAR || n->decl->kind == KP_D_PARM) {
			/* a local or parameter of the kernel (a global variable is
			 * memory another kernel may change), or a constant */
			int own = n->decl->kind == KP_D_PARM ||
				  (n->decl->in_main && n->decl->begin >= w->k->begin &&
				   n->decl->end <= w->k->end);
			bad = n->decl->is_shared || n->decl->ty.is_ref || n->decl->is_device_var ||
			      KP_TY_ANY_VOLATILE(n->decl->ty) || (!own && !n->decl->is_const) ||
			      kp_changed_in(w->f, w->k, n->decl);
			if (!bad && w->nnames < 16)
				w->names[w->nnames++] = n->decl;
			bad |= w->nnames >= 16;
		}
		break;
	case KP_N_MEMBER: /* threadIdx.x */ bad = !kp_node_builtin(w->f, n, 0, &comp); break;
	case KP_N_BINOP: bad = !n->op || KP_OP_IS_ASSIGN(n->opk) || n->opk == KP_OP_COMMA; break;
	case KP_N_UNOP:
		bad = !n->op || KP_OP_IS_INCDEC(n->opk) || n->opk == KP_OP_DEREF ||
		      (n->opk == KP_OP_ADDR && parent);
		break;
	case KP_N_SUBSCRIPT: { /* only the tile's own subscripts */
		kp_node *r = kp_lvalue_root(n);
		bad = !r || r->decl != w->tile;
		break;
	}
	case KP_N_PAREN:
	case KP_N_CAST:
	case KP_N_OTHER:
	case KP_N_INTLIT:
	case KP_N_CONDOP:
	case KP_N_SIZEOF: break;
	default: bad = 1;
	}
	if (n->from_macro)
		bad = 1;
	if (bad && !w->bad)
		w->bad = n;
	return !bad && n->kind != KP_N_MEMBER;
}

typedef struct {
	const kp_decl *p;
	const kp_loop *l;
	kp_node *uses[64];
	int nuses;
	const kp_node *outside; /* a use outside the loop, or one no edit reaches */
	kp_node *declstmt;      /* the statement declaring p */
	int ndecls;             /* its declarators */
} use_walk;

typedef struct {
	const kp_decl *const *v;
	int n;
	const kp_decl *tile;
	const kp_node *hit; /* another declaration of one of those names */
} kp_init_names;

static int find_uses(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	use_walk *w = ud;
	if (n->kind == KP_N_DECLSTMT) {
		for (int i = 0; i < n->nkids; i++)
			if (n->kids[i]->kind == KP_N_VARDECL && n->kids[i]->decl == w->p) {
				w->declstmt = n;
				w->ndecls = n->nkids;
			}
	}
	if (n->kind != KP_N_DECLREF || n->decl != w->p)
		return 1;
	if (!n->name_editable || n->from_macro || n->macro_spell || n->begin < w->l->node->begin ||
	    n->end > w->l->node->end || w->nuses >= 64) {
		if (!w->outside)
			w->outside = n;
		return 1;
	}
	w->uses[w->nuses++] = n;
	return 1;
}

static int find_shadow(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	kp_init_names *s = ud;
	if (s->hit || n->kind != KP_N_VARDECL || !n->decl || !n->decl->name)
		return !s->hit;
	for (int i = 0; i <= s->n; i++) {
		const kp_decl *d = i < s->n ? s->v[i] : s->tile;
		if (d && n->decl != d && d->name && !strcmp(d->name, n->decl->name))
			s->hit = n;
	}
	return 1;
}

/* Why pointer p cannot be replaced by its initialiser in loop l, or NULL
 * with its uses and declaration statement in *w. */
static const char *carve_problem(kp_file *f, const kp_loop *l, const kp_decl *p, use_walk *w)
{
	const kp_kernel *k = l->kernel;
	const kp_decl *t = kp_canon_ptr_tile(p->init, NULL);
	if (!t || t->dyn_base || t->unsized || kp_decl_is_extern_shared(t))
		return "its initialiser is not the address of an element or row of a "
		       "static __shared__ array";
	if (!p->in_main || !p->init->in_main || p->init->from_macro || p->end > l->node->begin ||
	    p->begin < k->body->begin)
		return "it is not declared in the kernel's body before the loop";
	if (kp_changed_in(f, k, p))
		return "it is changed in the kernel";
	if (KP_TY_ANY_VOLATILE(p->ty))
		return "it points to volatile memory, which its initialiser does not";
	init_walk iw = {f, k, t, NULL, {0}, 0};
	kp_node_walk(p->init, NULL, find_variant, &iw);
	if (iw.bad)
		return kp_arena_printf(&f->arena,
				       "its initialiser's '%s' (line %d) may not give the same "
				       "address in the loop (kpipe copies it only when it reads "
				       "no memory, calls nothing and names variables the kernel "
				       "never changes)",
				       kp_node_text(f, iw.bad), iw.bad->line);
	kp_init_names s = {iw.names, iw.nnames, t, NULL};
	kp_node_walk(k->body, NULL, find_shadow, &s);
	if (s.hit)
		return kp_arena_printf(&f->arena,
				       "'%s' is declared again at line %d: the initialiser copied "
				       "into the loop might name another variable",
				       s.hit->decl->name, s.hit->line);
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->l = l;
	kp_node_walk(k->body, NULL, find_uses, w);
	if (w->outside)
		return kp_arena_printf(&f->arena,
				       "it is used at line %d, outside the loop or inside a macro",
				       w->outside->line);
	if (!w->declstmt || w->ndecls != 1 || w->declstmt->from_macro || !w->declstmt->in_main)
		return "its declaration declares other names too, or is written by a macro";
	return NULL;
}

/* The carve-out pointers the load phase stores through. */
static int stored_ptrs(const kp_loop *l, kp_node *n, const kp_decl **v, int nv)
{
	if (!n)
		return nv;
	int plain = 0;
	kp_node *tg = kp_write_target(n, &plain);
	kp_node *r = tg ? kp_lvalue_root(tg) : NULL;
	if (r && r->decl && r->decl->is_pointer && r->decl->init &&
	    kp_canon_ptr_tile(r->decl->init, NULL)) {
		for (int i = 0; i < nv; i++)
			if (v[i] == r->decl)
				return nv;
		if (nv < MAX_PTRS)
			v[nv++] = r->decl;
		return nv;
	}
	for (int i = 0; i < n->nkids; i++)
		nv = stored_ptrs(l, n->kids[i], v, nv);
	return nv;
}

/* The edits dropping p's declaration statement: its lines, or its text
 * when it shares them. */
static void drop_decl(kp_file *f, const kp_node *ds, kp_edits *ed)
{
	unsigned b = ds->begin, e = ds->end, t = e;
	while (b > 0 && (f->src[b - 1] == ' ' || f->src[b - 1] == '\t'))
		b--;
	while (t < f->len && (f->src[t] == ' ' || f->src[t] == '\t' || f->src[t] == '\r'))
		t++;
	if ((b == 0 || f->src[b - 1] == '\n') && t < f->len && f->src[t] == '\n')
		kp_edits_add(ed, b, t + 1 - b, "");
	else
		kp_edits_add(ed, ds->begin, e - ds->begin, "");
}

static int in_ranges(const kp_canon_ranges *r, unsigned off)
{
	for (int i = 0; i < r->n; i++)
		if (off >= r->b[i] && off < r->e[i])
			return 1;
	return 0;
}

int kp_canon_carve_edits(kp_file *f, const kp_loop *l, kp_edits *ed, const char **what,
			 const char **why)
{
	*what = *why = NULL;
	if (!l->kernel || !l->kernel->body)
		return 0;
	const kp_decl *ptrs[MAX_PTRS];
	int np = 0;
	for (int i = l->load_b; l->loads_carve_out && i < l->load_e; i++)
		np = stored_ptrs(l, l->stmts[i], ptrs, np);
	use_walk w[MAX_PTRS];
	kp_canon_subst s = {{0}, {0}, 0};
	for (int i = 0; i < np; i++) {
		const char *pr = carve_problem(f, l, ptrs[i], &w[i]);
		if (pr) {
			*why = kp_arena_printf(&f->arena,
					       "the tile pointer '%s' cannot be replaced by its "
					       "initialiser: %s",
					       ptrs[i]->name, pr);
			return -1;
		}
		s.p[s.n] = ptrs[i];
		s.text[s.n++] = kp_arena_printf(&f->arena, "(%s)", kp_node_text(f, ptrs[i]->init));
	}
	kp_edits mine = {0};
	kp_canon_ranges rg = {{0}, {0}, 0};
	const char *lines = NULL, *left = NULL;
	int nf = kp_canon_fuse(f, l, &s, &mine, &rg, &lines, &left);
	if (!np && !nf) {
		/* an if/else of copy loops left as it is: say why */
		*why = left;
		return left ? -1 : 0;
	}
	kp_strbuf names = KP_STRBUF_INIT;
	for (int i = 0; i < np; i++) {
		for (int j = 0; j < w[i].nuses; j++)
			if (!in_ranges(&rg, w[i].uses[j]->name_off))
				kp_edits_add(&mine, w[i].uses[j]->name_off,
					     (unsigned)strlen(ptrs[i]->name), s.text[i]);
		drop_decl(f, w[i].declstmt, &mine);
		kp_strbuf_addf(&names, "%s'%s' as %s", names.len ? ", " : "", ptrs[i]->name,
			       s.text[i]);
	}
	for (int i = 0; i < mine.n; i++)
		kp_edits_add(ed, mine.v[i].off, mine.v[i].len, mine.v[i].text);
	kp_strbuf wb = KP_STRBUF_INIT;
	if (np)
		kp_strbuf_addf(&wb,
			       "wrote the tile pointer%s %s at each use and dropped %s "
			       "declaration%s",
			       np > 1 ? "s" : "", kp_strbuf_str(&names), np > 1 ? "their" : "its",
			       np > 1 ? "s" : "");
	if (nf)
		kp_strbuf_addf(&wb,
			       "%sfused the if/else of copy loops (%s) into one copy loop of "
			       "guarded copies",
			       wb.len ? "; " : "", lines);
	else if (left) /* why the if/else of copy loops stays */
		kp_strbuf_addf(&wb, " (%s)", left);
	*what = kp_arena_strdup(&f->arena, kp_strbuf_str(&wb));
	kp_strbuf_release(&wb);
	kp_strbuf_release(&names);
	kp_edits_release(&mine);
	return 1;
}
