/*
 * pass_pad.c - the pass that pads shared arrays against bank conflicts
 * (`kpipe rewrite --pad`, issue #20): for each static __shared__ array of
 * a kernel with a conflicted access (banks.h), the innermost bound grows
 * by the smallest padding that minimises the worst conflict over all its
 * accesses, keeps their vector alignment (16-byte rows for wmma and
 * ldmatrix, every wmma fragment pointer 32-byte aligned and every ldmatrix
 * row address 16-byte aligned where it was) and keeps the kernel's static
 * shared memory within the target's limit.  Only the declaration changes
 * (and a wmma leading dimension spelled as the bound).  Where no padding
 * helps or fits, or with --swizzle wherever it does as well, the array's
 * innermost index is XOR-swizzled instead: every access T[..][r][c]
 * becomes T[..][r][c ^ (((r >> s) & m) << t)], which permutes whole units
 * of the widest access within each row and costs no memory.  An array
 * whose uses depend on its exact layout is refused with the reason.
 */
#include "analyze.h"
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
	/* for a swizzle: the first use it cannot follow (a wmma pointer), the
	 * references of the array seen, and its element accesses (their
	 * outermost subscripts), which a swizzle rewrites */
	const char *swz_why;
	int swz_line;
	int nrefs;
	const kp_node **subs;
	int nsubs;
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
	const char *name = kp_call_name(p);
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
		if (!w->swz_why) {
			w->swz_why =
				kp_arena_printf(&w->f->arena,
						"a wmma %s takes a pointer and a leading "
						"dimension, whose rows no swizzle of the column "
						"index reaches",
						strstr(name, "load") ? "load" : "store");
			w->swz_line = n->line;
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
	const kp_node *cur = n, *sub = NULL;
	w->nrefs++;
	for (;;) {
		while (i >= 0 && (w->anc[i]->kind == KP_N_PAREN ||
				  (w->anc[i]->kind == KP_N_CAST && w->anc[i]->begin == cur->begin &&
				   w->anc[i]->end == cur->end)))
			cur = w->anc[i--];
		if (i >= 0 && w->anc[i]->kind == KP_N_SUBSCRIPT && w->anc[i]->nkids == 2 &&
		    kp_node_strip(w->anc[i]->kids[0]) == kp_node_strip(cur) && nsub < d->ndims) {
			sub = cur = w->anc[i--];
			nsub++;
			continue;
		}
		break;
	}
	if (sub && nsub == d->ndims) {
		w->subs = kp_xrealloc(w->subs, sizeof(*w->subs) * (size_t)(w->nsubs + 1));
		w->subs[w->nsubs++] = sub;
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
						   *kp_call_name(p) ? kp_call_name(p)
								    : "a function"));
		else if (p && p->kind == KP_N_CAST)
			refuse_use(w, n, "it is reinterpreted as another type across rows");
		else
			refuse_use(w, n,
				   kp_arena_printf(&w->f->arena,
						   "pointer arithmetic across its rows (`%s`)",
						   trimmed(w->f, p ? p : n)));
		return;
	}
	if (!p || p->kind != KP_N_UNOP || !p->op || p->opk != KP_OP_ADDR)
		return; /* an element read or written */
	for (i--; i >= 0; i--) {
		const kp_node *q = w->anc[i];
		if (q->kind == KP_N_PAREN || q->kind == KP_N_CAST ||
		    (q->kind == KP_N_OTHER && q->nkids == 1))
			continue;
		if (kp_bk_deref_of(q, w->anc[i + 1], NULL)) {
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
	for (int i = 0; i < acc->n && !w->why; i++)
		if (acc->acc[i].arr == d && acc->acc[i].out_of_row) {
			w->why = "an index reaches outside its row (the element of another row it "
				 "names would change)";
			w->why_line = acc->acc[i].line;
		}
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

/* ------------------------------------------------------------ the budget */

/* The bytes of the static shared arrays declared in kernel k for
 * instantiation iv, array d's rows `pad` elements longer; -1 when a size
 * is not known. */
static long long kernel_smem(const kp_file *f, const kp_kernel *k, const kp_decl *d, long long pad,
			     const long long *iv)
{
	long long total = 0;
	for (int i = 0; i < f->ndecls; i++) {
		const kp_decl *a = f->decls[i];
		if (!a->is_shared || !a->is_array || a->dyn_base || kp_decl_is_extern_shared(a) ||
		    a->begin < k->begin || a->end > k->end)
			continue;
		long long n = a->elem_size;
		for (int j = 0; j < a->ndims && n > 0; j++) {
			long long v = a->dims[j];
			const kp_node *e = kp_bk_dim_expr(a, j);
			if (v <= 0 && (!e || kp_eval(e, k, iv, &v) || v <= 0))
				return -1;
			n *= v + (a == d && j == a->ndims - 1 ? pad : 0);
		}
		if (n <= 0)
			return -1;
		total += n;
	}
	return total;
}

/* Why padding d's rows by `pad` elements takes kernel k's static shared
 * memory over the target's limit (for some instantiation), or NULL: it
 * fits, a size is not known, or the kernel was over the limit already. */
static int per_inst(const kp_kernel *k) { return k->ninst && !k->is_device; }

/* Kernel k's static shared memory for its i-th instantiation (of
 * per_inst(k) ? k->ninst : 1), unpadded (*b0) and with d's rows padded by
 * `pad` elements (*b1); -1: not known. */
static void smem_pair(kp_pass_ctx *c, const kp_kernel *k, const kp_decl *d, long long pad, int i,
		      long long *b0, long long *b1)
{
	const long long *iv = per_inst(k) ? k->inst_values[i] : NULL;
	*b0 = kernel_smem(c->f, k, d, 0, iv);
	*b1 = kernel_smem(c->f, k, d, pad, iv);
}

static const char *over_budget(kp_pass_ctx *c, const kp_kernel *k, const kp_decl *d, long long pad)
{
	const kp_arch *a = c->o->arch;
	int pi = per_inst(k), ni = pi ? k->ninst : 1;
	for (int i = 0; a && a->smem_static_per_block > 0 && i < ni; i++) {
		long long b0, b1;
		smem_pair(c, k, d, pad, i, &b0, &b1);
		if (b0 < 0 || b1 <= a->smem_static_per_block || b0 > a->smem_static_per_block)
			continue;
		return kp_arena_printf(
			&c->f->arena,
			"the kernel's static shared memory over the %d-byte limit of "
			"%s (%lld bytes with %lld element%s more per row%s%s%s)",
			a->smem_static_per_block, a->name, b1, pad, pad == 1 ? "" : "s",
			pi ? ", for <" : "", pi ? k->inst_args[i] : "", pi ? ">" : "");
	}
	return NULL;
}

/* ------------------------------------------------------------- padding */

/* The padding of d kept (best, 0: none, and its score), the score
 * unpadded, and why no padding is kept. */
typedef struct {
	long long best;
	pad_score s0, best_s;
	const char *why;
} pad_choice;

static void choose_padding(kp_pass_ctx *c, const kp_kernel *k, const kp_bk_block *b,
			   const kp_decl *d, const kp_bk_result *acc, const use_walk *w,
			   pad_choice *pc)
{
	kp_file *f = c->f;
	pad_score rej = {0};
	long long rej_p = 0, esz = d->elem_size;
	const char *budget = NULL;
	memset(pc, 0, sizeof(*pc));
	score(f, k, b, d, 0, acc, &pc->s0);
	pc->best_s = pc->s0;
	for (long long p = 1; esz > 0 && p * esz <= 128; p++) {
		if ((p * esz) % w->align)
			continue;
		pad_score ps;
		score(f, k, b, d, p, acc, &ps);
		if (ps.worst > pc->best_s.worst ||
		    (ps.worst == pc->best_s.worst && ps.sum >= pc->best_s.sum))
			continue;
		if (ps.misaligned) { /* a fragment pointer or row off its boundary */
			if (!rej_p && ps.worst < pc->s0.worst) {
				rej = ps;
				rej_p = p;
			}
			continue;
		}
		const char *over = over_budget(c, k, d, p);
		if (over) {
			budget = budget ? budget : over;
			continue;
		}
		pc->best = p;
		pc->best_s = ps;
	}
	const kp_bk_access *m = rej.misaligned;
	if (pc->best)
		pc->why = NULL;
	else if (budget)
		pc->why = kp_arena_printf(&f->arena,
					  "every padding of its rows that lowers its %d-way bank "
					  "conflict takes %s",
					  pc->s0.worst, budget);
	else if (m)
		pc->why = kp_arena_printf(
			&f->arena,
			"no padding of its rows that keeps its %s %d-byte aligned lowers its %d-way "
			"bank conflict (%lld element%s would move the %s at line %d off its %d-byte "
			"boundary)",
			m->wmma ? "wmma fragment pointers" : "ldmatrix row addresses", m->align,
			pc->s0.worst, rej_p, rej_p == 1 ? "" : "s",
			m->wmma ? "wmma fragment pointer" : "ldmatrix row address", m->line,
			m->align);
	else
		pc->why = kp_arena_printf(
			&f->arena,
			"no padding of its rows that keeps %d-byte alignment lowers "
			"its %d-way bank conflict",
			w->align, pc->s0.worst);
}

/* ------------------------------------------------------------ swizzles */

/* Whether the identifier at s[p] names a member (`v.w`, `p->w`). */
static int member_name(const char *s, unsigned b, unsigned p)
{
	while (p > b && isspace((unsigned char)s[p - 1]))
		p--;
	return p > b && (s[p - 1] == '.' || (s[p - 1] == '>' && p - 1 > b && s[p - 2] == '-'));
}

/* The occurrences of the identifier `name` in s[b, e), outside comments,
 * string and character literals and member names. */
static int names_in(const char *s, unsigned b, unsigned e, const char *name)
{
	size_t n = strlen(name);
	int count = 0;
	for (unsigned p = b; p < e;) {
		if (s[p] == '/' && p + 1 < e && (s[p + 1] == '/' || s[p + 1] == '*')) {
			const char *end = s[p + 1] == '/' ? "\n" : "*/";
			const char *q = strstr(s + p + 2, end);
			p = q ? (unsigned)(q - s) + (unsigned)strlen(end) : e;
		} else if (s[p] == '"' || s[p] == '\'') {
			char quote = s[p++];
			while (p < e && s[p] != quote && s[p] != '\n')
				p += s[p] == '\\' ? 2 : 1;
			p++;
		} else if (kp_is_ident_char(s[p])) {
			unsigned q = p;
			while (q < e && kp_is_ident_char(s[q]))
				q++;
			count += q - p == n && !strncmp(s + p, name, n) && !member_name(s, b, p);
			p = q;
		} else
			p++;
	}
	return count;
}

/* What in index n stops a swizzle from writing it, or NULL: a swizzle
 * writes the row index a second time, and rewrites the accesses of
 * arrays by their position in the text. */
static const char *index_problem(const kp_node *n)
{
	if (!n)
		return NULL;
	switch (n->kind) {
	case KP_N_ASSIGNOP: return "assigns a variable";
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN)
			return "assigns a variable";
		break;
	case KP_N_UNOP:
		if (n->op && ((n->opk == KP_OP_PRE_INC || n->opk == KP_OP_POST_INC) ||
			      (n->opk == KP_OP_PRE_DEC || n->opk == KP_OP_POST_DEC)))
			return "changes a variable";
		break;
	case KP_N_CALL: return "calls a function";
	case KP_N_ASM:
	case KP_N_LAMBDA: return "holds code kpipe does not follow";
	case KP_N_DECLREF:
		if (n->decl && n->decl->is_shared)
			return "reads shared memory";
		break;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++) {
		const char *why = index_problem(n->kids[i]);
		if (why)
			return why;
	}
	return NULL;
}

/* Why a swizzle of array d of kernel k cannot rewrite every access (its
 * uses: w), or NULL; the line of the use it names in *line (0: none). */
static const char *cannot_swizzle(kp_file *f, const kp_kernel *k, const kp_decl *d,
				  const use_walk *w, int *line)
{
	*line = 0;
	if (d->begin < k->begin || d->end > k->end)
		return "it is declared outside the kernel, where other code may index it";
	if (w->swz_why) {
		*line = w->swz_line;
		return w->swz_why;
	}
	if (k->end > f->len || names_in(f->src, k->begin, k->end, d->name) != w->nrefs + 1)
		return "its name appears where kpipe sees no access of it (another variable of "
		       "that name, a #if branch not compiled, a macro's body)";
	for (int i = 0; i < w->nsubs; i++) {
		const kp_node *s = w->subs[i], *col = s->kids[1], *in = kp_node_strip(s->kids[0]);
		const kp_node *row =
			in && in->kind == KP_N_SUBSCRIPT && in->nkids == 2 ? in->kids[1] : NULL;
		*line = s->line;
		if (!row || !s->in_main || s->from_macro || !row->in_main || row->from_macro ||
		    !col->in_main || col->from_macro || row->end <= row->begin ||
		    col->end <= col->begin || col->end > f->len)
			return "an access of it is written by a macro";
		const char *why = index_problem(row);
		if (why)
			return kp_arena_printf(&f->arena,
					       "its row index `%s` %s (a swizzle writes it twice)",
					       kp_node_text(f, row), why);
		why = index_problem(col);
		if (why)
			return kp_arena_printf(&f->arena, "its column index `%s` %s",
					       kp_node_text(f, col), why);
	}
	*line = 0;
	return NULL;
}

/* The swizzle of d kept: its mask, shift and unit, its worst degree and
 * sum; or why there is none (and the line it names, 0: none). */
typedef struct {
	kp_bk_swizzle z;
	int worst, sum;
	const char *why;
	int line;
	int hint; /* without --swizzle: it does better than the padding */
} swz_choice;

static void choose_swizzle(kp_pass_ctx *c, const kp_kernel *k, const kp_bk_block *b,
			   const kp_decl *d, const use_walk *w, int worst0, swz_choice *sc)
{
	kp_file *f = c->f;
	long long esz = d->elem_size, unit = esz > 0 ? w->align / esz : 0;
	memset(sc, 0, sizeof(*sc));
	sc->why = cannot_swizzle(f, k, d, w, &sc->line);
	if (sc->why)
		return;
	if (unit <= 0 || w->align % esz || (unit & (unit - 1))) {
		sc->why =
			kp_arena_printf(&f->arena,
					"its widest access (%d bytes) is not a power of two of its "
					"%lld-byte elements",
					w->align, esz);
		return;
	}
	if (kp_bk_swizzle_choose(f, k, b, d, unit, &sc->z, &sc->worst, &sc->sum, &sc->why,
				 &sc->line))
		return;
	if (sc->worst >= worst0)
		sc->why = kp_arena_printf(
			&f->arena,
			"no XOR swizzle of its %lld-element units lowers its %d-way "
			"bank conflict",
			unit, worst0);
}

static int needs_parens(const kp_node *n)
{
	while (n && n->kind == KP_N_OTHER && n->nkids == 1)
		n = n->kids[0];
	return !n || n->kind == KP_N_BINOP || n->kind == KP_N_CONDOP || n->kind == KP_N_ASSIGNOP ||
	       n->kind == KP_N_OTHER;
}

/* `c ^ (((r >> s) & m) << t)`, for row r and column c (spelled as they
 * go in the expression; c NULL: the column 0, the term alone). */
static const char *swizzled(kp_file *f, const char *r, const char *c, const kp_bk_swizzle *z)
{
	int t = 0;
	while ((1LL << t) < z->unit)
		t++;
	const char *x = z->shift ? kp_arena_printf(&f->arena, "(%s >> %d)", r, z->shift) : r;
	x = kp_arena_printf(&f->arena, "%s & %d", x, z->mask);
	if (t)
		x = kp_arena_printf(&f->arena, "(%s) << %d", x, t);
	return c ? kp_arena_printf(&f->arena, "%s ^ (%s)", c, x) : x;
}

/* n, when it is the integer literal it may be: its value in *v. */
static int literal(const kp_node *n, long long *v)
{
	n = kp_node_strip(n);
	if (!n || n->kind != KP_N_INTLIT || !n->has_value)
		return 0;
	*v = n->ivalue;
	return 1;
}

static const char *index_text(kp_file *f, const kp_node *n)
{
	const char *t = kp_node_text(f, n);
	return needs_parens(n) ? kp_arena_printf(&f->arena, "(%s)", t) : t;
}

/* Swizzles every access of d (w->subs), with the note that owns the
 * edits; `why_not_pad` (NULL: --swizzle chose it) says why not padding. */
static void swizzle_array(kp_pass_ctx *c, const kp_decl *d, const use_walk *w, const swz_choice *sc,
			  int worst0, const char *why_not_pad)
{
	kp_file *f = c->f;
	const char *dots = d->ndims > 2 ? "[...]" : "";
	int di = kp_pass_diag(
		c, d->line, d->col, "note", "kpipe-swizzled",
		kp_arena_printf(&f->arena,
				"`%s` swizzled: `%s%s[r][c]` -> `%s%s[r][%s]` in %d access%s, "
				"units of %lld element%s permuted within each row: worst bank "
				"conflict %d-way -> %d-way%s%s%s",
				d->name, d->name, dots, d->name, dots,
				swizzled(f, "r", "c", &sc->z), w->nsubs, w->nsubs == 1 ? "" : "es",
				sc->z.unit, sc->z.unit == 1 ? "" : "s", worst0, sc->worst,
				why_not_pad ? " (not padded: " : "", why_not_pad ? why_not_pad : "",
				why_not_pad ? ")" : ""));
	for (int i = 0; i < w->nsubs; i++) {
		const kp_node *s = w->subs[i], *col = s->kids[1];
		const kp_node *row = kp_node_strip(s->kids[0])->kids[1];
		long long rv, cv;
		int c0 = literal(col, &cv) && !cv;
		const char *t =
			swizzled(f, index_text(f, row), c0 ? NULL : index_text(f, col), &sc->z);
		if (literal(row, &rv)) { /* a constant row: a constant XOR */
			long long x = ((rv >> sc->z.shift) & sc->z.mask) * sc->z.unit;
			if (!x)
				continue; /* a row the swizzle leaves as it is */
			t = c0 ? kp_arena_printf(&f->arena, "%lld", x)
			       : kp_arena_printf(&f->arena, "%s ^ %lld", index_text(f, col), x);
		}
		kp_pass_edit(c, col->begin, col->end - col->begin, t, di);
	}
}

/* ---------------------------------------------------------------- arrays */

static void pad_note(kp_pass_ctx *c, const kp_decl *d, const use_walk *w, const pad_choice *pc,
		     const swz_choice *sc)
{
	kp_file *f = c->f;
	const kp_node *bn = kp_bk_dim_expr(d, d->ndims - 1);
	const char *nb = padded_bound(f, bn, pc->best);
	const char *not_swz = "";
	if (sc->hint) /* without --swizzle */
		not_swz = kp_arena_printf(
			&f->arena, " (an XOR swizzle would reach %d-way: --swizzle)", sc->worst);
	else if (c->o->swizzle && sc->why)
		not_swz = kp_arena_printf(
			&f->arena, " (not swizzled: %s%s)", sc->why,
			sc->line ? kp_arena_printf(&f->arena, ", line %d", sc->line) : "");
	else if (c->o->swizzle)
		not_swz = kp_arena_printf(
			&f->arena, " (not swizzled: the best swizzle leaves %d-way)", sc->worst);
	int di = kp_pass_diag(
		c, d->line, d->col, "note", "kpipe-padded",
		kp_arena_printf(&f->arena,
				"`%s` padded by %lld element%s per row (innermost bound `%s` -> "
				"`%s`): worst bank conflict %d-way -> %d-way%s",
				d->name, pc->best, pc->best == 1 ? "" : "s",
				kp_range_text(f, bn->begin, bn->end), nb, pc->s0.worst,
				pc->best_s.worst, not_swz));
	kp_pass_edit(c, bn->begin, bn->end - bn->begin, nb, di);
	for (int i = 0; i < w->nldm; i++)
		kp_pass_edit(c, w->ldm[i], w->ldm_e[i] - w->ldm[i], nb, di);
}

/* --variant auto's bound on a padding: at most an eighth more static
 * shared memory in the kernel, for every instantiation. */
static int auto_pad_cheap(kp_pass_ctx *c, const kp_kernel *k, const kp_decl *d, long long pad)
{
	int ni = per_inst(k) ? k->ninst : 1;
	for (int i = 0; i < ni; i++) {
		long long b0, b1;
		smem_pair(c, k, d, pad, i, &b0, &b1);
		if (b0 <= 0 || b1 < b0 || (b1 - b0) * 8 > b0)
			return 0;
	}
	return 1;
}

static void pad_array(kp_pass_ctx *c, const kp_kernel *k, const kp_bk_block *b, const kp_decl *d,
		      int degree, const kp_bk_result *acc)
{
	kp_file *f = c->f;
	use_walk w;
	const char *why = cannot_pad(f, k, d, acc, &w);
	if (why && c->o->pad_auto) { /* --variant auto: silent, the array as it was */
		free(w.subs);
		return;
	}
	if (why) {
		kp_pass_diag(c, d->line, d->col, "warning", "kpipe-pad-refused",
			     kp_arena_printf(
				     &f->arena,
				     "`%s` is not padded (a %d-way bank conflict stays): %s%s",
				     d->name, degree, why,
				     w.why_line
					     ? kp_arena_printf(&f->arena, " (line %d)", w.why_line)
					     : ""));
		free(w.subs);
		return;
	}
	pad_choice pc;
	swz_choice sc;
	choose_padding(c, k, b, d, acc, &w, &pc);
	memset(&sc, 0, sizeof(sc));
	if (c->o->pad_auto) {
		/* --variant auto pads, never swizzles, and only where the padding
		 * costs little shared memory (occupancy stays what the plan
		 * counted on) and lowers the worst conflict: a padding that
		 * lowers only the sum of the degrees (how-to-optimize-gemm's
		 * kernel 5, 4-way -> 4-way) lost 4.6% on the H100 against the
		 * same rewrite unpadded */
		if (pc.best && pc.best_s.worst < pc.s0.worst && auto_pad_cheap(c, k, d, pc.best))
			pad_note(c, d, &w, &pc, &sc);
		free(w.subs);
		return;
	}
	if (c->o->swizzle || !pc.best || pc.best_s.worst > 1) {
		choose_swizzle(c, k, b, d, &w, pc.s0.worst, &sc);
		sc.hint = !c->o->swizzle && pc.best && !sc.why && sc.worst < pc.best_s.worst;
	}
	int swz = (c->o->swizzle || !pc.best) && !sc.why;
	if (swz && (!pc.best || sc.worst <= pc.best_s.worst))
		swizzle_array(c, d, &w, &sc, pc.s0.worst, c->o->swizzle ? NULL : pc.why);
	else if (pc.best)
		pad_note(c, d, &w, &pc, &sc);
	else
		kp_pass_diag(
			c, d->line, d->col, "warning", "kpipe-pad-refused",
			kp_arena_printf(&f->arena, "`%s` is not padded: %s; nor swizzled: %s%s",
					d->name, pc.why, sc.why,
					sc.line ? kp_arena_printf(&f->arena, " (line %d)", sc.line)
						: ""));
	free(w.subs);
}

/* The shared arrays --variant auto may pad: the loaded tiles of the
 * eligible K-loops (NULL: any, for --pad). */
typedef struct {
	const kp_decl **v;
	int n;
} tile_set;

static int in_set(const tile_set *t, const kp_decl *d)
{
	if (!t)
		return 1;
	for (int i = 0; i < t->n; i++)
		if (t->v[i] == d)
			return 1;
	return 0;
}

static void pad_kernel(kp_pass_ctx *c, const kp_kernel *k, const kp_analyze_opts *ao,
		       const tile_set *tiles)
{
	kp_file *f = c->f;
	kp_bk_block b;
	kp_bk_block_of(f, k, ao, &b);
	kp_bk_result r;
	kp_bk_analyze(f, k, &b, NULL, 0, &r);
	if (!b.x && tiles)
		return; /* --variant auto: nothing known, nothing padded */
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
		/* --variant auto pads for a conflicted read (the compute's: a
		 * fragment load, a column read), not for a conflicted store of
		 * the load phase, which happens once per tile: on the H200 a
		 * padding that only fixed sgemm_128x128x8's transposing store
		 * lost 8% against its unpadded pipelined form (benchmarks.md);
		 * and for a read of 4 ways or more (the measured gains were of
		 * 8-way and 32-way reads; a 2-way read is left as it is) */
		if (x->space != KP_BK_SHARED || x->not_analysed || x->degree < 2 ||
		    !in_set(tiles, x->arr) || (tiles && (x->store || x->degree < 4)))
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
	tile_set tiles = {NULL, 0};
	if (c->o->pad_auto) {
		/* --variant auto pads the tiles of the loops it will pipeline */
		kp_analysis an;
		kp_analyze(&an, c->f, &ao);
		for (int i = 0; i < an.nloops; i++) {
			const kp_loop *l = an.loops[i];
			for (int t = 0; l->eligible && kp_pass_loop_wanted(c, l) && t < l->ntiles;
			     t++)
				if (l->tiles[t].loaded) {
					tiles.v = kp_xrealloc(
						tiles.v, sizeof(*tiles.v) * (size_t)(tiles.n + 1));
					tiles.v[tiles.n++] = l->tiles[t].arr;
				}
		}
	}
	for (int i = 0; i < c->f->nkernels; i++) {
		const kp_kernel *k = c->f->kernels[i];
		if (k->error || (c->o->kernel && !kp_kernel_matches(k, c->o->kernel)))
			continue;
		pad_kernel(c, k, &ao, c->o->pad_auto ? &tiles : NULL);
	}
	free(tiles.v);
	free(sk);
}

const kp_pass kp_pass_pad = {
	"pad",
	"pads the rows of shared arrays with conflicted accesses (bank conflicts)",
	pad_run,
};
