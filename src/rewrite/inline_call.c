/*
 * inline_call.c - one load-helper call replaced by the helper's body
 * (inline_call.h).  The helper (`load_tile<BM, BK>(A, As, lda, k0);`) is
 * a __device__ function of the file or of a project header; its body is
 * copied at the call, in braces where it declares something, with:
 *
 * - a parameter handed a name or a literal replaced by it where the body
 *   names it (converted with static_cast where the call converts it);
 * - a parameter handed the address of a tile (`&As[y][4 * tx]`) replaced
 *   by that expression in parentheses, when it has no side effect and
 *   reads no memory;
 * - any other parameter bound to a local of its name and type initialised
 *   with the argument (`const int rows = M - m0;`), as the call initialises
 *   it, when the argument has no side effect (a call of an expression
 *   helper, `ld_vec(p)` whose body is `return *(const float4 *)p;`, is
 *   first replaced by that expression);
 * - a template parameter replaced by the call's argument, or by its
 *   default when the call leaves it out.
 *
 * The names of the body must mean what they mean in the helper: none may
 * be declared by the calling kernel, #defined or #undefined again by the
 * file, or be found in a namespace the kernel is not in.  After the trial
 * parse, kp_inline_same_names() checks that every name of the copy is the
 * same declaration (clang's USR) as in the helper.
 */
#include "inline_call.h"

#include "analyze.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ tokens */

size_t kp_inl_skip_opaque(const char *s, size_t i, size_t n)
{
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
		while (i < n && s[i] != '\n')
			i++;
		return i;
	}
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
		for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
			;
		return i + 1 < n ? i + 2 : n;
	}
	if (s[i] == '"' || s[i] == '\'') {
		char q = s[i++];
		while (i < n && s[i] != q)
			i += s[i] == '\\' ? 2 : 1;
		return i < n ? i + 1 : n;
	}
	return i;
}

/* Calls fn(s + i, length, ud) for each identifier token of s[b, e) that is
 * not a member (after `.`, `->` or `::`); stops when fn returns 0. */
static void each_ident(const char *s, size_t b, size_t e,
		       int (*fn)(const char *name, size_t n, void *ud), void *ud)
{
	char prev = 0, prev2 = 0; /* the last two significant characters */
	for (size_t i = b; i < e;) {
		size_t j = kp_inl_skip_opaque(s, i, e);
		if (j != i) {
			i = j;
			continue;
		}
		char ch = s[i];
		if (kp_inl_ident_start(ch) && !(i > b && kp_inl_ident_char(s[i - 1]))) {
			size_t w = i;
			while (w < e && kp_inl_ident_char(s[w]))
				w++;
			int member = prev == '.' || (prev == '>' && prev2 == '-') ||
				     (prev == ':' && prev2 == ':');
			if (!member && !fn(s + i, w - i, ud))
				return;
			prev2 = prev;
			prev = 'a';
			i = w;
			continue;
		}
		if (ch >= '0' && ch <= '9') { /* a number, suffix and all */
			while (i < e && (kp_inl_ident_char(s[i]) || s[i] == '.'))
				i++;
			prev2 = prev;
			prev = '0';
			continue;
		}
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
			prev2 = prev;
			prev = ch;
		}
		i++;
	}
}

int kp_inl_names(const char *s, size_t n, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < n;) {
		size_t j = kp_inl_skip_opaque(s, i, n);
		if (j != i) {
			i = j;
			continue;
		}
		if (!kp_inl_ident_start(s[i]) || (i && kp_inl_ident_char(s[i - 1]))) {
			i++;
			continue;
		}
		size_t e = i;
		while (e < n && kp_inl_ident_char(s[e]))
			e++;
		if (e - i == nl && !strncmp(s + i, name, nl))
			return 1;
		i = e;
	}
	return 0;
}

const char *kp_inl_one_line(kp_file *f, const char *text, size_t n)
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
	while (k && o[k - 1] == ' ')
		k--;
	o[k] = '\0';
	return o;
}

const char *kp_inl_callee_name(kp_file *f, const kp_node *callee)
{
	const char *t = kp_inl_one_line(f, f->src + callee->begin, callee->end - callee->begin);
	char *o = kp_arena_strdup(&f->arena, t);
	size_t k = 0;
	for (const char *p = t; *p; p++)
		if (!(*p == ' ' &&
		      ((p > t && (p[-1] == '<' || p[-1] == '(')) || p[1] == '>' || p[1] == ')')))
			o[k++] = *p;
	o[k] = '\0';
	return o;
}

/* A name or a number: an argument substituted as it is. */
static int simple_text(const char *t)
{
	if (!*t)
		return 0;
	for (const char *p = t; *p; p++)
		if (!kp_inl_ident_char(*p) && *p != '.')
			return 0;
	return 1;
}

/* ------------------------------------------------------------ types */

/* A type without top-level const or reference, a 1-D array decayed
 * ("const uint" -> "uint", "float[BM * BK]" -> "float *", "const int &" ->
 * "int"; "float (*)[16]" stays), arena-owned. */
static const char *value_type(kp_file *f, const char *t)
{
	if (!t)
		return "";
	while (!strncmp(t, "const ", 6))
		t += 6;
	size_t n = strlen(t);
	for (int again = 1; again;) {
		static const char *const tail[] = {" const",       " __restrict__", " __restrict",
						   "__restrict__", "__restrict",    "&"};
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
	    !strstr(t, "(&)") && !strstr(t, "(*)")) {
		size_t b = (size_t)(br - t);
		while (b && t[b - 1] == ' ')
			b--;
		return kp_arena_printf(&f->arena, "%.*s *", (int)b, t);
	}
	return kp_arena_printf(&f->arena, "%.*s", (int)n, t);
}

/* value_type() with an array of several bounds decayed too ("float[M][K]"
 * -> "float (*)[K]") and the spaces dropped: types compared as text. */
static const char *decayed(kp_file *f, const char *t)
{
	const char *v = value_type(f, t);
	const char *br = strchr(v, '[');
	if (br && !strstr(v, "(*)") && !strstr(v, "(&)")) {
		int depth = 0;
		const char *q = br;
		for (; *q; q++) {
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
			if (!depth)
				break;
		}
		if (*q == ']' && q[1] == '[')
			v = kp_arena_printf(&f->arena, "%.*s(*)%s", (int)(br - v), v, q + 1);
	}
	char *o = kp_arena_strdup(&f->arena, v);
	size_t k = 0;
	for (const char *p = v; *p; p++)
		if (*p != ' ')
			o[k++] = *p;
	o[k] = '\0';
	return o;
}

/* ------------------------------------------------------------ one call */

typedef struct {
	const char *name;
	int defs, undefs;
	size_t last; /* where the last of them is */
} macro_use;

typedef struct {
	kp_file *f;         /* the model of the call: edits are its offsets */
	kp_file *hf;        /* the model of the helper's text */
	const kp_kernel *h; /* the helper */
	const kp_kernel *k; /* the calling kernel */
	const kp_node *call;
	const char **sub;  /* per parameter, then per template parameter: the text */
	const char **bind; /* per parameter: the declaration binding it, or NULL */
	const char **locals;
	int nlocals;
	macro_use *mf, *mh; /* the #defines and #undefs of f's and hf's texts */
	int nmf, nmh;
	size_t incl; /* hf != f: where f's #include of hf ends (0: not found) */
	const char *why;
	kp_inline_site *site;
	/* an accessor method's object and operator (`a.`, `p->`): what the
	 * members its body names through the implicit `this` get in front */
	const char *self;
} inliner;

/* Every `#define NAME` and `#undef NAME` of s[0, n), counted per name. */
static macro_use *scan_macros(kp_file *f, const char *s, size_t n, int *nv)
{
	macro_use *v = NULL;
	int cap = 0;
	*nv = 0;
	for (size_t i = 0; i < n;) {
		size_t p = i;
		while (p < n && (s[p] == ' ' || s[p] == '\t'))
			p++;
		const char *nl = memchr(s + i, '\n', n - i);
		size_t next = nl ? (size_t)(nl - s) + 1 : n;
		if (p < n && s[p] == '#') {
			for (p++; p < n && (s[p] == ' ' || s[p] == '\t'); p++)
				;
			int def = p + 6 < n && !strncmp(s + p, "define", 6);
			int undef = p + 5 < n && !strncmp(s + p, "undef", 5);
			p += def ? 6 : undef ? 5 : 0;
			size_t w = p;
			while (w < n && (s[w] == ' ' || s[w] == '\t'))
				w++;
			size_t e = w;
			while (e < n && kp_inl_ident_char(s[e]))
				e++;
			if ((def || undef) && w > p && e > w) {
				int k = 0;
				while (k < *nv && (strlen(v[k].name) != e - w ||
						   strncmp(v[k].name, s + w, e - w)))
					k++;
				if (k == *nv) {
					if (k == cap) {
						cap = cap ? 2 * cap : 32;
						macro_use *nv2 = kp_arena_alloc(
							&f->arena, sizeof(*v) * (size_t)cap);
						if (k)
							memcpy(nv2, v, sizeof(*v) * (size_t)k);
						v = nv2;
					}
					v[k] = (macro_use){
						kp_arena_strndup(&f->arena, s + w, e - w), 0, 0, 0};
					(*nv)++;
				}
				v[k].defs += def;
				v[k].undefs += undef;
				v[k].last = i;
			}
		}
		i = next;
	}
	return v;
}

static const macro_use *macro_of(const macro_use *v, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(v[i].name) == len && !strncmp(v[i].name, name, len))
			return &v[i];
	return NULL;
}

/* Whether a macro `name` could mean at the call something else than in
 * the helper: for a helper of the file, the file #undefs it, #defines it
 * twice, or #defines it after the helper; for a helper of a header, the
 * header #undefs it or #defines it twice, or the main file #defines or
 * #undefs it after including the header (anywhere, when the #include is
 * not found in it). */
static int macro_hazard(const inliner *in, const char *name, size_t len)
{
	const macro_use *m = macro_of(in->mf, in->nmf, name, len);
	if (in->hf == in->f)
		return m && (m->undefs || m->defs > 1 || m->last > in->h->end);
	const macro_use *h = macro_of(in->mh, in->nmh, name, len);
	return (m && m->last >= in->incl) || (h && (h->undefs || h->defs > 1));
}

/* The end of the first line of f's text that #includes a file named as
 * the real path abs ends (`#include "tile_copy.cuh"`); 0 when none. */
static size_t include_end(const kp_file *f, const char *abs)
{
	const char *base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
	size_t bl = strlen(base);
	for (size_t i = 0; i < f->len;) {
		const char *nl = memchr(f->src + i, '\n', f->len - i);
		size_t next = nl ? (size_t)(nl - f->src) + 1 : f->len;
		size_t p = i;
		while (p < next && (f->src[p] == ' ' || f->src[p] == '\t'))
			p++;
		if (p < next && f->src[p] == '#') {
			for (p++; p < next && (f->src[p] == ' ' || f->src[p] == '\t'); p++)
				;
			if (p + 7 <= next && !strncmp(f->src + p, "include", 7)) {
				const char *q = memchr(f->src + p, '"', next - p);
				if (!q)
					q = memchr(f->src + p, '<', next - p);
				const char *qe = q ? memchr(q + 1, *q == '"' ? '"' : '>',
							    (size_t)(f->src + next - q - 1))
						   : NULL;
				if (qe && (size_t)(qe - q - 1) >= bl &&
				    !strncmp(qe - bl, base, bl) &&
				    (qe - bl == q + 1 || qe[-(long)bl - 1] == '/'))
					return next;
			}
		}
		i = next;
	}
	return 0;
}

static int declares_name(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	void **w = ud;
	if (n->kind == KP_N_VARDECL && n->name && !strcmp(n->name, w[0]))
		w[1] = n;
	return !w[1];
}

/* Whether kernel k of f declares `name`: a parameter, a template
 * parameter, a local, or a type of its own (`using`, `typedef`, `struct`). */
static int kernel_declares(kp_file *f, const kp_kernel *k, const char *name)
{
	for (int i = 0; i < k->nparams; i++)
		if (k->params[i] && !strcmp(k->params[i]->name, name))
			return 1;
	for (int i = 0; i < k->ntparams; i++)
		if (!strcmp(k->tparam_names[i], name))
			return 1;
	void *w[2] = {(void *)name, NULL};
	kp_node_walk(k->body, NULL, declares_name, w);
	if (w[1])
		return 1;
	if (!k->body || !k->body->in_main)
		return 0;
	const char *s = f->src + k->body->begin;
	size_t n = k->body->end - k->body->begin;
	return kp_inl_names(s, n, name) &&
	       (kp_inl_names(s, n, "typedef") || kp_inl_names(s, n, "using") ||
		kp_inl_names(s, n, "struct") || kp_inl_names(s, n, "class") ||
		kp_inl_names(s, n, "union") || kp_inl_names(s, n, "enum"));
}

static int param_index(const kp_kernel *h, const char *name, size_t len)
{
	for (int i = 0; i < h->nparams; i++)
		if (strlen(h->params[i]->name) == len && !strncmp(h->params[i]->name, name, len))
			return i;
	return -1;
}

static int tparam_index(const kp_kernel *h, const char *name, size_t len)
{
	for (int i = 0; i < h->ntparams; i++)
		if (strlen(h->tparam_names[i]) == len && !strncmp(h->tparam_names[i], name, len))
			return i;
	return -1;
}

static int is_local(const inliner *in, const char *name, size_t len)
{
	for (int i = 0; i < in->nlocals; i++)
		if (strlen(in->locals[i]) == len && !strncmp(in->locals[i], name, len))
			return 1;
	return 0;
}

/* Whether s + i, in the helper's text, is a member an accessor method's
 * body names through the implicit `this`. */
static int self_member(const inliner *in, const char *s, size_t i)
{
	if (!in->self || s != in->hf->src)
		return 0;
	for (int k = 0; k < in->h->nself; k++)
		if (in->h->self_members[k] == i)
			return 1;
	return 0;
}

/* each_ident() callback: a name of the body (or of a default template
 * argument) that could mean something else at the call. */
static int check_name(const char *name, size_t len, void *ud)
{
	inliner *in = ud;
	int p = param_index(in->h, name, len);
	if (tparam_index(in->h, name, len) >= 0 || (p >= 0 && !in->bind[p]) ||
	    self_member(in, in->hf->src, (size_t)(name - in->hf->src)))
		return 1; /* replaced, or the object's member */
	const char *nm = kp_arena_strndup(&in->f->arena, name, len);
	if (macro_hazard(in, name, len))
		in->why = kp_arena_printf(&in->f->arena,
					  "its body names '%s', which the file #defines or "
					  "#undefines again: the macro may mean something else at "
					  "the call",
					  nm);
	else if (p < 0 && !is_local(in, name, len) && kernel_declares(in->f, in->k, nm))
		in->why = kp_arena_printf(&in->f->arena,
					  "its body names '%s', which the calling kernel declares "
					  "too",
					  nm);
	return !in->why;
}

static int collect_locals(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	inliner *in = ud;
	if (n->kind == KP_N_VARDECL && n->name && *n->name) {
		const char **v =
			kp_arena_alloc(&in->f->arena, sizeof(char *) * (size_t)(in->nlocals + 1));
		if (in->nlocals)
			memcpy(v, in->locals, sizeof(char *) * (size_t)in->nlocals);
		v[in->nlocals++] = n->name;
		in->locals = v;
	}
	return 1;
}

/* What the body must not hold, and locals that would meet a substituted
 * name (kp_node_walk callback on the helper's body). */
static int local_names(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	inliner *in = ud;
	if (in->why)
		return 0;
	const kp_kernel *h = in->h;
	if (n->kind == KP_N_RETURN)
		in->why = "its body returns early";
	else if (n->kind == KP_N_CALL && n->sync != KP_SYNC_NONE)
		in->why = "its body has a barrier";
	else if (n->kind == KP_N_LAMBDA)
		in->why = "its body has a lambda";
	else if (n->kind == KP_N_SIZEOF && n->in_main) {
		const char *t = kp_node_text(in->hf, n);
		for (int i = 0; i < h->nparams && !in->why; i++)
			if (kp_inl_names(t, strlen(t), h->params[i]->name))
				in->why =
					kp_arena_printf(&in->f->arena,
							"its body takes the size of its parameter "
							"'%s'",
							h->params[i]->name);
	} else if (n->kind == KP_N_VARDECL && n->name) {
		for (int i = 0; i < h->nparams + h->ntparams && !in->why; i++)
			if (kp_inl_names(in->sub[i], strlen(in->sub[i]), n->name) ||
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
	else if (n->kind == KP_N_DECLREF && n->decl && n->decl->kind == KP_D_PARM &&
		 n->from_macro && (n->name_off < h->body->begin || n->name_off >= h->body->end))
		in->why = kp_arena_printf(&in->f->arena,
					  "its parameter '%s' is named inside a macro's definition",
					  n->name);
	return !in->why;
}

/* The namespace part of a qualified name ("a::b::f" -> "a::b", "f" -> ""). */
static const char *namespace_of(kp_file *f, const char *qualified)
{
	const char *last = NULL;
	for (const char *p = qualified; (p = strstr(p, "::")); p += 2)
		last = p;
	return last ? kp_arena_strndup(&f->arena, qualified, (size_t)(last - qualified)) : "";
}

/* Whether namespace `in` is `outer` or lies inside it. */
static int within(const char *in, const char *outer)
{
	size_t n = strlen(outer);
	return !n || (!strncmp(in, outer, n) && (!in[n] || !strncmp(in + n, "::", 2)));
}

/* Why names of helper h could mean something else in kernel k (their
 * namespaces), or NULL. */
static const char *namespace_hazard(kp_file *f, const kp_kernel *h, const kp_kernel *k)
{
	const char *kns = namespace_of(f, k->qualified), *hns = namespace_of(f, h->qualified);
	if (!within(hns, kns))
		return kp_arena_printf(&f->arena,
				       "the kernel is in namespace '%s' and the helper is not: a "
				       "name of its body may mean another declaration there",
				       kns);
	if (h->ns_type && !within(kns, h->ns_type))
		return kp_arena_printf(&f->arena,
				       "its body names a type of namespace '%s' without "
				       "qualification, which the kernel is not in",
				       h->ns_type);
	return NULL;
}

/* ------------------------------------------------------------ texts */

/* s[b, e) with, outside comments, strings and member names, each name of
 * a parameter of in->h (params set) and of a template parameter before
 * tp_upto replaced by its text (in->sub), arena-owned. */
static const char *subst_range(const inliner *in, const char *s, size_t b, size_t e, int tp_upto,
			       int params)
{
	kp_strbuf out = KP_STRBUF_INIT;
	char prev = 0, prev2 = 0;
	for (size_t i = b; i < e;) {
		size_t j = kp_inl_skip_opaque(s, i, e);
		if (j != i) {
			kp_strbuf_add(&out, s + i, j - i);
			i = j;
			continue;
		}
		char ch = s[i];
		if (kp_inl_ident_start(ch) && !(i > b && kp_inl_ident_char(s[i - 1]))) {
			size_t w = i;
			while (w < e && kp_inl_ident_char(s[w]))
				w++;
			int member = prev == '.' || (prev == '>' && prev2 == '-') ||
				     (prev == ':' && prev2 == ':');
			int p = params && !member ? param_index(in->h, s + i, w - i) : -1;
			int t = member ? -1 : tparam_index(in->h, s + i, w - i);
			if (!member && self_member(in, s, i)) {
				kp_strbuf_adds(&out, in->self);
				kp_strbuf_add(&out, s + i, w - i);
			} else if (p >= 0)
				kp_strbuf_adds(&out, in->sub[p]);
			else if (t >= 0 && t < tp_upto)
				kp_strbuf_adds(&out, in->sub[in->h->nparams + t]);
			else
				kp_strbuf_add(&out, s + i, w - i);
			prev2 = prev;
			prev = 'a';
			i = w;
			continue;
		}
		if (ch >= '0' && ch <= '9') {
			size_t w = i;
			while (w < e && (kp_inl_ident_char(s[w]) || s[w] == '.'))
				w++;
			kp_strbuf_add(&out, s + i, w - i);
			prev2 = prev;
			prev = '0';
			i = w;
			continue;
		}
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
			prev2 = prev;
			prev = ch;
		}
		kp_strbuf_addc(&out, ch);
		i++;
	}
	const char *r = kp_arena_strdup(&in->f->arena, kp_strbuf_str(&out));
	kp_strbuf_release(&out);
	return r;
}

/* A template argument's text as substituted: a type as it is, a value in
 * parentheses unless it is a name or a number. */
static const char *targ_text(const inliner *in, int j, const char *t)
{
	int type = j < 32 && (in->h->tparam_type >> j & 1u);
	return type || simple_text(t) ? t : kp_arena_printf(&in->f->arena, "(%s)", t);
}

/* The template arguments of the callee's spelling (`wt::load<BM, 4>`),
 * split at top-level commas into in->sub after the parameters, then the
 * defaults of those left out.  Sets in->why when they cannot be read. */
static void template_args(inliner *in, const char *callee)
{
	const kp_kernel *h = in->h;
	const char *lt = strchr(callee, '<');
	int n = 0, depth = 0;
	const char *start = lt ? lt + 1 : NULL;
	for (const char *p = start; p && *p; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']' || *p == '>') && depth)
			depth--;
		else if (depth == 0 && (*p == ',' || *p == '>')) {
			const char *t = kp_inl_one_line(in->f, start, (size_t)(p - start));
			if (n < h->ntparams)
				in->sub[h->nparams + n] = targ_text(in, n, *t == ' ' ? t + 1 : t);
			n++;
			start = p + 1;
			if (*p == '>') {
				start = p[1] ? NULL : start;
				break;
			}
		}
	}
	if ((lt && !start) || n > h->ntparams || (lt && depth)) {
		in->why = "the call does not spell its template arguments as kpipe reads them";
		return;
	}
	for (int j = n; j < h->ntparams && !in->why; j++) {
		const char *d = h->tparam_defaults ? h->tparam_defaults[j] : NULL;
		if (!d) {
			in->why = kp_arena_printf(&in->f->arena,
						  "the call leaves template argument '%s' to "
						  "deduction",
						  h->tparam_names[j]);
			break;
		}
		each_ident(d, 0, strlen(d), check_name, in);
		in->sub[h->nparams + j] = targ_text(in, j, subst_range(in, d, 0, strlen(d), j, 0));
	}
}

/* ------------------------------------------------------------ arguments */

/* An argument as written: implicit wrappers of one kid looked through. */
static const kp_node *arg_node(const kp_node *a)
{
	while (a && a->kind == KP_N_OTHER && a->nkids == 1 && a->kids[0]->begin == a->begin &&
	       a->kids[0]->end == a->end)
		a = a->kids[0];
	return a;
}

/* Whether the value of variable d cannot change while the inlined body
 * runs, which does not name it: a local or parameter of the kernel (not a
 * reference, not shared), a constant, an enumerator, a template
 * parameter.  A global or shared variable could be written by the body. */
static int stable(const kp_decl *d)
{
	if (d->kind == KP_D_ENUM || d->kind == KP_D_TPARAM || (d->is_const && !d->is_pointer))
		return 1;
	return (d->kind == KP_D_VAR || d->kind == KP_D_PARM) && !d->usr && !d->is_shared &&
	       !d->ty.is_ref;
}

/* Whether address or value expression n reads no memory and changes
 * nothing (addr: n is used as an address, `&n` or an array that decays). */
static int reads_nothing(const kp_file *f, const kp_node *n, int addr)
{
	if (!n)
		return 0;
	switch (n->kind) {
	case KP_N_DECLREF: return n->decl && (addr || n->decl->is_array || stable(n->decl));
	case KP_N_INTLIT:
	case KP_N_FLOATLIT:
	case KP_N_SIZEOF: return 1;
	case KP_N_PAREN:
	case KP_N_CAST: return n->nkids >= 1 && reads_nothing(f, n->kids[n->nkids - 1], addr);
	case KP_N_UNOP:
		if (!n->op || KP_OP_IS_INCDEC(n->opk) || (n->opk == KP_OP_DEREF && !addr))
			return 0;
		return n->nkids == 1 && reads_nothing(f, n->kids[0], n->opk == KP_OP_ADDR);
	case KP_N_BINOP:
		if (!n->op || n->opk == KP_OP_ASSIGN)
			return 0;
		return n->nkids == 2 && reads_nothing(f, n->kids[0], 0) &&
		       reads_nothing(f, n->kids[1], 0);
	case KP_N_SUBSCRIPT:
		return n->nkids == 2 && (addr || (n->type && strchr(n->type, '['))) &&
		       reads_nothing(f, n->kids[0], 1) && reads_nothing(f, n->kids[1], 0);
	case KP_N_MEMBER: {
		int comp;
		return kp_node_builtin(f, n, 0, &comp) != NULL;
	}
	case KP_N_CONDOP:
		for (int i = 0; i < n->nkids; i++)
			if (!reads_nothing(f, n->kids[i], i ? addr : 0))
				return 0;
		return n->nkids == 3;
	default: return 0;
	}
}

/* Whether node n itself (not its kids) changes something. */
static int changes(const kp_node *n)
{
	return n->kind == KP_N_ASSIGNOP || n->kind == KP_N_LAMBDA || n->kind == KP_N_ASM ||
	       (n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN) ||
	       (n->kind == KP_N_UNOP && n->op &&
		((n->opk == KP_OP_PRE_INC || n->opk == KP_OP_POST_INC) ||
		 (n->opk == KP_OP_PRE_DEC || n->opk == KP_OP_POST_DEC)));
}

/* The local variable of the kernel an argument lets the helper change:
 * `&x`, or x handed to a non-const reference; NULL when none. */
static int find_address_of_local(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	const kp_decl **w = ud;
	if (n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids == 1) {
		kp_node *r = kp_lvalue_root(n->kids[0]);
		if (r && r->decl && r->decl->kind == KP_D_VAR && !r->decl->usr &&
		    !r->decl->is_shared)
			*w = r->decl;
	}
	return !*w;
}

static const kp_decl *writable_local(const kp_decl *p, const kp_node *a)
{
	const kp_decl *w = NULL;
	kp_node_walk((kp_node *)a, NULL, find_address_of_local, &w);
	if (!w && p->type && strchr(p->type, '&') && strncmp(p->type, "const ", 6)) {
		kp_node *r = kp_lvalue_root((kp_node *)a);
		if (r && r->decl && r->decl->kind == KP_D_VAR && !r->decl->usr &&
		    !r->decl->is_shared)
			w = r->decl;
	}
	return w;
}

/* How argument i (node a, type text at) fits parameter p: 0 as it is, 1
 * through static_cast<*cast>, -1 not at all (in->why). */
static int arg_fit(inliner *in, const kp_kernel *h, const kp_node *call, int i, const char *t,
		   const char *at, const char **cast)
{
	const kp_decl *p = h->params[i];
	kp_arg_conv rel = call->arg_conv ? (kp_arg_conv)call->arg_conv[i] : KP_ARG_UNKNOWN;
	inliner hin = *in;
	hin.h = h;
	const char *pt = subst_range(&hin, p->type ? p->type : "", 0,
				     strlen(p->type ? p->type : ""), h->ntparams, 0);
	*cast = value_type(in->f, pt);
	if (rel == KP_ARG_SAME || rel == KP_ARG_QUAL || rel == KP_ARG_DECAY)
		return 0;
	if (rel == KP_ARG_ARITH)
		return 1;
	if (rel == KP_ARG_UNKNOWN) {
		const char *pd = decayed(in->f, pt), *ad = decayed(in->f, at);
		const char *pa = strstr(pd, "(*)["), *aa = strstr(ad, "(*)[");
		if (!strcmp(pd, ad))
			return 0;
		/* a pointer to an array takes only an array of its element type and
		 * inner bounds: the call compiles, so they are the same */
		if (pa && aa && pa - pd == aa - ad && !strncmp(pd, ad, (size_t)(pa - pd)))
			return 0;
		if (!strpbrk(pd, "*&[") && !strpbrk(ad, "*&[") && *pd && *ad)
			return 1;
	}
	in->why = kp_arena_printf(&in->f->arena,
				  "argument %d ('%s', %s) does not have the type of parameter '%s' "
				  "(%s)",
				  i + 1, t, at, p->name, p->type ? p->type : "?");
	return -1;
}

/* The declaration binding parameter p (never written) to `init` at the
 * inlined site, a const local of its type, or NULL when its type cannot be
 * spelled before a name. */
static const char *binding(inliner *in, const kp_decl *p, const char *init)
{
	const char *st = subst_range(in, p->type, 0, strlen(p->type), in->h->ntparams, 0);
	const char *t = kp_inl_one_line(in->f, st, strlen(st));
	size_t n = strlen(t);
	if (!n || strchr(t, '(') || strchr(t, '['))
		return NULL;
	kp_arena *a = &in->f->arena;
	if (t[n - 1] == '&')
		return kp_arena_printf(a, "%s%s = %s;", t, p->name, init);
	if (t[n - 1] == '*')
		return kp_arena_printf(a, "%sconst %s = %s;", t, p->name, init);
	if (!strncmp(t, "const ", 6))
		return kp_arena_printf(a, "%s %s = %s;", t, p->name, init);
	return kp_arena_printf(a, "const %s %s = %s;", t, p->name, init);
}

/* ------------------------------------------------------------ expression helpers */

/* An implicit copy or conversion of a class value (`float4` returned or
 * passed), which libclang shows as a constructor call around its operand,
 * with the operand's extent. */
static int implicit_construct(const kp_node *n)
{
	return n->kind == KP_N_CALL && n->nkids == 1 && n->kids[0]->begin == n->begin &&
	       n->kids[0]->end == n->end && (!n->decl || n->decl->kind != KP_D_FUNC);
}

/* E of a function whose body is `{ return E; }`, or NULL. */
static const kp_node *expr_body(const kp_kernel *x)
{
	if (!x || !x->body || x->body->nkids != 1 || x->body->kids[0]->kind != KP_N_RETURN ||
	    x->body->kids[0]->nkids != 1)
		return NULL;
	const kp_node *e = x->body->kids[0]->kids[0];
	while (implicit_construct(e))
		e = e->kids[0];
	return e;
}

static const char *expand_calls(inliner *in, const kp_node *a, int depth);

typedef struct {
	const kp_kernel *x;
	int bad;
} expr_walk;

/* What an expression helper's E must not hold: a change, a call, a
 * parameter named in a macro's definition, a name of a namespace. */
static int expr_unfit(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	expr_walk *w = ud;
	if (changes(n) || (n->kind == KP_N_CALL && !implicit_construct(n)) ||
	    n->kind == KP_N_SIZEOF ||
	    (n->kind == KP_N_DECLREF && n->decl && n->decl->kind == KP_D_PARM && n->from_macro) ||
	    (n->kind == KP_N_DECLREF && n->decl && n->decl->in_namespace &&
	     n->decl->kind != KP_D_PARM && n->decl->kind != KP_D_TPARAM))
		w->bad = 1;
	return !w->bad;
}

/* The function a call c calls that kpipe can expand at the call: a
 * helper of the file (kp_decl.fn) or an accessor method
 * (kp_decl.accessor); NULL for any other. */
static const kp_kernel *value_fn(const kp_node *c)
{
	const kp_decl *d = c && c->kind == KP_N_CALL ? c->decl : NULL;
	if (!d || d->kind != KP_D_FUNC)
		return NULL;
	return d->fn ? d->fn : d->accessor;
}

/* For the call c of accessor method x on an object named by a variable
 * (`a.at(r, c)`, `p->at(r, c)`): what the members its body names through
 * the implicit `this` get in front (`a.`, `p->`); NULL with in->why where
 * the object is anything else or the body cannot be spelled at the call. */
static const char *self_text(inliner *in, const kp_node *c, const kp_kernel *x)
{
	kp_arena *ar = &in->f->arena;
	const char *name = c->name ? c->name : "?";
	int a0 = 0;
	const kp_node *base = kp_call_object(c, &a0);
	while (base && base->kind != KP_N_DECLREF && base->nkids == 1 &&
	       base->kids[0]->begin == base->begin && base->kids[0]->end == base->end)
		base = base->kids[0];
	if (x->names_this)
		in->why = kp_arena_printf(ar, "the method '%s' names 'this'", name);
	else if (x->nonpublic)
		in->why = kp_arena_printf(ar,
					  "the method '%s' reads '%s', a member that is not "
					  "public: its expression cannot be spelled in the kernel",
					  name, x->nonpublic);
	else if (!base || base->kind != KP_N_DECLREF || !base->decl ||
		 (base->decl->kind != KP_D_VAR && base->decl->kind != KP_D_PARM) ||
		 !base->in_main || base->from_macro || base->end > in->f->len)
		in->why = kp_arena_printf(ar,
					  "the method '%s' is called on an object that is not a "
					  "variable's name",
					  name);
	if (in->why)
		return NULL;
	/* how the call reaches the members: `p->` through a pointer (clang's
	 * type of the object's variable), else `a.`; an operator is called on
	 * the object itself */
	if (a0 == 2 && base->decl->is_pointer) {
		in->why = kp_arena_printf(ar, "the operator '%s' is called on a pointer", name);
		return NULL;
	}
	const char *op = base->decl->is_pointer ? "->" : ".";
	return kp_arena_printf(ar, "%s%s", kp_range_text(in->f, base->begin, base->end), op);
}

/* The text replacing a call c of an expression helper in an argument:
 * `(E)` with E's parameters replaced by c's arguments, converted to the
 * return type where E's type is another; NULL with in->why. */
static const char *expr_call(inliner *in, const kp_node *c, int depth)
{
	const kp_kernel *x = value_fn(c);
	const kp_node *e = expr_body(x);
	const char *name = c->name ? c->name : "?";
	kp_arena *ar = &in->f->arena;
	int a0 = 1; /* the first argument's child: 2 for an object's operator */
	kp_call_object(c, &a0);
	if (!e || x->ntparams || x->tparam_unusual || c->nkids - a0 != x->nparams || depth > 4) {
		in->why = kp_arena_printf(ar,
					  "an argument calls '%s', which is not a function of one "
					  "return statement without template parameters",
					  name);
		return NULL;
	}
	const char *self = NULL;
	if (x == c->decl->accessor && !(self = self_text(in, c, x)))
		return NULL;
	inliner xin = *in;
	xin.self = self;
	xin.h = x;
	xin.hf = x->home ? x->home : in->f;
	xin.bind = kp_arena_alloc(ar, sizeof(char *) * (size_t)(x->nparams + 1));
	xin.sub = kp_arena_alloc(ar, sizeof(char *) * (size_t)(x->nparams + 1));
	xin.locals = NULL;
	xin.nlocals = 0;
	xin.mh = xin.hf == in->hf ? in->mh : NULL;
	xin.nmh = xin.hf == in->hf ? in->nmh : 0;
	if (xin.hf != in->f && xin.hf != in->hf)
		xin.mh = scan_macros(in->f, xin.hf->src, xin.hf->len, &xin.nmh);
	expr_walk w = {x, 0};
	kp_node_walk((kp_node *)e, NULL, expr_unfit, &w);
	const char *why = !e->in_main || !x->body->in_main ? "its body is not spelled in a file"
			  : w.bad ? "its expression calls, changes or names something kpipe does "
				    "not substitute"
				  : namespace_hazard(in->f, x, in->k);
	for (int j = 0; j < x->nparams && !why && !in->why; j++) {
		const kp_decl *p = x->params[j];
		const kp_node *a = arg_node(c->kids[j + a0]);
		const char *t = kp_assigned_in(x, p) ? NULL : expand_calls(in, a, depth + 1);
		if (!t) {
			why = in->why ? NULL : "it changes its parameter";
			break;
		}
		const char *cast = NULL;
		const char *at = a->type ? a->type : "";
		int fit = arg_fit(in, x, c, j, t, at, &cast);
		if (fit < 0)
			break;
		xin.sub[j] = fit              ? kp_arena_printf(ar, "static_cast<%s>(%s)", cast, t)
			     : simple_text(t) ? t
					      : kp_arena_printf(ar, "(%s)", t);
	}
	if (why && !in->why)
		in->why = kp_arena_printf(
			ar, "an argument calls '%s', which kpipe does not inline: %s", name, why);
	if (in->why)
		return NULL;
	each_ident(xin.hf->src, e->begin, e->end, check_name, &xin);
	if (xin.why) {
		in->why = xin.why;
		return NULL;
	}
	const char *body = subst_range(&xin, xin.hf->src, e->begin, e->end, 0, 1);
	const char *rt = c->decl->type;
	const char *paren = rt ? strstr(rt, " (") : NULL;
	if (!paren && rt && strchr(rt, '(') && strchr(rt, '(') > rt && strchr(rt, '(')[-1] == '&')
		paren = strchr(rt, '('); /* `const float &(int) const` */
	const char *ret = paren ? kp_arena_strndup(ar, rt, (size_t)(paren - rt)) : NULL;
	const char *et = e->type ? e->type : "";
	if (!strncmp(et, "const ", 6))
		et = et + 6;
	if (in->site->nex < (int)KP_ARRAY_LEN(in->site->ex))
		in->site->ex[in->site->nex++] = x;
	else {
		in->why = "its arguments call too many expression helpers";
		return NULL;
	}
	size_t rl = ret ? strlen(ret) : 0;
	if (rl && ret[rl - 1] == '&' && (rl < 2 || ret[rl - 2] != '&')) {
		/* a reference to the object E designates: E itself, when E's
		 * type is the referenced type */
		char *rv = kp_arena_strndup(ar, ret, rl - 1);
		size_t vl = strlen(rv);
		while (vl && rv[vl - 1] == ' ')
			rv[--vl] = '\0';
		const char *v = !strncmp(rv, "const ", 6) ? rv + 6 : rv;
		return strcmp(v, et) ? NULL : kp_arena_printf(ar, "(%s)", body);
	}
	if (!ret || strcmp(ret, et))
		return ret && *ret ? kp_arena_printf(ar, "static_cast<%s>(%s)", ret, body) : NULL;
	return kp_arena_printf(ar, "(%s)", body);
}

typedef struct {
	inliner *in;
	const kp_node *root;
	kp_edits ed;
	int depth;
} expand_walk;

static int expand_visit(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	expand_walk *w = ud;
	inliner *in = w->in;
	if (in->why)
		return 0;
	if (n->kind == KP_N_CALL && !implicit_construct(n)) {
		if (!n->in_main || n->from_macro || n->begin < w->root->begin ||
		    n->end > w->root->end) {
			in->why = "an argument calls a function inside a macro";
			return 0;
		}
		const char *r = expr_call(in, n, w->depth);
		if (r)
			kp_edits_add(&w->ed, n->begin - w->root->begin, n->end - n->begin, r);
		else if (!in->why)
			in->why = "an argument calls a function whose result kpipe cannot spell";
		return 0;
	}
	if (changes(n))
		in->why = "an argument changes a variable";
	return !in->why;
}

/* The text of argument a with each call of an expression helper replaced
 * by its expression; NULL with in->why when a call or a change stays. */
static const char *expand_calls(inliner *in, const kp_node *a, int depth)
{
	if (!a || !a->in_main || a->end > in->f->len) {
		in->why = "an argument is not spelled in the file";
		return NULL;
	}
	expand_walk w = {in, a, {0}, depth};
	kp_node_walk((kp_node *)a, NULL, expand_visit, &w);
	const char *r = NULL;
	char *out = NULL;
	size_t len = 0;
	if (!in->why &&
	    !kp_edits_apply(&w.ed, in->f->src + a->begin, a->end - a->begin, &out, &len))
		r = kp_inl_one_line(in->f, out, len);
	free(out);
	kp_edits_release(&w.ed);
	return in->why ? NULL : r;
}

/* ------------------------------------------------------------ binding */

/* Argument i of the call for parameter p: its text in in->sub[i], or a
 * binding in in->bind[i] (sub then the parameter's own name); in->why
 * when neither is exact. */
static void bind_arg(inliner *in, int i)
{
	const kp_decl *p = in->h->params[i];
	const kp_node *a = arg_node(in->call->kids[i + 1]);
	kp_arena *ar = &in->f->arena;
	if (!a || !a->in_main || a->end > in->f->len) {
		in->why = kp_arena_printf(ar,
					  "argument %d is not spelled at the call (a default "
					  "argument, or a macro's)",
					  i + 1);
		return;
	}
	if (a->begin < in->call->begin || a->end > in->call->end) {
		in->why = kp_arena_printf(ar, "the call leaves argument %d to its default", i + 1);
		return;
	}
	const char *t = kp_inl_one_line(in->f, in->f->src + a->begin, a->end - a->begin);
	const char *at = a->type ? a->type : "";
	if (a->kind == KP_N_DECLREF && a->decl && a->decl->type)
		at = a->decl->type;
	int written = kp_assigned_in(in->h, p);
	const kp_node *root = kp_lvalue_root((kp_node *)a);
	int tile = root && root->decl && root->decl->is_shared && root->decl->is_array;
	const kp_decl *w = writable_local(p, a);
	const char *cast = NULL;
	if (w) {
		in->why =
			kp_arena_printf(ar,
					"argument %d ('%s') lets the helper change '%s', which the "
					"inlined body could then read changed",
					i + 1, t, w->name);
		return;
	}
	if (!*p->name) { /* unnamed: the body cannot use it */
		in->sub[i] = "";
		if (!reads_nothing(in->f, a, 0) && !expand_calls(in, a, 0) && !in->why)
			in->why = "an unnamed parameter is handed an expression with effects";
		return;
	}
	if (written) { /* a local copy would be exact, but kpipe does not pipeline a
			* load phase that changes a local of its own */
		in->why = kp_arena_printf(ar, "the body changes its parameter '%s'", p->name);
		return;
	}
	/* a name of the kernel the body cannot change, a builtin (threadIdx.x)
	 * or a literal is substituted; a global or shared variable is bound
	 * like an expression */
	int comp;
	int name = simple_text(t) && !a->from_macro &&
		   (a->kind == KP_N_INTLIT || a->kind == KP_N_FLOATLIT ||
		    (a->kind == KP_N_MEMBER && kp_node_builtin(in->f, a, 0, &comp)) ||
		    (a->kind == KP_N_DECLREF && a->decl && (a->decl->is_array || stable(a->decl))));
	if (name || tile) {
		if (!simple_text(t) && !reads_nothing(in->f, a, 0)) {
			in->why = kp_arena_printf(ar,
						  "argument %d ('%s') is a tile address that reads "
						  "memory or changes something",
						  i + 1, t);
			return;
		}
		int fit = arg_fit(in, in->h, in->call, i, t, at, &cast);
		if (fit > 0 && tile)
			fit = -1;
		if (fit == 0)
			in->sub[i] = simple_text(t) && !a->from_macro
					     ? t
					     : kp_arena_printf(ar, "(%s)", t);
		else if (fit > 0)
			in->sub[i] = kp_arena_printf(ar, "static_cast<%s>(%s)", cast, t);
		else if (!in->why)
			in->why = kp_arena_printf(ar,
						  "argument %d ('%s') does not fit parameter '%s'",
						  i + 1, t, p->name);
		return;
	}
	const char *init = expand_calls(in, a, 0);
	if (!init) {
		in->why = kp_arena_printf(ar, "argument %d ('%s') cannot be bound to a local: %s",
					  i + 1, t, in->why ? in->why : "?");
		return;
	}
	in->bind[i] = binding(in, p, init);
	in->sub[i] = p->name;
	if (!in->bind[i])
		in->why = kp_arena_printf(
			ar,
			"argument %d ('%s') is an expression and parameter '%s' (%s) "
			"cannot be declared as a local",
			i + 1, t, p->name, p->type);
}

/* The text each parameter becomes (in->sub, in->bind), or in->why. */
static void bind_args(inliner *in)
{
	const kp_kernel *h = in->h;
	const kp_node *callee = kp_node_strip(in->call->kids[0]);
	if (!callee || callee->kind != KP_N_DECLREF || in->call->nkids - 1 != h->nparams) {
		in->why = "the call does not pass every parameter by position";
		return;
	}
	if (h->tparam_unusual) {
		in->why = "it has a template template parameter or a parameter pack";
		return;
	}
	template_args(in, kp_node_text(in->f, callee));
	for (int i = 0; i < h->nparams && !in->why; i++)
		bind_arg(in, i);
	/* a bound local must not capture a name of the call's texts */
	for (int i = 0; i < h->nparams && !in->why; i++)
		for (int j = 0; in->bind[i] && j < h->nparams + h->ntparams && !in->why; j++) {
			const char *o = j < h->nparams && in->bind[j] ? in->bind[j] : in->sub[j];
			if (j < h->nparams && in->bind[j])
				o = strchr(o, '=') ? strchr(o, '=') : o;
			if (j != i && kp_inl_names(o, strlen(o), h->params[i]->name))
				in->why = kp_arena_printf(&in->f->arena,
							  "its parameter '%s' is bound to a local, "
							  "and the call's arguments name '%s' too",
							  h->params[i]->name, h->params[i]->name);
			else if (j == i && kp_inl_names(o, strlen(o), h->params[i]->name))
				in->why = kp_arena_printf(&in->f->arena,
							  "its parameter '%s' would be bound to an "
							  "expression naming '%s'",
							  h->params[i]->name, h->params[i]->name);
		}
}

/* The body's text with the substitutions, re-indented to `indent`, after
 * the bindings, in braces when `braces`. */
static const char *body_text(inliner *in, const char *indent, int braces)
{
	kp_file *hf = in->hf;
	const kp_node *b = in->h->body;
	size_t s = b->begin + 1, e = b->end - 1;
	while (s < e && strchr(" \t\n\r", hf->src[s]))
		s++;
	while (e > s && strchr(" \t\n\r", hf->src[e - 1]))
		e--;
	size_t ls = s; /* the indentation of the body's first line */
	while (ls > 0 && hf->src[ls - 1] != '\n')
		ls--;
	size_t bind = s - ls;
	for (size_t i = ls; i < s; i++)
		if (hf->src[i] != ' ' && hf->src[i] != '\t')
			bind = 0; /* the body begins on the line of its `{` */
	const char *t = subst_range(in, hf->src, s, e, in->h->ntparams, 1);
	/* one level in: the helper's own indentation of its body, or a tab
	 * (two spaces where the call is indented with spaces) */
	const char *inner = !braces          ? ""
			    : bind           ? kp_arena_strndup(&in->f->arena, hf->src + ls, bind)
			    : *indent == ' ' ? "  "
					     : "\t";
	kp_strbuf out = KP_STRBUF_INIT;
	if (braces)
		kp_strbuf_addf(&out, "{\n%s%s", indent, inner);
	for (int i = 0; i < in->h->nparams; i++)
		if (in->bind[i])
			kp_strbuf_addf(&out, "%s\n%s%s", in->bind[i], indent, inner);
	for (const char *p = t; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		size_t k = 0;
		while (p != t && k < bind && k < n && (p[k] == ' ' || p[k] == '\t'))
			k++;
		if (p != t && n > k && p[k] != '\r')
			kp_strbuf_addf(&out, "%s%s", indent, inner);
		kp_strbuf_add(&out, p + k, n - k);
		if (!nl)
			break;
		kp_strbuf_addc(&out, '\n');
		p = nl + 1;
	}
	if (braces)
		kp_strbuf_addf(&out, "\n%s}", indent);
	const char *r = kp_arena_strdup(&in->f->arena, kp_strbuf_str(&out));
	kp_strbuf_release(&out);
	return r;
}

static int top_decl(const kp_node *n)
{
	for (int i = 0; n && i < n->nkids; i++)
		if (n->kids[i]->kind == KP_N_DECLSTMT)
			return 1;
	return 0;
}

/* ------------------------------------------------------------ the call */

/* Whether s[0, n) has a #define, #undef or #include line. */
static int defines_macros(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i && s[i - 1] != '\n')
			continue;
		size_t p = i;
		while (p < n && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p >= n || s[p] != '#')
			continue;
		for (p++; p < n && (s[p] == ' ' || s[p] == '\t'); p++)
			;
		if ((p + 6 <= n && !strncmp(s + p, "define", 6)) ||
		    (p + 5 <= n && !strncmp(s + p, "undef", 5)) ||
		    (p + 7 <= n && !strncmp(s + p, "include", 7)))
			return 1;
	}
	return 0;
}

/* The checks of the helper as a whole and of its body. */
static void check_body(inliner *in)
{
	const kp_kernel *h = in->h;
	const char *ns = namespace_hazard(in->f, h, in->k);
	if (ns) {
		in->why = ns;
		return;
	}
	kp_node_walk(h->body, NULL, collect_locals, in);
	bind_args(in);
	if (!in->why &&
	    kp_inl_names(in->hf->src + h->body->begin, h->body->end - h->body->begin, "decltype"))
		in->why = "its body uses decltype";
	if (!in->why && defines_macros(in->hf->src + h->body->begin, h->body->end - h->body->begin))
		in->why = "its body #defines, #undefs or #includes something, which would hold "
			  "in the rest of the file";
	if (!in->why)
		kp_node_walk(h->body, NULL, local_names, in);
	if (!in->why)
		each_ident(in->hf->src, h->body->begin, h->body->end, check_name, in);
}

/* The #defines and #undefs of the call's text and, for a helper of a
 * header, of the header's and where the call's text includes it: what
 * macro_hazard() weighs. */
static void scan_texts(inliner *in)
{
	in->mf = scan_macros(in->f, in->f->src, in->f->len, &in->nmf);
	if (in->hf != in->f) {
		in->mh = scan_macros(in->f, in->hf->src, in->hf->len, &in->nmh);
		in->incl = include_end(in->f, in->hf->abs_path ? in->hf->abs_path : in->hf->path);
	}
}

void kp_inline_call(kp_file *f, const kp_kernel *k, const kp_node *call, kp_edits *ed,
		    int no_comment, kp_inline_site *site, const char **why)
{
	kp_kernel *h = call->decl->fn;
	kp_file *hf = h->home ? h->home : f;
	memset(site, 0, sizeof(*site));
	inliner in = {f,    hf,   h, k, call, NULL, NULL, NULL, 0,
		      NULL, NULL, 0, 0, 0,    NULL, site, NULL};
	if (!h->body || !h->body->in_main || h->body->end > hf->len || !call->in_main ||
	    call->from_macro) {
		*why = "its body or the call is not spelled in a file";
		return;
	}
	if (strncmp(call->decl->type ? call->decl->type : "", "void (", 6)) {
		*why = "it returns a value";
		return;
	}
	size_t nsub = (size_t)(h->nparams + h->ntparams + 1);
	in.sub = kp_arena_alloc(&f->arena, sizeof(char *) * nsub);
	in.bind = kp_arena_alloc(&f->arena, sizeof(char *) * nsub);
	for (size_t i = 0; i < nsub; i++)
		in.sub[i] = "";
	scan_texts(&in);
	check_body(&in);
	if (in.why) {
		*why = in.why;
		return;
	}
	size_t semi = call->end;
	while (semi < f->len && strchr(" \t\r\n", f->src[semi]))
		semi++;
	size_t ls = call->begin;
	while (ls > 0 && (f->src[ls - 1] == ' ' || f->src[ls - 1] == '\t'))
		ls--;
	if (semi >= f->len || f->src[semi] != ';' || (ls > 0 && f->src[ls - 1] != '\n')) {
		*why = "the call is not a statement on lines of its own";
		return;
	}
	int braces = top_decl(h->body);
	for (int i = 0; i < h->nparams; i++)
		braces |= in.bind[i] != NULL;
	const char *indent = kp_range_text(f, (unsigned)ls, call->begin);
	const char *body = body_text(&in, indent, braces);
	const char *text =
		no_comment ? body
			   : kp_arena_printf(&f->arena,
					     "/* kpipe: %s inlined here, so that its copies are "
					     "pipelined with the loop */\n%s%s",
					     kp_inl_callee_name(f, call->kids[0]), indent, body);
	kp_edits_add(ed, call->begin, (unsigned)(semi + 1 - call->begin), text);
	site->edit = ed->n - 1;
	site->h = h;
	site->call = call;
}

int kp_inline_value_fn(const kp_node *call) { return expr_body(value_fn(call)) != NULL; }

void kp_inline_value_call(kp_file *f, const kp_kernel *k, const kp_node *call, kp_edits *ed,
			  kp_inline_site *site, const char **why)
{
	memset(site, 0, sizeof(*site));
	if (!kp_inline_value_fn(call)) {
		*why = "it is not a function of one return statement kpipe has the body of";
		return;
	}
	if (!call->in_main || call->from_macro || call->end > f->len) {
		*why = "the call is not spelled in the file";
		return;
	}
	const kp_kernel *x = value_fn(call);
	kp_file *hf = x->home ? x->home : f;
	inliner in = {f,    hf,   x, k, call, NULL, NULL, NULL, 0,
		      NULL, NULL, 0, 0, 0,    NULL, site, NULL};
	scan_texts(&in);
	const char *t = expr_call(&in, call, 0);
	if (!t) {
		*why = in.why ? in.why : "kpipe cannot spell its result at the call";
		return;
	}
	kp_edits_add(ed, call->begin, call->end - call->begin, t);
	site->edit = ed->n - 1;
	site->h = x;
	site->call = call;
}

/* ------------------------------------------------------------ the trial */

typedef struct {
	const char **name, **usr; /* usr NULL: a local */
	int n;
	const kp_kernel *h; /* whose locals count, when collecting a helper's names */
	kp_file *ar;
} name_uses;

static void use_add(name_uses *u, const char *name, const char *usr)
{
	for (int i = 0; i < u->n; i++)
		if (!strcmp(u->name[i], name) &&
		    ((!usr && !u->usr[i]) || (usr && u->usr[i] && !strcmp(usr, u->usr[i]))))
			return;
	const char **nn = kp_arena_alloc(&u->ar->arena, sizeof(char *) * (size_t)(u->n + 1));
	const char **nu = kp_arena_alloc(&u->ar->arena, sizeof(char *) * (size_t)(u->n + 1));
	if (u->n) {
		memcpy(nn, u->name, sizeof(char *) * (size_t)u->n);
		memcpy(nu, u->usr, sizeof(char *) * (size_t)u->n);
	}
	nn[u->n] = name;
	nu[u->n++] = usr;
	u->name = nn;
	u->usr = nu;
}

/* The names of a helper's body (globals by USR, its own locals) or of a
 * call's arguments (every declaration: a local by name). */
static int collect_uses(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	name_uses *u = ud;
	if ((n->kind != KP_N_DECLREF && n->kind != KP_N_CALL) || !n->name || !*n->name || !n->decl)
		return 1;
	const kp_decl *d = n->decl;
	if (d->usr)
		use_add(u, n->name, d->usr);
	else if (!u->h || (d->kind == KP_D_VAR && d->in_main && d->begin >= u->h->begin &&
			   d->end <= u->h->end))
		use_add(u, n->name, NULL);
	return 1;
}

static int uses_match(const name_uses *u, const char *name, const char *usr, int *named)
{
	for (int i = 0; i < u->n; i++) {
		if (strcmp(u->name[i], name))
			continue;
		*named = 1;
		if ((!usr && !u->usr[i]) || (usr && u->usr[i] && !strcmp(usr, u->usr[i])))
			return 1;
	}
	return 0;
}

typedef struct {
	const kp_inline_site *sites;
	int nsites;
	name_uses *helper, *args; /* per site */
	const kp_edits *ed;
	const char *why;
	kp_file *f;
} trial_walk;

static int check_trial(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	trial_walk *w = ud;
	if (w->why)
		return 0;
	if ((n->kind != KP_N_DECLREF && n->kind != KP_N_CALL) || !n->in_main || !n->name ||
	    !*n->name)
		return 1;
	size_t src;
	int e = kp_edits_origin(w->ed, n->begin, &src);
	for (int s = 0; s < w->nsites && e >= 0; s++) {
		if (w->sites[s].edit != e)
			continue;
		const char *usr = n->decl ? n->decl->usr : NULL;
		int named = 0;
		int ok = uses_match(&w->helper[s], n->name, usr, &named);
		if (!named || ok || uses_match(&w->args[s], n->name, usr, &named))
			break;
		w->why = kp_arena_printf(&w->f->arena,
					 "in the inlined copy of '%s', '%s' would mean another "
					 "declaration than in the helper",
					 w->sites[s].h->name, n->name);
	}
	return !w->why;
}

const char *kp_inline_same_names(kp_file *f, const kp_inline_site *sites, int nsites,
				 const kp_edits *ed, kp_file *g, const kp_kernel *gk)
{
	if (!nsites)
		return NULL;
	name_uses *hu = kp_arena_alloc(&f->arena, sizeof(name_uses) * (size_t)nsites);
	name_uses *au = kp_arena_alloc(&f->arena, sizeof(name_uses) * (size_t)nsites);
	for (int s = 0; s < nsites; s++) {
		hu[s] = (name_uses){NULL, NULL, 0, sites[s].h, f};
		kp_node_walk(sites[s].h->body, NULL, collect_uses, &hu[s]);
		for (int x = 0; x < sites[s].nex; x++) {
			hu[s].h = sites[s].ex[x];
			kp_node_walk(sites[s].ex[x]->body, NULL, collect_uses, &hu[s]);
		}
		au[s] = (name_uses){NULL, NULL, 0, NULL, f};
		for (int i = 1; i < sites[s].call->nkids; i++)
			kp_node_walk(sites[s].call->kids[i], NULL, collect_uses, &au[s]);
	}
	trial_walk w = {sites, nsites, hu, au, ed, NULL, g};
	kp_node_walk(gk->body, NULL, check_trial, &w);
	return w.why ? kp_arena_strdup(&f->arena, w.why) : NULL;
}
