/*
 * types.c - type spellings under an instantiation: template type
 * arguments bound to their sizes and spellings, pointee and element types
 * compared, and the values that are all zero bits of a type (the zero a
 * guarded copy may store, kp_is_zero_value).
 */
#include "analyze.h"
#include "analyze_int.h"

#include <stdio.h>
#include <string.h>

/* A type spelling without cv-qualifiers, restrict and extra spaces:
 * "const T" -> "T", "volatile unsigned  int" -> "unsigned int". */
const char *kp_strip_cv(kp_arena *a, const char *t)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *p = t ? t : "";
	while (*p) {
		while (*p == ' ')
			p++;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		size_t n = (size_t)(e - p);
		int drop = (n == 5 && !strncmp(p, "const", 5)) ||
			   (n == 8 && !strncmp(p, "volatile", 8)) ||
			   (n == 8 && !strncmp(p, "restrict", 8)) ||
			   (n == 10 && !strncmp(p, "__restrict", 10)) ||
			   (n == 12 && !strncmp(p, "__restrict__", 12));
		if (n && !drop) {
			if (sb.len)
				kp_strbuf_addc(&sb, ' ');
			kp_strbuf_addf(&sb, "%.*s", (int)n, p);
		}
		p = e;
	}
	const char *r = kp_arena_strdup(a, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return r;
}

/* The position of the template type parameter a (cv-stripped) spelling
 * names, by name ("T") or as clang's canonical type spells it
 * ("type-parameter-0-1"); -1 when it names none. */
static int type_param_index(const actx *c, const char *t)
{
	if (!c->k || !t)
		return -1;
	int d, i;
	char tail;
	if (sscanf(t, "type-parameter-%d-%d%c", &d, &i, &tail) == 2)
		return d == 0 && i >= 0 && i < c->k->ntparams ? i : -1;
	for (i = 0; i < c->k->ntparams; i++)
		if (!strcmp(c->k->tparam_names[i], t))
			return i;
	return -1;
}

/* sizeof a type spelled `t` under the instantiation being analysed: a
 * template type parameter takes its argument's size; -1 otherwise. */
long long kp_bound_size(actx *c, const char *t)
{
	if (!c->targs || !t)
		return -1;
	int i = type_param_index(c, kp_strip_cv(&c->f->arena, t));
	if (i < 0 || i >= 8 || !c->targs[i].type || !c->targs[i].known)
		return -1;
	return c->targs[i].size;
}

/* The element size of an array or variable, binding a template type. */
long long kp_elem_size_of(actx *c, const kp_decl *d)
{
	if (d->elem_size > 0)
		return d->elem_size;
	return kp_bound_size(c, d->elem_type);
}

/* Whether the type a pointer type points to and a tile's element type
 * are the same once cv-qualifiers are dropped and template type parameters
 * bound: 1 yes, 0 no, -1 cannot tell (a parameter without a binding). */
int kp_same_pointee(actx *c, const char *ptr, const char *elem, int *uses_param)
{
	kp_arena *a = &c->f->arena;
	const char *star = ptr ? strrchr(ptr, '*') : NULL;
	if (!star || !elem)
		return -1;
	const char *x[2] = {kp_strip_cv(a, kp_arena_strndup(a, ptr, (size_t)(star - ptr))),
			    kp_strip_cv(a, elem)};
	*uses_param = 0;
	for (int j = 0; j < 2; j++) {
		int i = type_param_index(c, x[j]);
		if (i < 0)
			continue;
		*uses_param = 1;
		if (!c->targs || i >= 8 || !c->targs[i].type)
			return -1;
		x[j] = kp_strip_cv(a, c->targs[i].type);
	}
	return !strcmp(x[0], x[1]);
}

/* Whether pointer src points to tile's element type, from clang's
 * canonical types (typedefs resolved, qualifiers dropped): 1, 0, or -1
 * when either is unknown or depends on a template parameter. */
int kp_same_canon(const kp_decl *src, const kp_decl *tile)
{
	/* a tile pointer (a carve-out of dynamic shared memory): its pointee */
	if (tile->ty.kind == KP_TY_POINTER)
		return !src->pointee_canon || !tile->pointee_canon ||
				       src->ty.elem == KP_TY_DEPENDENT ||
				       tile->ty.elem == KP_TY_DEPENDENT
			       ? -1
			       : !strcmp(src->pointee_canon, tile->pointee_canon);
	const char *p = src->pointee_canon, *e = tile->elem_type;
	if (!p || !e || tile->ty.kind != KP_TY_ARRAY || src->ty.elem == KP_TY_DEPENDENT ||
	    tile->ty.elem == KP_TY_DEPENDENT || tile->elem_size < 0)
		return -1;
	if (!strncmp(e, "const ", 6))
		e += 6;
	if (!strncmp(e, "volatile ", 9))
		e += 9;
	return !strcmp(p, e);
}

/* The CUDA vector types' element names (make_float4, int2, ...). */
static const char *const vec_elems[] = {"char",  "uchar",    "short",     "ushort",
					"int",   "uint",     "long",      "ulong",
					"float", "longlong", "ulonglong", "double"};

/* The width of a CUDA vector type name ("float4": 4), 0 when none. */
static int vector_width(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_LEN(vec_elems); i++) {
		size_t n = strlen(vec_elems[i]);
		if (!strncmp(name, vec_elems[i], n) && name[n] >= '1' && name[n] <= '4' &&
		    !name[n + 1])
			return name[n] - '0';
	}
	return 0;
}

/* Conversions whose result is all zero bits for a zero argument. */
static const char *const zero_convs[] = {"__float2half",        "__float2half_rn",
					 "__float2bfloat16",    "__float2bfloat16_rn",
					 "__int2half_rn",       "__float2half2_rn",
					 "__float2bfloat162_rn"};

/* cuComplex.h's constructors: a float2 or double2 of the real and the
 * imaginary part (MAGMA_Z_ZERO is make_cuDoubleComplex(0.0, 0.0)). */
static const char *const complex_makes[] = {"make_cuComplex", "make_cuFloatComplex",
					    "make_cuDoubleComplex"};

/* Whether a call gives zero: a CUDA function (declared outside the main
 * file) make_T<n> of n zero arguments or a complex_makes of two, one of
 * zero_convs of a zero argument; never a function kpipe does not know
 * (make_far_point()). */
static int zero_call(const kp_node *n)
{
	if (!n->name || !n->decl || n->decl->in_main)
		return 0;
	const kp_node *args[8];
	int na = 0;
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *a = kp_node_strip(n->kids[i]);
		if (a && a->kind == KP_N_DECLREF && a->decl && a->decl->kind == KP_D_FUNC)
			continue; /* the callee */
		if (na == 8)
			return 0;
		args[na++] = n->kids[i];
	}
	int want = -1;
	if (!strncmp(n->name, "make_", 5))
		want = vector_width(n->name + 5);
	for (size_t i = 0; i < KP_ARRAY_LEN(zero_convs); i++)
		if (!strcmp(n->name, zero_convs[i]))
			want = 1;
	for (size_t i = 0; i < KP_ARRAY_LEN(complex_makes); i++)
		if (!strcmp(n->name, complex_makes[i]))
			want = 2;
	if (want <= 0 || na != want)
		return 0;
	for (int i = 0; i < na; i++)
		if (!kp_is_zero_value(args[i]))
			return 0;
	return 1;
}

/* A type an initialiser list of zeros makes all zero: arithmetic, a CUDA
 * vector type, the half and bfloat16 types (no member initialisers). */
static int zero_list_type(const char *t)
{
	static const char *const scalars[] = {
		"float",       "double",         "int",    "unsigned int",      "short",
		"char",        "long",           "__half", "__half2",           "__nv_bfloat16",
		"long long",   "unsigned short", "half",   "__nv_bfloat162",    "unsigned char",
		"signed char", "unsigned long",  "half2",  "unsigned long long"};
	if (!t)
		return 0;
	while (!strncmp(t, "const ", 6) || !strncmp(t, "volatile ", 9))
		t += t[0] == 'c' ? 6 : 9;
	if (vector_width(t))
		return 1;
	for (size_t i = 0; i < KP_ARRAY_LEN(scalars); i++)
		if (!strcmp(t, scalars[i]))
			return 1;
	return 0;
}

int kp_is_zero_value(const kp_node *n)
{
	n = kp_node_strip(n);
	if (!n)
		return 0;
	if ((n->kind == KP_N_INTLIT || n->kind == KP_N_FLOATLIT) && n->has_value)
		return n->fvalue == 0.0;
	if (n->kind == KP_N_CALL)
		return zero_call(n);
	/* {0, 0.f}, {} of an arithmetic or vector type (a list of a class type
	 * would run its default member initialisers) */
	if (n->kind == KP_N_INITLIST) {
		if (!zero_list_type(n->type))
			return 0;
		for (int i = 0; i < n->nkids; i++)
			if (!kp_is_zero_value(n->kids[i]))
				return 0;
		return 1;
	}
	return 0;
}
