/*
 * pass_inline.c - the "inline" pass (pass.h): prepares K-loops that the
 * pipeline pass refuses only because their copies or tiles are out of its
 * sight.  A load helper (`load_tile<BM, BK>(A, As, lda, k0);`, a __device__
 * function of the same file or of a project header, handed the tile) is
 * replaced at the call by its body (inline_call.c); an accessor macro
 * whose body names a tile (`#define AS(i, j) As[i][j]`) is expanded where
 * the loop uses it, as the preprocessor would.  The change is tried
 * first: the unit is parsed again with it, and the edits are kept only
 * when the unit has no new error, every name of an inlined body still
 * means the declaration it meant in the helper, and the loop is then
 * eligible and planned; otherwise the loop is left as it was and a remark
 * says why.  Every loop refused for its helpers gets one or the other.
 * Helpers stay in place for their other callers; a header is never
 * edited.
 */
#include "canon.h"
#include "inline.h"
#include "inline_call.h"
#include "pass.h"

#include "plan.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ macros */

static int punct(char ch) { return ch && !kp_inl_ident_char(ch) && !strchr(" \t\n\r()[]{},;", ch); }

/* Appends `t` to `out`, with a space before it where its first character
 * would otherwise join the one before into another token (`-` `-1`). */
static void add_token_safe(kp_strbuf *out, const char *t, size_t n)
{
	char last = out->len ? out->buf[out->len - 1] : 0;
	if (n &&
	    ((kp_inl_ident_char(last) && kp_inl_ident_char(t[0])) || (punct(last) && punct(t[0]))))
		kp_strbuf_addc(out, ' ');
	kp_strbuf_add(out, t, n);
}

/* The arguments of the invocation of a function-like macro at `at`
 * (`AS(ty, k)`): their extents into ab/ae, their number into *na, the
 * macro's name into *name; returns the offset after ')' or 0. */
static unsigned macro_args(const kp_file *f, unsigned at, const char **name, kp_file *ar,
			   unsigned *ab, unsigned *ae, int *na)
{
	unsigned i = at;
	while (i < f->len && kp_inl_ident_char(f->src[i]))
		i++;
	if (i == at || !kp_inl_ident_start(f->src[at]))
		return 0;
	*name = kp_arena_printf(&ar->arena, "%.*s", (int)(i - at), f->src + at);
	while (i < f->len && (f->src[i] == ' ' || f->src[i] == '\t' || f->src[i] == '\n'))
		i++;
	if (i >= f->len || f->src[i] != '(')
		return 0;
	int depth = 0;
	*na = 0;
	unsigned start = i + 1;
	for (i++; i < f->len;) {
		size_t j = kp_inl_skip_opaque(f->src, i, f->len);
		if (j != i) {
			i = (unsigned)j;
			continue;
		}
		char ch = f->src[i];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if ((ch == ']' || ch == '}') && depth)
			depth--;
		else if (ch == ')' && depth)
			depth--;
		else if (!depth && (ch == ',' || ch == ')')) {
			if (*na == 16)
				return 0;
			ab[*na] = start;
			ae[(*na)++] = i;
			start = i + 1;
			if (ch == ')')
				return i + 1;
		}
		i++;
	}
	return 0;
}

/* The text of the invocation of a function-like macro at `at` whose body,
 * written in this file, spells a tile at `spell`: the body with each
 * parameter replaced by its argument, as the preprocessor does.  Sets
 * *end (after the invocation) and *name; NULL with *why when the
 * definition is not a plain one (# or ##, variadic, comments). */
static const char *expand_macro(kp_file *f, unsigned at, unsigned spell, unsigned *end,
				const char **name, const char **why)
{
	unsigned ab[16], ae[16];
	int na = 0;
	*end = macro_args(f, at, name, f, ab, ae, &na);
	if (!*end) {
		*why = "its invocation is not a function-like macro's";
		return NULL;
	}
	/* the logical line of the #define that spells the tile */
	unsigned ls = spell;
	while (ls > 0 && f->src[ls - 1] != '\n')
		ls--;
	while (ls >= 2 && f->src[ls - 2] == '\\') {
		ls -= 1;
		while (ls > 0 && f->src[ls - 1] != '\n')
			ls--;
	}
	unsigned i = ls;
	while (i < f->len && (f->src[i] == ' ' || f->src[i] == '\t'))
		i++;
	if (f->src[i++] != '#') {
		*why = "its definition is not found";
		return NULL;
	}
	while (i < f->len && (f->src[i] == ' ' || f->src[i] == '\t'))
		i++;
	size_t nl = strlen(*name);
	if (strncmp(f->src + i, "define", 6) || kp_inl_ident_char(f->src[i + 6])) {
		*why = "its definition is not found";
		return NULL;
	}
	i += 6;
	while (i < f->len && (f->src[i] == ' ' || f->src[i] == '\t'))
		i++;
	if (strncmp(f->src + i, *name, nl) || f->src[i + nl] != '(') {
		*why = "its definition is not found";
		return NULL;
	}
	const char *params[16];
	size_t plen[16];
	int np = 0;
	for (i += (unsigned)nl + 1; i < f->len && f->src[i] != ')';) {
		char ch = f->src[i];
		if (kp_inl_ident_start(ch)) {
			unsigned w = i;
			while (w < f->len && kp_inl_ident_char(f->src[w]))
				w++;
			if (np == 16) {
				*why = "it has too many parameters";
				return NULL;
			}
			params[np] = f->src + i;
			plen[np++] = w - i;
			i = w;
		} else if (ch == ',' || ch == ' ' || ch == '\t')
			i++;
		else {
			*why = "it is variadic or its parameters are unusual";
			return NULL;
		}
	}
	unsigned bs = i + 1, be = bs;
	while (be < f->len && !(f->src[be] == '\n' && f->src[be - 1] != '\\'))
		be++;
	if (spell < bs || spell >= be || na != (np ? np : 1)) {
		*why = "its definition is not the one in effect, or the arguments do not match";
		return NULL;
	}
	kp_strbuf out = KP_STRBUF_INIT;
	int guard = 0; /* the last thing added was an argument */
	for (i = bs; i < be;) {
		char ch = f->src[i];
		if (ch == '#' || (ch == '/' && (f->src[i + 1] == '/' || f->src[i + 1] == '*'))) {
			kp_strbuf_release(&out);
			*why = "its body has # or ## or a comment";
			return NULL;
		}
		if (ch == ';' || ch == '{' || ch == '}') {
			kp_strbuf_release(&out);
			*why = "its body is statements, not an expression (kpipe expands accessor "
			       "macros such as #define AS(i, j) As[i][j])";
			return NULL;
		}
		size_t j = kp_inl_skip_opaque(f->src, i, be);
		/* a name, whole; a number with its '.' (1.5f): a name's '.' is
		 * member access, and the name before it may be a parameter
		 * (`As[p.r][k]`) */
		int number = ch >= '0' && ch <= '9';
		if (j == i && kp_inl_ident_char(ch))
			while (j < be &&
			       (kp_inl_ident_char(f->src[j]) || (number && f->src[j] == '.')))
				j++;
		if (j == i)
			j = i + 1;
		if (ch == '\\' || ch == '\n' || ch == '\r' || ch == ' ' || ch == '\t') {
			if (out.len && out.buf[out.len - 1] != ' ')
				kp_strbuf_addc(&out, ' ');
			i++;
			continue;
		}
		int p = -1;
		for (int k = 0; k < np && p < 0 && kp_inl_ident_start(ch); k++)
			if (plen[k] == j - i && !strncmp(params[k], f->src + i, j - i))
				p = k;
		if (kp_inl_ident_start(ch) && j - i == nl && !strncmp(f->src + i, *name, nl)) {
			kp_strbuf_release(&out);
			*why = "its body names itself";
			return NULL;
		}
		if (p >= 0) {
			const char *a = kp_inl_one_line(f, f->src + ab[p], ae[p] - ab[p]);
			while (*a == ' ')
				a++;
			size_t al = strlen(a);
			while (al && a[al - 1] == ' ')
				al--;
			add_token_safe(&out, a, al);
			guard = 1;
		} else if (guard) {
			add_token_safe(&out, f->src + i, j - i);
			guard = 0;
		} else
			kp_strbuf_add(&out, f->src + i, j - i);
		i = (unsigned)j;
	}
	while (out.len && out.buf[out.len - 1] == ' ')
		out.buf[--out.len] = '\0';
	const char *body = out.len && out.buf[0] == ' ' ? kp_strbuf_str(&out) + 1
							: kp_strbuf_str(&out);
	/* no new token with what stands around the invocation */
	char before = at ? f->src[at - 1] : 0, after = *end < f->len ? f->src[*end] : 0;
	const char *r = kp_arena_printf(
		&f->arena, "%s%s%s",
		(kp_inl_ident_char(before) && kp_inl_ident_char(body[0])) ||
				(punct(before) && punct(body[0]))
			? " "
			: "",
		body,
		*body && ((kp_inl_ident_char(after) && kp_inl_ident_char(body[strlen(body) - 1])) ||
			  (punct(after) && punct(body[strlen(body) - 1])))
			? " "
			: "");
	kp_strbuf_release(&out);
	return r;
}

typedef struct {
	unsigned at[32];
	unsigned spell[32];
	int n;
} macro_refs;

static int find_macro_tiles(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	macro_refs *m = ud;
	if (n->kind != KP_N_DECLREF || !n->macro_spell || !n->in_main || !n->decl ||
	    !n->decl->is_shared || !n->decl->is_array)
		return 1;
	for (int i = 0; i < m->n; i++)
		if (m->at[i] == n->begin)
			return 1;
	if (m->n < 32) {
		m->at[m->n] = n->begin;
		m->spell[m->n++] = n->macro_spell - 1;
	}
	return 1;
}

/* Edits expanding the macros that name l's tiles in their bodies; the
 * names into *names; 0, or -1 with *why. */
static int expand_macros(kp_file *f, const kp_loop *l, kp_edits *ed, kp_strbuf *names,
			 const char **why)
{
	macro_refs m = {0};
	kp_node_walk(l->body, NULL, find_macro_tiles, &m);
	for (int i = 0; i < m.n; i++) {
		unsigned end;
		const char *name = NULL;
		const char *t = expand_macro(f, m.at[i], m.spell[i], &end, &name, why);
		if (!t) {
			if (name)
				*why = kp_arena_printf(&f->arena,
						       "the macro '%s' is not expanded: %s", name,
						       *why);
			return -1;
		}
		kp_edits_add(ed, m.at[i], end - m.at[i], t);
		if (!kp_inl_names(names->buf ? names->buf : "", names->len, name))
			kp_strbuf_addf(names, "%s%s", names->len ? ", " : "", name);
	}
	return 0;
}

/* ------------------------------------------------------------ a loop */

#define KP_INLINE_MAX_CALLS 16

typedef struct {
	kp_node *calls[KP_INLINE_MAX_CALLS];
	kp_node *parents[KP_INLINE_MAX_CALLS];
	int n, more;
} call_list;

/* Appends call n (its parent statement p) to cl, or marks cl full. */
static void list_call(call_list *cl, kp_node *n, kp_node *p)
{
	if (cl->n == KP_INLINE_MAX_CALLS)
		cl->more = 1;
	else {
		cl->calls[cl->n] = n;
		cl->parents[cl->n++] = p;
	}
}

/* The calls the analysis reads as load helpers (handed a shared array),
 * outermost ones only. */
static int find_helper_calls(kp_node *n, kp_node *parent, void *ud)
{
	call_list *cl = ud;
	if (n->kind != KP_N_CALL || !kp_call_shared_arg(n) ||
	    (n->decl && n->decl->kind != KP_D_FUNC && n->decl->kind != KP_D_OTHER))
		return 1;
	list_call(cl, n, parent);
	return 0;
}

/* The judge of the trial (trial.h): is l2, the loop of the trial parse g
 * at l's place, pipelined (the plan into *out), every name of the
 * inlined bodies meaning what it meant in its helper?  When it is not,
 * and the canon pass would look at it, the canon pass's edits of the
 * inlined code (canon.h) are composed with the inlining's into
 * `composed`, for a second trial; or canon_why says why its shapes
 * cannot be rewritten. */
typedef struct {
	kp_file *f;
	const kp_inline_site *sites;
	int nsites;
	const kp_edits *ed;
	const kp_trial_env *e;
	int inlined; /* the first trial: the names are checked, canon is tried */
	kp_edits composed;
	const char *canon_what, *canon_why;
} judge_ud;

/* l2 eligible and planned (NULL), or why not (in f's arena). */
static const char *planned(const kp_trial_env *e, kp_file *f, kp_file *g, kp_loop *l2,
			   kp_trial_result *out)
{
	if (!l2->eligible)
		return kp_arena_printf(&f->arena, "%s [%s]", l2->reasons[0].message,
				       l2->reasons[0].id);
	kp_plan p;
	kp_trial_plan(e, g, l2, &p);
	if (!p.xform)
		return kp_arena_printf(&f->arena, "%s [%s]", p.refuse_msg, p.refuse_id);
	out->variant = p.xform->name;
	out->stages = p.stages;
	out->why = p.why ? kp_arena_strdup(&f->arena, p.why) : NULL;
	return NULL;
}

/* The canon pass's shapes in l2, the inlined loop of g: their edits
 * composed with j->ed into j->composed, or j->canon_why. */
static void canon_inlined(judge_ud *j, kp_file *g, kp_loop *l2)
{
	kp_file *f = j->f;
	if (!kp_canon_wanted(j->e, g, l2))
		return;
	kp_edits ced = {0};
	const char *what = NULL, *why = NULL;
	int r = kp_canon_edits(g, l2, &ced, &what, &why);
	if (r < 0)
		j->canon_why = kp_arena_strdup(&f->arena, why);
	else if (r > 0 && kp_edits_compose(j->ed, f->src, f->len, &ced, &j->composed))
		j->canon_why = "its edits do not apply to the inlined code";
	else if (r > 0)
		j->canon_what = kp_arena_strdup(&f->arena, what);
	kp_edits_release(&ced);
}

static const char *pipelined(void *ud, kp_file *g, kp_file *tu, kp_loop *l2, kp_trial_result *out)
{
	(void)tu;
	judge_ud *j = ud;
	if (!j->inlined)
		return planned(j->e, j->f, g, l2, out);
	const char *why = kp_inline_same_names(j->f, j->sites, j->nsites, j->ed, g, l2->kernel);
	if (why)
		return why;
	why = planned(j->e, j->f, g, l2, out);
	if (why)
		canon_inlined(j, g, l2);
	return why;
}

/* Parses the unit with ed applied and plans the loop at l's place: NULL
 * when it is pipelined (the plan into *out), else why not.  Where the
 * inlined loop is not, the canon pass's shapes in the inlined code are
 * rewritten too and tried: when that loop is pipelined, ed becomes the
 * edits of both; what the canon shapes did goes into *canon_what either
 * way. */
static const char *try_edits(const kp_trial_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
			     const kp_inline_site *sites, int nsites, kp_trial_result *out,
			     const char **canon_what)
{
	if (!e->reparse)
		return "kpipe cannot parse the changed unit here";
	judge_ud j = {f, sites, nsites, ed, e, 1, {0}, NULL, NULL};
	const char *why = kp_trial_try(e, f, l, ed, "inlined", pipelined, &j, out);
	if (why && j.canon_why)
		why = kp_arena_printf(&f->arena,
				      "%s; nor is the inlined load phase written in the copy forms "
				      "kpipe reads: %s",
				      why, j.canon_why);
	else if (why && j.composed.n) {
		*canon_what = j.canon_what;
		j.inlined = 0;
		why = kp_trial_try(e, f, l, &j.composed, "inlined", pipelined, &j, out);
		if (!why) {
			kp_edits_release(ed);
			*ed = j.composed;
			memset(&j.composed, 0, sizeof(j.composed));
		}
	}
	kp_edits_release(&j.composed);
	return why;
}

/* How a remark names call c: its callee as written (`load<BM>`, `a.at`);
 * with `ops`, an operator call's object with `(...)` or `[...]`. */
static const char *call_label(kp_file *f, const kp_node *c, int ops)
{
	const kp_node *callee = c->kids[0];
	const char *name = c->name ? c->name : "?";
	if (callee && callee->in_main && callee->end <= f->len)
		name = kp_inl_callee_name(f, callee);
	int a0 = 0;
	if (ops && kp_call_object(c, &a0) && a0 == 2)
		name = kp_arena_printf(&f->arena, "%s%s", name,
				       strcmp(c->name, "operator[]") ? "(...)" : "[...]");
	return name;
}

/* One call's outcome: why it is not done (`the NOUN 'NAME' is not
 * DONE: why`), or the site counted and `DONE the NOUN 'NAME'` added to
 * what; NULL then. */
static const char *outcome(kp_file *f, const char *name, const char *noun, const char *done,
			   const char *why, int *nsites, kp_strbuf *what)
{
	if (why)
		return kp_arena_printf(&f->arena, "the %s '%s' is not %s: %s", noun, name, done,
				       why);
	(*nsites)++;
	if (!strstr(kp_strbuf_str(what), name))
		kp_strbuf_addf(what, "%s%s the %s '%s'", what->len ? "; " : "", done, noun, name);
	return NULL;
}

/* Why load-helper call c (its parent statement p) of a kernel of f cannot
 * be inlined, before its body is looked at; NULL when it is tried. */
static const char *call_unfit(const kp_trial_env *e, const kp_file *f, const kp_node *c,
			      const kp_node *p)
{
	if (!c->decl)
		return "the call names no single function kpipe can see (an overload set, or a "
		       "name resolved per instantiation)";
	if (c->decl->kind != KP_D_FUNC)
		return "it is not a plain function (a method, a functor or a pointer)";
	if (!c->decl->fn)
		return c->decl->fn_why ? c->decl->fn_why
				       : "kpipe has no definition of it in the kernel's file";
	if (c->decl->fn->home && f != e->tu)
		return "it is defined in another file than the kernel's header";
	if (!p || p->kind != KP_N_COMPOUND)
		return "the call is not a statement of its own";
	return NULL;
}

/* Inlines the load-helper calls of l's load phase into ed, their sites
 * into sites/nsites and what was done into what; NULL or why not. */
static const char *inline_calls(const kp_trial_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
				kp_inline_site *sites, int *nsites, kp_strbuf *what)
{
	if (l->load_b < 0 || l->load_e > l->nstmts || l->load_b >= l->load_e)
		return "kpipe finds no load phase in the loop";
	call_list cl = {0};
	for (int s = l->load_b; s < l->load_e; s++)
		kp_node_walk(l->stmts[s], l->body, find_helper_calls, &cl);
	if (cl.more)
		return "the load phase calls more than 16 helpers";
	if (!cl.n)
		return "kpipe finds no helper call handed a tile in the load phase";
	const char *why = NULL;
	for (int i = 0; i < cl.n && !why; i++) {
		why = call_unfit(e, f, cl.calls[i], cl.parents[i]);
		if (!why)
			kp_inline_call(f, l->kernel, cl.calls[i], ed, e->no_comment,
				       &sites[*nsites], &why);
		why = outcome(f, call_label(f, cl.calls[i], 0), "load helper", "inlined", why,
			      nsites, what);
	}
	return why;
}

/* ------------------------------------------------------------ value accessors */

/* The outermost calls of value accessors (kp_inline_value_fn). */
static int find_value_calls(kp_node *n, kp_node *parent, void *ud)
{
	call_list *cl = ud;
	if (n->kind != KP_N_CALL || !kp_inline_value_fn(n))
		return 1;
	list_call(cl, n, parent);
	return 0;
}

/* The accessor calls to expand in l: in an eligible loop, those in the
 * values of the copies no transform can write (their stored value is not
 * a plain global load); in a refused one, those of its condition and of
 * its load phase. */
static void value_calls(const kp_loop *l, call_list *cl)
{
	if (l->eligible) {
		for (int i = 0; i < l->nloads; i++)
			if (!l->loads[i].src && l->loads[i].rhs)
				kp_node_walk(l->loads[i].rhs, NULL, find_value_calls, cl);
		return;
	}
	if (l->node->kind == KP_N_FOR && l->node->for_cond)
		kp_node_walk(l->node->for_cond, NULL, find_value_calls, cl);
	for (int s = l->load_b; s >= 0 && s < l->load_e && s < l->nstmts; s++)
		kp_node_walk(l->stmts[s], NULL, find_value_calls, cl);
}

/* Value accessors (a function or a method whose body is `return E;`):
 * - an eligible loop that no transform can write because copies store
 *   their result (`As[ty][tx] = at(A, lda, row, k0 + tx);`, whose body is
 *   `return A[r * lda + c];`);
 * - a loop refused because of a method call in its condition or its load
 *   phase (`k0 < a.size(1)`, `As[ty][tx] = a.at(row, k0 + tx);`: the
 *   effect sets do not read methods), or because of a call whose effects
 *   kpipe cannot follow there.
 * The calls are replaced by their expressions, which the analysis and
 * the transforms read as written (the trial then decides). */
static int wants_values(const kp_trial_env *e, kp_file *f, const kp_loop *l, call_list *cl)
{
	if (l->eligible ? !kp_canon_wanted(e, f, l)
			: !(kp_trial_refused_for(l, "kpipe-unknown-effect") ||
			    kp_trial_refused_for(l, "kpipe-cond-side-effect")))
		return 0;
	value_calls(l, cl);
	return cl->n > 0;
}

/* Expands the accessor calls cl of l (value_calls()) into ed, their sites
 * into sites/nsites and what was done into what; NULL or why not. */
static const char *inline_values(kp_file *f, const kp_loop *l, const call_list *cl, kp_edits *ed,
				 kp_inline_site *sites, int *nsites, kp_strbuf *what)
{
	if (cl->more)
		return "the copies call more than 16 accessors";
	const char *why = NULL;
	for (int i = 0; i < cl->n && !why; i++) {
		kp_inline_value_call(f, l->kernel, cl->calls[i], ed, &sites[*nsites], &why);
		why = outcome(f, call_label(f, cl->calls[i], 1), "accessor", "expanded", why,
			      nsites, what);
	}
	return why;
}

void kp_inline_loop(const kp_trial_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		    kp_trial_result *out)
{
	memset(out, 0, sizeof(*out));
	int helper = kp_trial_refused_for(l, "kpipe-load-in-helper");
	call_list vc = {0};
	int values = wants_values(e, f, l, &vc);
	if (!values && (l->eligible || !(helper || kp_trial_refused_for(l, "kpipe-macro-array"))))
		return;
	const char *why = NULL;
	kp_strbuf what = KP_STRBUF_INIT, macros = KP_STRBUF_INIT;
	kp_inline_site sites[KP_INLINE_MAX_CALLS];
	int nsites = 0;
	if (values)
		why = inline_values(f, l, &vc, ed, sites, &nsites, &what);
	else if (helper)
		why = inline_calls(e, f, l, ed, sites, &nsites, &what);
	if (!why && kp_trial_refused_for(l, "kpipe-macro-array") &&
	    !expand_macros(f, l, ed, &macros, &why) && macros.len)
		kp_strbuf_addf(&what, "%sexpanded the macro%s %s, whose bod%s the tiles",
			       what.len ? "; " : "", strchr(macros.buf, ',') ? "s" : "", macros.buf,
			       strchr(macros.buf, ',') ? "ies name" : "y names");
	const char *canon_what = NULL;
	if (!why && ed->n) {
		why = try_edits(e, f, l, ed, sites, nsites, out, &canon_what);
		if (canon_what)
			kp_strbuf_addf(&what, "; then, in the inlined code, %s", canon_what);
		if (why)
			why = kp_arena_printf(
				&f->arena,
				"the loop is refused even once kpipe %s, so it is left "
				"as written: %s",
				kp_strbuf_str(&what), why);
	}
	if (!why && !ed->n && helper)
		why = "kpipe finds nothing to inline in the loop";
	if (why) {
		out->status = -1;
		out->message = why;
	} else if (ed->n) {
		out->status = 1;
		out->message = kp_arena_printf(&f->arena, "kpipe %s, so that the loop is pipelined",
					       kp_strbuf_str(&what));
	}
	kp_strbuf_release(&what);
	kp_strbuf_release(&macros);
}

const kp_trial_kind kp_trial_inline = {"inline", "kpipe-inlined", "kpipe-inline-refused",
				       kp_inline_loop};

static void inline_run(kp_pass_ctx *c) { kp_trial_pass_run(&kp_trial_inline, c); }

const kp_pass kp_pass_inline = {
	"inline",
	"inlines the load helpers of K-loops the pipeline pass then rewrites",
	inline_run,
};
