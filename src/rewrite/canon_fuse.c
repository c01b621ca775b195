/*
 * canon_fuse.c - shape 7 of the canon pass (docs/design.md, "The canon
 * pass"): a guarded copy written as two copy loops, one per branch,
 *
 *     if (g) { for (H) S; } else { for (H) Z; }
 *
 * (cuda-convnet2's `if (!checkCaseBounds || ...) { for (j..) P[..] =
 * h[..]; } else { for (j..) P[..] = 0; }`), becomes one copy loop of
 * guarded copies, `for (H) { if (g) S; else Z; }`, the form the analysis
 * reads (a copy with an if/else guard).  The headers H are the same text
 * (loops nested as deep in both branches), S copies into a tile and Z
 * stores 0 into the same element.  It is the same program: g has no side
 * effect and reads no memory, no loop header and no store changes what g
 * reads, and g names no variable the headers declare, so evaluating g
 * once per trip gives the value evaluated once before the loop; the
 * trips and the stores are those of the branch g chose.  The else
 * branch's comments and `#pragma`s go with it.
 */
#include "canon_shapes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	kp_file *f;
	const kp_loop *l;
	const kp_canon_subst *s;
	kp_edits *ed;
	kp_canon_ranges *r;
	kp_strbuf lines;
	int n;
	const char *why; /* the first if/else of copy loops left as it is, and why */
} fuse;

/* The one statement of a branch (a block of one statement, a `#pragma`'s
 * attributed statement unwrapped, not a label's), or NULL. */
static kp_node *single(kp_file *f, kp_node *b)
{
	while (b && b->kind == KP_N_COMPOUND)
		b = b->nkids == 1 ? b->kids[0] : NULL;
	while (b && b->kind == KP_N_OTHER && b->nkids == 1 && !b->op &&
	       (b->kids[0]->kind == KP_N_FOR || b->kids[0]->kind == KP_N_COMPOUND)) {
		kp_node *k = b->kids[0];
		if (b->begin != k->begin &&
		    (!b->in_main || k->begin < b->begin ||
		     !strstr(kp_range_text(f, b->begin, k->begin), "pragma")))
			return NULL;
		b = k;
	}
	return b;
}

static const char *text_of(kp_file *f, const kp_node *n)
{
	if (!n)
		return "";
	return n->in_main && !n->from_macro ? kp_range_text(f, n->begin, n->end) : NULL;
}

/* n's text as the file spells it, macro names included (`ROWS % STEP
 * == 0`), or NULL when it is not in the main file. */
static const char *spelling(kp_file *f, const kp_node *n)
{
	return n && n->in_main && n->begin < n->end && n->end <= f->len
		       ? kp_range_text(f, n->begin, n->end)
		       : NULL;
}

/* Whether two texts are the same once white space is dropped. */
static int same_text(const char *a, const char *b)
{
	if (!a || !b)
		return 0;
	for (;;) {
		while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')
			a++;
		while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++, b++;
	}
}

typedef struct {
	const kp_canon_subst *s;
	unsigned off[64];
	int which[64];
	int n;
} subst_walk;

static int find_subst(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	subst_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->name_editable && w->n < 64)
		for (int i = 0; i < w->s->n; i++)
			if (n->decl == w->s->p[i]) {
				w->off[w->n] = n->name_off;
				w->which[w->n++] = i;
			}
	return 1;
}

/* n's text with the substitutions of s (names in source order). */
static const char *rendered(kp_file *f, kp_node *n, const kp_canon_subst *s)
{
	subst_walk w = {s, {0}, {0}, 0};
	kp_node_walk(n, NULL, find_subst, &w);
	kp_strbuf sb = KP_STRBUF_INIT;
	unsigned p = n->begin;
	for (int i = 0; i < w.n; i++) {
		int best = i;
		for (int j = i + 1; j < w.n; j++)
			if (w.off[j] < w.off[best])
				best = j;
		unsigned o = w.off[best];
		int which = w.which[best];
		w.off[best] = w.off[i], w.which[best] = w.which[i];
		w.off[i] = o, w.which[i] = which;
		kp_strbuf_addf(&sb, "%.*s%s", (int)(o - p), f->src + p, s->text[which]);
		p = o + (unsigned)strlen(s->p[which]->name);
	}
	kp_strbuf_addf(&sb, "%.*s", (int)(n->end - p), f->src + p);
	const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return r;
}

typedef struct {
	const char *names[8];
	int n;
	const kp_node *hit;
} name_walk;

static int find_name(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	name_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->name)
		for (int i = 0; i < w->n; i++)
			if (!strcmp(n->name, w->names[i]) && !w->hit)
				w->hit = n;
	return 1;
}

/* The header's writes: only of the variables it declares (w->names). */
static int find_header_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	name_walk *w = ud;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	kp_node *r = t ? kp_lvalue_root(t) : NULL;
	if (t && !w->hit) {
		int own = 0;
		for (int i = 0; r && r->name && i < w->n; i++)
			own |= !strcmp(r->name, w->names[i]);
		if (!own)
			w->hit = n;
	}
	return 1;
}

/* Whether the only preprocessor lines in [b, e) are #pragma. */
static int pragmas_only(const kp_file *f, unsigned b, unsigned e)
{
	for (unsigned i = b; i < e && i < f->len; i++) {
		if (f->src[i] != '#')
			continue;
		unsigned j = i;
		while (j > b && (f->src[j - 1] == ' ' || f->src[j - 1] == '\t'))
			j--;
		if ((j == 0 || f->src[j - 1] == '\n') && strncmp(f->src + i + 1, "pragma", 6))
			return 0;
	}
	return 1;
}

/* Why the stores S and Z of the innermost loops cannot be fused, or NULL. */
static const char *store_problem(fuse *c, kp_node *s, kp_node *z)
{
	kp_file *f = c->f;
	int ps = 0, pz = 0;
	kp_node *ts = s ? kp_write_target(s, &ps) : NULL, *tz = z ? kp_write_target(z, &pz) : NULL;
	if (!ts || !tz || !ps || !pz || s->nkids != 2 || z->nkids != 2)
		return "the innermost statements are not two plain stores";
	kp_node *rs = kp_lvalue_root(ts);
	int tile = rs && rs->decl && rs->decl->is_shared && rs->decl->is_array;
	for (int i = 0; rs && i < c->s->n; i++)
		tile |= rs->decl == c->s->p[i];
	if (!tile)
		return "the store is not into a tile";
	if (!same_text(text_of(f, ts), text_of(f, tz)))
		return "the two branches store into different elements";
	if (!kp_is_zero_value(z->kids[1]))
		return "the else branch stores something else than 0";
	if (s->from_macro || z->from_macro || !s->in_main || !z->in_main)
		return "a store is written by a macro";
	kp_node *parts[4] = {s->kids[0], s->kids[1], z->kids[0], z->kids[1]};
	for (int i = 0; i < 4; i++)
		if (kp_canon_impure(f, parts[i], 1))
			return "a store has a side effect";
	return NULL;
}

/* Walks the copy loops of the two branches down to their innermost
 * statements (*t, *e): why their headers differ or write what they do
 * not declare, or NULL; the names they declare are added to vars. */
static const char *same_chains(fuse *c, kp_node **tp, kp_node **ep, name_walk *vars)
{
	kp_file *f = c->f;
	kp_node *t = *tp, *e = *ep;
	const char *why = NULL;
	for (;;) {
		/* an if without else, the same condition in both (fuse_multi's
		 * `if (ROWS % STEP == 0 || y + ly < ROWS)`), inside a loop */
		while (t && e && t != *tp && t->kind == KP_N_IF && e->kind == KP_N_IF &&
		       t->nkids == 2 && e->nkids == 2 && !why) {
			if (!same_text(spelling(f, t->kids[0]), spelling(f, e->kids[0])))
				why = "the copy loops of the two branches are under different "
				      "conditions";
			else if (kp_canon_impure(f, t->kids[0], 0))
				why = "a condition in the copy loops reads memory or has a side "
				      "effect";
			t = single(f, t->kids[1]);
			e = single(f, e->kids[1]);
		}
		if (!t || !e || t->kind != KP_N_FOR || e->kind != KP_N_FOR || why)
			break;
		if (!same_text(text_of(f, t->for_init), text_of(f, e->for_init)) ||
		    !same_text(text_of(f, t->for_cond), text_of(f, e->for_cond)) ||
		    !same_text(text_of(f, t->for_inc), text_of(f, e->for_inc)))
			why = "the copy loops of the two branches have different headers";
		for (int i = 0; t->for_init && i < t->for_init->nkids && vars->n < 8; i++)
			if (t->for_init->kids[i]->kind == KP_N_VARDECL &&
			    t->for_init->kids[i]->name)
				vars->names[vars->n++] = t->for_init->kids[i]->name;
		kp_node *hdr[3] = {t->for_init, t->for_cond, t->for_inc};
		for (int i = 0; i < 3 && !why; i++)
			if (hdr[i]) {
				kp_node_walk(hdr[i], NULL, find_header_write, vars);
				if (vars->hit)
					why = "a copy loop's header changes a variable it does not "
					      "declare";
			}
		t = single(f, t->for_body);
		e = single(f, e->for_body);
	}
	*tp = t, *ep = e;
	return why;
}

/* Why the condition g of the if/else iff cannot be evaluated once per
 * copy, or NULL: iff is a plain `if (g)`, g is pure and names none of
 * the variables the copy loops' headers declare (vars), and no
 * preprocessor line but #pragma stands in iff. */
static const char *cond_problem(fuse *c, const kp_node *iff, const name_walk *vars)
{
	kp_file *f = c->f;
	kp_node *g = iff->kids[0];
	if (!g->in_main || g->from_macro || g->kind == KP_N_DECLSTMT || g->begin <= iff->begin ||
	    strstr(kp_range_text(f, iff->begin, g->begin), "constexpr") ||
	    strchr(kp_range_text(f, iff->begin, g->begin), ';'))
		return "the if is not a plain 'if (condition)'";
	if (kp_canon_impure(f, g, 0))
		return "its condition reads memory or has a side effect: fused, it is "
		       "evaluated once per copy";
	name_walk gw = *vars;
	gw.hit = NULL;
	kp_node_walk(g, NULL, find_name, &gw);
	if (gw.hit)
		return kp_arena_printf(&f->arena,
				       "its condition names '%s', which the copy loop declares",
				       gw.hit->name);
	if (!pragmas_only(f, iff->begin, kp_canon_stmt_end(f, iff)))
		return "a preprocessor line other than #pragma stands in it";
	return NULL;
}

/* Shape 7 at the if statement iff: 1 when fused, 0 when not the shape;
 * c->why when it is but cannot be fused. */
/* The edits of one fusion: the if's head [iff, open) and its tail
 * [close, end) go, the copy statement [sb, se) becomes txt; the three
 * ranges are the pass's and the if's line is reported. */
static int fused(fuse *c, const kp_node *iff, unsigned open, unsigned close, unsigned end,
		 unsigned sb, unsigned se, const char *txt)
{
	unsigned rb[3] = {iff->begin, sb, close}, re[3] = {open, se, end};
	kp_edits_add(c->ed, iff->begin, open - iff->begin, "");
	kp_edits_add(c->ed, sb, se - sb, txt);
	kp_edits_add(c->ed, close, end - close, "");
	for (int i = 0; i < 3; i++) {
		c->r->b[c->r->n] = rb[i];
		c->r->e[c->r->n++] = re[i];
	}
	kp_strbuf_addf(&c->lines, "%sline %d", c->n ? ", " : "", iff->line);
	c->n++;
	return 1;
}

static int fuse_if(fuse *c, kp_node *iff)
{
	kp_file *f = c->f;
	if (iff->nkids != 3 || iff->from_macro || !iff->in_main)
		return 0;
	kp_node *t = single(f, iff->kids[1]), *e = single(f, iff->kids[2]);
	if (!t || !e || t->kind != KP_N_FOR || e->kind != KP_N_FOR)
		return 0;
	name_walk vars = {{0}, 0, NULL};
	const char *why = same_chains(c, &t, &e, &vars);
	if (!why)
		why = store_problem(c, t, e);
	kp_node *g = iff->kids[0];
	if (!why)
		why = cond_problem(c, iff, &vars);
	if (why) {
		if (!c->why)
			c->why = kp_arena_printf(
				&f->arena,
				"the if/else on line %d is not fused into one copy loop of "
				"guarded copies: %s",
				iff->line, why);
		return 0;
	}
	if (c->r->n + 3 > KP_CANON_MAX_RANGES)
		return 0;
	kp_node *tb = iff->kids[1];
	unsigned end = kp_canon_stmt_end(f, iff);
	unsigned open = tb->kind == KP_N_COMPOUND ? tb->begin + 1 : tb->begin;
	unsigned close = tb->kind == KP_N_COMPOUND ? tb->end - 1 : kp_canon_stmt_end(f, tb);
	unsigned sb = t->begin, se = kp_canon_stmt_end(f, t);
	const char *gt = kp_range_text(f, g->begin, g->end);
	const char *txt = kp_arena_printf(&f->arena, "if (%s) %s; else %s;", gt,
					  rendered(f, t, c->s), rendered(f, e, c->s));
	return fused(c, iff, open, close, end, sb, se, txt);
}

/* The then branch of an if as its statements (a block's, or itself). */
static int branch_stmts(kp_node *b, kp_node **out, int max)
{
	if (!b)
		return 0;
	if (b->kind != KP_N_COMPOUND) {
		out[0] = b;
		return 1;
	}
	if (b->nkids > max)
		return 0;
	for (int i = 0; i < b->nkids; i++)
		out[i] = b->kids[i];
	return b->nkids;
}

typedef struct {
	const kp_decl *v, *tile;
	int refs, fixed;
	const char *bad;
	int device_fn; /* a __device__ function: its pointer parameters may
			* point into the tile */
} v_walk;

/* The references to v (each must be renamable), and what E may read. */
static int count_v(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	v_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->v) {
		w->refs++;
		w->fixed += n->name_editable;
	}
	return 1;
}

static int e_reads(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	v_walk *w = ud;
	const kp_decl *d = n->kind == KP_N_DECLREF ? n->decl : NULL;
	if (!d || w->bad)
		return 1;
	if (d == w->tile)
		w->bad = "its value reads the tile the branches store into";
	else if (d->is_pointer && (d->kind != KP_D_PARM || w->device_fn))
		w->bad = "its value reads through a local pointer or a __device__ function's "
			 "parameter";
	else if (d->is_shared && kp_decl_is_dynamic_smem(d))
		w->bad = "its value reads dynamic shared memory";
	else if (d->ty.is_ref)
		w->bad = "its value reads a reference";
	return 1;
}

/* Shape 7 one level down (cuda-convnet2's weight_acts.cu):
 *
 *     if (g1) { const T v = E; if (g2) { for (H) S; } else { for (H) Z; } }
 *     else { for (H) Z; }
 *
 * becomes `for (H) { if ((g1) && (g2')) S'; else Z; }`, g2' and S' with
 * each use of v written `((T)(E))`.  The same program: g1 is pure and names no
 * header variable, so it has one value in every trip; E has no side
 * effect, names no header variable, reads neither the tile (the only
 * memory the trips write) nor memory a local pointer or dynamic shared
 * memory reaches, and v is of an arithmetic type T (one word, `int`), so
 * each `((T)(E))` is v's value (the conversion its declaration makes); `&&`
 * evaluates E only where g1 holds, as the original does; g2 with v
 * written out is then pure for the trips (the headers write only what they
 * declare); the stores are those of the branch the two conditions chose.
 * Returns 1 when fused, 0 when iff is not this shape or c->why says why
 * it is left. */
static int fuse_nested(fuse *c, kp_node *iff)
{
	kp_file *f = c->f;
	kp_node *st[2];
	if (iff->nkids != 3 || iff->from_macro || !iff->in_main ||
	    iff->kids[1]->kind != KP_N_COMPOUND || branch_stmts(iff->kids[1], st, 2) != 2)
		return 0;
	kp_node *ds = st[0], *in = st[1];
	while (in && in->kind == KP_N_OTHER && in->nkids == 1 && !in->op)
		in = in->kids[0];
	if (ds->kind != KP_N_DECLSTMT || ds->nkids != 1 || ds->kids[0]->kind != KP_N_VARDECL ||
	    !in || in->kind != KP_N_IF || in->nkids != 3 || in != st[1] ||
	    in->kids[1]->kind != KP_N_COMPOUND)
		return 0;
	kp_node *t = single(f, in->kids[1]), *e1 = single(f, in->kids[2]),
		*e2 = single(f, iff->kids[2]);
	if (!t || !e1 || !e2 || t->kind != KP_N_FOR || e1->kind != KP_N_FOR || e2->kind != KP_N_FOR)
		return 0;
	const kp_decl *v = ds->kids[0]->decl;
	kp_node *E = v ? v->init : NULL;
	kp_node *g1 = iff->kids[0], *g2 = in->kids[0];
	const char *why = NULL;
	if (!v || !E || !v->is_const || v->is_pointer || v->is_array || v->ty.is_ref || !E->type ||
	    !v->type)
		why = "the statement before the inner if is not one const scalar's declaration";
	name_walk vars = {{0}, 0, NULL};
	kp_node *t2 = t, *in_t = t;
	if (!why)
		why = same_chains(c, &in_t, &e1, &vars);
	if (!why)
		why = same_chains(c, &t2, &e2, &vars);
	if (!why)
		why = store_problem(c, in_t, e1);
	if (!why)
		why = store_problem(c, t2, e2);
	/* v's value is E converted to v's type: written `((T)(E))`, T
	 * arithmetic, the conversion the declaration makes */
	const char *vt = v ? v->type : NULL;
	if (vt && !strncmp(vt, "const ", 6))
		vt += 6;
	if (!why && v->ty.kind != KP_TY_SINT && v->ty.kind != KP_TY_UINT &&
	    v->ty.kind != KP_TY_FLOAT && v->ty.kind != KP_TY_BOOL)
		why = "the declared variable is not of an arithmetic type";
	if (!why && (strchr(vt, ' ') || strchr(vt, '<') || strchr(vt, ':')))
		why = "the declared variable's type is not one word";
	int pt = 0;
	kp_node *tgt = why ? NULL : kp_write_target(in_t, &pt);
	kp_node *root = tgt ? kp_lvalue_root(tgt) : NULL;
	v_walk vw = {
		v, root ? root->decl : NULL, 0, 0, NULL, !c->l->kernel || c->l->kernel->is_device};
	if (!why) {
		kp_node_walk(E, NULL, e_reads, &vw);
		why = vw.bad;
	}
	if (!why && kp_canon_impure(f, E, 1))
		why = "the declared variable's value has a side effect";
	if (!why && (kp_canon_impure(f, g1, 0) || kp_canon_impure(f, g2, 0)))
		why = "a condition reads memory or has a side effect";
	kp_node *named[3] = {g1, g2, E};
	for (int i = 0; i < 3 && !why; i++) {
		name_walk gw = vars;
		gw.hit = NULL;
		kp_node_walk(named[i], NULL, find_name, &gw);
		if (gw.hit)
			why = "a condition names a variable a copy loop declares";
	}
	/* v named only in g2 and the store, each use renamable */
	if (!why) {
		kp_node_walk(g2, NULL, count_v, &vw);
		kp_node_walk(in_t, NULL, count_v, &vw);
		int inner = vw.refs;
		vw.refs = vw.fixed = 0;
		kp_node_walk(in, NULL, count_v, &vw);
		if (vw.refs != inner || vw.fixed != vw.refs)
			why = "the declared variable is used outside the condition and the copy";
	}
	kp_node *hdrs[3] = {t->for_init, t->for_cond, t->for_inc};
	for (int i = 0; i < 3 && !why; i++)
		if (hdrs[i] && kp_node_names_decl(hdrs[i], v))
			why = "a copy loop's header names the declared variable";
	if (!why && (!pragmas_only(f, iff->begin, kp_canon_stmt_end(f, iff)) || g1->from_macro ||
		     g2->from_macro || !g1->in_main || !g2->in_main))
		why = "a preprocessor line other than #pragma, or a macro, stands in it";
	if (why) {
		if (!c->why)
			c->why = kp_arena_printf(
				&f->arena,
				"the if/else on line %d is not fused into one copy loop "
				"of guarded copies: %s",
				iff->line, why);
		return 0;
	}
	if (c->r->n + 3 > KP_CANON_MAX_RANGES || c->s->n >= KP_CANON_MAX_SUBST)
		return 0;
	kp_canon_subst sv = *c->s;
	sv.p[sv.n] = v;
	sv.text[sv.n++] = kp_arena_printf(&f->arena, "((%s)(%s))", vt, rendered(f, E, c->s));
	kp_node *itb = in->kids[1];
	unsigned end = kp_canon_stmt_end(f, iff);
	unsigned open = itb->begin + 1, close = itb->end - 1;
	unsigned sb = in_t->begin, se = kp_canon_stmt_end(f, in_t);
	const char *txt = kp_arena_printf(&f->arena, "if ((%s) && (%s)) %s; else %s;",
					  rendered(f, g1, c->s), rendered(f, g2, &sv),
					  rendered(f, in_t, &sv), rendered(f, e1, c->s));
	return fused(c, iff, open, close, end, sb, se, txt);
}

/* a's and b's texts the same product once the factors are sorted
 * (`colorsPerThread * B_Y` and `B_Y * colorsPerThread`): a product of
 * names and literals, white space and outer parentheses aside. */
static int same_product(const char *a, const char *b)
{
	char fa[8][64], fb[8][64];
	int na = 0, nb = 0;
	const char *src[2] = {a, b};
	for (int w = 0; w < 2; w++) {
		char(*fs)[64] = w ? fb : fa;
		int *nf = w ? &nb : &na;
		char cur[64];
		int len = 0;
		for (const char *p = src[w];; p++) {
			if (*p == ' ' || *p == '\t' || *p == '(' || *p == ')')
				continue;
			if (*p == '*' || !*p) {
				if (!len || *nf >= 8)
					return 0;
				cur[len] = '\0';
				memcpy(fs[(*nf)++], cur, (size_t)len + 1);
				len = 0;
				if (!*p)
					break;
				continue;
			}
			if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9')) ||
			    len >= 63)
				return 0;
			cur[len++] = *p;
		}
	}
	if (na != nb)
		return 0;
	int used[8] = {0};
	for (int i = 0; i < na; i++) {
		int hit = 0;
		for (int j = 0; j < nb && !hit; j++)
			if (!used[j] && !strcmp(fa[i], fb[j]))
				used[j] = hit = 1;
		if (!hit)
			return 0;
	}
	return 1;
}

/* Whether the condition b, `X < E` (or `E > X`), holds wherever the loop
 * runs: a tile pointer the load phase stores through (one of s, shape 6)
 * is declared at the top level of the kernel's body before the loop as
 * `&T[X]...`, with E T's first extent.  Forming it evaluates T[X], which
 * C++ leaves undefined unless 0 <= X < E, so every execution the rewrite
 * must keep has X < E; X names only what the kernel never changes
 * (carve_problem checked the initialiser). */
static int bound_holds(fuse *c, const kp_node *cond)
{
	kp_file *f = c->f;
	const kp_kernel *k = c->l->kernel;
	const kp_node *b = kp_node_strip(cond);
	if (!k || !k->body || !b || b->kind != KP_N_BINOP || b->nkids != 2 ||
	    (b->opk != KP_OP_LT && b->opk != KP_OP_GT) || b->from_macro || !b->in_main)
		return 0;
	const kp_node *x = b->kids[b->opk == KP_OP_LT ? 0 : 1],
		      *e = b->kids[b->opk == KP_OP_LT ? 1 : 0];
	for (int i = 0; i < c->s->n; i++) {
		const kp_decl *p = c->s->p[i];
		int top = 0;
		for (int j = 0; j < k->body->nkids; j++) {
			const kp_node *ds = k->body->kids[j];
			top |= ds->kind == KP_N_DECLSTMT && ds->begin <= p->begin &&
			       p->end <= ds->end;
		}
		if (!top || !p->init || p->end > c->l->node->begin)
			continue;
		const kp_node *row = NULL, *addr = kp_node_strip(p->init);
		const kp_decl *td = kp_canon_ptr_tile(p->init, &row);
		if (!td || !row || !addr || addr->kind != KP_N_UNOP || addr->opk != KP_OP_ADDR ||
		    td->ndims < 1 || !td->dim_text[0] || !same_text(text_of(f, row), text_of(f, x)))
			continue;
		long long v;
		const char *et = spelling(f, e);
		if ((td->dims[0] > 0 && !kp_eval(e, k, NULL, &v) && v == td->dims[0]) ||
		    same_text(td->dim_text[0], et) || (et && same_product(td->dim_text[0], et)))
			return 1;
	}
	return 0;
}

/* Shape 7 with several copy loops per branch (cuda-convnet2's
 * conv_weight_acts_mc_mf_kepler),
 *
 *     if (g) { [if (b1)] C1; ... [if (bn)] Cn; } else { D1; ... Dn; }
 *
 * Ci and Di of the same headers (loops, and ifs without else) down to a
 * store S into a tile and a store Z of 0 into the same element, each bi
 * a bound that holds wherever the loop runs (bound_holds), becomes
 * `C1'; ... Cn';`, Ci' Ci with S written `if (g) S; else Z;`.  The same
 * program: bi is true, so the then branch runs C1 ... Cn; g is pure and
 * names nothing the headers declare, and the stores write tiles only, so
 * g has one value throughout; the pairs run in the branches' order.
 * Returns 1 when fused, 0 when iff is not this shape or c->why says why
 * it is left. */
static int fuse_multi(fuse *c, kp_node *iff)
{
	kp_file *f = c->f;
	kp_node *tv[8], *ev[8];
	if (iff->nkids != 3 || iff->from_macro || !iff->in_main ||
	    iff->kids[1]->kind != KP_N_COMPOUND || iff->kids[2]->kind != KP_N_COMPOUND)
		return 0;
	int n = branch_stmts(iff->kids[1], tv, 8);
	if (!n || branch_stmts(iff->kids[2], ev, 8) != n)
		return 0;
	kp_node *ct[8], *wrap[8];
	int wrapped = 0;
	for (int i = 0; i < n; i++) {
		kp_node *p = tv[i];
		wrap[i] = NULL;
		if (p->kind == KP_N_IF && p->nkids == 2 && p->kids[1]->kind == KP_N_COMPOUND) {
			wrap[i] = p;
			wrapped++;
			p = p->kids[1];
		}
		ct[i] = single(f, p);
		kp_node *e = single(f, ev[i]);
		if (!ct[i] || !e || ct[i]->kind != KP_N_FOR || e->kind != KP_N_FOR)
			return 0;
	}
	if (n < 2 && !wrapped)
		return 0; /* shape 7's */
	kp_node *g = iff->kids[0];
	const char *why = NULL;
	kp_node *st[8], *sz[8];
	name_walk all = {{0}, 0, NULL};
	for (int i = 0; i < n && !why; i++) {
		name_walk vars = {{0}, 0, NULL};
		kp_node *t = ct[i], *e = single(f, ev[i]);
		why = same_chains(c, &t, &e, &vars);
		if (!why)
			why = store_problem(c, t, e);
		st[i] = t, sz[i] = e;
		for (int j = 0; j < vars.n && all.n < 8; j++)
			all.names[all.n++] = vars.names[j];
		if (!why && wrap[i] && !bound_holds(c, wrap[i]->kids[0]))
			why = kp_arena_printf(
				&f->arena,
				"the copy loop on line %d is under 'if (%s)', which the "
				"else branch's loop is not, and kpipe does not prove it "
				"always holds",
				ct[i]->line, kp_node_text(f, wrap[i]->kids[0]));
	}
	if (!why)
		why = cond_problem(c, iff, &all);
	if (why) {
		if (!c->why)
			c->why = kp_arena_printf(
				&f->arena,
				"the if/else on line %d is not fused into copy loops "
				"of guarded copies: %s",
				iff->line, why);
		return 0;
	}
	if (c->r->n + 3 + 3 * n > KP_CANON_MAX_RANGES)
		return 0;
	const char *gt = kp_range_text(f, g->begin, g->end);
	for (int i = 0; i < n; i++) {
		if (wrap[i]) { /* the bound's if goes, its block's statements stay */
			kp_node *wb = wrap[i]->kids[1];
			unsigned ends[2][2] = {{wrap[i]->begin, wb->begin + 1},
					       {wb->end - 1, kp_canon_stmt_end(f, wrap[i])}};
			for (int k = 0; k < 2; k++) {
				kp_edits_add(c->ed, ends[k][0], ends[k][1] - ends[k][0], "");
				c->r->b[c->r->n] = ends[k][0];
				c->r->e[c->r->n++] = ends[k][1];
			}
		}
		unsigned sb = st[i]->begin, se = kp_canon_stmt_end(f, st[i]);
		kp_edits_add(c->ed, sb, se - sb,
			     kp_arena_printf(&f->arena, "if (%s) %s; else %s;", gt,
					     rendered(f, st[i], c->s), rendered(f, sz[i], c->s)));
		c->r->b[c->r->n] = sb;
		c->r->e[c->r->n++] = se;
	}
	kp_node *tb = iff->kids[1];
	unsigned end = kp_canon_stmt_end(f, iff);
	unsigned ob[2] = {iff->begin, tb->end - 1}, oe[2] = {tb->begin + 1, end};
	for (int k = 0; k < 2; k++) {
		kp_edits_add(c->ed, ob[k], oe[k] - ob[k], "");
		c->r->b[c->r->n] = ob[k];
		c->r->e[c->r->n++] = oe[k];
	}
	kp_strbuf_addf(&c->lines, "%sline %d", c->n ? ", " : "", iff->line);
	for (int i = 0, first = 1; i < n; i++)
		if (wrap[i]) {
			kp_strbuf_addf(&c->lines, "%s'if (%s)'", first ? ", without " : " and ",
				       kp_node_text(f, wrap[i]->kids[0]));
			first = 0;
		}
	if (wrapped)
		kp_strbuf_adds(&c->lines, ", which the tile pointers' initialisers make hold");
	c->n++;
	return 1;
}

static void scan(fuse *c, kp_node *n)
{
	if (!n)
		return;
	if (n->kind == KP_N_IF && (fuse_nested(c, n) || fuse_if(c, n) || fuse_multi(c, n)))
		return;
	for (int i = 0; i < n->nkids; i++)
		scan(c, n->kids[i]);
}

int kp_canon_fuse(kp_file *f, const kp_loop *l, const kp_canon_subst *s, kp_edits *ed,
		  kp_canon_ranges *r, const char **lines, const char **why)
{
	fuse c = {f, l, s, ed, r, KP_STRBUF_INIT, 0, NULL};
	*lines = *why = NULL;
	for (int i = l->load_b; i < l->load_e; i++)
		scan(&c, l->stmts[i]);
	*why = c.why;
	if (c.n)
		*lines = kp_arena_strdup(&f->arena, kp_strbuf_str(&c.lines));
	kp_strbuf_release(&c.lines);
	return c.n;
}
