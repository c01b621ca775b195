/*
 * template_tiles.c - a kernel template's K-loop whose tiles are sized by
 * template parameters that no instantiation in the file fixes (plan.h,
 * kp_plan_template_tiles).  Its shared memory cannot be checked against
 * the static limit, so the rewrite doubles the tiles blind: the warning
 * gives the formula of the doubled bytes and the smallest parameter value
 * (all parameters equal, powers of two) at which they pass the limit.
 */
#include "plan.h"

#include <ctype.h>
#include <string.h>

/* A bound's spelling evaluated with every template parameter of k at v:
 * integers, parameter names, + - * / % and parentheses.  0 on anything
 * else (*ok cleared). */
typedef struct {
	const char *p;
	const kp_kernel *k;
	long long v;
	int ok;
} ev;

static long long ev_sum(ev *e);

static void ev_space(ev *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static long long ev_atom(ev *e)
{
	ev_space(e);
	if (*e->p == '(') {
		e->p++;
		long long x = ev_sum(e);
		ev_space(e);
		if (*e->p != ')')
			e->ok = 0;
		else
			e->p++;
		return x;
	}
	if (isdigit((unsigned char)*e->p)) {
		long long x = 0;
		while (isdigit((unsigned char)*e->p))
			x = x * 10 + (*e->p++ - '0');
		while (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L')
			e->p++;
		return x;
	}
	if (isalpha((unsigned char)*e->p) || *e->p == '_') {
		const char *b = e->p;
		while (isalnum((unsigned char)*e->p) || *e->p == '_')
			e->p++;
		size_t n = (size_t)(e->p - b);
		for (int i = 0; i < e->k->ntparams; i++)
			if (e->k->tparam_names[i] && strlen(e->k->tparam_names[i]) == n &&
			    !strncmp(e->k->tparam_names[i], b, n))
				return e->v;
	}
	e->ok = 0;
	return 0;
}

static long long ev_prod(ev *e)
{
	long long x = ev_atom(e);
	for (;;) {
		ev_space(e);
		char op = *e->p;
		if (op != '*' && op != '/' && op != '%')
			return x;
		e->p++;
		long long y = ev_atom(e);
		if (op == '*')
			x *= y;
		else if (y == 0)
			e->ok = 0;
		else
			x = op == '/' ? x / y : x % y;
	}
}

static long long ev_sum(ev *e)
{
	long long x = ev_prod(e);
	for (;;) {
		ev_space(e);
		char op = *e->p;
		if (op != '+' && op != '-')
			return x;
		e->p++;
		long long y = ev_prod(e);
		x = op == '+' ? x + y : x - y;
	}
}

/* The bytes of l's loaded tiles with every parameter at v, times
 * buffers; -1 when a bound cannot be evaluated. */
static long long bytes_at(const kp_loop *l, long long v, int buffers)
{
	long long total = 0;
	for (int i = 0; i < l->ntiles; i++) {
		const kp_decl *d = l->tiles[i].arr;
		if (!l->tiles[i].loaded || !d)
			continue;
		long long n = d->elem_size > 0 ? d->elem_size : 4;
		for (int j = 0; j < d->ndims; j++) {
			ev e = {d->dim_text[j] ? d->dim_text[j] : "", l->kernel, v, 1};
			long long x = ev_sum(&e);
			ev_space(&e);
			if (!e.ok || *e.p || x <= 0)
				return -1;
			n *= x;
		}
		total += n;
	}
	return total * buffers;
}

const char *kp_plan_template_tiles(kp_file *f, const kp_loop *l, const kp_arch *a, int buffers)
{
	if (!l->params_symbolic || !l->kernel || !l->kernel->is_template || buffers < 2)
		return NULL;
	int unknown = 0, dependent_type = 0;
	kp_strbuf formula = KP_STRBUF_INIT;
	for (int i = 0; i < l->ntiles; i++) {
		const kp_decl *d = l->tiles[i].arr;
		if (!l->tiles[i].loaded || !d)
			continue;
		unknown |= l->tiles[i].bytes < 0;
		dependent_type |= d->elem_size <= 0;
		kp_strbuf_addf(&formula, "%s", formula.len ? " + " : "");
		for (int j = 0; j < d->ndims; j++) {
			const char *dt = d->dim_text[j] ? d->dim_text[j] : "?";
			/* a sum is a factor in parentheses: (BX + 1) */
			int sum = strpbrk(dt, "+-?<>&|^") != NULL;
			kp_strbuf_addf(&formula, "%s%s%s%s", j ? "*" : "", sum ? "(" : "", dt,
				       sum ? ")" : "");
		}
		if (d->elem_size > 0)
			kp_strbuf_addf(&formula, "*%lld", d->elem_size);
		else
			kp_strbuf_addf(&formula, "*sizeof(%s)", d->elem_type ? d->elem_type : "T");
	}
	if (!unknown) {
		kp_strbuf_release(&formula);
		return NULL;
	}
	const kp_kernel *k = l->kernel;
	kp_strbuf params = KP_STRBUF_INIT;
	for (int i = 0; i < k->ntparams; i++)
		if (k->tparam_names[i] && !(i < 32 && (k->tparam_type >> i) & 1))
			kp_strbuf_addf(&params, "%s%s", params.len ? " = " : "",
				       k->tparam_names[i]);
	long long lim = a->smem_static_per_block, at = -1, need = 0;
	for (long long v = 1; v <= 4096 && at < 0; v *= 2) {
		long long b = bytes_at(l, v, buffers);
		if (b < 0)
			break;
		if (b > lim) {
			at = v;
			need = b;
		}
	}
	kp_strbuf m = KP_STRBUF_INIT;
	kp_strbuf_addf(&m,
		       "the tiles of '%s' are sized by template parameters that no "
		       "instantiation in this file fixes, so kpipe cannot check that %d buffers "
		       "fit: they take %d x (%s) B of static shared memory",
		       k->name, buffers, buffers, kp_strbuf_str(&formula));
	if (at > 0)
		kp_strbuf_addf(&m,
			       ", over the %lld B static limit of %s when %s = %lld (%lld B)%s "
			       "and above; instantiate the kernel in this file to have it checked",
			       lim, a->name, kp_strbuf_str(&params), at, need,
			       dependent_type ? " with 4-byte elements" : "");
	else
		kp_strbuf_addf(&m,
			       ", which kpipe cannot compare with the %lld B static limit of %s; "
			       "instantiate the kernel in this file to have it checked",
			       lim, a->name);
	const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&m));
	kp_strbuf_release(&m);
	kp_strbuf_release(&formula);
	kp_strbuf_release(&params);
	return r;
}
