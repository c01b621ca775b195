/*
 * canon_counter.c - shape 8 of the canon pass (docs/design.md, "The canon
 * pass"): a copy loop of the load phase whose counter is declared with the
 * kernel's other variables, C89 style (`int l;` at the top, `for (l = 0; l
 * < R; l++) As[ty + 8 * l][tx] = A[...];`, KBLAS, older MAGMA), gets its
 * own counter, `for (int l = 0; ...)`, the form the analysis reads as a copy
 * loop. It is the same program when the variable is only ever a for-loop
 * counter: every use of it in the kernel lies inside a for-loop whose init
 * is the plain assignment `l = e` (e not naming it), the copy loop inside
 * no other of those loops, its address never taken nor bound to a reference or a non-value
 * parameter, no asm or lambda naming it, no goto in the kernel. Then each
 * read sees a value written, after its init, by the innermost loop over the
 * variable around it (or a loop in that one), so no value the copy loop
 * writes is read outside it, and giving it its own variable changes nothing
 * any statement reads.
 */
#include "canon_shapes.h"
#include "liveness.h"

#include <string.h>

#define MAX_LOOPS 64
#define MAX_FORS 32

typedef struct {
	kp_node *v[MAX_FORS];
	int n;
} for_list;

static int collect_fors(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	for_list *fl = ud;
	if (n->kind == KP_N_FOR && fl->n < MAX_FORS)
		fl->v[fl->n++] = n;
	return 1;
}

typedef struct {
	const kp_decl *d;
	const kp_node *loops[MAX_LOOPS]; /* the for-loops of d */
	int nloops;
	int bad; /* a use that is no counter use, or too many loops */
} counter_walk;

/* The `d = e` of a for-loop's init, e not naming d, or NULL. */
static const kp_node *init_assign(const kp_node *init, const kp_decl **d)
{
	const kp_node *a = kp_node_strip(init);
	*d = NULL;
	if (!a || a->kind != KP_N_BINOP || a->opk != KP_OP_ASSIGN || a->nkids != 2)
		return NULL;
	const kp_node *lhs = kp_node_strip(a->kids[0]);
	if (!lhs || lhs->kind != KP_N_DECLREF || !lhs->decl)
		return NULL;
	*d = lhs->decl;
	return a;
}

static int collect_loops(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	counter_walk *w = ud;
	const kp_decl *d;
	if (n->kind == KP_N_GOTO || (n->kind == KP_N_LAMBDA && kp_node_names_decl(n, w->d)) ||
	    (n->kind == KP_N_ASM && kp_node_names_decl(n, w->d)))
		w->bad = 1;
	if (n->kind == KP_N_FOR && init_assign(n->for_init, &d) && d == w->d) {
		const kp_node *a = kp_node_strip(n->for_init);
		if (kp_node_names_decl(a->kids[1], w->d) || w->nloops == MAX_LOOPS)
			w->bad = 1;
		else
			w->loops[w->nloops++] = n;
	}
	return !w->bad;
}

/* Every use of d inside one of its loops. */
static int check_uses(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	counter_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d) {
		int in = 0;
		for (int i = 0; i < w->nloops && !in; i++)
			in = n->begin >= w->loops[i]->begin && n->end <= w->loops[i]->end;
		if (!in)
			w->bad = 1;
	}
	return !w->bad;
}

/* Why d, the counter of a copy loop of l, cannot be given its own
 * declaration there, or NULL. */
static const char *counter_problem(kp_file *f, const kp_loop *l, const kp_node *fl,
				   const kp_decl *d, counter_walk *w)
{
	const kp_kernel *k = l->kernel;
	if (d->kind != KP_D_VAR || d->is_shared || d->is_pointer || d->is_array || d->ty.is_ref ||
	    d->ty.is_volatile || (d->ty.kind != KP_TY_SINT && d->ty.kind != KP_TY_UINT) ||
	    !d->type || !d->in_main)
		return "it is not a plain integer local";
	if (d->begin < k->body->begin || d->end > l->node->begin ||
	    (d->begin + 7 <= f->len && !strncmp(f->src + d->begin, "static ", 7)))
		return "it is not a local declared before the loop";
	if (kp_var_escapes(k, d))
		return "its address is taken or it is bound to a reference";
	memset(w, 0, sizeof(*w));
	w->d = d;
	kp_node_walk(k->body, NULL, collect_loops, w);
	if (w->bad)
		return "a goto, asm or lambda in the kernel, or a for-loop init reading it";
	kp_node_walk(k->body, NULL, check_uses, w);
	if (w->bad)
		return "it is used outside the for-loops it counts";
	for (int i = 0; i < w->nloops; i++)
		if (w->loops[i] != fl && fl->begin >= w->loops[i]->begin &&
		    fl->end <= w->loops[i]->end)
			return kp_arena_printf(&f->arena,
					       "the loop on line %d around it counts with it too "
					       "(and reads what the copy loop leaves)",
					       w->loops[i]->line);
	return NULL;
}

int kp_canon_counter_edits(kp_file *f, const kp_loop *l, kp_edits *ed, const char **what,
			   const char **why)
{
	*what = *why = NULL;
	if (!l->kernel || !l->kernel->body || l->load_b < 0 || l->load_e <= l->load_b ||
	    l->load_e > l->nstmts)
		return 0;
	unsigned lb = l->stmts[l->load_b]->begin, le = l->stmts[l->load_e - 1]->end;
	counter_walk w;
	kp_strbuf names_b = KP_STRBUF_INIT;
	int n = 0, first_line = 0;
	const kp_decl *done[8];
	int ndone = 0;
	/* the for-loops of the load phase whose init assigns a variable */
	for_list fors = {{0}, 0};
	for (int i = l->load_b; i < l->load_e; i++)
		kp_node_walk(l->stmts[i], NULL, collect_fors, &fors);
	for (int i = 0; i < fors.n && !*why; i++) {
		const kp_node *fl = fors.v[i];
		const kp_decl *d;
		if (fl->begin < lb || fl->end > le || !init_assign(fl->for_init, &d) ||
		    !fl->in_main || fl->from_macro || !fl->for_init->in_main ||
		    fl->for_init->from_macro)
			continue;
		if (d->kind != KP_D_VAR || d->begin < l->kernel->body->begin ||
		    d->end > l->node->begin)
			continue; /* a counter of the loop's own, a parameter */
		const char *p = counter_problem(f, l, fl, d, &w);
		if (p) {
			*why = kp_arena_printf(
				&f->arena,
				"the copy loop on line %d counts with '%s', declared "
				"before the loop, and %s",
				fl->line, d->name, p);
			break;
		}
		kp_edits_add(ed, kp_node_strip(fl->for_init)->begin, 0,
			     kp_arena_printf(&f->arena, "%s ", d->type));
		int seen = 0;
		for (int j = 0; j < ndone; j++)
			seen |= done[j] == d;
		if (!seen && ndone < 8) {
			done[ndone++] = d;
			kp_strbuf_addf(&names_b, "%s'%s'", names_b.len ? ", " : "", d->name);
		}
		if (!n)
			first_line = fl->line;
		n++;
	}
	if (*why) {
		kp_strbuf_release(&names_b);
		return -1;
	}
	if (n)
		*what = kp_arena_printf(&f->arena,
					"gave %d copy loop%s (the first on line %d) %s own counter "
					"%s: the kernel uses %s only as the counter%s of for-loops",
					n, n > 1 ? "s" : "", first_line, n > 1 ? "their" : "its",
					kp_strbuf_str(&names_b), ndone > 1 ? "them" : "it",
					ndone > 1 ? "s" : "");
	kp_strbuf_release(&names_b);
	return n > 0;
}
