/*
 * pass_pad.c - the pass that pads shared arrays against bank conflicts
 * (`kpipe rewrite --pad`, issue #20): for each static __shared__ array of
 * a kernel with a conflicted access (banks.h), the innermost bound grows
 * by the smallest padding that minimises the worst conflict over all its
 * accesses and keeps their vector alignment: 16-byte rows for wmma and
 * ldmatrix, every wmma fragment pointer 32-byte aligned and every ldmatrix
 * row address 16-byte aligned where it was.  Only the declaration changes
 * (and a wmma leading dimension spelled as the bound); an array whose uses
 * depend on its exact layout is refused with the reason.
 */
#include "banks.h"
#include "pass.h"
#include "rewrite.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* How an array's uses constrain its padding (use_walk). */
typedef struct {
	kp_file *f;
	const kp_decl *d;
	const kp_bk_result *acc; /* the kernel's accesses, unpadded */
	const char *why;         /* the first use that depends on the layout, or NULL */
	int why_line;            /* its line */
	int align;               /* bytes every padded row must stay a multiple of */
	unsigned ldm[16];        /* wmma leading-dimension arguments to rewrite: their offsets */
	unsigned ldm_e[16];
	int nldm;
	const kp_node *anc[256];
	int nanc;
} use_walk;

static const char *trimmed(kp_file *f, const kp_node *n)
{
	const char *t = kp_node_text(f, n);
	while (t && isspace((unsigned char)*t))
		t++;
	return t ? t : "";
}

static void refuse_use(use_walk *w, const kp_node *n, const char *why)
{
	if (w->why)
		return;
	w->why = why;
	w->why_line = n->line;
}

/* The analysed ldmatrix of the array at node `at` (its asm statement, or
 * the element whose address gives its rows), or NULL. */
static const kp_bk_access *ldmatrix_at(const use_walk *w, const kp_node *at)
{
	for (int i = 0; i < w->acc->n; i++) {
		const kp_bk_access *x = &w->acc->acc[i];
		if (x->arr == w->d && x->ldmatrix && (x->node == at || x->addr == at))
			return x;
	}
	return NULL;
}

/* The element address of the array handed to call p (elem: the element,
 * n: the array's reference): a wmma load/store, whose ldm must be spelled
 * as the bound; an asynchronous copy with a constant size; the conversion
 * to a shared address of an ldmatrix's row that kpipe analysed. */
static void address_to_call(use_walk *w, const kp_node *p, const kp_node *elem, const kp_node *n)
{
	const char *name = p->name ? p->name : "";
	const kp_decl *d = w->d;
	if (strstr(name, "load_matrix_sync") || strstr(name, "store_matrix_sync")) {
		const kp_node *bn = kp_bk_dim_expr(d, d->ndims - 1);
		const char *bound = bn ? kp_range_text(w->f, bn->begin, bn->end) : NULL;
		const kp_node *ldm = p->nkids > 3 ? p->kids[3] : NULL;
		if (!ldm || !bound || !ldm->in_main || strcmp(trimmed(w->f, ldm), bound)) {
			refuse_use(w, n,
				   kp_arena_printf(&w->f->arena,
						   "a wmma %s reads it with a leading dimension "
						   "`%s` not spelled as its bound `%s`",
						   strstr(name, "load") ? "load" : "store",
						   ldm ? trimmed(w->f, ldm) : "?",
						   bound ? bound : "?"));
			return;
		}
		if (w->nldm < 16) {
			w->ldm[w->nldm] = ldm->begin;
			w->ldm_e[w->nldm++] = ldm->end;
		}
		/* ldm a multiple of 16 bytes; its fragment pointers stay 32-byte
		 * aligned (checked per padding, pad_array) */
		if (w->align < 16)
			w->align = 16;
		return;
	}
	if (strstr(name, "cvta_generic_to_shared")) {
		const kp_bk_access *x = ldmatrix_at(w, kp_node_strip(elem));
		if (x && !x->not_analysed && !x->hand_offset && x->misaligned >= 0) {
			if (w->align < 16)
				w->align = 16; /* ldmatrix rows are 16 bytes */
			return;
		}
		if (x && x->hand_offset) {
			refuse_use(w, n,
				   "an ldmatrix adds bytes by hand to the shared address of one of "
				   "its elements");
			return;
		}
	}
	if (strstr(name, "memcpy_async")) {
		long long v;
		if (p->nkids > 3 && !kp_eval(p->kids[3], NULL, NULL, &v) && v > 0 && v <= 16) {
			if (v > w->align)
				w->align = (int)v;
			return;
		}
	}
	refuse_use(w, n,
		   kp_arena_printf(&w->f->arena, "the address of an element is handed to `%s`",
				   *name ? name : "a function"));
}

/* One reference n of the array (the ancestors in w->anc). */
static void use_of(use_walk *w, const kp_node *n)
{
	const kp_decl *d = w->d;
	int i = w->nanc - 1, nsub = 0;
	const kp_node *cur = n;
	for (;;) {
		while (i >= 0 && (w->anc[i]->kind == KP_N_PAREN ||
				  (w->anc[i]->kind == KP_N_CAST && w->anc[i]->begin == cur->begin &&
				   w->anc[i]->end == cur->end)))
			cur = w->anc[i--];
		if (i >= 0 && w->anc[i]->kind == KP_N_SUBSCRIPT && w->anc[i]->nkids == 2 &&
		    kp_node_strip(w->anc[i]->kids[0]) == kp_node_strip(cur) && nsub < d->ndims) {
			cur = w->anc[i--];
			nsub++;
			continue;
		}
		break;
	}
	const kp_node *p = i >= 0 ? w->anc[i] : NULL;
	if (p && p->kind == KP_N_SIZEOF) {
		refuse_use(w, n, "its size is read with sizeof");
		return;
	}
	if (nsub < d->ndims) {
		if (p && p->kind == KP_N_CALL)
			refuse_use(w, n,
				   kp_arena_printf(&w->f->arena, "it is passed whole to `%s`",
						   p->name ? p->name : "a function"));
		else if (p && p->kind == KP_N_CAST)
			refuse_use(w, n, "it is reinterpreted as another type across rows");
		else
			refuse_use(w, n,
				   kp_arena_printf(&w->f->arena,
						   "pointer arithmetic across its rows (`%s`)",
						   trimmed(w->f, p ? p : n)));
		return;
	}
	if (!p || p->kind != KP_N_UNOP || !p->op || strcmp(p->op, "&"))
		return; /* an element read or written */
	for (i--; i >= 0; i--) {
		const kp_node *q = w->anc[i];
		if (q->kind == KP_N_PAREN || q->kind == KP_N_CAST ||
		    (q->kind == KP_N_OTHER && q->nkids == 1))
			continue;
		if (q->kind == KP_N_UNOP && q->op && !strcmp(q->op, "*")) {
			if (q->type_size > w->align)
				w->align = (int)q->type_size;
			return;
		}
		if (q->kind == KP_N_CALL) {
			address_to_call(w, q, cur, n);
			return;
		}
		break;
	}
	refuse_use(w, n,
		   kp_arena_printf(&w->f->arena, "pointer arithmetic across its rows (`%s`)",
				   trimmed(w->f, i >= 0 ? w->anc[i] : n)));
}

static void walk_uses(use_walk *w, const kp_node *n)
{
	if (!n || w->nanc >= 256)
		return;
	if (n->kind == KP_N_DECLREF && n->decl == w->d)
		use_of(w, n);
	if (n->kind == KP_N_ASM && kp_mentions_ident(w->f->src, n->begin, n->end, w->d->name)) {
		const kp_bk_access *x = ldmatrix_at(w, n);
		if (!x || x->not_analysed || x->hand_offset || x->misaligned < 0)
			refuse_use(w, n, "inline asm (ldmatrix, cp.async) addresses it");
	}
	w->anc[w->nanc++] = n;
	for (int i = 0; i < n->nkids; i++)
		walk_uses(w, n->kids[i]);
	w->nanc--;
}

/* Whether the extent of bound b is the whole text between a `[` and a
 * `]` of the file (not a macro's invocation that declares the array). */
static int bracketed(const kp_file *f, const kp_node *b)
{
	long i = (long)b->begin - 1;
	size_t j = b->end;
	while (i >= 0 && isspace((unsigned char)f->src[i]))
		i--;
	while (j < f->len && isspace((unsigned char)f->src[j]))
		j++;
	return i >= 0 && f->src[i] == '[' && j < f->len && f->src[j] == ']';
}

/* Why array d of kernel k (its accesses: acc) cannot be padded, or NULL. */
static const char *cannot_pad(kp_file *f, const kp_kernel *k, const kp_decl *d,
			      const kp_bk_result *acc, use_walk *w)
{
	memset(w, 0, sizeof(*w));
	/* (an array a macro declares has no bound text either, but its bounds) */
	if (d->dyn_base || (kp_decl_is_extern_shared(d) && d->dims[0] <= 0))
		return "it is dynamic (extern) shared memory, whose layout kpipe does not own";
	if (d->ndims < 2)
		return "it is a 1-D array indexed by hand: padding would change what its "
		       "indexes mean";
	const kp_node *b = kp_bk_dim_expr(d, d->ndims - 1);
	if (!b || !b->in_main || b->end <= b->begin || !d->in_main || !bracketed(f, b))
		return "its innermost bound is not spelled in this file (a macro declares it)";
	w->f = f;
	w->d = d;
	w->acc = acc;
	w->align = (int)d->elem_size;
	walk_uses(w, k->body);
	for (int i = 0; i < acc->n; i++)
		if (acc->acc[i].arr == d && acc->acc[i].wmma && acc->acc[i].misaligned < 0 &&
		    w->align < 32)
			w->align = 32; /* a fragment pointer kpipe cannot follow: whole
					  256-bit rows keep it aligned */
	return w->why;
}

/* The score of padding d by P elements: the worst degree and the sum of
 * degrees of d's accesses; the first wmma or ldmatrix access that P
 * leaves misaligned where `base` (d unpadded) was not, or NULL. */
typedef struct {
	int worst, sum;
	const kp_bk_access *misaligned;
} pad_score;

static void score(kp_file *f, const kp_kernel *k, const kp_bk_block *b, const kp_decl *d,
		  long long pad, const kp_bk_result *base, pad_score *s)
{
	kp_bk_result r;
	kp_bk_analyze(f, k, b, d, pad, &r);
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < r.n; i++) {
		const kp_bk_access *x = &r.acc[i];
		if (x->arr != d)
			continue;
		if (!s->misaligned && x->misaligned > 0 && i < base->n &&
		    base->acc[i].node == x->node && base->acc[i].misaligned <= 0)
			s->misaligned = x;
		if (x->not_analysed)
			continue;
		s->sum += x->degree;
		if (x->degree > s->worst)
			s->worst = x->degree;
	}
}

/* The new spelling of the bound b for P more elements. */
static const char *padded_bound(kp_file *f, const kp_node *b, long long pad)
{
	const char *t = kp_range_text(f, b->begin, b->end);
	char *end;
	long long v = strtoll(t, &end, 10);
	if (end != t && !*end)
		return kp_arena_printf(&f->arena, "%lld", v + pad);
	if (strpbrk(t, "?<>&|^,="))
		return kp_arena_printf(&f->arena, "(%s) + %lld", t, pad);
	return kp_arena_printf(&f->arena, "%s + %lld", t, pad);
}

static void pad_array(kp_pass_ctx *c, const kp_kernel *k, const kp_bk_block *b, const kp_decl *d,
		      int degree, const kp_bk_result *acc)
{
	kp_file *f = c->f;
	use_walk w;
	const char *why = cannot_pad(f, k, d, acc, &w);
	if (why) {
		kp_pass_diag(c, d->line, d->col, "warning", "kpipe-pad-refused",
			     kp_arena_printf(
				     &f->arena,
				     "`%s` is not padded (a %d-way bank conflict stays): %s%s",
				     d->name, degree, why,
				     w.why_line
					     ? kp_arena_printf(&f->arena, " (line %d)", w.why_line)
					     : ""));
		return;
	}
	const kp_node *bn = kp_bk_dim_expr(d, d->ndims - 1);
	pad_score s0, best_s, rej = {0};
	long long best = 0, rej_p = 0, esz = d->elem_size;
	score(f, k, b, d, 0, acc, &s0);
	best_s = s0;
	for (long long p = 1; esz > 0 && p * esz <= 128; p++) {
		if ((p * esz) % w.align)
			continue;
		pad_score ps;
		score(f, k, b, d, p, acc, &ps);
		int better = ps.worst < best_s.worst ||
			     (ps.worst == best_s.worst && ps.sum < best_s.sum);
		if (better && ps.misaligned) { /* a fragment pointer or row off its boundary */
			if (!rej_p && ps.worst < s0.worst) {
				rej = ps;
				rej_p = p;
			}
			continue;
		}
		if (better) {
			best = p;
			best_s = ps;
		}
	}
	if (!best) {
		const kp_bk_access *m = rej.misaligned;
		kp_pass_diag(
			c, d->line, d->col, "warning", "kpipe-pad-refused",
			m ? kp_arena_printf(
				    &f->arena,
				    "`%s` is not padded: no padding of its rows that keeps "
				    "its %s %d-byte aligned lowers its %d-way bank conflict "
				    "(%lld element%s would move the %s at line %d off its "
				    "%d-byte boundary)",
				    d->name,
				    m->wmma ? "wmma fragment pointers" : "ldmatrix row addresses",
				    m->align, s0.worst, rej_p, rej_p == 1 ? "" : "s",
				    m->wmma ? "wmma fragment pointer" : "ldmatrix row address",
				    m->line, m->align)
			  : kp_arena_printf(&f->arena,
					    "`%s` is not padded: no padding of its rows that keeps "
					    "%d-byte alignment lowers its %d-way bank conflict",
					    d->name, w.align, s0.worst));
		return;
	}
	int w0 = s0.worst, best_w = best_s.worst;
	const char *nb = padded_bound(f, bn, best);
	int di = kp_pass_diag(
		c, d->line, d->col, "note", "kpipe-padded",
		kp_arena_printf(
			&f->arena,
			"`%s` padded by %lld element%s per row (innermost bound `%s` -> `%s`): "
			"worst bank conflict %d-way -> %d-way",
			d->name, best, best == 1 ? "" : "s", kp_range_text(f, bn->begin, bn->end),
			nb, w0, best_w));
	kp_pass_edit(c, bn->begin, bn->end - bn->begin, nb, di);
	for (int i = 0; i < w.nldm; i++)
		kp_pass_edit(c, w.ldm[i], w.ldm_e[i] - w.ldm[i], nb, di);
}

static void pad_kernel(kp_pass_ctx *c, const kp_kernel *k, const kp_analyze_opts *ao)
{
	kp_file *f = c->f;
	kp_bk_block b;
	kp_bk_block_of(f, k, ao, &b);
	kp_bk_result r;
	kp_bk_analyze(f, k, &b, NULL, 0, &r);
	if (!b.x) {
		for (int i = 0; i < f->ndecls; i++) {
			const kp_decl *d = f->decls[i];
			if (d->is_shared && d->is_array && d->in_main && d->begin >= k->begin &&
			    d->end <= k->end) {
				kp_pass_diag(c, k->line, k->col, "remark", "kpipe-pad-refused",
					     kp_arena_printf(&f->arena,
							     "kernel `%s` is not padded: no block "
							     "shape known (give --block X,Y,Z)",
							     k->name));
				return;
			}
		}
		return;
	}
	const kp_decl *done[64];
	int ndone = 0;
	for (int i = 0; i < r.n && ndone < 64; i++) {
		const kp_bk_access *x = &r.acc[i];
		if (x->space != KP_BK_SHARED || x->not_analysed || x->degree < 2)
			continue;
		int seen = 0, worst = 0;
		for (int j = 0; j < ndone; j++)
			seen |= done[j] == x->arr;
		if (seen)
			continue;
		done[ndone++] = x->arr;
		for (int j = 0; j < r.n; j++)
			if (r.acc[j].arr == x->arr && r.acc[j].degree > worst)
				worst = r.acc[j].degree;
		pad_array(c, k, &b, x->arr, worst, &r);
	}
}

static void pad_run(kp_pass_ctx *c)
{
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	for (int i = 0; i < c->f->nkernels; i++) {
		const kp_kernel *k = c->f->kernels[i];
		if (k->error || (c->o->kernel && !kp_kernel_matches(k, c->o->kernel)))
			continue;
		pad_kernel(c, k, &ao);
	}
	free(sk);
}

const kp_pass kp_pass_pad = {
	"pad",
	"pads the rows of shared arrays with conflicted accesses (bank conflicts)",
	pad_run,
};
