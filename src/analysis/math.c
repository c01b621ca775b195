/*
 * math.c - counted loops and the compute phase's math: the copy loops'
 * trip counts (kp_load.ranges, kp_load.trips), the kind of math and the
 * FLOPs per thread (kp_loop.math, flops_thread), and the bytes of the
 * loaded tiles (kp_loop.tile_bytes).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "effects.h"
#include "refill.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct {
	actx *c;
	double flops;
	int unknown;
	kp_math math;
	int depth; /* __device__ helpers entered (HELPER_DEPTH at most) */
} math_scan;

#define HELPER_DEPTH 3

/* Reads a for-statement as a counted loop (analyze.h): the counter's
 * first value from the init (a declaration or an assignment), the bound
 * from the condition, an upward constant step from the increment. */
static void range_of(actx *c, const kp_node *loop, kp_range *r)
{
	memset(r, 0, sizeof(*r));
	if (!loop || loop->kind != KP_N_FOR)
		return;
	r->loop = loop;
	kp_node *init = loop->for_init, *inc = loop->for_inc;
	if (init && init->kind == KP_N_DECLSTMT && init->nkids == 1 &&
	    init->kids[0]->kind == KP_N_VARDECL && init->kids[0]->nkids >= 1) {
		r->var_decl = init->kids[0];
		/* the declaration's initialiser (`i{0}`: the 0), else its last part */
		r->lo = r->var_decl->decl && r->var_decl->decl->init
				? r->var_decl->decl->init
				: init->kids[0]->kids[init->kids[0]->nkids - 1];
	} else if (init && kp_is_assign(init))
		r->lo = init->kids[1];
	const kp_decl *var = r->var_decl ? r->var_decl->decl : NULL;
	if (!var && init && kp_is_assign(init)) {
		const kp_node *t = kp_node_strip(init->kids[0]);
		var = t && t->kind == KP_N_DECLREF ? t->decl : NULL;
	}
	const kp_node *cs = kp_node_strip(loop->for_cond);
	if (cs && cs->kind == KP_N_BINOP && cs->nkids == 2) {
		/* `i op hi`, or `i + c op hi` (the bound is hi - c) */
		const kp_node *lhs = kp_node_strip(cs->kids[0]);
		const kp_node *a = lhs && lhs->kind == KP_N_BINOP && lhs->nkids == 2 &&
						   lhs->opk == KP_OP_ADD
					   ? kp_node_strip(lhs->kids[0])
					   : NULL;
		const kp_node *b = a ? kp_node_strip(lhs->kids[1]) : NULL;
		r->op = cs->op;
		r->opk = cs->opk;
		if (lhs && lhs->kind == KP_N_DECLREF && lhs->decl == var && var)
			r->hi = cs->kids[1];
		else if (var && a && a->kind == KP_N_DECLREF && a->decl == var) {
			r->hi = cs->kids[1];
			r->hi_off = lhs->kids[1];
		} else if (var && b && b->kind == KP_N_DECLREF && b->decl == var) {
			r->hi = cs->kids[1];
			r->hi_off = lhs->kids[0];
		}
	}
	if (!inc)
		return;
	int sign;
	r->step_ok = kp_step_text(c, inc, &sign) && sign > 0;
	r->step_is_one = inc->kind == KP_N_UNOP && inc->op &&
			 (inc->opk == KP_OP_PRE_INC || inc->opk == KP_OP_POST_INC);
	r->step_plus_assign = inc->kind == KP_N_ASSIGNOP && inc->op && inc->opk == KP_OP_ADD_ASSIGN;
	r->step = kp_step_node(inc);
}

/* A pointer or an integer (index and pointer arithmetic, not math); an
 * unknown or dependent type is not. */
static int is_int_or_ptr(const kp_node *n)
{
	return n->ty.kind == KP_TY_POINTER || n->ty.kind == KP_TY_ENUM ||
	       KP_TY_IS_INTEGER(n->ty.kind);
}

/* Whether a and b are the same side-effect-free integer expression, one
 * value all through `loop` (its body writes none of its variables): the
 * `ty * 8` of `for (j = ty * 8; j < ty * 8 + 8; j++)`. */
static int same_fixed_expr(actx *c, const kp_node *loop, const kp_node *a, const kp_node *b)
{
	a = kp_node_strip(a);
	b = kp_node_strip(b);
	if (!a || !b)
		return 0;
	long long x, y;
	if (!kp_eval(a, c->k, c->iv, &x) && !kp_eval(b, c->k, c->iv, &y))
		return x == y;
	if (a->kind != b->kind || a->nkids != b->nkids)
		return 0;
	switch (a->kind) {
	case KP_N_DECLREF:
		return a->decl && a->decl == b->decl &&
		       !kp_writes_decl_from(kp_loop_body((kp_node *)loop), a->decl, 0);
	case KP_N_MEMBER: /* threadIdx.y */
		if (!a->name || !b->name || strcmp(a->name, b->name))
			return 0;
		break;
	case KP_N_BINOP:
		if (!a->op || !b->op || a->opk != b->opk)
			return 0;
		break;
	case KP_N_UNOP:
		if (!a->op || !b->op || a->opk != b->opk || a->opk == KP_OP_PRE_INC ||
		    a->opk == KP_OP_POST_INC || a->opk == KP_OP_PRE_DEC || a->opk == KP_OP_POST_DEC)
			return 0;
		break;
	default: return 0;
	}
	for (int i = 0; i < a->nkids; i++)
		if (!same_fixed_expr(c, loop, a->kids[i], b->kids[i]))
			return 0;
	return 1;
}

/* hi - lo where hi is `lo + C` (or `C + lo`) with C a compile-time
 * constant and lo a fixed expression that is not one: 0 with the
 * difference in *d, -1 otherwise. */
static int bound_above_lo(actx *c, const kp_range *r, long long *d)
{
	const kp_node *h = kp_node_strip(r->hi);
	if (!r->loop || !h || h->kind != KP_N_BINOP || !h->op || h->opk != KP_OP_ADD ||
	    h->nkids != 2)
		return -1;
	for (int i = 0; i < 2; i++)
		if (!kp_eval(h->kids[1 - i], c->k, c->iv, d) && is_int_or_ptr(h->kids[i]) &&
		    same_fixed_expr(c, r->loop, r->lo, h->kids[i]))
			return 0;
	return -1;
}

/* The trip count of a counted loop whose bounds and step are
 * compile-time constants, -1 otherwise (with `above`, also one whose
 * bound is its first value plus a constant: bound_above_lo()). */
static double range_trip_of(actx *c, const kp_range *r, int above)
{
	long long a, b, s = 1;
	if (!r->lo || !r->hi || !r->op || !r->step_ok || (!r->step_is_one && !r->step))
		return -1;
	if (kp_eval(r->lo, c->k, c->iv, &a) || kp_eval(r->hi, c->k, c->iv, &b)) {
		a = 0;
		if (!above || bound_above_lo(c, r, &b))
			return -1;
	}
	long long off = 0;
	if (r->hi_off && kp_eval(r->hi_off, c->k, c->iv, &off))
		return -1;
	b -= off;
	if (r->step && kp_eval(r->step, c->k, c->iv, &s))
		return -1;
	if (s <= 0)
		return -1;
	if (r->opk == KP_OP_LT)
		return b > a ? (double)((b - a + s - 1) / s) : 0;
	if (r->opk == KP_OP_LE)
		return b >= a ? (double)((b - a) / s + 1) : 0;
	return -1;
}

/* What the copy loops index their staging registers by: only constant
 * bounds (reg_staging.c numbers the registers from the first value). */
static double range_trip(actx *c, const kp_range *r) { return range_trip_of(c, r, 0); }

/* Whether a counted loop's first value, bound and step are constant
 * expressions of the kernel's template parameters (its count is then a
 * compile-time constant of each instantiation, kp_load.trips_symbolic). */
static int symbolic_range(actx *c, const kp_range *r)
{
	if (!r->lo || !r->hi || !r->op || !r->step_ok || (!r->step_is_one && !r->step))
		return 0;
	if (r->opk != KP_OP_LT && r->opk != KP_OP_LE)
		return 0;
	return kp_eval_symbolic(r->lo, c->k) && kp_eval_symbolic(r->hi, c->k) &&
	       (!r->hi_off || kp_eval_symbolic(r->hi_off, c->k)) &&
	       (!r->step || kp_eval_symbolic(r->step, c->k));
}

/* A loop's trip count for the FLOP count (scan_math()). */
static double trip_of(actx *c, kp_node *loop)
{
	kp_range r;
	range_of(c, loop, &r);
	return range_trip_of(c, &r, 1);
}

/* A floating value (a scalar, or a half or bfloat16 type). */
static int is_float_type(const kp_node *n)
{
	return n->ty.kind == KP_TY_FLOAT || n->ty.scalar == KP_SCL_F16 ||
	       n->ty.scalar == KP_SCL_BF16;
}

/* Tensor-core math written in inline PTX: each `mma.sync` (also
 * `wmma.mma.sync`) opcode of an asm statement (kp_asm_each_opcode) is one
 * warp-wide multiply-accumulate of its shape mMnNkK, 2*M*N*K/32 FLOPs per
 * thread; integer operands (.s8, .u8, .s4, .u4, .b1) make it IMMA.  A
 * shape kpipe cannot read still makes the math tensor-core math, with no
 * FLOPs. */
typedef struct {
	math_scan *m;
	double mult;
} asm_math;

static void asm_mma(const char *p, size_t len, void *ctx)
{
	asm_math *am = ctx;
	const char *e = p + len;
	if (len >= 5 && !strncmp(p, "wmma.", 5))
		p += 5;
	if ((size_t)(e - p) < 8 || strncmp(p, "mma.sync", 8))
		return;
	int mm = 0, nn = 0, kk = 0, is_int = 0;
	for (const char *q = p; q < e; q++) {
		if (q[0] == '.' && q[1] == 'm' && !mm)
			sscanf(q + 1, "m%dn%dk%d", &mm, &nn, &kk);
		/* .s8 .u8 .s4 .u4 .b1, not .s32 or .b16 */
		int end = q + 3 == e || (q + 3 < e && q[3] == '.');
		is_int |= q[0] == '.' && end &&
			  ((strchr("su", q[1]) && q[1] && strchr("48", q[2]) && q[2]) ||
			   (q[1] == 'b' && q[2] == '1'));
	}
	am->m->math = is_int ? KP_MATH_IMMA : KP_MATH_HMMA;
	if (mm > 0 && nn > 0 && kk > 0)
		am->m->flops += am->mult * 2.0 * mm * nn * kk / 32.0;
}

static void scan_math(math_scan *m, kp_node *n, double mult)
{
	if (!n)
		return;
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO) {
		double t = n->kind == KP_N_FOR ? trip_of(m->c, n) : -1;
		if (t < 0) {
			m->unknown = 1;
			t = 1;
		}
		kp_node *body = kp_loop_body(n);
		for (int i = 0; i < n->nkids; i++)
			scan_math(m, n->kids[i], mult * (n->kids[i] == body ? t : 1));
		return;
	}
	if (n->kind == KP_N_ASM && n->asm_text) {
		asm_math am = {m, mult};
		kp_asm_each_opcode(n->asm_text, asm_mma, &am);
	}
	if (n->kind == KP_N_CALL && *kp_call_name(n)) {
		const char *name = kp_call_name(n);
		if (!strcmp(name, "mma_sync")) {
			int is_int = 0;
			for (int i = 0; i < n->nkids; i++)
				is_int |= n->kids[i]->ty.scalar == KP_SCL_INT8;
			m->math = is_int ? KP_MATH_IMMA : KP_MATH_HMMA;
			m->flops += mult * 2.0 * 16 * 16 * 16 / 32.0; /* per thread of the warp */
		} else if (!strcmp(name, "__dp4a")) {
			m->math = KP_MATH_DP4A;
			m->flops += mult * 8;
		} else if (!strcmp(name, "fmaf") || !strcmp(name, "__fmaf_rn") ||
			   !strcmp(name, "fma")) {
			if (m->math == KP_MATH_NONE)
				m->math = !strcmp(name, "fma") ? KP_MATH_DFMA : KP_MATH_FFMA;
			m->flops += mult * 2;
		} else if (!strcmp(name, "__hfma") || !strcmp(name, "__hfma2")) {
			if (m->math == KP_MATH_NONE)
				m->math = KP_MATH_HFMA;
			m->flops += mult * (!strcmp(name, "__hfma2") ? 4 : 2);
		} else if ((!strcmp(name, "fmax") || !strcmp(name, "fmaxf") ||
			    !strcmp(name, "fmin") || !strcmp(name, "fminf")) &&
			   is_float_type(n)) {
			m->flops += mult * 1; /* a max or min reduction: one FMNMX or DMNMX */
		} else if (n->decl && n->decl->fn && n->decl->fn->body && m->depth < HELPER_DEPTH) {
			/* a __device__ helper of the file (`acc += tile_dot(As, Bs,
			 * ty, tx)`): its body's math, once per call, as effects.c
			 * reads its effects; its arguments below */
			m->depth++;
			scan_math(m, n->decl->fn->body, mult);
			m->depth--;
		}
	}
	if (n->kind == KP_N_ASSIGNOP && n->op &&
	    (n->opk == KP_OP_ADD_ASSIGN || n->opk == KP_OP_SUB_ASSIGN) && n->nkids == 2 &&
	    !is_int_or_ptr(n->kids[0])) {
		const kp_node *r = kp_node_strip(n->kids[1]);
		if (r && r->kind == KP_N_BINOP && r->op && r->opk == KP_OP_MUL) {
			const kp_type *t = &n->kids[0]->ty;
			if (m->math == KP_MATH_NONE || m->math == KP_MATH_FFMA)
				m->math = t->scalar == KP_SCL_F64   ? KP_MATH_DFMA
					  : t->scalar == KP_SCL_F16 ? KP_MATH_HFMA
					  : is_float_type(n->kids[0]) || t->kind == KP_TY_UNKNOWN ||
							  t->kind == KP_TY_DEPENDENT
						  ? KP_MATH_FFMA
						  : m->math;
			m->flops += mult * 2;
		} else if (r && is_float_type(n->kids[0])) {
			m->flops += mult * 1;
		}
	}
	for (int i = 0; i < n->nkids; i++)
		scan_math(m, n->kids[i], mult);
}

/* The copy loops' trip counts (what register staging indexes by), the
 * loop's own (kp_loop.trips), and whether a template kernel's parameters
 * were left symbolic.  Which copy
 * mechanism can move the loads is the transforms' question
 * (transforms/cp_async.c, transforms/reg_staging.c). */
void kp_count_copy_trips(actx *c)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->nloads; i++) {
		kp_load *ld = &l->loads[i];
		for (int d = 0; d < 4; d++) {
			range_of(c, d < ld->depth ? ld->loops[d] : NULL, &ld->ranges[d]);
			ld->trips[d] = range_trip(c, &ld->ranges[d]);
			ld->max_trips[d] = ld->trips[d] < 0 ? kp_range_max_trips(c, &ld->ranges[d])
							    : -1;
			ld->trips_symbolic[d] = ld->trips[d] < 0 && ld->max_trips[d] < 0 &&
						c->k->is_template && !c->iv &&
						symbolic_range(c, &ld->ranges[d]);
		}
	}
	l->params_symbolic = c->k->is_template && !c->iv;
	l->trips = trip_of(c, l->node);
}

/* The compute phase's math and FLOPs, and the bytes of the loaded tiles. */
void kp_count_math(actx *c)
{
	kp_loop *l = c->l;
	/* math */
	math_scan ms = {c, 0, 0, KP_MATH_NONE, 0};
	for (int i = l->comp_b; i < l->comp_e; i++)
		scan_math(&ms, l->stmts[i], 1.0);
	l->math = ms.math;
	l->flops_thread = ms.unknown && ms.flops == 0 ? -1 : ms.flops;
	l->flops_uncounted = ms.unknown || ms.flops == 0;
	l->tile_bytes = 0;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].loaded) {
			if (l->tiles[i].bytes < 0)
				l->tile_bytes = -1;
			else if (l->tile_bytes >= 0)
				l->tile_bytes += l->tiles[i].bytes;
		}
}
