/*
 * analyze_eval.c - integer constant evaluation of an expression (kp_eval),
 * template value arguments bound per instantiation, and the calls an
 * expression may repeat without a side effect (kp_pure_call).
 */
#include "analyze.h"
#include "analyze_int.h"
#include "pure.h"

#include <string.h>

/* A dependent `sizeof(T)` (kp_node.sizeof_tparam) of k's own parameter T
 * under the instantiation whose values are iv (one of k->inst_values):
 * the size of T's argument there, as parse.c read it from the
 * instantiation.  0 with *out set, -1
 * when it is not known (no instantiation: the parameters are symbolic). */
static int sizeof_inst(const kp_node *n, const kp_kernel *k, const long long *iv, long long *out)
{
	if (!n->sizeof_tparam || !k || !iv || !k->inst_values || !k->inst_targs ||
	    n->sizeof_owner != k->begin + 1)
		return -1; /* a parameter of another template, or none */
	for (int i = 0; i < k->ninst; i++) {
		if (k->inst_values[i] != iv)
			continue;
		for (int p = 0; p < k->ntparams && p < KP_MAX_TARGS; p++) {
			const kp_targ *t = &k->inst_targs[i][p];
			if (!strcmp(k->tparam_names[p], n->sizeof_tparam) && t->type && t->known &&
			    t->size > 0) {
				*out = t->size;
				return 0;
			}
		}
		return -1;
	}
	return -1;
}

/* The initialiser whose value a variable has wherever it is read: a
 * constant's, or a local of kernel k never changed after it (`int stride
 * = BM / n;`); NULL for any other declaration. */
static const kp_node *constant_init(const kp_decl *d, const kp_kernel *k)
{
	if (d->kind != KP_D_VAR || !d->init || d->is_array)
		return NULL;
	if (d->is_const)
		return d->init;
	if (!d->is_pointer && !d->is_shared && k && k->body && d->in_main && d->begin >= k->begin &&
	    d->end <= k->end && !kp_assigned_in(k, d))
		return d->init;
	return NULL;
}

static int eval_depth(const kp_node *n, const kp_kernel *k, const long long *iv, long long *out,
		      int depth)
{
	if (!n || depth > 32)
		return -1;
	long long a, b, c;
	switch (n->kind) {
	case KP_N_SIZEOF:
		if (!n->has_value)
			return sizeof_inst(n, k, iv, out);
		*out = n->ivalue;
		return 0;
	case KP_N_INTLIT:
		if (!n->has_value)
			return -1;
		*out = n->ivalue;
		return 0;
	case KP_N_FLOATLIT: return -1;
	case KP_N_PAREN:
	case KP_N_CAST:
	case KP_N_OTHER:
		if (n->nkids < 1)
			return -1;
		return eval_depth(n->kids[n->nkids - 1], k, iv, out, depth + 1);
	case KP_N_DECLREF: {
		kp_decl *d = n->decl;
		if (!d)
			return -1;
		if (d->kind == KP_D_TPARAM && k && iv) {
			for (int i = 0; i < k->ntparams && i < KP_MAX_TARGS; i++)
				if (!strcmp(k->tparam_names[i], d->name)) {
					*out = iv[i];
					return 0;
				}
			return -1;
		}
		if (d->has_value) {
			*out = d->value;
			return 0;
		}
		const kp_node *init = constant_init(d, k);
		return init ? eval_depth(init, k, iv, out, depth + 1) : -1;
	}
	case KP_N_UNOP:
		if (n->nkids < 1 || eval_depth(n->kids[0], k, iv, &a, depth + 1))
			return -1;
		if ((n->opk == KP_OP_SUB || n->opk == KP_OP_MINUS))
			*out = -a;
		else if ((n->opk == KP_OP_ADD || n->opk == KP_OP_PLUS))
			*out = a;
		else if (n->opk == KP_OP_NOT)
			*out = ~a;
		else if (n->opk == KP_OP_LNOT)
			*out = !a;
		else
			return -1;
		return 0;
	case KP_N_CONDOP:
		if (n->nkids != 3 || eval_depth(n->kids[0], k, iv, &a, depth + 1))
			return -1;
		return eval_depth(n->kids[a ? 1 : 2], k, iv, out, depth + 1);
	case KP_N_BINOP:
		if (n->nkids != 2 || eval_depth(n->kids[0], k, iv, &a, depth + 1) ||
		    eval_depth(n->kids[1], k, iv, &b, depth + 1))
			return -1;
		if ((n->opk == KP_OP_ADD || n->opk == KP_OP_PLUS))
			c = a + b;
		else if ((n->opk == KP_OP_SUB || n->opk == KP_OP_MINUS))
			c = a - b;
		else if ((n->opk == KP_OP_MUL || n->opk == KP_OP_DEREF))
			c = a * b;
		else if (n->opk == KP_OP_DIV) {
			if (!b)
				return -1;
			c = a / b;
		} else if (n->opk == KP_OP_REM) {
			if (!b)
				return -1;
			c = a % b;
		} else if (n->opk == KP_OP_SHL)
			c = (b >= 0 && b < 63) ? a << b : 0;
		else if (n->opk == KP_OP_SHR)
			c = (b >= 0 && b < 63) ? a >> b : 0;
		else if ((n->opk == KP_OP_AND || n->opk == KP_OP_ADDR))
			c = a & b;
		else if (n->opk == KP_OP_OR)
			c = a | b;
		else if (n->opk == KP_OP_LT)
			c = a < b;
		else if (n->opk == KP_OP_GT)
			c = a > b;
		else if (n->opk == KP_OP_LE)
			c = a <= b;
		else if (n->opk == KP_OP_GE)
			c = a >= b;
		else if (n->opk == KP_OP_EQ)
			c = a == b;
		else if (n->opk == KP_OP_NE)
			c = a != b;
		else
			return -1;
		*out = c;
		return 0;
	default: return -1;
	}
}

int kp_eval(const kp_node *n, const kp_kernel *k, const long long *iv, long long *out)
{
	return eval_depth(n, k, iv, out, 0);
}

/* kp_eval_symbolic below depth: what eval_depth evaluates, with k's
 * template parameters given no value. */
static int symbolic_depth(const kp_node *n, const kp_kernel *k, int depth)
{
	if (!n || depth > 32)
		return 0;
	switch (n->kind) {
	case KP_N_SIZEOF:
		return n->has_value || (n->sizeof_tparam && k && n->sizeof_owner == k->begin + 1);
	case KP_N_INTLIT: return n->has_value;
	case KP_N_PAREN:
	case KP_N_CAST:
	case KP_N_OTHER:
		return n->nkids >= 1 && symbolic_depth(n->kids[n->nkids - 1], k, depth + 1);
	case KP_N_DECLREF: {
		const kp_decl *d = n->decl;
		if (!d)
			return 0;
		if (d->kind == KP_D_TPARAM) {
			for (int i = 0; k && i < k->ntparams; i++)
				if (!strcmp(k->tparam_names[i], d->name))
					return 1;
			return 0;
		}
		if (d->has_value)
			return 1;
		const kp_node *init = constant_init(d, k);
		return init && symbolic_depth(init, k, depth + 1);
	}
	case KP_N_UNOP:
		return n->nkids >= 1 &&
		       (n->opk == KP_OP_SUB || n->opk == KP_OP_MINUS || n->opk == KP_OP_ADD ||
			n->opk == KP_OP_PLUS || n->opk == KP_OP_NOT || n->opk == KP_OP_LNOT) &&
		       symbolic_depth(n->kids[0], k, depth + 1);
	case KP_N_CONDOP:
		return n->nkids == 3 && symbolic_depth(n->kids[0], k, depth + 1) &&
		       symbolic_depth(n->kids[1], k, depth + 1) &&
		       symbolic_depth(n->kids[2], k, depth + 1);
	case KP_N_BINOP:
		switch (n->opk) {
		case KP_OP_ADD:
		case KP_OP_PLUS:
		case KP_OP_SUB:
		case KP_OP_MINUS:
		case KP_OP_MUL:
		case KP_OP_DEREF:
		case KP_OP_DIV:
		case KP_OP_REM:
		case KP_OP_SHL:
		case KP_OP_SHR:
		case KP_OP_AND:
		case KP_OP_ADDR:
		case KP_OP_OR:
		case KP_OP_LT:
		case KP_OP_GT:
		case KP_OP_LE:
		case KP_OP_GE:
		case KP_OP_EQ:
		case KP_OP_NE:
			return n->nkids == 2 && symbolic_depth(n->kids[0], k, depth + 1) &&
			       symbolic_depth(n->kids[1], k, depth + 1);
		default: return 0;
		}
	default: return 0;
	}
}

int kp_eval_symbolic(const kp_node *n, const kp_kernel *k) { return symbolic_depth(n, k, 0); }

/* The condition is evaluated once per iteration by the original loop; the
 * rewrite evaluates it (advanced) in the prologue, the loop and the
 * prefetch guard, so it must have no side effects. */
int kp_pure_call(const kp_node *n)
{
	/* a function of its operands (pure.h), or a read of global memory
	 * through the read-only cache */
	return kp_call_pure(n) == KP_PURE_VALUE || (n->decl && n->decl->in_system && !n->decl->fn &&
						    n->name && !strcmp(n->name, "__ldg"));
}
