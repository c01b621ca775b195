/*
 * pure.c - the table of known pure functions (CUDA math API, libdevice,
 * std:: math, cuComplex.h, the warp intrinsics), keyed by the resolved declaration
 * (pure.h).  What a call may write through each argument is a question of
 * the model's (src/model/changes.c).
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

kp_pure_class kp_call_pure(const kp_node *n)
{
	if (!n || n->kind != KP_N_CALL)
		return KP_PURE_NO;
	int op = n->name && !strncmp(n->name, "operator", 8) && kp_op_reads_only(n->name + 8);
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
