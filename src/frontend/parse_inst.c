/*
 * parse_inst.c - the instantiations of kernel templates (kp_kernel.inst_*):
 * those libclang shows as specialisations (each argument's value, or its
 * type with size, alignment and trivial copy), explicit instantiations
 * found in the text (their arguments resolved through #define and a
 * table of builtin types), and their order, which does not depend on
 * where they appear in the file.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include <stdlib.h>
#include <string.h>

/* Appends an instantiation unless one with the same argument text is
 * there already. */
static void push_inst(kp_arena *a, kp_kernel *k, const char *args,
		      const long long vals[KP_MAX_TARGS], const kp_targ targs[KP_MAX_TARGS])
{
	for (int i = 0; i < k->ninst; i++)
		if (!strcmp(k->inst_args[i], args))
			return;
	const char **na = kp_arena_alloc(a, sizeof(char *) * (size_t)(k->ninst + 1));
	long long(*nv)[KP_MAX_TARGS] = kp_arena_alloc(a, sizeof(*nv) * (size_t)(k->ninst + 1));
	kp_targ(*nt)[KP_MAX_TARGS] = kp_arena_alloc(a, sizeof(*nt) * (size_t)(k->ninst + 1));
	for (int i = 0; i < k->ninst; i++) {
		na[i] = k->inst_args[i];
		memcpy(nv[i], k->inst_values[i], sizeof(nv[i]));
		memcpy(nt[i], k->inst_targs[i], sizeof(nt[i]));
	}
	na[k->ninst] = kp_arena_strdup(a, args);
	memcpy(nv[k->ninst], vals, sizeof(nv[k->ninst]));
	memcpy(nt[k->ninst], targs, sizeof(nt[k->ninst]));
	k->inst_args = na;
	k->inst_values = nv;
	k->inst_targs = nt;
	k->ninst++;
}

/* The name of the nth function handed to a specialisation as a template
 * argument (`run<tile_mm>`: "tile_mm"), from its USR, where such an
 * argument is written as the function's own USR (`c:@F@run<#@F@tile_mm#
 * ...>`); NULL when there is none (heap string).  Display names and type
 * spellings leave such arguments out. */
static char *function_template_arg(CXCursor spec, int nth)
{
	CXString us = clang_getCursorUSR(spec);
	const char *u = clang_getCString(us);
	const char *p = u ? strchr(u, '<') : NULL;
	char *out = NULL;
	for (int n = 0; p && (p = strstr(p, "@F@")) != NULL; n++) {
		p += 3;
		size_t len = strcspn(p, "#<>@");
		if (n == nth && len) {
			out = kp_xstrndup(p, len);
			break;
		}
	}
	clang_disposeString(us);
	return out;
}

/* An instantiation from a specialisation's cursor: libclang gives each
 * argument's kind, a value's value and a type's type (whose size it
 * knows: the specialisation is concrete). */
static void add_inst(pctx *c, kp_kernel *k, CXCursor spec)
{
	int na = clang_Cursor_getNumTemplateArguments(spec);
	if (na <= 0)
		return;
	kp_strbuf sb = KP_STRBUF_INIT;
	long long vals[KP_MAX_TARGS] = {0};
	kp_targ targs[KP_MAX_TARGS];
	for (int i = 0; i < KP_MAX_TARGS; i++)
		targs[i] = (kp_targ){NULL, -1, 0, -1, -1};
	int ndecl = 0; /* Declaration arguments so far */
	for (int i = 0; i < na; i++) {
		enum CXTemplateArgumentKind ak =
			clang_Cursor_getTemplateArgumentKind(spec, (unsigned)i);
		if (i)
			kp_strbuf_adds(&sb, ", ");
		if (ak == CXTemplateArgumentKind_Integral) {
			/* a bool argument's value is its one bit, sign-extended (true
			 * is -1): read it unsigned, print it as written */
			int is_bool = i < KP_MAX_TARGS && (k->tparam_bool >> i & 1u);
			long long v =
				is_bool ? clang_Cursor_getTemplateArgumentUnsignedValue(
						  spec, (unsigned)i) != 0
					: clang_Cursor_getTemplateArgumentValue(spec, (unsigned)i);
			if (i < KP_MAX_TARGS) {
				vals[i] = v;
				targs[i].known = 1;
			}
			if (is_bool)
				kp_strbuf_adds(&sb, v ? "true" : "false");
			else
				kp_strbuf_addf(&sb, "%lld", v);
		} else if (ak == CXTemplateArgumentKind_Declaration) {
			/* a function (`run<tile_mm>`): no type to spell */
			char *arg = function_template_arg(spec, ndecl++);
			kp_strbuf_adds(&sb, arg ? arg : "?");
			free(arg);
		} else {
			CXType t = clang_Cursor_getTemplateArgumentType(spec, (unsigned)i);
			CXString s = clang_getTypeSpelling(t);
			const char *sp = clang_getCString(s);
			kp_strbuf_adds(&sb, sp);
			if (ak == CXTemplateArgumentKind_Type && i < KP_MAX_TARGS) {
				targs[i].type = kp_arena_strdup(&c->f->arena, sp ? sp : "");
				targs[i].size = kp_parse_safe_sizeof(c, t);
				targs[i].align = kp_parse_safe_alignof(c, t);
				targs[i].trivial = kp_parse_type_trivial(t);
				targs[i].known = targs[i].size > 0;
			}
			clang_disposeString(s);
		}
	}
	push_inst(&c->f->arena, k, kp_strbuf_str(&sb), vals, targs);
	kp_strbuf_release(&sb);
}

/* Sizes of the types an explicit instantiation found only in the text may
 * name (libclang gives the rest). */
static long long builtin_type_size(const char *t)
{
	static const struct {
		const char *name;
		long long size;
	} ts[] = {
		{"char", 1},           {"signed char", 1},   {"unsigned char", 1},
		{"int8_t", 1},         {"uint8_t", 1},       {"short", 2},
		{"unsigned short", 2}, {"__half", 2},        {"half", 2},
		{"__nv_bfloat16", 2},  {"int", 4},           {"unsigned", 4},
		{"unsigned int", 4},   {"int32_t", 4},       {"uint32_t", 4},
		{"float", 4},          {"__half2", 4},       {"half2", 4},
		{"__nv_bfloat162", 4}, {"char4", 4},         {"long", 8},
		{"long long", 8},      {"unsigned long", 8}, {"size_t", 8},
		{"int64_t", 8},        {"double", 8},        {"float2", 8},
		{"int2", 8},           {"float4", 16},       {"int4", 16},
		{"double2", 16},       {"uint4", 16},
	};
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		if (!strcmp(ts[i].name, t))
			return ts[i].size;
	return -1;
}

/* The integer value of `#define NAME <integer>` in the main file. */
static int define_value(const kp_file *f, const char *name, long long *out)
{
	size_t nl = strlen(name);
	const char *s = f->src;
	for (size_t i = 0; i < f->len; i++) {
		if ((i && s[i - 1] != '\n') || s[i] != '#')
			continue;
		size_t p = i + 1;
		while (p < f->len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p + 6 > f->len || strncmp(s + p, "define", 6))
			continue;
		p += 6;
		while (p < f->len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p + nl >= f->len || strncmp(s + p, name, nl) ||
		    (s[p + nl] != ' ' && s[p + nl] != '\t'))
			continue;
		char *end;
		long long v = strtoll(s + p + nl, &end, 0);
		while (*end == ' ' || *end == '\t' || *end == 'u' || *end == 'U' || *end == 'l' ||
		       *end == 'L')
			end++;
		if (end != s + p + nl &&
		    (*end == '\n' || *end == '\r' || *end == '\0' || *end == '/')) {
			*out = v;
			return 1;
		}
	}
	return 0;
}

/* An instantiation found only in the text: each argument an integer, a
 * `#define` of one, or a type kpipe knows the size of; anything else stays
 * unknown (the analysis then leaves that instantiation's sizes symbolic).
 * The argument text is the resolved one, so the same instantiation found
 * by libclang is not added twice. */
static void add_inst_text(kp_file *f, kp_kernel *k, const char *args, size_t n)
{
	/* one line, single spaces */
	kp_arena *a = &f->arena;
	char *txt = kp_arena_alloc(a, n + 1);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = args[i] == '\n' || args[i] == '\t' || args[i] == '\r' ? ' ' : args[i];
		if (ch == ' ' && (o == 0 || txt[o - 1] == ' '))
			continue;
		txt[o++] = ch;
	}
	while (o && txt[o - 1] == ' ')
		o--;
	txt[o] = '\0';
	long long vals[KP_MAX_TARGS] = {0};
	kp_targ targs[KP_MAX_TARGS];
	for (int i = 0; i < KP_MAX_TARGS; i++)
		targs[i] = (kp_targ){NULL, -1, 0, -1, -1};
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *p = txt;
	for (int i = 0; *p; i++) {
		/* the argument up to a comma outside <> and () */
		const char *e = p;
		int depth = 0;
		while (*e && (depth || *e != ',')) {
			depth += *e == '<' || *e == '(' ? 1 : *e == '>' || *e == ')' ? -1 : 0;
			e++;
		}
		char *arg = kp_arena_strndup(a, p, (size_t)(e - p));
		size_t al = strlen(arg);
		while (al && arg[al - 1] == ' ')
			arg[--al] = '\0';
		char *end;
		long long v = strtoll(arg, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		int is_int = *arg && !*end;
		if (!is_int)
			is_int = define_value(f, arg, &v);
		int is_bool = !strcmp(arg, "true") || !strcmp(arg, "false");
		if (is_bool) {
			v = arg[0] == 't';
			is_int = 1;
		}
		long long sz = is_int ? -1 : builtin_type_size(arg);
		if (i)
			kp_strbuf_adds(&sb, ", ");
		if (is_bool)
			kp_strbuf_adds(&sb, v ? "true" : "false");
		else if (is_int)
			kp_strbuf_addf(&sb, "%lld", v);
		else
			kp_strbuf_adds(&sb, arg);
		if (i < KP_MAX_TARGS) {
			if (is_int) {
				vals[i] = v;
				targs[i].known = 1;
			} else if (sz > 0) {
				targs[i].type = arg;
				targs[i].size = sz;
				targs[i].align = sz; /* the builtin types of the table */
				targs[i].trivial = 1;
				targs[i].known = 1;
			}
		}
		p = *e ? e + 1 : e;
		while (*p == ' ')
			p++;
	}
	push_inst(a, k, kp_strbuf_str(&sb), vals, targs);
	kp_strbuf_release(&sb);
}

/* Explicit instantiations ("template __global__ void k<32, 8>(...);") are
 * not exposed as cursors by libclang: find them in the text. */
void kp_parse_scan_explicit_insts(kp_file *f)
{
	const char *s = f->src;
	for (size_t i = 0; i + 9 < f->len; i++) {
		if ((i && s[i - 1] != '\n' && s[i - 1] != ' ' && s[i - 1] != '\t' &&
		     s[i - 1] != ';') ||
		    strncmp(s + i, "template", 8))
			continue;
		size_t p = i + 8;
		while (p < f->len && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n'))
			p++;
		if (p >= f->len || s[p] == '<')
			continue;
		size_t e = p;
		while (e < f->len && s[e] != ';' && s[e] != '{')
			e++;
		if (e >= f->len || s[e] != ';')
			continue;
		for (int ki = 0; ki < f->nkernels; ki++) {
			kp_kernel *k = f->kernels[ki];
			size_t nl = strlen(k->name);
			if (!k->is_template)
				continue;
			for (size_t q = p; q + nl < e; q++) {
				if (strncmp(s + q, k->name, nl) || s[q + nl] != '<' ||
				    (q > 0 &&
				     (s[q - 1] == '_' || (s[q - 1] >= 'a' && s[q - 1] <= 'z') ||
				      (s[q - 1] >= 'A' && s[q - 1] <= 'Z') ||
				      (s[q - 1] >= '0' && s[q - 1] <= '9'))))
					continue;
				size_t b = q + nl + 1, c = b;
				int depth = 1;
				while (c < e && depth) {
					if (s[c] == '<')
						depth++;
					else if (s[c] == '>')
						depth--;
					c++;
				}
				if (!depth) {
					while (b < c - 1 && s[b] == ' ')
						b++;
					add_inst_text(f, k, s + b, c - 1 - b);
				}
				break;
			}
		}
	}
}

/* Instantiation a before b in a fixed order that does not depend on where
 * they appear in the file: argument by argument, types by spelling and
 * values by value, then the argument text. */
static int inst_before(const kp_kernel *k, int a, int b)
{
	for (int p = 0; p < k->ntparams && p < KP_MAX_TARGS; p++) {
		const kp_targ *x = &k->inst_targs[a][p], *y = &k->inst_targs[b][p];
		if (x->type && y->type) {
			int r = strcmp(x->type, y->type);
			if (r)
				return r < 0;
		} else if (x->known && y->known && !x->type && !y->type &&
			   k->inst_values[a][p] != k->inst_values[b][p])
			return k->inst_values[a][p] < k->inst_values[b][p];
	}
	return strcmp(k->inst_args[a], k->inst_args[b]) < 0;
}

void kp_parse_sort_insts(kp_kernel *k)
{
	for (int i = 1; i < k->ninst; i++)
		for (int j = i; j > 0 && inst_before(k, j, j - 1); j--) {
			const char *ta = k->inst_args[j];
			k->inst_args[j] = k->inst_args[j - 1];
			k->inst_args[j - 1] = ta;
			long long tv[KP_MAX_TARGS];
			memcpy(tv, k->inst_values[j], sizeof(tv));
			memcpy(k->inst_values[j], k->inst_values[j - 1], sizeof(tv));
			memcpy(k->inst_values[j - 1], tv, sizeof(tv));
			kp_targ tt[KP_MAX_TARGS];
			memcpy(tt, k->inst_targs[j], sizeof(tt));
			memcpy(k->inst_targs[j], k->inst_targs[j - 1], sizeof(tt));
			memcpy(k->inst_targs[j - 1], tt, sizeof(tt));
		}
}

static kp_kernel *kernel_of_template(kernel_scan *ks, CXCursor tmpl)
{
	CXCursor canon = clang_getCanonicalCursor(tmpl);
	kp_decl *d = kp_parse_decl_for(ks->c, canon);
	for (int i = 0; i < ks->n; i++)
		if (ks->v[i]->is_template && ks->v[i]->params && d &&
		    !strcmp(ks->v[i]->name, d->name) && ks->v[i]->line == d->line)
			return ks->v[i];
	return NULL;
}

enum CXChildVisitResult kp_parse_find_insts(CXCursor cur, CXCursor parent, CXClientData ud)
{
	(void)parent;
	kernel_scan *ks = ud;
	enum CXCursorKind k = clang_getCursorKind(cur);
	CXCursor spec = clang_getNullCursor();
	if (k == CXCursor_FunctionDecl && clang_Cursor_getNumTemplateArguments(cur) > 0)
		spec = cur;
	else if (k == CXCursor_DeclRefExpr || k == CXCursor_CallExpr) {
		CXCursor ref = clang_getCursorReferenced(cur);
		if (!clang_Cursor_isNull(ref) &&
		    clang_getCursorKind(ref) == CXCursor_FunctionDecl &&
		    clang_Cursor_getNumTemplateArguments(ref) > 0)
			spec = ref;
	}
	if (!clang_Cursor_isNull(spec)) {
		CXCursor tmpl = clang_getSpecializedCursorTemplate(spec);
		if (!clang_Cursor_isNull(tmpl)) {
			kp_kernel *kk = kernel_of_template(ks, tmpl);
			if (kk)
				add_inst(ks->c, kk, spec);
		}
	}
	return CXChildVisit_Recurse;
}
