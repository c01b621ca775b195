/*
 * render.c - helpers the transforms share: substitution lists applied to
 * source ranges (re-indexing tiles, advancing induction variables), the
 * byte spans of the load / compute phases, indentation, and the edits to
 * tile declarations; comments left out of repeated copies of a phase and
 * `&*reinterpret_cast` avoided.  Pure text work over the model; no
 * libclang.
 */
#include "transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kp_subs_add(kp_subs *s, unsigned off, unsigned len, const char *text)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->v = kp_xrealloc(s->v, sizeof(*s->v) * (size_t)s->cap);
	}
	s->v[s->n++] = (kp_sub){off, len, kp_xstrdup(text)};
}

void kp_subs_release(kp_subs *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i].text);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_sub(const void *a, const void *b)
{
	const kp_sub *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* longer first: a containing substitution wins */
	return x->len > y->len ? -1 : x->len < y->len;
}

char *kp_render(const kp_file *f, unsigned b, unsigned e, const kp_subs *s)
{
	kp_sub *v = kp_xmalloc(sizeof(*v) * (size_t)(s->n + 1));
	int n = 0;
	for (int i = 0; i < s->n; i++)
		if (s->v[i].off >= b && s->v[i].off + s->v[i].len <= e)
			v[n++] = s->v[i];
	qsort(v, (size_t)n, sizeof(*v), cmp_sub);
	kp_strbuf sb = KP_STRBUF_INIT;
	unsigned pos = b;
	for (int i = 0; i < n; i++) {
		if (v[i].off < pos)
			continue; /* inside an earlier, wider substitution */
		kp_strbuf_add(&sb, f->src + pos, v[i].off - pos);
		kp_strbuf_adds(&sb, v[i].text);
		pos = v[i].off + v[i].len;
	}
	if (pos < e)
		kp_strbuf_add(&sb, f->src + pos, e - pos);
	free(v);
	return kp_strbuf_detach(&sb);
}

char *kp_render_compute(const kp_file *f, const kp_loop *l, const kp_spans *sp, const kp_subs *s,
			int quiet)
{
	char *comp = kp_render(f, sp->comp_b, sp->comp_e, s);
	if (!l->ntvals)
		return comp;
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < l->ntvals; i++) {
		const kp_node *t = l->tval_stmt[i];
		unsigned e = t->end;
		while (e > t->begin && (f->src[e - 1] == ';' || f->src[e - 1] == ' ' ||
					f->src[e - 1] == '\t' || f->src[e - 1] == '\n'))
			e--;
		char *ind = kp_line_indent(f, t->begin);
		kp_strbuf_addf(&sb, "%s%.*s;", ind, (int)(e - t->begin), f->src + t->begin);
		if (!quiet)
			kp_strbuf_addf(&sb,
				       " // kpipe: this tile's '%s' (the loads above set the "
				       "next tile's)",
				       l->tval_var[i]->name);
		kp_strbuf_addc(&sb, '\n');
		free(ind);
	}
	kp_strbuf_adds(&sb, comp);
	free(comp);
	return kp_strbuf_detach(&sb);
}

typedef struct {
	const kp_loop *l;
	kp_subs *s;
	unsigned b, e;
	const char *idx;
	int next;           /* steps ahead, 0 = tile indexing */
	const char *sbytes; /* KP_NAME_STAGE_BYTES as the file names it */
} sub_walk;

static int is_loaded_tile(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].arr == d && l->tiles[i].loaded)
			return 1;
	return 0;
}

/* The loaded tile `d` is a pointer into (kp_tile.alias), or NULL. */
static const kp_decl *alias_of(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->ntiles; i++)
		for (int j = 0; l->tiles[i].loaded && j < l->tiles[i].naliases; j++)
			if (l->tiles[i].alias[j] == d)
				return l->tiles[i].arr;
	return NULL;
}

static const kp_induct *ind_of(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nind; i++)
		if (l->ind[i].var == d)
			return &l->ind[i];
	return NULL;
}

/* The value of a decimal literal without suffix (an int, as the product
 * that replaces `n * (lit)` stays below 2^31), else -1. */
static long long int_literal(const char *t)
{
	long long v = 0;
	if (!*t || (t[0] == '0' && t[1]))
		return -1;
	for (; *t; t++) {
		if (*t < '0' || *t > '9' || v > 100000000)
			return -1;
		v = v * 10 + (*t - '0');
	}
	return v;
}

static int walk_subs(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	sub_walk *w = ud;
	if (n->kind != KP_N_DECLREF || !n->decl || !n->name_editable)
		return 1;
	unsigned nl = (unsigned)strlen(n->name);
	if (n->name_off < w->b || n->name_off + nl > w->e)
		return 1;
	if (!w->next && is_loaded_tile(w->l, n->decl)) {
		kp_strbuf sb = KP_STRBUF_INIT;
		if (kp_decl_is_dynamic_smem(n->decl))
			/* stage s of dynamic shared memory: the region s times
			 * kp_stage_bytes further (kp_emit_open) */
			kp_strbuf_addf(&sb,
				       "((decltype(&%s[0]))((unsigned char *)&%s[0] + (%s) * %s))",
				       n->name, n->name, w->idx, w->sbytes);
		else if (kp_decl_is_static_carve(n->decl))
			/* a carve-out of a static array repeated once per stage
			 * (kp_tile_decl_edits): stage s is s arrays further */
			kp_strbuf_addf(&sb,
				       "((decltype(&%s[0]))((unsigned char *)&%s[0] + (%s) * "
				       "(sizeof(%s[0]) * (%s))))",
				       n->name, n->name, w->idx, n->decl->dyn_base->name,
				       n->decl->dyn_base->dim_text[0]);
		else
			kp_strbuf_addf(&sb, "%s[%s]", n->name, w->idx);
		kp_subs_add(w->s, n->name_off, nl, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
	} else if (!w->next && alias_of(w->l, n->decl)) {
		/* a pointer into stage 0 of the tile (its initialiser, before
		 * the loop, took the tile's first element): stage s is one
		 * stage's elements further */
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "(%s + (%s) * (sizeof(%s[0]) / sizeof(*%s)))", n->name, w->idx,
			       alias_of(w->l, n->decl)->name, n->name);
		kp_subs_add(w->s, n->name_off, nl, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
	} else if (w->next) {
		const kp_induct *in = ind_of(w->l, n->decl);
		if (in) {
			kp_strbuf sb = KP_STRBUF_INIT;
			char op = in->sign < 0 ? '-' : '+';
			long long lit = int_literal(in->step);
			if (w->next == 1)
				kp_strbuf_addf(&sb, "(%s %c %s)", n->name, op, in->step);
			else if (lit >= 0 &&
				 lit * w->next <= 2147483647LL) /* (k + 2 * (1)) reads (k + 2) */
				kp_strbuf_addf(&sb, "(%s %c %lld)", n->name, op, lit * w->next);
			else /* a name keeps its parentheses: it may be a macro */
				kp_strbuf_addf(&sb, "(%s %c %d * (%s))", n->name, op, w->next,
					       in->step);
			kp_subs_add(w->s, n->name_off, nl, kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
		}
	}
	return 1;
}

void kp_subs_tiles(kp_subs *s, kp_file *f, const kp_loop *l, unsigned b, unsigned e,
		   const char *idx)
{
	sub_walk w = {l, s, b, e, idx, 0, NULL};
	if (l->dyn_tiles)
		w.sbytes = kp_fresh_name(f, KP_NAME_STAGE_BYTES);
	kp_node_walk(l->body, NULL, walk_subs, &w);
	if (l->cond)
		kp_node_walk(l->cond, NULL, walk_subs, &w);
}

void kp_subs_ahead(kp_subs *s, const kp_loop *l, unsigned b, unsigned e, int steps)
{
	if (steps <= 0)
		return;
	sub_walk w = {l, s, b, e, NULL, steps, NULL};
	kp_node_walk(l->body, NULL, walk_subs, &w);
	if (l->cond)
		kp_node_walk(l->cond, NULL, walk_subs, &w);
}

static unsigned line_begin(const kp_file *f, unsigned off)
{
	while (off > 0 && f->src[off - 1] != '\n')
		off--;
	return off;
}

/* Offset just after the statement ending at `end` (its ';'), moved to the
 * next line when only blanks follow. */
static unsigned after_stmt(const kp_file *f, unsigned end)
{
	unsigned p = end;
	while (p < f->len && (f->src[p] == ' ' || f->src[p] == '\t'))
		p++;
	if (p < f->len && f->src[p] == ';')
		p++;
	unsigned q = p;
	while (q < f->len && (f->src[q] == ' ' || f->src[q] == '\t' || f->src[q] == '\r'))
		q++;
	if (q < f->len && f->src[q] == '\n')
		return q + 1;
	return p;
}

/* Start of the statement at `begin`: its line start when only blanks
 * precede it on the line. */
static unsigned before_stmt(const kp_file *f, unsigned begin)
{
	unsigned lb = line_begin(f, begin);
	for (unsigned p = lb; p < begin; p++)
		if (f->src[p] != ' ' && f->src[p] != '\t')
			return begin;
	return lb;
}

void kp_subs_drop_stmt(kp_subs *s, const kp_file *f, const kp_node *stmt)
{
	if (!stmt || !stmt->in_main)
		return;
	unsigned b = before_stmt(f, stmt->begin);
	unsigned e = after_stmt(f, stmt->end);
	/* the statement alone on its line goes with the line; otherwise only
	 * the statement and its ';' */
	if (b != line_begin(f, stmt->begin) || e == 0 || f->src[e - 1] != '\n') {
		b = stmt->begin;
		e = stmt->end;
		while (e < f->len && (f->src[e] == ' ' || f->src[e] == '\t'))
			e++;
		if (e < f->len && f->src[e] == ';')
			e++;
		else
			e = stmt->end;
	}
	kp_subs_add(s, b, e - b, "");
}

void kp_loop_spans(const kp_file *f, const kp_loop *l, kp_spans *sp)
{
	kp_node *body = l->body;
	unsigned body_open = body->begin + 1; /* after '{' */
	unsigned body_close = body->end - 1;  /* the '}' */
	unsigned close_line = before_stmt(f, body_close);
	kp_node *b1 = l->stmts[l->bar1];
	kp_node *b2 = l->bar2 >= 0 ? l->stmts[l->bar2] : NULL;
	sp->bump_b = sp->bump_e = 0;
	if (l->form == KP_FORM_TOP) {
		sp->load_b = after_stmt(f, b1->end);
		sp->load_e = before_stmt(f, b2->begin);
		if (l->bump_e > l->bump_b) {
			sp->bump_b = before_stmt(f, l->stmts[l->bump_b]->begin);
			sp->bump_e = sp->load_e;
			sp->load_e = sp->bump_b;
		}
		sp->comp_b = after_stmt(f, b2->end);
		sp->comp_e = close_line;
		sp->tail_b = sp->tail_e = sp->comp_e;
	} else {
		unsigned first = l->load_b < l->nstmts ? l->stmts[l->load_b]->begin : body_open;
		sp->load_b = before_stmt(f, first);
		if (l->load_b == 0) {
			unsigned p = body_open;
			while (p < f->len &&
			       (f->src[p] == ' ' || f->src[p] == '\t' || f->src[p] == '\r'))
				p++;
			if (p < f->len && f->src[p] == '\n' && p + 1 <= sp->load_b)
				sp->load_b = p + 1 < sp->load_b ? p + 1 : sp->load_b;
		}
		sp->load_e = before_stmt(f, b1->begin);
		if (l->bump_e > l->bump_b) {
			sp->bump_b = before_stmt(f, l->stmts[l->bump_b]->begin);
			sp->bump_e = sp->load_e;
			sp->load_e = sp->bump_b;
		}
		sp->comp_b = after_stmt(f, b1->end);
		sp->comp_e = b2 ? before_stmt(f, b2->begin) : close_line;
		sp->tail_b = b2 ? after_stmt(f, b2->end) : close_line;
		sp->tail_e = close_line;
		if (sp->tail_b > sp->tail_e)
			sp->tail_b = sp->tail_e;
	}
}

char *kp_line_indent(const kp_file *f, unsigned off)
{
	unsigned lb = line_begin(f, off), p = lb;
	while (p < f->len && (f->src[p] == ' ' || f->src[p] == '\t'))
		p++;
	return kp_xstrndup(f->src + lb, p - lb);
}

char *kp_indent_unit(const kp_file *f, const kp_loop *l)
{
	char *outer = kp_line_indent(f, l->node->begin);
	char *res = NULL;
	for (int i = 0; i < l->nstmts && !res; i++) {
		kp_node *s = l->stmts[i];
		if (!s->in_main)
			continue;
		char *inner = kp_line_indent(f, s->begin);
		size_t ol = strlen(outer), il = strlen(inner);
		if (il > ol && !strncmp(inner, outer, ol))
			res = kp_xstrdup(inner + ol);
		free(inner);
	}
	if (!res)
		res = kp_xstrdup(strchr(outer, '\t') ? "\t" : "    ");
	free(outer);
	return res;
}

char *kp_reindent(const char *text, const char *prefix)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	int at_line_start = 1;
	for (const char *p = text; *p; p++) {
		if (at_line_start && *p != '\n' && *p != '\r' && *p != '#')
			kp_strbuf_adds(&sb, prefix);
		kp_strbuf_addc(&sb, *p);
		at_line_start = *p == '\n';
	}
	return kp_strbuf_detach(&sb);
}

char *kp_init_stmt(kp_file *f, const kp_loop *l)
{
	kp_node *in = l->init;
	if (!in || !in->in_main || in->kind == KP_N_NULLSTMT || in->end <= in->begin)
		return kp_xstrdup("");
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_add(&sb, f->src + in->begin, in->end - in->begin);
	/* a DeclStmt's extent includes its ';' */
	if (sb.len && sb.buf[sb.len - 1] != ';')
		kp_strbuf_addc(&sb, ';');
	return kp_strbuf_detach(&sb);
}

/* ---- tiles in dynamic shared memory ---- */

typedef struct {
	const kp_decl *d;
	kp_node *stmt;
} declstmt_walk;

static int find_declstmt(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	declstmt_walk *w = ud;
	if (w->stmt)
		return 0;
	if (n->kind != KP_N_DECLSTMT)
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (n->kids[i]->kind == KP_N_VARDECL && n->kids[i]->decl == w->d)
			w->stmt = n;
	return 0;
}

static kp_node *declstmt_of(const kp_loop *l, const kp_decl *d)
{
	declstmt_walk w = {d, NULL};
	kp_node_walk(l->kernel->body, NULL, find_declstmt, &w);
	return w.stmt;
}

static int tile_loaded(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].arr == d && l->tiles[i].loaded)
			return 1;
	return 0;
}

static long long tile_align(const kp_decl *d) { return d->align > 16 ? d->align : 16; }

const char *kp_dynamic_problem(kp_file *f, const kp_loop *l)
{
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		const kp_decl *d = t->arr;
		if (t->in_loop)
			return kp_arena_printf(
				&f->arena, "the tile '%s' is declared inside the loop", d->name);
		kp_node *ds = declstmt_of(l, d);
		if (!ds || !ds->in_main || !d->in_main)
			return kp_arena_printf(&f->arena,
					       "the declaration of '%s' is not a statement of the "
					       "kernel spelled in this file",
					       d->name);
		for (int k = 0; k < ds->nkids; k++) {
			const kp_node *v = ds->kids[k];
			if (v->kind == KP_N_VARDECL && v->decl && !tile_loaded(l, v->decl))
				return kp_arena_printf(&f->arena,
						       "'%s' is declared with the tile '%s' in one "
						       "statement but is no tile of the loop",
						       v->decl->name, d->name);
		}
		if (d->init)
			return kp_arena_printf(
				&f->arena, "the declaration of '%s' has an initialiser", d->name);
		/* an element type of a template parameter (`T`) has its size in
		 * each instantiation: the plan sizes the region for the largest
		 * (kp_plan_dynamic), the layout uses sizeof */
		if (!d->elem_type || (d->elem_size <= 0 && l->nper_inst <= 0))
			return kp_arena_printf(&f->arena,
					       "the element type of '%s' has no size kpipe knows "
					       "(a template parameter, and the kernel has no "
					       "instantiation in the file)",
					       d->name);
	}
	return NULL;
}

long long kp_dynamic_bytes(const kp_loop *l, int buffers)
{
	long long off = 0;
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		if (t->bytes <= 0)
			return -1;
		long long al = tile_align(t->arr);
		off = (off + al - 1) / al * al + t->bytes * buffers;
	}
	return off;
}

/* `T (&As)[S][..] = *reinterpret_cast<T (*)[S][..]>(base + off);` for every
 * tile of one declaration statement, each at the next multiple of 16 B
 * (or its __align__) after the previous tile's end (*prev: the last tile
 * laid out, NULL for the first). */
static void dynamic_decls(kp_strbuf *sb, kp_file *f, const kp_loop *l, const kp_node *ds,
			  const char *sbuf, const char *base, const char *ind, const kp_decl **prev,
			  kp_strbuf *off)
{
	for (int k = 0; k < ds->nkids; k++) {
		const kp_node *v = ds->kids[k];
		if (v->kind != KP_N_VARDECL || !v->decl)
			continue;
		const kp_decl *d = v->decl;
		unsigned ne = d->name_off + (unsigned)strlen(d->name);
		const char *dims = kp_range_text(f, ne, d->name_end > ne ? d->name_end : ne);
		long long al = tile_align(d);
		if (*prev) {
			char *o = kp_strbuf_detach(off);
			kp_strbuf_addf(off, "(%s + sizeof(%s) + %lld) / %lld * %lld", o,
				       (*prev)->name, al - 1, al, al);
			free(o);
		} else
			kp_strbuf_adds(off, "0");
		if (sb->len)
			kp_strbuf_addf(sb, "\n%s", ind);
		kp_strbuf_addf(sb, "%s (&%s)%s%s = *reinterpret_cast<%s (*)%s%s>(%s + %s);",
			       d->elem_type, d->name, sbuf, dims, d->elem_type, sbuf, dims, base,
			       kp_strbuf_str(off));
		*prev = d;
	}
	(void)l;
}

/* The dynamic form of the tile declarations: the extern array after the
 * kernel's opening brace, each tile's statement replaced by references
 * into it. */
static void dynamic_decl_edits(kp_file *f, const kp_loop *l, const char *sbuf, int comments,
			       kp_edits *out)
{
	const char *base = kp_fresh_name(f, KP_NAME_DSMEM);
	const kp_decl *prev = NULL;
	kp_strbuf off = KP_STRBUF_INIT;
	const kp_node *done[16];
	int ndone = 0;
	char *ind0 = NULL;
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		const kp_node *ds = declstmt_of(l, t->arr);
		int seen = 0;
		for (int j = 0; j < ndone; j++)
			seen |= done[j] == ds;
		if (seen || !ds || ndone == 16)
			continue;
		done[ndone++] = ds;
		char *ind = kp_line_indent(f, ds->begin);
		if (!ind0)
			ind0 = kp_xstrdup(ind);
		kp_strbuf sb = KP_STRBUF_INIT;
		dynamic_decls(&sb, f, l, ds, sbuf, base, ind, &prev, &off);
		kp_edits_add(out, ds->begin, ds->end - ds->begin, kp_strbuf_str(&sb));
		kp_strbuf_release(&sb);
		free(ind);
	}
	long long al = 16;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].loaded && tile_align(l->tiles[i].arr) > al)
			al = tile_align(l->tiles[i].arr);
	kp_strbuf ext = KP_STRBUF_INIT;
	if (comments)
		kp_strbuf_addf(&ext,
			       "\n%s// kpipe: the tiles below live in dynamic shared memory (every "
			       "launch passes its size)",
			       ind0 ? ind0 : "\t");
	kp_strbuf_addf(&ext, "\n%sextern __shared__ __align__(%lld) unsigned char %s[];",
		       ind0 ? ind0 : "\t", al, base);
	kp_edits_add(out, l->kernel->body->begin + 1, 0, kp_strbuf_str(&ext));
	kp_strbuf_release(&ext);
	kp_strbuf_release(&off);
	free(ind0);
}

/* A tile refilled after the loop (analysis/refill.h): its uses after the
 * loop read and write stage 0; a tile read as the loop left it
 * (analysis/last_tile.h): the stage of the last tile, kp_last_var().  Uses
 * before the loop (analysis/earlier_use.h) take the same index; the ranges
 * of later loops over the same tiles are theirs (l->skip_b). */
typedef struct {
	const kp_decl *d;
	unsigned lb, le; /* the loop */
	int before;      /* the uses before the loop too */
	const kp_loop *l;
	kp_edits *out;
	const char *idx;
} after_walk;

static int stage0_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	after_walk *w = ud;
	if (n->kind != KP_N_DECLREF || n->decl != w->d || !n->name_editable)
		return 1;
	unsigned o = n->name_off;
	if ((o >= w->lb && o < w->le) || (o < w->lb && !w->before))
		return 1;
	for (int i = 0; w->l && i < w->l->nskip; i++)
		if (o >= w->l->skip_b[i] && o < w->l->skip_e[i])
			return 1;
	kp_edits_add(w->out, o + (unsigned)strlen(n->name), 0, w->idx);
	return 1;
}

void kp_tile_index_range(const kp_kernel *k, const kp_decl *d, unsigned b, unsigned e,
			 const char *idx, kp_edits *out)
{
	/* the uses outside [b, e) are those of an empty loop at b (skipped
	 * below), so every use of the kernel is indexed, then only [b, e) kept */
	kp_edits tmp = {0};
	after_walk w = {d, b, b, 1, NULL, &tmp, idx};
	kp_node_walk(k->body, NULL, stage0_after, &w);
	for (int i = 0; i < tmp.n; i++)
		if (tmp.v[i].off > b && tmp.v[i].off <= e)
			kp_edits_add(out, tmp.v[i].off, tmp.v[i].len, tmp.v[i].text);
	kp_edits_release(&tmp);
}

/* The static array that tile i of l is carved out of, once per loop (its
 * first loaded carve-out): its bound N becomes `stages * (N)`, so stage s
 * of every carve-out is the same pointer s * N elements further
 * (static_carve.c checked the declaration: one bound, after the name). */
static void repeat_region(const kp_file *f, const kp_loop *l, int i, int stages, kp_edits *out)
{
	const kp_decl *base = l->tiles[i].arr->dyn_base;
	for (int j = 0; j < i; j++)
		if (l->tiles[j].loaded && l->tiles[j].arr->dyn_base == base)
			return;
	unsigned open = base->name_off + (unsigned)strlen(base->name);
	while (open < base->name_end && f->src[open] != '[')
		open++;
	if (open >= base->name_end)
		return;
	char pre[32];
	snprintf(pre, sizeof(pre), "%d * (", stages);
	kp_edits_add(out, open + 1, 0, pre);
	kp_edits_add(out, base->name_end - 1, 0, ")");
}

const char *kp_last_var(kp_file *f, const kp_loop *l, int stages)
{
	if (stages < 2 || !l->kernel->body || !l->kernel->body->in_main)
		return NULL;
	if (l->last_name)
		return l->last_name;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].loaded && (l->tiles[i].last_after || l->nskip))
			return kp_fresh_name(f, kp_arena_printf(&f->arena, "%s%d", KP_NAME_LAST,
								l->index));
	return NULL;
}

void kp_emit_last_set(kp_strbuf *sb, kp_file *f, const kp_loop *l, const char *I, const char *stage,
		      int stages)
{
	const char *v = kp_last_var(f, l, stages);
	if (v)
		kp_strbuf_addf(sb, "%s%s = %s;\n", I, v, stage);
}

/* The stage index of the uses after the loop: the kernel-wide variable
 * kp_last_var() declared at the top of the kernel, or stage 0. */
static void after_edits(kp_file *f, const kp_loop *l, int stages, const kp_tile *t, kp_edits *out)
{
	const char *v = t->last_after || l->nskip ? kp_last_var(f, l, stages) : NULL;
	after_walk w = {t->arr,
			l->node->begin,
			l->node->end,
			t->used_before,
			l,
			out,
			v ? kp_arena_printf(&f->arena, "[%s]", v) : "[0]"};
	kp_node_walk(l->kernel->body, NULL, stage0_after, &w);
}

/* `int kp_lastN = 0;` at the top of the kernel (indented as the first
 * such tile's declaration) when a tile is read after the loop as the loop
 * left it. */
static void last_decl_edit(kp_file *f, const kp_loop *l, int stages, int comments, kp_edits *out)
{
	const char *v = kp_last_var(f, l, stages);
	if (!v || l->last_name)
		return; /* a later loop over shared tiles: the first declared it */
	const kp_decl *d = NULL;
	for (int i = 0; i < l->ntiles && !d; i++)
		if (l->tiles[i].loaded && (l->tiles[i].last_after || l->nskip))
			d = l->tiles[i].arr;
	char *ind = kp_line_indent(f, d->begin);
	kp_strbuf sb = KP_STRBUF_INIT;
	if (comments)
		kp_strbuf_addf(
			&sb,
			"\n%s// kpipe: the buffer the last tile of the loop at line %d is in "
			"(its uses after the loop read it)",
			ind, l->node->line);
	kp_strbuf_addf(&sb, "\n%sint %s = 0;", ind, v);
	kp_edits_add(out, l->kernel->body->begin + 1, 0, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	free(ind);
}

char *kp_tile_decl_edits(kp_file *f, const kp_loop *l, int stages, int dynamic, int comments,
			 kp_edits *out)
{
	kp_strbuf hoist = KP_STRBUF_INIT;
	char sbuf[32] = ""; /* one stage: the declarations keep their shape */
	if (stages > 1)
		snprintf(sbuf, sizeof(sbuf), "[%d]", stages);
	last_decl_edit(f, l, stages, comments, out);
	if (dynamic) {
		/* kp_dynamic_problem() said every tile is declared outside the
		 * loop, in statements of tiles only */
		dynamic_decl_edits(f, l, sbuf, comments, out);
		/* the uses after the loop too (the tiles are references to
		 * the stages, stage 0 or the last tile's) */
		for (int i = 0; i < l->ntiles; i++)
			if (l->tiles[i].loaded && !kp_decl_is_dynamic_smem(l->tiles[i].arr) &&
			    sbuf[0] && l->kernel->body)
				after_edits(f, l, stages, &l->tiles[i], out);
		return kp_strbuf_detach(&hoist);
	}
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		if (t->loaded && kp_decl_is_static_carve(t->arr) && stages > 1)
			repeat_region(f, l, i, stages, out);
		if (!t->loaded || kp_decl_is_dynamic_smem(t->arr) ||
		    kp_decl_is_static_carve(t->arr))
			continue; /* dynamic: the stages are copies of the region */
		unsigned at = t->arr->name_off + (unsigned)strlen(t->arr->name);
		if (t->cont)
			continue; /* an earlier loop gave it its stages and indexes the rest */
		if (!t->in_loop) {
			if (sbuf[0])
				kp_edits_add(out, at, 0, sbuf);
			if (sbuf[0] && l->kernel->body)
				after_edits(f, l, stages, t, out);
			continue;
		}
		/* declared in the loop: hoist the whole declaration statement */
		const kp_node *ds = t->decl_stmt;
		int done = 0;
		for (int j = 0; j < i; j++)
			if (l->tiles[j].decl_stmt == ds && l->tiles[j].loaded)
				done = 1;
		if (done)
			continue;
		kp_subs s = {0};
		for (int j = 0; j < l->ntiles; j++)
			if (l->tiles[j].decl_stmt == ds && l->tiles[j].loaded)
				kp_subs_add(&s,
					    l->tiles[j].arr->name_off +
						    (unsigned)strlen(l->tiles[j].arr->name),
					    0, sbuf);
		char *txt = kp_render(f, ds->begin, ds->end, &s);
		kp_strbuf_adds(&hoist, txt);
		if (hoist.len && hoist.buf[hoist.len - 1] != ';')
			kp_strbuf_addc(&hoist, ';');
		kp_strbuf_addc(&hoist, '\n');
		free(txt);
		kp_subs_release(&s);
	}
	return kp_strbuf_detach(&hoist);
}

unsigned kp_loop_start(const kp_file *f, const kp_loop *l, char **pragma)
{
	*pragma = NULL;
	unsigned lb = line_begin(f, l->node->begin);
	if (lb == 0)
		return l->node->begin;
	unsigned prev = line_begin(f, lb - 1), p = prev;
	while (p < lb && (f->src[p] == ' ' || f->src[p] == '\t'))
		p++;
	if (lb - p > 7 && !strncmp(f->src + p, "#pragma", 7)) {
		unsigned e = lb;
		while (e > p && (f->src[e - 1] == '\n' || f->src[e - 1] == '\r'))
			e--;
		*pragma = kp_xstrndup(f->src + p, e - p);
		return prev;
	}
	return l->node->begin;
}

void kp_emit_open(kp_strbuf *sb, kp_file *f, const kp_loop *l, unsigned start, const char *ind,
		  const char *I1, const char *comment, int stages, int dynamic, kp_edits *out)
{
	if (start != l->node->begin)
		kp_strbuf_adds(sb, ind);
	if (comment)
		kp_strbuf_addf(sb, "// kpipe: %s\n%s{\n", comment, ind);
	else /* --no-comment: the block opens where the loop began */
		kp_strbuf_adds(sb, "{\n");
	char *init = kp_init_stmt(f, l);
	if (*init)
		kp_strbuf_addf(sb, "%s%s\n", I1, init);
	free(init);
	char *hoist = kp_tile_decl_edits(f, l, stages, dynamic, comment != NULL, out);
	if (*hoist) {
		char *h = kp_reindent(hoist, I1);
		kp_strbuf_adds(sb, h);
		free(h);
	}
	free(hoist);
	kp_strbuf_addf(sb, "%sint %s = 0;\n", I1, kp_fresh_name(f, KP_NAME_STAGE));
	if (l->dyn_tiles && stages > 1) {
		/* every launch passes `stages` times the region (rounded up to 16
		 * bytes): stage s of a dynamic tile is s copies further */
		const char *sb_name = kp_fresh_name(f, KP_NAME_STAGE_BYTES);
		kp_strbuf_addf(sb, "%sunsigned %s;\n", I1, sb_name);
		kp_strbuf_addf(sb, "%sasm(\"mov.u32 %%0, %%%%dynamic_smem_size;\" : \"=r\"(%s));\n",
			       I1, sb_name);
		kp_strbuf_addf(sb, "%s%s /= %d;\n", I1, sb_name, stages);
	}
}

void kp_emit_tail(kp_strbuf *sb, const kp_file *f, const kp_spans *sp, const char *iu)
{
	const unsigned span[2][2] = {{sp->bump_b, sp->bump_e}, {sp->tail_b, sp->tail_e}};
	for (int i = 0; i < 2; i++) {
		if (span[i][1] <= span[i][0])
			continue;
		char *txt = kp_render(f, span[i][0], span[i][1], &(kp_subs){0});
		char *txt_i = kp_reindent(txt, iu);
		kp_strbuf_adds(sb, txt_i);
		free(txt);
		free(txt_i);
	}
}

char *kp_strip_comments(const char *text)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	if (strstr(text, "R\"")) { /* a raw string literal: left as it is */
		kp_strbuf_adds(&sb, text);
		return kp_strbuf_detach(&sb);
	}
	const char *line = text;
	while (*line) {
		size_t n = strcspn(line, "\n");
		const char *cut = NULL; /* where a // comment starts */
		char quote = 0;
		for (size_t i = 0; i < n && !cut; i++) {
			char c = line[i];
			if (quote) {
				if (c == '\\' && i + 1 < n)
					i++;
				else if (c == quote)
					quote = 0;
			} else if (c == '"' || c == '\'')
				quote = c;
			else if (c == '/' && i + 1 < n && line[i + 1] == '/')
				cut = line + i;
			else if (c == '/' && i + 1 < n && line[i + 1] == '*')
				break; /* a block comment: the line stays as it is */
		}
		/* a comment continued by a backslash runs into the next line */
		if (cut && line[n - 1] == '\\')
			cut = NULL;
		/* a line holding only a block comment goes too */
		const char *b = line;
		while (b < line + n && (*b == ' ' || *b == '\t'))
			b++;
		const char *e = line + n;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (!cut && e - b >= 4 && !strncmp(b, "/*", 2)) {
			const char *close = strstr(b + 2, "*/");
			if (close && close + 2 == e) {
				line += n + (line[n] == '\n');
				continue;
			}
		}
		const char *end = cut ? cut : line + n;
		while (cut && end > line && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end > line || !cut) /* a line holding only a comment goes */
			kp_strbuf_add(&sb, line, (size_t)(end - line));
		if (line[n] == '\n' && (end > line || !cut))
			kp_strbuf_addc(&sb, '\n');
		line += n + (line[n] == '\n');
	}
	return kp_strbuf_detach(&sb);
}

/* The end of the parenthesised group that opens at t[0] == '(', or NULL. */
static const char *close_paren(const char *t)
{
	int depth = 0;
	for (; *t; t++)
		if (*t == '(')
			depth++;
		else if (*t == ')' && --depth == 0)
			return t;
	return NULL;
}

char *kp_addr_of(const char *lvalue)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	static const char cast[] = "*reinterpret_cast<";
	const char *open = !strncmp(lvalue, cast, sizeof(cast) - 1) ? strchr(lvalue, '(') : NULL;
	const char *close = open ? close_paren(open) : NULL;
	if (close && !close[1] && !strchr(lvalue, '"') && !strchr(lvalue, '\''))
		kp_strbuf_adds(&sb, lvalue + 1); /* &*reinterpret_cast<T *>(p) is the cast */
	else
		kp_strbuf_addf(&sb, "&%s", lvalue);
	return kp_strbuf_detach(&sb);
}

/* The loop condition with the induction variables advanced d times. */
char *kp_cond_ahead(kp_file *f, const kp_loop *l, int d)
{
	kp_subs s = {0};
	kp_subs_ahead(&s, l, l->cond->begin, l->cond->end, d);
	char *c = kp_render(f, l->cond->begin, l->cond->end, &s);
	kp_subs_release(&s);
	return c;
}

/* "Tile i+d exists" where tile i+from-1 is known to exist: the original
 * loop stops at its first false condition, so this is cond(from) && ...
 * && cond(d), evaluated left to right in the counter's own type (a
 * count-down never wraps past a false step).  A monotone condition
 * (k < K with k growing) implies the earlier ones: cond(d) alone. */
char *kp_tile_exists(kp_file *f, const kp_loop *l, int from, int d)
{
	if (l->cond_monotone || from >= d)
		return kp_cond_ahead(f, l, d);
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int t = from; t <= d; t++) {
		char *c = kp_cond_ahead(f, l, t);
		kp_strbuf_addf(&sb, "%s(%s)", t > from ? " && " : "", c);
		free(c);
	}
	return kp_strbuf_detach(&sb);
}

void kp_frame_open(kp_frame *fr, const kp_file *f, const kp_loop *l)
{
	memset(fr, 0, sizeof(*fr));
	kp_loop_spans(f, l, &fr->sp);
	fr->start = kp_loop_start(f, l, &fr->pragma);
	fr->ind = kp_line_indent(f, l->node->begin);
	fr->iu = kp_indent_unit(f, l);
	for (int i = 0; i < 3; i++) {
		kp_strbuf_adds(&fr->lv[i], fr->ind);
		for (int k = 0; k <= i; k++)
			kp_strbuf_adds(&fr->lv[i], fr->iu);
	}
	fr->I1 = kp_strbuf_str(&fr->lv[0]);
	fr->I2 = kp_strbuf_str(&fr->lv[1]);
	fr->I3 = kp_strbuf_str(&fr->lv[2]);
}

void kp_frame_release(kp_frame *fr)
{
	for (int i = 0; i < 3; i++)
		kp_strbuf_release(&fr->lv[i]);
	free(fr->ind);
	free(fr->iu);
	free(fr->pragma);
	memset(fr, 0, sizeof(*fr));
}

void kp_emit_ring_close(kp_strbuf *sb, const kp_frame *fr, const kp_loop *l, const kp_xform_opts *o,
			const char *stage, int S, const char *drain)
{
	if (S == 2)
		kp_strbuf_addf(sb, "%s%s ^= 1;\n", fr->I2, stage);
	else
		kp_strbuf_addf(sb, "%s%s = %s == %d ? 0 : %s + 1;\n", fr->I2, stage, stage, S - 1,
			       stage);
	kp_strbuf_addf(sb, "%s}\n", fr->I1);
	if (drain)
		kp_strbuf_addf(sb, "%s%s\n", fr->I1, drain);
	if (l->exit_barrier) /* the last tile's compute is not fenced otherwise */
		kp_strbuf_addf(sb, "%s__syncthreads();%s%s\n", fr->I1,
			       o->no_comment ? "" : " // kpipe: ",
			       o->no_comment ? "" : l->exit_barrier_why);
	kp_strbuf_addf(sb, "%s}", fr->ind);
}
