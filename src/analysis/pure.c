/*
 * pure.c - the table of known pure functions (CUDA math API, libdevice,
 * std:: math, cuComplex.h, the warp intrinsics), keyed by the resolved declaration, and
 * what a call may write through each argument, from clang's parameter
 * types and the argument's type (pure.h).
 */
#include "pure.h"

#include <string.h>

typedef struct {
	const char *name;
	kp_pure_class cls;
} pure_entry;

#define V KP_PURE_VALUE
#define M KP_PURE_NOMEM
/* Functions of their operands only; then those that write no memory but
 * are no value function (a warp's other lanes, a clock, an ordering). */
static const pure_entry table[] = {
	{"min", V},
	{"max", V},
	{"umin", V},
	{"umax", V},
	{"llmin", V},
	{"llmax", V},
	{"ullmin", V},
	{"ullmax", V},
	{"abs", V},
	{"labs", V},
	{"llabs", V},
	{"fabs", V},
	{"fabsf", V},
	{"fminf", V},
	{"fmaxf", V},
	{"fmin", V},
	{"fmax", V},
	{"fma", V},
	{"fmaf", V},
	{"sqrt", V},
	{"sqrtf", V},
	{"rsqrt", V},
	{"rsqrtf", V},
	{"exp", V},
	{"expf", V},
	{"exp2", V},
	{"exp2f", V},
	{"exp10f", V},
	{"log", V},
	{"logf", V},
	{"log2", V},
	{"log2f", V},
	{"log10f", V},
	{"log1pf", V},
	{"expm1f", V},
	{"pow", V},
	{"powf", V},
	{"sin", V},
	{"sinf", V},
	{"cos", V},
	{"cosf", V},
	{"tan", V},
	{"tanf", V},
	{"tanh", V},
	{"tanhf", V},
	{"erf", V},
	{"erff", V},
	{"floor", V},
	{"floorf", V},
	{"ceil", V},
	{"ceilf", V},
	{"round", V},
	{"roundf", V},
	{"rint", V},
	{"rintf", V},
	{"trunc", V},
	{"truncf", V},
	{"copysignf", V},
	{"hypotf", V},
	{"atan2f", V},
	{"asinf", V},
	{"acosf", V},
	{"atanf", V},
	{"sinhf", V},
	{"coshf", V},
	{"cbrtf", V},
	{"rcbrtf", V},
	{"norm3df", V},
	{"rnorm3df", V},
	{"fdividef", V},
	{"isnan", V},
	{"isinf", V},
	{"isfinite", V},
	{"signbit", V},
	{"static_cast", V},
	{"__popc", V},
	{"__popcll", V},
	{"__clz", V},
	{"__clzll", V},
	{"__ffs", V},
	{"__ffsll", V},
	{"__brev", V},
	{"__brevll", V},
	{"__byte_perm", V},
	{"__funnelshift_l", V},
	{"__funnelshift_r", V},
	{"__funnelshift_lc", V},
	{"__funnelshift_rc", V},
	{"__saturatef", V},
	{"__mul24", V},
	{"__umul24", V},
	{"__mulhi", V},
	{"__umulhi", V},
	{"__mul64hi", V},
	{"__umul64hi", V},
	{"__sad", V},
	{"__usad", V},
	{"__vabsdiffu4", V},
	{"__dp4a", V},
	{"__dp2a_lo", V},
	{"__dp2a_hi", V},
	{"__expf", V},
	{"__exp10f", V},
	{"__logf", V},
	{"__log2f", V},
	{"__log10f", V},
	{"__powf", V},
	{"__sinf", V},
	{"__cosf", V},
	{"__tanf", V},
	{"__sincosf_pure", V},
	{"__isnan", V},
	{"__isinf", V},
	{"__int_as_float", V},
	{"__float_as_int", V},
	{"__uint_as_float", V},
	{"__float_as_uint", V},
	{"__longlong_as_double", V},
	{"__double_as_longlong", V},
	{"__hiloint2double", V},
	{"__double2hiint", V},
	{"__double2loint", V},
	{"__float_to_tf32", V},
	{"__cvta_generic_to_shared", V},
	{"__activemask", M},
	{"__all_sync", M},
	{"__any_sync", M},
	{"__ballot_sync", M},
	{"__shfl_sync", M},
	{"__shfl_up_sync", M},
	{"__shfl_down_sync", M},
	{"__shfl_xor_sync", M},
	{"__match_any_sync", M},
	{"__reduce_add_sync", M},
	{"__reduce_min_sync", M},
	{"__reduce_max_sync", M},
	{"clock", M},
	{"clock64", M},
	{"__nanosleep", M},
	{"__threadfence_block", M},
	{"__threadfence", M},
	{"__prof_trigger", M},
	{"__syncwarp", M},
};
/* Families of conversions and half / bfloat16 arithmetic. */
static const char *const prefixes[] = {
	"make_",   "__float2", "__half2", "__half",    "__bfloat162", "__bfloat16", "__int2",
	"__uint2", "__ll2",    "__ull2",  "__double2", "__h",         "__f",        "__d",
	"__low2",  "__high2",  "__lows2", "__highs2",  "__floats2",   "__hmul",     "__nv_cvt",
	"cuC" /* cuComplex.h: cuCadd, cuCmul, cuCfma, cuConj, cuCabs, cuCreal ... */};
#undef V
#undef M

kp_pure_class kp_pure_name(const char *nm)
{
	if (!nm || !*nm)
		return KP_PURE_NO;
	const char *q = strrchr(nm, ':');
	if (q)
		nm = q + 1;
	for (size_t i = 0; i < KP_ARRAY_LEN(table); i++)
		if (!strcmp(nm, table[i].name))
			return table[i].cls;
	for (size_t i = 0; i < KP_ARRAY_LEN(prefixes); i++)
		if (!strncmp(nm, prefixes[i], strlen(prefixes[i])))
			return KP_PURE_VALUE;
	return KP_PURE_NO;
}

/* The comparison and arithmetic operators: none assigns its operands. */
static int reading_operator(const char *op)
{
	static const char *const ops[] = {"<", ">", "<=", ">=", "==", "!=", "+",  "-",  "*",  "/",
					  "%", "&", "|",  "^",  "~",  "!",  "&&", "||", "<<", ">>"};
	for (size_t i = 0; i < KP_ARRAY_LEN(ops); i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

kp_pure_class kp_call_pure(const kp_node *n)
{
	if (!n || n->kind != KP_N_CALL)
		return KP_PURE_NO;
	int op = n->name && !strncmp(n->name, "operator", 8) && reading_operator(n->name + 8);
	if (n->decl) {
		/* the declaration clang resolved: the toolkit's or a system
		 * header's, and no body of the user's file kpipe reads instead;
		 * a comparison or arithmetic operator of theirs (__half's) whose
		 * parameters are values or const references */
		if (!n->decl->in_system || n->decl->fn)
			return KP_PURE_NO;
		if (op) {
			for (int i = 0; i < n->decl->nparam_ty; i++)
				if ((n->decl->param_ty[i].is_ref == 1 &&
				     !n->decl->param_ty[i].is_const) ||
				    (!n->decl->param_ty[i].is_ref &&
				     n->decl->param_ty[i].kind == KP_TY_POINTER))
					return KP_PURE_NO;
			return n->decl->nparam_ty >= 1 ? KP_PURE_VALUE : KP_PURE_NO;
		}
		return kp_pure_name(n->name && *n->name ? n->name : n->decl->name);
	}
	/* unresolved in a template: every function the name finds now */
	if (op && n->lookup_system && n->lookup_ro)
		return KP_PURE_VALUE;
	if (n->lookup_name && n->lookup_system)
		return kp_pure_name(n->lookup_name);
	return KP_PURE_NO;
}

static int operator_call(const kp_node *n) { return n->name && !strncmp(n->name, "operator", 8); }

/* Whether kid k of an operator call is its callee: a name of no object. */
static int callee_kid(const kp_node *n, int k)
{
	const kp_node *c = kp_node_strip(n->kids[k]);
	return c && c->kind == KP_N_DECLREF && (!c->decl || c->decl->kind == KP_D_FUNC) &&
	       (!c->name || !*c->name || !strcmp(c->name, n->name));
}

int kp_call_first_arg(const kp_node *n)
{
	if (n->nkids < 1)
		return 0;
	const kp_node *k0 = kp_node_strip(n->kids[0]);
	int fn = k0 && k0->kind == KP_N_DECLREF && k0->decl && k0->decl->kind == KP_D_FUNC;
	if (operator_call(n) && n->nkids == 3 && !fn)
		return 0; /* lhs, callee, rhs */
	if (operator_call(n) && n->nkids == 2)
		return callee_kid(n, 0) || !callee_kid(n, 1); /* x++: operand, callee */
	if (n->decl && n->decl->kind == KP_D_OTHER)
		return 0; /* a constructor: its arguments only */
	/* a call expression: the callee (a name, a member, a template-id)
	 * comes first */
	return 1;
}

/* The parameter argument kid binds to (-1: none, the callee), for a call
 * whose callee is kids[0] or an operator's (lhs, callee, rhs). */
static int param_of(const kp_node *n, int kid)
{
	int a0 = kp_call_first_arg(n);
	if (kid < a0)
		return -1;
	if (a0 == 0 && operator_call(n) && n->nkids == 3) {
		if (kid == 1)
			return -1;
		return kid == 0 ? 0 : 1;
	}
	return kid - a0;
}

/* A cast on the way to the argument's object that drops const
 * (const_cast, a C-style cast): its constness proves nothing. */
static int drops_const(const kp_node *a)
{
	for (int g = 0; a && g < 64; g++) {
		if (a->kind == KP_N_CAST && ((a->ty.kind == KP_TY_POINTER && !a->ty.elem_const) ||
					     (a->ty.is_ref && !a->ty.is_const)))
			return 1;
		if ((a->kind == KP_N_PAREN || a->kind == KP_N_CAST || a->kind == KP_N_OTHER) &&
		    a->nkids >= 1)
			a = a->kids[a->nkids - 1];
		else
			return 0;
	}
	return 1;
}

int kp_call_arg_write(const kp_node *n, int kid)
{
	if (!n || kid < 0 || kid >= n->nkids)
		return 0;
	int p = param_of(n, kid);
	if (p < 0)
		return 0; /* the callee */
	const kp_node *raw = n->kids[kid];
	const kp_node *a = kp_node_strip(raw);
	if (!a || a->kind == KP_N_INTLIT || a->kind == KP_N_FLOATLIT || a->kind == KP_N_SIZEOF)
		return 0;
	kp_type t = a->ty;
	if (a->kind == KP_N_DECLREF) {
		const kp_decl *d = a->decl;
		if (!d || d->kind == KP_D_TPARAM || d->kind == KP_D_ENUM || d->kind == KP_D_FUNC)
			return 0; /* a constant, or no object */
		if (d->ty.kind != KP_TY_UNKNOWN)
			t = d->ty;
	}
	int cast = drops_const(raw);
	int arr = t.kind == KP_TY_ARRAY;
	/* the object itself, and what it points to (an array's elements are
	 * its object), can be changed without a cast */
	int obj_const = !cast && !t.is_ref && (arr ? t.elem_const : t.is_const);
	int pts_const = !cast && (t.kind == KP_TY_POINTER || arr) && t.elem_const;
	int w = -1; /* as effects.c's param_writes */
	const kp_decl *f = n->decl;
	/* a member operator (lhs, callee, rhs; one parameter): the lhs is its
	 * object, whose method may not be const */
	int a0 = kp_call_first_arg(n);
	int nargs = n->nkids - a0 - (a0 == 0 && n->nkids == 3 ? 1 : 0);
	int member = f && operator_call(n) && f->nparam_ty >= 0 && f->nparam_ty == nargs - 1;
	if (member)
		p = p == 0 ? -1 : p - 1;
	if (member && p < 0)
		w = -1;
	else if (f && f->nparam_ty >= 0) {
		if (p >= f->nparam_ty)
			w = f->variadic ? -1 : 0;
		else {
			kp_type pt = f->param_ty[p];
			if (pt.is_ref == 2)
				w = 0;
			else if (pt.is_ref)
				w = pt.is_const ? 0 : 1;
			else if (pt.kind == KP_TY_POINTER || pt.kind == KP_TY_ARRAY)
				w = pt.elem_const ? 0 : 2; /* an array parameter is a pointer */
			else if (pt.kind == KP_TY_DEPENDENT || pt.kind == KP_TY_UNKNOWN)
				w = -1; /* `T tile[R][C]` in a template: not known yet */
			else
				w = 0;
		}
	} else if (!f && operator_call(n)) {
		const char *op = n->name + 8;
		if (reading_operator(op) && n->lookup_ro)
			w = 0;
		else if (reading_operator(op) || strcmp(op, "()") == 0)
			w = -1;
		else /* = and the compound assignments, ++, --: the first operand */
			w = kid == kp_call_first_arg(n) ? 1 : -1;
	}
	if (w == 0)
		return 0;
	if (w == 1)
		return obj_const ? 0 : 1;
	if (w == 2)
		return arr ? (pts_const ? 0 : 1) : (pts_const ? 0 : 2);
	/* unknown: a reference to the object or a pointer to it may be taken */
	if (obj_const)
		return t.kind == KP_TY_POINTER && !pts_const ? 2 : 0;
	return 1;
}

int kp_call_arg_writes_pointee(const kp_node *n, int kid)
{
	if (!n || kid < 0 || kid >= n->nkids || !kp_call_arg_write(n, kid))
		return 0;
	const kp_node *raw = n->kids[kid], *a = kp_node_strip(raw);
	kp_type t = a->kind == KP_N_DECLREF && a->decl ? a->decl->ty : a->ty;
	if ((t.kind == KP_TY_POINTER || t.kind == KP_TY_ARRAY) && t.elem_const && !drops_const(raw))
		return 0;
	int p = param_of(n, kid);
	const kp_decl *f = n->decl;
	if (!f || f->nparam_ty < 0 || p < 0 || p >= f->nparam_ty)
		return 1;
	kp_type pt = f->param_ty[p];
	if (pt.kind == KP_TY_POINTER || pt.kind == KP_TY_ARRAY)
		return !pt.elem_const; /* a pointer, or a reference to one */
	return pt.kind == KP_TY_DEPENDENT || pt.kind == KP_TY_UNKNOWN;
}
