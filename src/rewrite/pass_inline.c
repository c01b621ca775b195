/*
 * pass_inline.c - the "inline" pass (pass.h): prepares K-loops that the
 * pipeline pass refuses only because their copies or tiles are out of its
 * sight.  A load helper (`load_tile<BM, BK>(A, As, lda, k0);`, a __device__
 * function of the same file handed the tile) is replaced at the call by
 * its body, with the parameters and template parameters replaced by the
 * call's arguments; an accessor macro whose body names a tile
 * (`#define AS(i, j) As[i][j]`) is expanded where the loop uses it, as the
 * preprocessor would.  The change is tried first: the unit is parsed again
 * with it, and the edits are kept only when the loop is then eligible and
 * planned; otherwise the loop is left as it was and a remark says what the
 * inlined loop was refused for.  Helpers stay in place for their other
 * callers.
 *
 * Inlining is exact: every argument is a name or a literal, substituted
 * where the body names the parameter (converted with static_cast to the
 * parameter's type when the types differ), the body never changes a
 * parameter, has no return, no barrier and no local that a substituted
 * name would meet, and names nothing of its namespace.
 */
#include "inline.h"
#include "pass.h"

#include "plan.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ tokens */

static int ident_start(char ch)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}
static int ident_char(char ch) { return ident_start(ch) || (ch >= '0' && ch <= '9'); }

/* Skips a comment or a string/character literal at s[i]; returns the
 * offset after it, or i when there is none. */
static size_t skip_opaque(const char *s, size_t i, size_t n)
{
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
		while (i < n && s[i] != '\n')
			i++;
		return i;
	}
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
		const char *e = strstr(s + i + 2, "*/");
		return e && (size_t)(e - s) + 2 <= n ? (size_t)(e - s) + 2 : n;
	}
	if (s[i] == '"' || s[i] == '\'') {
		char q = s[i++];
		while (i < n && s[i] != q)
			i += s[i] == '\\' ? 2 : 1;
		return i < n ? i + 1 : n;
	}
	return i;
}

/* Whether `name` is an identifier token of s[0, n). */
static int text_names(const char *s, size_t n, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < n;) {
		size_t j = skip_opaque(s, i, n);
		if (j != i) {
			i = j;
			continue;
		}
		if (!ident_start(s[i]) || (i && ident_char(s[i - 1]))) {
			i++;
			continue;
		}
		size_t e = i;
		while (e < n && ident_char(s[e]))
			e++;
		if (e - i == nl && !strncmp(s + i, name, nl))
			return 1;
		i = e;
	}
	return 0;
}

/* text[0, n) with each run of white space made one space, arena-owned. */
static const char *one_line(kp_file *f, const char *text, size_t n)
{
	char *o = kp_arena_alloc(&f->arena, n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int ws = text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r';
		if (!ws)
			o[k++] = text[i];
		else if (k && o[k - 1] != ' ')
			o[k++] = ' ';
	}
	o[k] = '\0';
	return o;
}

/* A name or a number: an argument substituted as it is. */
static int simple_text(const char *t)
{
	if (!*t)
		return 0;
	for (const char *p = t; *p; p++)
		if (!ident_char(*p) && *p != '.')
			return 0;
	return 1;
}

/* ------------------------------------------------------------ types */

/* A type without top-level const, arrays decayed ("const uint" -> "uint",
 * "float[BM * BK]" -> "float *"), arena-owned. */
static const char *value_type(kp_file *f, const char *t)
{
	if (!t)
		return "";
	while (!strncmp(t, "const ", 6))
		t += 6;
	size_t n = strlen(t);
	for (int again = 1; again;) {
		static const char *const tail[] = {" const", " __restrict__", " __restrict",
						   "__restrict__", "__restrict"};
		again = 0;
		for (size_t i = 0; i < KP_ARRAY_LEN(tail); i++) {
			size_t tl = strlen(tail[i]);
			if (n > tl && !strncmp(t + n - tl, tail[i], tl)) {
				n -= tl;
				again = 1;
			}
		}
		while (n && t[n - 1] == ' ')
			n--;
	}
	/* a reference to an array is bound to the array: "float (&)[16][16]" */
	const char *ra = strstr(t, " (&)[");
	if (ra && (size_t)(ra - t) < n)
		return kp_arena_printf(&f->arena, "%.*s%.*s", (int)(ra - t), t,
				       (int)(n - (size_t)(ra + 4 - t)), ra + 4);
	const char *br = memchr(t, '[', n);
	if (br && t[n - 1] == ']' && !memchr(br + 1, '[', (size_t)(t + n - br - 1)) &&
	    !strstr(t, "(&)")) {
		size_t b = (size_t)(br - t);
		while (b && t[b - 1] == ' ')
			b--;
		return kp_arena_printf(&f->arena, "%.*s *", (int)b, t);
	}
	return kp_arena_printf(&f->arena, "%.*s", (int)n, t);
}

/* ------------------------------------------------------------ one call */

typedef struct {
	kp_file *f;
	kp_kernel *h;       /* the helper */
	const char **sub;   /* per parameter, then per template parameter: the text */
	const char *why;    /* why it cannot be inlined */
	const kp_kernel *k; /* the calling kernel */
} inliner;

static int local_names(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	inliner *in = ud;
	if (in->why)
		return 0;
	kp_kernel *h = in->h;
	if (n->kind == KP_N_RETURN)
		in->why = "its body returns early";
	else if (n->kind == KP_N_CALL && n->sync != KP_SYNC_NONE)
		in->why = "its body has a barrier";
	else if (n->kind == KP_N_LAMBDA)
		in->why = "its body has a lambda";
	else if (n->kind == KP_N_SIZEOF && n->in_main) {
		const char *t = kp_node_text(in->f, n);
		for (int i = 0; i < h->nparams && !in->why; i++)
			if (text_names(t, strlen(t), h->params[i]->name))
				in->why =
					kp_arena_printf(&in->f->arena,
							"its body takes the size of its parameter "
							"'%s'",
							h->params[i]->name);
	} else if (n->kind == KP_N_VARDECL && n->name) {
		for (int i = 0; i < h->nparams + h->ntparams && !in->why; i++)
			if (text_names(in->sub[i], strlen(in->sub[i]), n->name) ||
			    (i < h->nparams && !strcmp(h->params[i]->name, n->name)) ||
			    (i >= h->nparams && !strcmp(h->tparam_names[i - h->nparams], n->name)))
				in->why = kp_arena_printf(&in->f->arena,
							  "its local '%s' would hide a name of the "
							  "call",
							  n->name);
	} else if (n->kind == KP_N_DECLREF && n->decl && n->decl->in_namespace &&
		   (n->decl->kind == KP_D_VAR || n->decl->kind == KP_D_FUNC ||
		    n->decl->kind == KP_D_ENUM))
		in->why = kp_arena_printf(&in->f->arena,
					  "its body names '%s' of a namespace, which the kernel "
					  "would have to qualify",
					  n->name);
	return !in->why;
}

/* Whether the kernel declares `name` (a parameter or a local), which a
 * free name of the body would then mean. */
static int kernel_declares(const kp_kernel *k, const char *name);

static int free_names(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	inliner *in = ud;
	if (in->why || n->kind != KP_N_DECLREF || !n->decl || !n->name)
		return !in->why;
	const kp_decl *d = n->decl;
	if (d->in_main && d->begin >= in->h->begin && d->end <= in->h->end)
		return 1; /* a parameter or a local of the helper */
	if (kernel_declares(in->k, n->name))
		in->why = kp_arena_printf(&in->f->arena,
					  "its body names '%s', which the calling kernel declares "
					  "too",
					  n->name);
	return !in->why;
}

static int declares_name(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	void **w = ud;
	if (n->kind == KP_N_VARDECL && n->name && !strcmp(n->name, w[0]))
		w[1] = n;
	return !w[1];
}

static int kernel_declares(const kp_kernel *k, const char *name)
{
	for (int i = 0; i < k->nparams; i++)
		if (k->params[i] && !strcmp(k->params[i]->name, name))
			return 1;
	void *w[2] = {(void *)name, NULL};
	kp_node_walk(k->body, NULL, declares_name, w);
	return w[1] != NULL;
}

/* The explicit template arguments of the callee's spelling
 * (`wt::load<BM, 4>`), split at top-level commas into in->sub after the
 * parameters.  Returns the number found, -1 when malformed. */
static int template_args(inliner *in, const char *callee)
{
	const char *lt = strchr(callee, '<');
	if (!lt)
		return 0;
	int n = 0, depth = 0;
	const char *start = lt + 1;
	for (const char *p = lt + 1; *p; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']') && depth)
			depth--;
		else if (*p == '>' && depth)
			depth--;
		else if (depth == 0 && (*p == ',' || *p == '>')) {
			while (*start == ' ')
				start++;
			size_t len = (size_t)(p - start);
			while (len && start[len - 1] == ' ')
				len--;
			if (n < in->h->ntparams) {
				const char *t = one_line(in->f, start, len);
				in->sub[in->h->nparams + n] =
					simple_text(t) ? t
						       : kp_arena_printf(&in->f->arena, "(%s)", t);
			}
			n++;
			start = p + 1;
			if (*p == '>')
				return p[1] ? -1 : n;
		}
	}
	return -1;
}

/* The text each parameter becomes (in->sub), or in->why. */
static void bind_args(inliner *in, const kp_node *call)
{
	kp_kernel *h = in->h;
	const kp_node *callee = kp_node_strip(call->kids[0]);
	if (!callee || callee->kind != KP_N_DECLREF || call->nkids - 1 != h->nparams) {
		in->why = "the call does not pass every parameter by position";
		return;
	}
	int nt = template_args(in, kp_node_text(in->f, callee));
	if (nt != h->ntparams) {
		in->why = "the call does not spell every template argument";
		return;
	}
	for (int i = 0; i < h->nparams && !in->why; i++) {
		kp_decl *p = h->params[i];
		const kp_node *a = kp_node_strip(call->kids[i + 1]);
		const char *t = a ? kp_node_text(in->f, a) : "";
		if (!a || !simple_text(t) || a->from_macro) {
			in->why = kp_arena_printf(&in->f->arena,
						  "argument %d ('%s') is an expression: kpipe "
						  "inlines names and literals",
						  i + 1, t);
			break;
		}
		if (kp_assigned_in(h, p)) {
			in->why = kp_arena_printf(&in->f->arena,
						  "the body changes its parameter '%s'", p->name);
			break;
		}
		const char *pt = value_type(in->f, p->type);
		const char *at = value_type(
			in->f, a->kind == KP_N_DECLREF && a->decl ? a->decl->type : a->type);
		int same = !strcmp(pt, at) ||
			   (!strncmp(pt, "const ", 6) && !strcmp(pt + 6, at) && strchr(at, '*'));
		if (same)
			in->sub[i] = t;
		else if (!strpbrk(pt, "*&[") && !strpbrk(at, "*&[") && *pt)
			in->sub[i] = kp_arena_printf(&in->f->arena, "static_cast<%s>(%s)", pt, t);
		else
			in->why =
				kp_arena_printf(&in->f->arena,
						"argument %d ('%s', %s) does not have the type of "
						"parameter '%s' (%s)",
						i + 1, t, at, p->name, pt);
	}
}

/* The body's text with the substitutions, re-indented to `indent`. */
static const char *body_text(inliner *in, const char *indent, int braces)
{
	kp_file *f = in->f;
	kp_kernel *h = in->h;
	const kp_node *b = h->body;
	size_t s = b->begin + 1, e = b->end - 1;
	while (s < e &&
	       (f->src[s] == ' ' || f->src[s] == '\t' || f->src[s] == '\n' || f->src[s] == '\r'))
		s++;
	while (e > s && (f->src[e - 1] == ' ' || f->src[e - 1] == '\t' || f->src[e - 1] == '\n' ||
			 f->src[e - 1] == '\r'))
		e--;
	/* the indentation of the body's first line */
	size_t ls = s;
	while (ls > 0 && f->src[ls - 1] != '\n')
		ls--;
	size_t bind = s - ls;
	kp_strbuf out = KP_STRBUF_INIT;
	if (braces)
		kp_strbuf_addf(&out, "{\n%s\t", indent);
	const char *prev = ""; /* the last significant character before a name */
	for (size_t i = s; i < e;) {
		size_t j = skip_opaque(f->src, i, e);
		if (j != i) {
			kp_strbuf_add(&out, f->src + i, j - i);
			i = j;
			continue;
		}
		char ch = f->src[i];
		if (ch == '\n') {
			i++;
			size_t k = 0;
			while (k < bind && i < e && (f->src[i] == ' ' || f->src[i] == '\t'))
				i++, k++;
			if (i < e && f->src[i] != '\n' && f->src[i] != '\r')
				kp_strbuf_addf(&out, "\n%s%s", indent, braces ? "\t" : "");
			else
				kp_strbuf_addc(&out, '\n');
			continue;
		}
		if (ident_start(ch) && !(i > s && ident_char(f->src[i - 1]))) {
			size_t w = i;
			while (w < e && ident_char(f->src[w]))
				w++;
			size_t q = w;
			while (q < e && f->src[q] == ' ')
				q++;
			int member = !strcmp(prev, ".") || !strcmp(prev, "->") ||
				     !strcmp(prev, "::") ||
				     (q + 1 < e && f->src[q] == ':' && f->src[q + 1] == ':');
			const char *rep = NULL;
			for (int p = 0; p < h->nparams + h->ntparams && !member && !rep; p++) {
				const char *nm = p < h->nparams ? h->params[p]->name
								: h->tparam_names[p - h->nparams];
				if (strlen(nm) == w - i && !strncmp(nm, f->src + i, w - i))
					rep = in->sub[p];
			}
			if (rep)
				kp_strbuf_adds(&out, rep);
			else
				kp_strbuf_add(&out, f->src + i, w - i);
			prev = "";
			i = w;
			continue;
		}
		if (ch != ' ' && ch != '\t') {
			prev = ch == '.'                                    ? "."
			       : ch == '>' && i > s && f->src[i - 1] == '-' ? "->"
			       : ch == ':' && i > s && f->src[i - 1] == ':' ? "::"
									    : "x";
		}
		kp_strbuf_addc(&out, ch);
		i++;
	}
	if (braces)
		kp_strbuf_addf(&out, "\n%s}", indent);
	const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&out));
	kp_strbuf_release(&out);
	return r;
}

static int top_decl(kp_node *n)
{
	for (int i = 0; n && i < n->nkids; i++)
		if (n->kids[i]->kind == KP_N_DECLSTMT)
			return 1;
	return 0;
}

/* The edit that inlines `call` (a statement of its own, in k): appended to
 * ed, or a reason in *why. */
static void inline_call(kp_file *f, const kp_kernel *k, const kp_node *call, kp_edits *ed,
			int no_comment, const char **why)
{
	kp_kernel *h = call->decl->fn;
	inliner in = {f, h, NULL, NULL, k};
	if (!h->body || !h->body->in_main || !call->in_main || call->from_macro) {
		*why = "its body or the call is not spelled in this file";
		return;
	}
	if (strncmp(call->decl->type ? call->decl->type : "", "void (", 6)) {
		*why = "it returns a value";
		return;
	}
	in.sub = kp_arena_alloc(&f->arena, sizeof(char *) * (size_t)(h->nparams + h->ntparams + 1));
	bind_args(&in, call);
	if (!in.why &&
	    text_names(f->src + h->body->begin, h->body->end - h->body->begin, "decltype"))
		in.why = "its body uses decltype";
	if (!in.why)
		kp_node_walk(h->body, NULL, local_names, &in);
	if (!in.why)
		kp_node_walk(h->body, NULL, free_names, &in);
	if (in.why) {
		*why = in.why;
		return;
	}
	size_t semi = call->end;
	while (semi < f->len &&
	       (f->src[semi] == ' ' || f->src[semi] == '\t' || f->src[semi] == '\n'))
		semi++;
	size_t ls = call->begin;
	while (ls > 0 && (f->src[ls - 1] == ' ' || f->src[ls - 1] == '\t'))
		ls--;
	if (semi >= f->len || f->src[semi] != ';' || (ls > 0 && f->src[ls - 1] != '\n')) {
		*why = "the call is not a statement on lines of its own";
		return;
	}
	const char *indent = kp_range_text(f, (unsigned)ls, call->begin);
	const char *body = body_text(&in, indent, top_decl(h->body));
	const char *text =
		no_comment ? kp_arena_printf(&f->arena, "%s", body)
			   : kp_arena_printf(&f->arena,
					     "/* kpipe: %s inlined here, so that its copies are "
					     "pipelined with the loop */\n%s%s",
					     one_line(f, f->src + call->kids[0]->begin,
						      call->kids[0]->end - call->kids[0]->begin),
					     indent, body);
	kp_edits_add(ed, call->begin, (unsigned)(semi + 1 - call->begin), text);
}

/* ------------------------------------------------------------ macros */

static int punct(char ch) { return ch && !ident_char(ch) && !strchr(" \t\n\r()[]{},;", ch); }

/* Appends `t` to `out`, with a space before it where its first character
 * would otherwise join the one before into another token (`-` `-1`). */
static void add_token_safe(kp_strbuf *out, const char *t, size_t n)
{
	char last = out->len ? out->buf[out->len - 1] : 0;
	if (n && ((ident_char(last) && ident_char(t[0])) || (punct(last) && punct(t[0]))))
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
	while (i < f->len && ident_char(f->src[i]))
		i++;
	if (i == at || !ident_start(f->src[at]))
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
		size_t j = skip_opaque(f->src, i, f->len);
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
	if (strncmp(f->src + i, "define", 6) || ident_char(f->src[i + 6])) {
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
		if (ident_start(ch)) {
			unsigned w = i;
			while (w < f->len && ident_char(f->src[w]))
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
		size_t j = skip_opaque(f->src, i, be);
		if (j == i && ident_char(ch)) /* a name or a number, whole */
			while (j < be && (ident_char(f->src[j]) || f->src[j] == '.'))
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
		for (int k = 0; k < np && p < 0 && ident_start(ch); k++)
			if (plen[k] == j - i && !strncmp(params[k], f->src + i, j - i))
				p = k;
		if (ident_start(ch) && j - i == nl && !strncmp(f->src + i, *name, nl)) {
			kp_strbuf_release(&out);
			*why = "its body names itself";
			return NULL;
		}
		if (p >= 0) {
			const char *a = one_line(f, f->src + ab[p], ae[p] - ab[p]);
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
		(ident_char(before) && ident_char(body[0])) || (punct(before) && punct(body[0]))
			? " "
			: "",
		body,
		*body && ((ident_char(after) && ident_char(body[strlen(body) - 1])) ||
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
		if (!text_names(names->buf ? names->buf : "", names->len, name))
			kp_strbuf_addf(names, "%s%s", names->len ? ", " : "", name);
	}
	return 0;
}

/* ------------------------------------------------------------ a loop */

typedef struct {
	kp_node *calls[8];
	kp_node *parents[8];
	int n;
	unsigned before; /* where the loop's first barrier begins: loads come before it */
} call_list;

static int find_helper_calls(kp_node *n, kp_node *parent, void *ud)
{
	call_list *cl = ud;
	if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC && n->decl->fn &&
	    n->end <= cl->before && kp_call_shared_arg(n) && cl->n < 8) {
		cl->calls[cl->n] = n;
		cl->parents[cl->n++] = parent;
		return 0;
	}
	return 1;
}

static int refused_for(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return 1;
	return 0;
}

/* The loop of the trial parse g at the same place as l, or NULL. */
static kp_loop *same_loop(const kp_analysis *an, const kp_loop *l)
{
	for (int i = 0; i < an->nloops; i++)
		if (an->loops[i]->node->begin == l->node->begin &&
		    !strcmp(an->loops[i]->kernel->name, l->kernel->name))
			return an->loops[i];
	return NULL;
}

/* Parses the unit with ed applied and plans the loop at l's place:
 * NULL when it is pipelined (the plan into *out), else why not. */
static const char *try_edits(const kp_inline_env *e, kp_file *f, const kp_loop *l,
			     const kp_edits *ed, kp_inline_result *out)
{
	char *text = NULL;
	size_t len = 0;
	if (kp_edits_apply(ed, f->src, f->len, &text, &len))
		return "the edits overlap";
	kp_file *tu = NULL;
	kp_file *g = e->reparse(e->env, f, text, len, &tu);
	const char *why = NULL;
	if (!g)
		why = "the inlined code does not parse";
	else if (tu->nerrors > e->tu->nerrors)
		why = "the inlined code does not compile";
	else {
		kp_analysis an;
		kp_analyze(&an, g, e->ao);
		kp_loop *l2 = same_loop(&an, l);
		if (!l2)
			why = "the loop is not found again";
		else if (!l2->eligible)
			why = kp_arena_printf(&f->arena, "%s [%s]", l2->reasons[0].message,
					      l2->reasons[0].id);
		else {
			kp_plan p;
			kp_plan_loop(&p, g, l2, e->arch, e->variant, e->stages);
			if (!p.xform)
				why = kp_arena_printf(&f->arena, "%s [%s]", p.refuse_msg,
						      p.refuse_id);
			else {
				out->variant = p.xform->name;
				out->stages = p.stages;
			}
		}
	}
	free(text);
	if (tu) {
		kp_file_release(tu);
		free(tu);
	}
	return why;
}

void kp_inline_loop(const kp_inline_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		    kp_inline_result *out)
{
	memset(out, 0, sizeof(*out));
	if (l->eligible || l->bar1 < 0 || l->bar1 >= l->nstmts ||
	    !(refused_for(l, "kpipe-load-in-helper") || refused_for(l, "kpipe-macro-array")))
		return;
	const char *why = NULL;
	kp_strbuf what = KP_STRBUF_INIT, macros = KP_STRBUF_INIT;
	if (refused_for(l, "kpipe-load-in-helper")) {
		call_list cl = {0};
		cl.before = l->stmts[l->bar1]->begin;
		kp_node_walk(l->body, NULL, find_helper_calls, &cl);
		for (int i = 0; i < cl.n && !why; i++) {
			const kp_node *callee = cl.calls[i]->kids[0];
			const char *name =
				one_line(f, f->src + callee->begin, callee->end - callee->begin);
			if (!cl.parents[i] || cl.parents[i]->kind != KP_N_COMPOUND)
				why = "the call is not a statement of its own";
			else
				inline_call(f, l->kernel, cl.calls[i], ed, e->no_comment, &why);
			if (why)
				why = kp_arena_printf(&f->arena,
						      "the load helper '%s' is not inlined: %s",
						      name, why);
			else if (!strstr(kp_strbuf_str(&what), name))
				kp_strbuf_addf(&what, "%sinlined the load helper '%s'",
					       what.len ? "; " : "", name);
		}
	}
	if (!why && refused_for(l, "kpipe-macro-array") &&
	    !expand_macros(f, l, ed, &macros, &why) && macros.len)
		kp_strbuf_addf(&what, "%sexpanded the macro%s %s, whose bod%s the tiles",
			       what.len ? "; " : "", strchr(macros.buf, ',') ? "s" : "", macros.buf,
			       strchr(macros.buf, ',') ? "ies name" : "y names");
	if (!why && ed->n) {
		why = try_edits(e, f, l, ed, out);
		if (why)
			why = kp_arena_printf(
				&f->arena,
				"the loop is refused even once kpipe %s, so it is left "
				"as written: %s",
				kp_strbuf_str(&what), why);
	}
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

static void inline_run(kp_pass_ctx *c)
{
	if (!c->reparse)
		return;
	kp_analyze_opts ao;
	char *sk;
	kp_rw_analyze_opts(c->o, c->tu->path, &ao, &sk);
	kp_inline_env e = {c->o->arch, c->o->variant, c->o->stages, &ao,
			   c->tu,      c->reparse,    c->env,       c->o->no_comment};
	kp_analysis an;
	kp_analyze(&an, c->f, &ao);
	for (int i = 0; i < an.nloops; i++) {
		kp_loop *l = an.loops[i];
		if (!kp_pass_loop_wanted(c, l))
			continue;
		kp_edits ed = {0};
		kp_inline_result r;
		kp_inline_loop(&e, c->f, l, &ed, &r);
		if (r.status < 0)
			kp_pass_diag(c, l->node->line, l->node->col, "remark",
				     "kpipe-inline-refused", r.message);
		else if (r.status > 0) {
			int di = kp_pass_diag(c, l->node->line, l->node->col, "note",
					      "kpipe-inlined", r.message);
			for (int k = 0; k < ed.n; k++)
				kp_pass_edit(c, ed.v[k].off, ed.v[k].len, ed.v[k].text, di);
		}
		kp_edits_release(&ed);
	}
	free(sk);
}

const kp_pass kp_pass_inline = {
	"inline",
	"inlines the load helpers of K-loops the pipeline pass then rewrites",
	inline_run,
};
