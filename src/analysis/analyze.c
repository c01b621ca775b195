/*
 * analyze.c - finds candidate K-loops and decides what can be said about
 * them: phases, induction, copies (with their copy loops' trip counts),
 * math, shared-memory sizes, and every legality condition (with a stable
 * diagnostic id) that pipelining needs.  What one transform needs beyond
 * that (cp.async's copy widths, register staging's register count, the
 * shared memory of its buffers) is decided by the transform and the plan.
 *
 * It never edits anything and never prints; cmd_analyze.c renders its
 * result and the transforms consume it.
 */
#include "analyze.h"
#include "effects.h"
#include "guard_cover.h"
#include "liveness.h"
#include "pure.h"
#include "refill.h"
#include "rules.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kp_math_name(kp_math m)
{
	static const char *names[] = {"none", "FFMA", "HFMA", "HMMA", "IMMA", "IDP4A", "DFMA"};
	return names[m];
}

/* ---------------------------------------------------------------- eval */

static int assigned_in(const kp_kernel *k, const kp_decl *d);

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
		if (d->kind == KP_D_VAR && d->is_const && d->init && !d->is_array)
			return eval_depth(d->init, k, iv, out, depth + 1);
		/* a local of the kernel that is never changed after its
		 * initialiser (`int stride = BM / n;`) has that value */
		if (d->kind == KP_D_VAR && d->init && !d->is_array && !d->is_pointer &&
		    !d->is_shared && k && k->body && d->in_main && d->begin >= k->begin &&
		    d->end <= k->end && !assigned_in(k, d))
			return eval_depth(d->init, k, iv, out, depth + 1);
		return -1;
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

/* ------------------------------------------------------------ helpers */

typedef struct {
	kp_file *f;
	kp_kernel *k;
	const long long *iv; /* instantiation values or NULL */
	kp_loop *l;
	const kp_targ *targs;    /* the instantiation's arguments (types) or NULL */
	struct copy_temp *temps; /* copies through a temporary (find_temps) */
	int ntemps;
} actx;

/* ------------------------------------------------ template type arguments */

/* A type spelling without cv-qualifiers, restrict and extra spaces:
 * "const T" -> "T", "volatile unsigned  int" -> "unsigned int". */
static const char *strip_cv(kp_arena *a, const char *t)
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
static long long bound_size(actx *c, const char *t)
{
	if (!c->targs || !t)
		return -1;
	int i = type_param_index(c, strip_cv(&c->f->arena, t));
	if (i < 0 || i >= 8 || !c->targs[i].type || !c->targs[i].known)
		return -1;
	return c->targs[i].size;
}

/* The element size of an array or variable, binding a template type. */
static long long elem_size_of(actx *c, const kp_decl *d)
{
	if (d->elem_size > 0)
		return d->elem_size;
	return bound_size(c, d->elem_type);
}

/* Whether the type a pointer type points to and a tile's element type
 * are the same once cv-qualifiers are dropped and template type parameters
 * bound: 1 yes, 0 no, -1 cannot tell (a parameter without a binding). */
static int same_pointee(actx *c, const char *ptr, const char *elem, int *uses_param)
{
	kp_arena *a = &c->f->arena;
	const char *star = ptr ? strrchr(ptr, '*') : NULL;
	if (!star || !elem)
		return -1;
	const char *x[2] = {strip_cv(a, kp_arena_strndup(a, ptr, (size_t)(star - ptr))),
			    strip_cv(a, elem)};
	*uses_param = 0;
	for (int j = 0; j < 2; j++) {
		int i = type_param_index(c, x[j]);
		if (i < 0)
			continue;
		*uses_param = 1;
		if (!c->targs || i >= 8 || !c->targs[i].type)
			return -1;
		x[j] = strip_cv(a, c->targs[i].type);
	}
	return !strcmp(x[0], x[1]);
}

/* Whether pointer src points to tile's element type, from clang's
 * canonical types (typedefs resolved, qualifiers dropped): 1, 0, or -1
 * when either is unknown or depends on a template parameter. */
static int same_canon(const kp_decl *src, const kp_decl *tile)
{
	const char *p = src->pointee_canon, *e = tile->elem_type;
	if (!p || !e || tile->ty.kind != KP_TY_ARRAY || strstr(p, "type-parameter-") ||
	    strstr(e, "type-parameter-") || tile->elem_size < 0)
		return -1;
	if (!strncmp(e, "const ", 6))
		e += 6;
	if (!strncmp(e, "volatile ", 9))
		e += 9;
	return !strcmp(p, e);
}

static void add_reason(actx *c, const kp_node *at, const char *id, const char *fmt, ...)
	KP_PRINTF(4, 5);

static void add_reason(actx *c, const kp_node *at, const char *id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_loop_vrefuse(c->f, c->l, at, id, fmt, ap);
	va_end(ap);
}

/* Whether a barrier call's operands (the group object, the predicate of
 * __syncthreads_count) could be dropped with it: no assignment, ++/--,
 * lambda, asm or call other than cg::this_thread_block(). */
static int sync_operands_pure(const kp_node *n, const kp_node *call)
{
	if (!n)
		return 1;
	switch (n->kind) {
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA:
	case KP_N_ASM: return 0;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN)
			return 0;
		break;
	case KP_N_UNOP:
		if (n->op && (KP_OP_IS_INCDEC(n->opk)))
			return 0;
		break;
	case KP_N_CALL:
		if (n != call && !(n->name && !strcmp(n->name, "this_thread_block")))
			return 0;
		break;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		if (!sync_operands_pure(n->kids[i], call))
			return 0;
	return 1;
}

/* A top-level statement that is one of the loop's two barriers: a block
 * barrier (__syncthreads(), a cg::thread_block's sync(), cg::sync(block))
 * or __syncthreads_count/_and/_or whose result is dropped, with operands
 * the rewrite may drop when it replaces it by __syncthreads(). */
static int is_barrier(const kp_node *n)
{
	return n && n->kind == KP_N_CALL &&
	       (n->sync == KP_SYNC_BLOCK || n->sync == KP_SYNC_BLOCK_VALUE) &&
	       sync_operands_pure(n, n);
}

/* How a message names a barrier call: as written when short. */
static const char *call_label(actx *c, const kp_node *n)
{
	if (n->name && !strcmp(n->name, "__syncthreads"))
		return "__syncthreads()";
	if (n->in_main && n->end > n->begin && n->end - n->begin <= 64)
		return kp_arena_printf(&c->f->arena, "'%s'", kp_node_text(c->f, n));
	return kp_arena_printf(&c->f->arena, "'%s()'", n->name ? n->name : "?");
}

/* Root declaration of an lvalue: As[i][j], *reinterpret_cast<T*>(&As[i][j]),
 * ((float4*)As)[i], p->x ... */
static kp_node *lvalue_root(kp_node *n)
{
	for (int guard = 0; n && guard < 64; guard++) {
		switch (n->kind) {
		case KP_N_DECLREF: return n;
		case KP_N_SUBSCRIPT:
		case KP_N_PAREN:
		case KP_N_CAST:
		case KP_N_OTHER:
		case KP_N_MEMBER:
			if (!n->nkids)
				return NULL;
			n = n->kind == KP_N_CAST || n->kind == KP_N_OTHER ? n->kids[n->nkids - 1]
									  : n->kids[0];
			break;
		case KP_N_UNOP:
			if (!n->nkids || (n->opk != KP_OP_DEREF && n->opk != KP_OP_ADDR))
				return NULL;
			n = n->kids[0];
			break;
		case KP_N_BINOP: /* pointer arithmetic: base + off */
			if (n->nkids != 2 || (n->opk != KP_OP_ADD && n->opk != KP_OP_SUB))
				return NULL;
			n = n->kids[0];
			break;
		default: return NULL;
		}
	}
	return NULL;
}

static int is_assign(const kp_node *n)
{
	return n && n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ASSIGN;
}

kp_node *kp_lvalue_root(kp_node *n) { return lvalue_root(n); }

/* What a write node writes: the target of an assignment (plain or
 * compound; *plain says which) or of ++/--; NULL for other nodes. */
kp_node *kp_write_target(const kp_node *n, int *plain)
{
	*plain = 0;
	if ((is_assign(n) || n->kind == KP_N_ASSIGNOP) && n->nkids == 2) {
		*plain = is_assign(n);
		return n->kids[0];
	}
	if (n->kind == KP_N_UNOP && n->nkids == 1 && n->op && (KP_OP_IS_INCDEC(n->opk)))
		return n->kids[0];
	return NULL;
}

typedef struct {
	const kp_decl *d;
	int assigned;
	const kp_file *f; /* when set: an asm statement changes its outputs only */
} reassign_walk;

static int find_reassign(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	if (!t && n->kind == KP_N_UNOP && n->nkids == 1 && n->op && n->opk == KP_OP_ADDR)
		t = n->kids[0]; /* its address taken: it may change */
	t = t ? (kp_node *)kp_node_strip(t) : NULL;
	if (t && t->kind == KP_N_DECLREF && t->decl == w->d)
		w->assigned = 1;
	return !w->assigned;
}

static int names_var(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d)
		w->assigned = 1;
	return !w->assigned;
}

/* What else may change a variable: a call handed it where the callee's
 * parameter is a non-const reference (or the callee is unknown), an asm
 * statement or a lambda that names it. */
static int find_hidden_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	reassign_walk *w = ud;
	if (w->assigned)
		return 0;
	if (n->kind == KP_N_ASM && w->f && n->in_main && n->end <= w->f->len) {
		/* its output operands come first, each constraint "=..." or "+..." */
		int nout = 0;
		for (unsigned i = n->begin; i + 1 < n->end; i++)
			nout += w->f->src[i] == '"' &&
				(w->f->src[i + 1] == '=' || w->f->src[i + 1] == '+');
		for (int i = 0; i < nout && i < n->nkids; i++)
			kp_node_walk(n->kids[i], NULL, names_var, w);
		return 0;
	}
	if (n->kind == KP_N_ASM || n->kind == KP_N_LAMBDA) {
		kp_node_walk(n, NULL, names_var, w);
		return 0;
	}
	if (n->kind == KP_N_CALL)
		for (int i = kp_call_first_arg(n); i < n->nkids; i++) {
			const kp_node *a = kp_node_strip(n->kids[i]);
			if (a && a->kind == KP_N_DECLREF && a->decl == w->d &&
			    kp_call_arg_write(n, i) == 1)
				w->assigned = 1;
		}
	return 1;
}

/* Whether d is assigned, incremented, has its address taken, or is handed
 * to something that may change it anywhere in k's body. */
static int assigned_in(const kp_kernel *k, const kp_decl *d)
{
	reassign_walk w = {d, 0, NULL};
	kp_node_walk(k->body, NULL, find_reassign, &w);
	if (!w.assigned)
		kp_node_walk(k->body, NULL, find_hidden_write, &w);
	return w.assigned;
}

int kp_assigned_in(const kp_kernel *k, const kp_decl *d) { return assigned_in(k, d); }

int kp_changed_in(const kp_file *f, const kp_kernel *k, const kp_decl *d)
{
	reassign_walk w = {d, 0, f};
	kp_node_walk(k->body, NULL, find_reassign, &w);
	if (!w.assigned)
		kp_node_walk(k->body, NULL, find_hidden_write, &w);
	return w.assigned;
}

const kp_decl *kp_call_shared_arg(const kp_node *call)
{
	for (int i = 1; i < call->nkids; i++) {
		kp_node *r = (kp_node *)kp_node_strip(call->kids[i]);
		r = r ? lvalue_root(r) : NULL;
		if (r && r->decl && r->decl->is_shared && r->decl->is_array)
			return r->decl;
	}
	return NULL;
}

/* A carve-out: a local pointer initialised into a shared array and never
 * changed (`float *Kj = &sram[tile_size];`).  Returns the array, or NULL. */
static const kp_decl *carve_out_of(const kp_kernel *k, const kp_decl *d)
{
	if (!d || d->kind != KP_D_VAR || !d->is_pointer || !d->init || !k || !k->body)
		return NULL;
	kp_node *r = lvalue_root(d->init);
	if (!r || !r->decl || !r->decl->is_shared || !r->decl->is_array)
		return NULL;
	return assigned_in(k, d) ? NULL : r->decl;
}

/* A variable of the thread declared in the kernel's body, not static, with
 * no pointer or reference in its type: a write into it stays in the thread. */
static int thread_local_var(const kp_file *f, const kp_kernel *k, const kp_decl *d)
{
	if (!d || d->kind != KP_D_VAR || d->is_shared || d->is_pointer || !d->type ||
	    strchr(d->type, '*') || strchr(d->type, '&') || !k->body || d->begin < k->body->begin ||
	    d->end > k->body->end || d->name_off < d->begin)
		return 0;
	for (unsigned o = d->begin; o + 6 <= d->name_off; o++)
		if (!strncmp(f->src + o, "static", 6) &&
		    (o == d->begin || !kp_is_ident_char(f->src[o - 1])) &&
		    !kp_is_ident_char(f->src[o + 6]))
			return 0;
	return 1;
}

/* A pointer into a variable of the thread: a local pointer (one level, never
 * changed) initialised with the variable's address or, for an array, the
 * array (`T *const p = reinterpret_cast<T *>(&vec);`, the masking of a
 * loaded vector).  Stores through it write the thread's own variable,
 * never memory a tile load reads.  Returns the variable, or NULL. */
static const kp_decl *points_into_local(const kp_file *f, const kp_kernel *k, const kp_decl *d)
{
	if (!d || d->kind != KP_D_VAR || !d->is_pointer || !d->init || !k || !k->body || !d->type ||
	    strchr(d->type, '&') || strchr(d->type, '*') != strrchr(d->type, '*'))
		return NULL;
	const kp_node *n = kp_node_strip(d->init);
	int addr = n && n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids == 1;
	kp_node *r = lvalue_root((kp_node *)n);
	if (!r || !r->decl || !thread_local_var(f, k, r->decl) || (!addr && !r->decl->is_array) ||
	    (!addr && kp_node_strip(n) != r))
		return NULL;
	return assigned_in(k, d) ? NULL : r->decl;
}

const kp_decl *kp_written_var(const kp_file *f, const kp_kernel *k, kp_node *t, int *through)
{
	kp_node *r = t ? lvalue_root(t) : NULL;
	*through = 0;
	if (!r || !r->decl)
		return NULL;
	const kp_decl *into = r != kp_node_strip(t) ? points_into_local(f, k, r->decl) : NULL;
	*through = into != NULL;
	return into ? into : r->decl;
}

/* ---- dynamic (extern) shared memory ---- */

/* `&base[X]`, `base + X` or `base` (casts and parentheses aside): X, or NULL
 * for the array itself; *ok 0 for any other form. */
static const kp_node *carve_offset(const kp_node *init, const kp_decl *base, int *ok)
{
	const kp_node *n = kp_node_strip(init);
	*ok = 1;
	if (n && n->kind == KP_N_DECLREF && n->decl == base)
		return NULL;
	if (n && n->kind == KP_N_UNOP && n->op && n->opk == KP_OP_ADDR && n->nkids == 1) {
		const kp_node *sub = kp_node_strip(n->kids[0]);
		if (sub->kind == KP_N_SUBSCRIPT && sub->nkids == 2) {
			const kp_node *b = kp_node_strip(sub->kids[0]);
			if (b->kind == KP_N_DECLREF && b->decl == base)
				return sub->kids[1];
		}
	}
	if (n && n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ADD && n->nkids == 2) {
		const kp_node *b = kp_node_strip(n->kids[0]);
		if (b->kind == KP_N_DECLREF && b->decl == base)
			return n->kids[1];
	}
	*ok = 0;
	return NULL;
}

static int mark_carve(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	kp_kernel *k = ud;
	kp_decl *d = n->kind == KP_N_VARDECL ? n->decl : NULL;
	if (!d || d->kind != KP_D_VAR || !d->is_pointer || d->is_shared || !d->init)
		return 1;
	kp_node *r = lvalue_root(d->init);
	if (!r || !kp_decl_is_extern_shared(r->decl))
		return 1;
	int ok;
	const kp_node *off = carve_offset(d->init, r->decl, &ok);
	if (!ok || assigned_in(k, d))
		return 1;
	d->dyn_base = r->decl;
	d->dyn_off = off;
	d->is_shared = 1;
	d->is_array = 1;
	d->ndims = 0;
	return 1;
}

/* Marks the kernel's carve-outs of dynamic shared memory (model.h,
 * kp_decl.dyn_base); once per kernel, whatever the pass. */
static void mark_carve_outs(kp_kernel *k)
{
	if (k->body)
		kp_node_walk(k->body, NULL, mark_carve, k);
}

typedef struct {
	const kp_decl *base;
	const kp_decl *other;  /* another extern array the kernel names */
	const kp_node *direct; /* the base named outside a carve-out's initialiser */
	const kp_decl *carves[16];
	int ncarves;
} dyn_walk;

static int walk_dynamic(kp_node *n, kp_node *parent, void *ud)
{
	dyn_walk *w = ud;
	(void)parent;
	if (n->kind == KP_N_VARDECL && n->decl && n->decl->dyn_base == w->base) {
		if (w->ncarves < 16)
			w->carves[w->ncarves++] = n->decl;
		return 0; /* its initialiser names the base: not a direct use */
	}
	if (n->kind != KP_N_DECLREF || !n->decl)
		return 1;
	if (n->decl == w->base) {
		if (!w->direct)
			w->direct = n;
	} else if (kp_decl_is_extern_shared(n->decl) && !w->other)
		w->other = n->decl;
	return 1;
}

/* Why the dynamic tile t cannot get a buffer per stage in dynamic shared
 * memory (the extern region repeated once per stage, kp_stage_bytes
 * apart), or NULL. */
static const char *dynamic_tile_problem(actx *c, const kp_tile *t)
{
	kp_arena *a = &c->f->arena;
	const kp_decl *d = t->arr, *base = d->dyn_base ? d->dyn_base : d;
	if (c->k->is_device)
		return kp_arena_printf(
			a,
			"'%s' is dynamic shared memory of a __device__ function: the "
			"launches of its callers would have to change",
			d->name);
	if (t->in_loop)
		return kp_arena_printf(a, "'%s' is declared inside the loop", d->name);
	dyn_walk w = {base, NULL, NULL, {0}, 0};
	kp_node_walk(c->k->body, NULL, walk_dynamic, &w);
	if (w.other)
		return kp_arena_printf(
			a,
			"the kernel names two extern __shared__ arrays ('%s' and '%s'), "
			"which are one region",
			base->name, w.other->name);
	if (w.ncarves >= 16)
		return "more than 16 carve-outs of one dynamic array";
	if (w.ncarves && w.direct)
		return kp_arena_printf(
			a,
			"'%s' is used at line %d besides its carve-outs: kpipe cannot "
			"tell what else lives in the region",
			base->name, w.direct->line);
	for (int i = 0; i < w.ncarves; i++)
		for (int j = i + 1; j < w.ncarves; j++) {
			const kp_node *x = w.carves[i]->dyn_off, *y = w.carves[j]->dyn_off;
			long long vx = 0, vy = 0;
			int cx = !x || kp_eval(x, c->k, c->iv, &vx) == 0;
			int cy = !y || kp_eval(y, c->k, c->iv, &vy) == 0;
			int same = (cx && cy) ? vx == vy
				   : (!cx && !cy)
					   ? !strcmp(kp_node_text(c->f, x), kp_node_text(c->f, y))
					   : 0;
			if (same)
				return kp_arena_printf(
					a,
					"the carve-outs '%s' and '%s' of '%s' start at the "
					"same offset: they alias",
					w.carves[i]->name, w.carves[j]->name, base->name);
		}
	return NULL;
}

/* The body of a loop statement: a for-statement's body slot (model.h), a
 * do-statement's first child (libclang gives the body, then the
 * condition), else the last child. */
static kp_node *loop_body(const kp_node *n)
{
	if (n->kind == KP_N_FOR)
		return n->for_body;
	if (n->kind == KP_N_DO)
		return n->nkids ? n->kids[0] : NULL;
	return n->nkids ? n->kids[n->nkids - 1] : NULL;
}

static int is_zero_literal(const kp_node *n);

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

/* Whether a call gives zero: a CUDA function (declared outside the main
 * file) make_T<n> of n zero arguments, one of zero_convs of a zero
 * argument; never a function kpipe does not know (make_far_point()). */
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
	if (want <= 0 || na != want)
		return 0;
	for (int i = 0; i < na; i++)
		if (!is_zero_literal(args[i]))
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

static int is_zero_literal(const kp_node *n)
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
			if (!is_zero_literal(n->kids[i]))
				return 0;
		return 1;
	}
	return 0;
}

int kp_is_zero_value(const kp_node *n) { return is_zero_literal(n); }

/* Whether a type spelling is `name` with cv-qualifiers at most
 * ("const float4" is float4). */
static int is_type_named(const char *type, const char *name)
{
	size_t nl = strlen(name);
	for (;;) {
		if (!strncmp(type, "const ", 6))
			type += 6;
		else if (!strncmp(type, "volatile ", 9))
			type += 9;
		else
			break;
	}
	if (strncmp(type, name, nl))
		return 0;
	type += nl;
	while (!strncmp(type, " const", 6) || !strncmp(type, " volatile", 9))
		type += type[1] == 'c' ? 6 : 9;
	return !*type;
}

/* A value copied as it is: the copy constructor that a ternary such as
 * `c ? FLOAT4(p[i]) : make_float4(0.f, 0.f, 0.f, 0.f)` puts around the
 * const float4 it reads (a call named as its type, of one argument of
 * that type). */
static kp_node *strip_copy_ctor(kp_node *n)
{
	n = (kp_node *)kp_node_strip(n);
	while (n && n->kind == KP_N_CALL && n->nkids == 1 && n->name && n->name[0] && n->type &&
	       n->kids[0]->type && is_type_named(n->type, n->name) &&
	       is_type_named(n->kids[0]->type, n->name))
		n = (kp_node *)kp_node_strip(n->kids[0]);
	return n;
}

/* A pure global load expression: P[i], *(T*)&P[i], *reinterpret_cast<const T*>(P + i),
 * FLOAT4(P[i]) (reinterpret_cast<float4 *>(&P[i])[0] from a macro) */
static kp_node *global_load_root(kp_node *n)
{
	n = strip_copy_ctor(n);
	if (!n || (n->kind != KP_N_SUBSCRIPT && !(n->kind == KP_N_UNOP && n->opk == KP_OP_DEREF)))
		return NULL;
	kp_node *r = lvalue_root(n);
	if (!r || !r->decl || r->decl->is_shared || !r->decl->is_pointer)
		return NULL;
	return r;
}

typedef struct {
	actx *c;
	int barriers, nested_barriers, divergent_barriers;
	int atomics, fences, pipeline, asm_stmt;
	kp_node *first_barrier_nested, *first_atomic, *first_fence, *first_pipeline;
	kp_node *first_other_sync; /* a barrier kpipe does not model (KP_SYNC_OTHER) */
	kp_node *first_part_sync;  /* a sync of part of the block (KP_SYNC_PART) */
	int depth_if, depth_loop;
} scan_info;

static const char *const pipeline_calls[] = {
	"__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior", "memcpy_async",
	"producer_acquire",        "consumer_wait",     "cp_async_wait",
};

/* Whether the macro an inline-asm statement comes from (the identifier its
 * text starts with, `CP_ASYNC_CG(dst, src, 16)`) is #defined in the file
 * with "cp.async" in its body. */
static int asm_macro_is_cp_async(const kp_file *f, const kp_node *n)
{
	const char *t = kp_node_text((kp_file *)f, (kp_node *)n);
	size_t len = 0;
	while (t && kp_is_ident_char(t[len]))
		len++;
	if (!len)
		return 0;
	for (const char *p = f->src; (p = strstr(p, "#define")) != NULL; p += 7) {
		const char *q = p + 7;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, t, len) || kp_is_ident_char(q[len]))
			continue;
		/* the definition, continuation lines included */
		const char *e = q;
		while (*e && (*e != '\n' || e[-1] == '\\'))
			e++;
		for (const char *c = q; c + 8 <= e; c++)
			if (!strncmp(c, "cp.async", 8))
				return 1;
	}
	return 0;
}

static void scan_calls(kp_node *n, scan_info *s, int in_if, int in_loop)
{
	if (!n)
		return;
	if (n->kind == KP_N_CALL && n->sync == KP_SYNC_PART) {
		/* a warp, a tile or a coalesced group: not the block's barrier,
		 * and not counted as one */
		if (!s->first_part_sync)
			s->first_part_sync = n;
	} else if (n->kind == KP_N_CALL && n->name) {
		if (n->sync != KP_SYNC_NONE) {
			s->barriers++;
			if (n->sync == KP_SYNC_OTHER && !s->first_other_sync)
				s->first_other_sync = n;
			if (in_if || in_loop) {
				s->nested_barriers++;
				if (in_if)
					s->divergent_barriers++;
				if (!s->first_barrier_nested)
					s->first_barrier_nested = n;
			}
		} else if (!strncmp(n->name, "atomic", 6) || !strncmp(n->name, "__atomic", 8)) {
			s->atomics++;
			if (!s->first_atomic)
				s->first_atomic = n;
		} else if (!strncmp(n->name, "__threadfence", 13)) {
			s->fences++;
			if (!s->first_fence)
				s->first_fence = n;
		} else {
			for (size_t i = 0; i < KP_ARRAY_LEN(pipeline_calls); i++)
				if (!strcmp(n->name, pipeline_calls[i])) {
					s->pipeline++;
					if (!s->first_pipeline)
						s->first_pipeline = n;
				}
		}
	}
	if (n->kind == KP_N_ASM) {
		s->asm_stmt++;
		if (n->in_main && (strstr(kp_node_text(s->c->f, n), "cp.async") ||
				   (n->from_macro && asm_macro_is_cp_async(s->c->f, n)))) {
			s->pipeline++;
			if (!s->first_pipeline)
				s->first_pipeline = n;
		}
	}
	int child_if = in_if, child_loop = in_loop;
	if (n->kind == KP_N_IF || n->kind == KP_N_CONDOP || n->kind == KP_N_SWITCH)
		child_if = 1;
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO)
		child_loop = 1;
	if (n->kind == KP_N_BINOP && n->op && (n->opk == KP_OP_LAND || n->opk == KP_OP_LOR))
		child_if = 1;
	for (int i = 0; i < n->nkids; i++)
		scan_calls(n->kids[i], s, child_if, child_loop);
}

/* Reads and writes of declarations in a subtree. */
typedef struct {
	kp_decl **w;
	kp_node **wat;
	int nw, capw;
	kp_decl **r;
	int nr, capr;
	kp_decl **decl; /* declared inside */
	int nd, capd;
	kp_decl **gs; /* pointers stored through (global memory), first store each */
	kp_node **gsat;
	int ngs, capgs;
} rw_set;

static void push_decl(kp_decl ***v, int *n, int *cap, kp_decl *d)
{
	for (int i = 0; i < *n; i++)
		if ((*v)[i] == d)
			return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = kp_xrealloc(*v, sizeof(**v) * (size_t)*cap);
	}
	(*v)[(*n)++] = d;
}

static int rw_has(kp_decl **v, int n, const kp_decl *d)
{
	for (int i = 0; i < n; i++)
		if (v[i] == d)
			return 1;
	return 0;
}

static void rw_release(rw_set *s)
{
	free(s->w);
	free(s->wat);
	free(s->r);
	free(s->decl);
	free(s->gs);
	free(s->gsat);
	memset(s, 0, sizeof(*s));
}

static void note_write(rw_set *s, kp_node *target, kp_node *at)
{
	kp_node *root = lvalue_root(target);
	if (!root || !root->decl)
		return;
	/* a store through a pointer that is not shared: global memory, not a
	 * change of the pointer itself */
	if (root->decl->is_pointer && !root->decl->is_shared && root != kp_node_strip(target)) {
		int before = s->ngs;
		push_decl(&s->gs, &s->ngs, &s->capgs, root->decl);
		if (s->ngs != before) {
			s->gsat = kp_xrealloc(s->gsat, sizeof(*s->gsat) * (size_t)s->capgs);
			s->gsat[s->ngs - 1] = at;
		}
		return;
	}
	int before = s->nw;
	push_decl(&s->w, &s->nw, &s->capw, root->decl);
	if (s->nw != before) {
		s->wat = kp_xrealloc(s->wat, sizeof(*s->wat) * (size_t)s->capw);
		s->wat[s->nw - 1] = at;
	}
}

static void collect_rw(kp_node *n, rw_set *s)
{
	if (!n)
		return;
	switch (n->kind) {
	case KP_N_VARDECL:
		if (n->decl)
			push_decl(&s->decl, &s->nd, &s->capd, n->decl);
		break;
	case KP_N_BINOP:
		if (is_assign(n) && n->nkids == 2)
			note_write(s, n->kids[0], n);
		break;
	case KP_N_ASSIGNOP:
		if (n->nkids == 2)
			note_write(s, n->kids[0], n);
		break;
	case KP_N_UNOP:
		if (n->nkids == 1 && n->op && (KP_OP_IS_INCDEC(n->opk)))
			note_write(s, n->kids[0], n);
		break;
	case KP_N_DECLREF:
		if (n->decl && (n->decl->kind == KP_D_VAR || n->decl->kind == KP_D_PARM))
			push_decl(&s->r, &s->nr, &s->capr, n->decl);
		break;
	case KP_N_CALL: {
		/* what the call may change, from the callee's parameter types
		 * and the arguments' own (pure.h): an array passed, or an address
		 * into one (`&As[y][x]`, `As + 4`, a row `As[r]`), may have its
		 * elements written; a variable, its value (bound to a non-const
		 * reference, or handed to a call kpipe cannot see); a constant,
		 * a template parameter or a const object, nothing */
		int a0 = kp_call_first_arg(n);
		for (int i = a0; i < n->nkids; i++) {
			int w = kp_call_arg_write(n, i);
			if (!w)
				continue;
			kp_node *a = (kp_node *)kp_node_strip(n->kids[i]);
			kp_node *r = a && a->kind != KP_N_DECLREF && a->type &&
						     (strchr(a->type, '*') || strchr(a->type, '['))
					     ? lvalue_root(a)
					     : NULL;
			if (r && r->decl && r->decl->is_array)
				a = r;
			if (a && a->kind == KP_N_DECLREF && a->decl && a->decl->is_array)
				note_write(s, a, n);
			else if (w == 1 && a && (n->decl || a->kind == KP_N_DECLREF))
				note_write(s, n->kids[i], n);
		}
		break;
	}
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		collect_rw(n->kids[i], s);
}

static void collect_range(kp_loop *l, int b, int e, rw_set *s)
{
	for (int i = b; i < e; i++)
		collect_rw(l->stmts[i], s);
}

/* ---------------------------------------------------------- induction */

/* A step may only combine variables, constants and arithmetic: no loads,
 * calls or assignments. */
static int pure_expr(const kp_node *n)
{
	if (!n)
		return 1;
	switch (n->kind) {
	case KP_N_SUBSCRIPT:
	case KP_N_CALL:
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA: return 0;
	case KP_N_UNOP:
		if (n->op && (n->opk == KP_OP_DEREF || KP_OP_IS_INCDEC(n->opk)))
			return 0;
		break;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN)
			return 0;
		break;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++)
		if (!pure_expr(n->kids[i]))
			return 0;
	return 1;
}

static const char *step_text_raw(actx *c, kp_node *n, int *sign);

static const char *step_text(actx *c, kp_node *n, int *sign)
{
	const char *st = step_text_raw(c, n, sign);
	if (st && n->nkids == 2 && !pure_expr(n->kids[1]))
		return NULL;
	if (st && is_assign(n) && !pure_expr(n->kids[1]))
		return NULL;
	return st;
}

static const char *step_text_raw(actx *c, kp_node *n, int *sign)
{
	/* n is an increment expression; returns the step and sets sign */
	*sign = 1;
	if (n->kind == KP_N_UNOP && n->nkids == 1) {
		if ((n->opk == KP_OP_PRE_INC || n->opk == KP_OP_POST_INC))
			return "1";
		if ((n->opk == KP_OP_PRE_DEC || n->opk == KP_OP_POST_DEC)) {
			*sign = -1;
			return "1";
		}
		return NULL;
	}
	if (n->kind == KP_N_ASSIGNOP && n->nkids == 2) {
		if (n->opk == KP_OP_SUB_ASSIGN)
			*sign = -1;
		else if (n->opk != KP_OP_ADD_ASSIGN)
			return NULL;
		if (!n->kids[1]->in_main)
			return NULL;
		return kp_node_text(c->f, n->kids[1]);
	}
	if (is_assign(n) && n->nkids == 2) {
		/* v = v + s */
		kp_node *rhs = (kp_node *)kp_node_strip(n->kids[1]);
		kp_node *lhs = (kp_node *)kp_node_strip(n->kids[0]);
		if (rhs->kind == KP_N_BINOP && rhs->nkids == 2 && lhs->kind == KP_N_DECLREF &&
		    (rhs->opk == KP_OP_ADD || rhs->opk == KP_OP_SUB)) {
			kp_node *a = (kp_node *)kp_node_strip(rhs->kids[0]);
			if (a->kind == KP_N_DECLREF && a->decl == lhs->decl &&
			    rhs->kids[1]->in_main) {
				if ((rhs->opk == KP_OP_SUB || rhs->opk == KP_OP_MINUS))
					*sign = -1;
				return kp_node_text(c->f, rhs->kids[1]);
			}
		}
	}
	return NULL;
}

static kp_decl *inc_var(kp_node *n)
{
	if (!n || n->nkids < 1)
		return NULL;
	kp_node *v = (kp_node *)kp_node_strip(n->kids[0]);
	if (v->kind != KP_N_DECLREF || !v->decl)
		return NULL;
	if (n->kind == KP_N_UNOP || n->kind == KP_N_ASSIGNOP || is_assign(n))
		return v->decl;
	return NULL;
}

static void add_ind(actx *c, kp_decl *v, const char *step, int sign, int in_header, kp_node *stmt)
{
	kp_loop *l = c->l;
	kp_induct *ni = kp_arena_alloc(&c->f->arena, sizeof(*ni) * (size_t)(l->nind + 1));
	if (l->nind)
		memcpy(ni, l->ind, sizeof(*ni) * (size_t)l->nind);
	ni[l->nind] = (kp_induct){v, step, sign, in_header, v->is_pointer, stmt};
	l->ind = ni;
	l->nind++;
}

static void gather_header_incs(actx *c, kp_node *inc)
{
	if (!inc)
		return;
	if (inc->kind == KP_N_BINOP && inc->op && inc->opk == KP_OP_COMMA) {
		for (int i = 0; i < inc->nkids; i++)
			gather_header_incs(c, inc->kids[i]);
		return;
	}
	int sign;
	kp_decl *v = inc_var(inc);
	const char *st = v ? step_text(c, inc, &sign) : NULL;
	if (!v || !st) {
		add_reason(c, inc, "kpipe-loop-shape",
			   "the loop increment '%s' is not a constant-step update of a variable",
			   kp_node_text(c->f, inc));
		return;
	}
	add_ind(c, v, st, sign, 1, inc);
}

static int is_ind(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nind; i++)
		if (l->ind[i].var == d)
			return 1;
	return 0;
}

/* ------------------------------------------------------------- loads */

static void add_load(actx *c, kp_load *ld)
{
	kp_loop *l = c->l;
	kp_load *nl = kp_arena_alloc(&c->f->arena, sizeof(*nl) * (size_t)(l->nloads + 1));
	if (l->nloads)
		memcpy(nl, l->loads, sizeof(*nl) * (size_t)l->nloads);
	nl[l->nloads++] = *ld;
	l->loads = nl;
}

static kp_node *assign_of(kp_node *stmt)
{
	kp_node *s = stmt;
	while (s && s->kind == KP_N_COMPOUND && s->nkids == 1)
		s = s->kids[0];
	if (s && (s->kind == KP_N_OTHER || s->kind == KP_N_PAREN) && s->nkids == 1 &&
	    is_assign(s->kids[0]))
		s = s->kids[0];
	return is_assign(s) ? s : NULL;
}

static int shared_lhs(kp_node *lhs, kp_decl **tile)
{
	kp_node *r = lvalue_root(lhs);
	if (r && r->decl && r->decl->is_shared && r->decl->is_array) {
		*tile = r->decl;
		return 1;
	}
	return 0;
}

static kp_node *find_global_load(kp_node *n)
{
	if (!n)
		return NULL;
	kp_node *r = global_load_root(n);
	if (r)
		return r;
	for (int i = 0; i < n->nkids; i++) {
		r = find_global_load(n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

/* The load phase's extent [*b, *e) in the file; 0 when it is empty. */
static int load_extent(const kp_loop *l, unsigned *b, unsigned *e)
{
	if (l->load_e <= l->load_b)
		return 0;
	*b = l->stmts[l->load_b]->begin;
	*e = l->stmts[l->load_e - 1]->end;
	return 1;
}

typedef struct {
	const kp_decl *d;
	unsigned b, e;
	int outside;
} scratch_walk;

static int use_outside(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	scratch_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl == w->d && (n->begin < w->b || n->begin >= w->e))
		w->outside = 1;
	return !w->outside;
}

/* A scratch register of the load phase: a local of the kernel declared
 * before the loop (`float ldg_a[4];`), not a reference, pointer or
 * static, that the kernel names only inside this loop's load phase.
 * Every rewritten form runs the load phase once per tile, in tile order,
 * and nothing else touches the scratch register, so its values evolve as
 * in the original. */
int kp_is_scratch(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d)
{
	unsigned b, e;
	if (!d || d->kind != KP_D_VAR || d->is_shared || d->is_pointer || !d->type ||
	    strchr(d->type, '&') || !k->body || !load_extent(l, &b, &e))
		return 0;
	if (d->begin < k->body->begin || d->end > l->node->begin)
		return 0;
	if (d->begin + 7 <= f->len && !strncmp(f->src + d->begin, "static ", 7))
		return 0;
	scratch_walk w = {d, b, e, 0};
	/* the declaration itself names it outside: skip its statement */
	for (int i = 0; i < k->body->nkids && !w.outside; i++) {
		kp_node *st = k->body->kids[i];
		if (st->begin <= d->begin && st->end >= d->end && st->kind == KP_N_DECLSTMT)
			continue;
		kp_node_walk(st, k->body, use_outside, &w);
	}
	return !w.outside;
}

typedef struct {
	const kp_decl *d;
	kp_node *load; /* the global load an assignment to d reads */
} assign_walk;

static int find_assign_load(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	assign_walk *w = ud;
	if (w->load)
		return 0;
	if (is_assign(n) && n->nkids == 2) {
		kp_node *r = lvalue_root(n->kids[0]);
		if (r && r->decl == w->d)
			w->load = find_global_load(n->kids[1]);
	}
	return !w->load;
}

typedef struct {
	const actx *c;
	const kp_decl *via;
	int other; /* a write the store after the math could not drop */
} stage_writes;

typedef struct {
	const actx *c;
	const kp_decl *d;
	int named;
} lhs_walk;

/* A write through a pointer into w->d (`vp[3 - i] = 0.f`). */
static int writes_through_pointer_into(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	lhs_walk *w = ud;
	int plain, through;
	kp_node *t = w->named ? NULL : kp_write_target(n, &plain);
	if (t && kp_written_var(w->c->f, w->c->k, t, &through) == w->d && through)
		w->named = 1;
	return !w->named;
}

static int names_in_shared_store(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	lhs_walk *w = ud;
	if (w->named)
		return 0;
	if (is_assign(n) && n->nkids == 2) {
		kp_node *r = lvalue_root(n->kids[0]);
		if (r && r->decl && r->decl->is_shared && kp_node_names_decl(n->kids[0], w->d))
			w->named = 1;
	}
	return !w->named;
}

/* Another copy's staging register (two vectors staged in one load phase,
 * each masked through a pointer): a local declared in the load phase, not
 * a pointer, that a global load fills by its initialiser or a plain
 * assignment, that is written through a pointer into it, and that no
 * shared store's target names.  The store after the math drops its writes
 * as it drops this copy's (its declaration and writes go with the fetch).
 * Temporaries written only directly are left to the canon pass, which
 * makes them guarded copies that cp.async can take too. */
static int other_stage_local(const actx *c, const kp_decl *d)
{
	const kp_loop *l = c->l;
	unsigned b, e;
	if (!d || d->kind != KP_D_VAR || d->is_shared || d->is_pointer || !d->type ||
	    strchr(d->type, '&') || !load_extent(l, &b, &e) || d->begin < b || d->end > e)
		return 0;
	kp_node *g = d->init ? find_global_load(d->init) : NULL;
	if (!g) {
		assign_walk w = {d, NULL};
		for (int i = l->load_b; i < l->load_e && !w.load; i++)
			kp_node_walk(l->stmts[i], NULL, find_assign_load, &w);
		g = w.load;
	}
	lhs_walk masked = {c, d, 0};
	for (int i = l->load_b; g && i < l->load_e && !masked.named; i++)
		kp_node_walk(l->stmts[i], NULL, writes_through_pointer_into, &masked);
	lhs_walk lw = {c, d, 0};
	for (int i = l->load_b; masked.named && i < l->load_e && !lw.named; i++)
		kp_node_walk(l->stmts[i], NULL, names_in_shared_store, &lw);
	return g && masked.named && !lw.named;
}

/* Writes in the load phase other than tile stores, plain `=` to the staging
 * register and copy-loop headers: register staging's store part keeps
 * them, which only the staging register's writes allow. */
static int find_other_write(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	stage_writes *w = ud;
	if (n->kind == KP_N_FOR) {
		kp_node_walk(n->for_cond, n, find_other_write, w);
		kp_node_walk(n->for_body, n, find_other_write, w);
		return 0; /* its init and step are the copy loop's own */
	}
	int plain, through;
	kp_node *t = kp_write_target(n, &plain);
	/* a store through a pointer into the staging register is a write of it
	 * (the masking of a loaded vector's tail); into any other variable, a
	 * write the store after the math could not drop */
	const kp_decl *d = t ? kp_written_var(w->c->f, w->c->k, t, &through) : NULL;
	if (d && through && d != w->via && !other_stage_local(w->c, d))
		w->other = 1;
	else if (d && !d->is_shared &&
		 !(plain && (d == w->via || kp_is_scratch(w->c->f, w->c->k, w->c->l, d) ||
			     other_stage_local(w->c, d))))
		w->other = 1;
	return !w->other;
}

/* The source's own register staging: the stored value reads a local of
 * the load phase (declared in it, or a scratch register declared before
 * the loop) whose initialiser or an assignment in the load phase loads
 * from global memory (`float4 v = A4[i]; As[c + 0][r] = v.x; ...`, a tile
 * transposed on its way in).  Returns that load's root and sets *via to
 * the local. */
static kp_node *staged_load(actx *c, kp_node *n, const kp_decl **via)
{
	if (!n)
		return NULL;
	const kp_loop *l = c->l;
	kp_decl *d = n->kind == KP_N_DECLREF ? n->decl : NULL;
	unsigned b, e;
	if (d && d->kind == KP_D_VAR && !d->is_shared && load_extent(l, &b, &e)) {
		int inside = d->begin >= b && d->end <= e;
		kp_node *g = inside && d->init ? find_global_load(d->init) : NULL;
		if (!g && (inside || kp_is_scratch(c->f, c->k, l, d))) {
			assign_walk w = {d, NULL};
			for (int i = l->load_b; i < l->load_e && !w.load; i++)
				kp_node_walk(l->stmts[i], NULL, find_assign_load, &w);
			g = w.load;
		}
		stage_writes sw = {c, d, 0};
		for (int i = l->load_b; g && i < l->load_e && !sw.other; i++)
			kp_node_walk(l->stmts[i], NULL, find_other_write, &sw);
		if (g && !sw.other) {
			*via = d;
			return g;
		}
	}
	for (int i = 0; i < n->nkids; i++) {
		kp_node *g = staged_load(c, n->kids[i], via);
		if (g)
			return g;
	}
	return NULL;
}

static void fill_copy(actx *c, kp_load *ld, kp_node *lhs, kp_node *rhs)
{
	ld->lhs = lhs;
	ld->rhs = rhs;
	ld->elem_type = lhs->type ? lhs->type : "?";
	ld->bytes = lhs->type_size;
	if (ld->bytes < 0)
		ld->bytes = bound_size(c, lhs->type);
	long long esz = ld->tile ? elem_size_of(c, ld->tile) : -1;
	if (ld->bytes < 0 && ld->tile)
		ld->bytes = esz;
	ld->vector = 1;
	if (esz > 0 && ld->bytes > esz)
		ld->vector = (int)(ld->bytes / esz);
	kp_node *root = global_load_root(rhs);
	if (!root) {
		/* a converting copy (__half2float(A[i]), 2.0f * A[i]): staged in
		 * registers as computed, never a cp.async */
		kp_node *g = find_global_load(rhs);
		if (!g)
			g = staged_load(c, rhs, &ld->via);
		if (g) {
			ld->src = g->decl;
			ld->src_base = g;
			ld->pure = 0;
		}
	}
	if (root) {
		ld->src = root->decl;
		ld->src_base = root;
		kp_node *sr = strip_copy_ctor(rhs);
		ld->pure = sr->type && lhs->type && ld->bytes > 0 &&
			   (sr->type_size == ld->bytes || sr->type_size < 0);
		/* converting copies (half -> float ...) are not pure; a template
		 * type parameter is compared as bound by the instantiation */
		if (ld->src->elem_type && ld->tile && ld->vector == 1 && ld->src->is_pointer) {
			const char *pt = ld->src->type;
			const char *et = ld->tile->elem_type;
			int uses_param = 0;
			int same = pt && et ? same_pointee(c, pt, et, &uses_param) : -1;
			/* clang's canonical types decide where neither depends on a
			 * template parameter (`real` of `typedef float real;` is
			 * float, a typedef of float4 is float4) */
			int canon = same_canon(ld->src, ld->tile);
			if (canon >= 0) {
				if (!canon)
					ld->pure = 0;
			} else if (uses_param) {
				if (same != 1)
					ld->pure = 0;
			} else if (pt && et && same != 1 && !strstr(pt, et) &&
				   !strstr(pt, "float4") && !strstr(pt, "int4") &&
				   !strstr(pt, "void"))
				ld->pure = 0;
		}
	}
}

/* ------------------------------------------------ copies through macros */

/* A copy is rewritten through the text of its parts: the transforms
 * replace its statement, the store target and the loaded value by their
 * source ranges (cp.async: `&lhs`, `&rhs`; register staging: the target
 * by a register, then `lhs = register`), and the guard's condition.  A
 * part written outside any macro has its own range.  One that comes from
 * a macro expansion has the range of the whole invocation (FLOAT4(p) in
 * FLOAT4(s_a[r][c]) = FLOAT4(a[i]), whose text is the part), or of less
 * or more than the part (a macro argument: the invocation's first
 * character; a part of a macro body: the invocation around it).  Such a
 * part is taken only where the tokens on either side of it are spelled
 * in the source: the assignment's `=`, the ternary's `?` and `:`, the
 * if's parentheses; everything between them is then the part. */

/* Skips blanks and comments from p, up to e. */
static unsigned skip_blank(const kp_file *f, unsigned p, unsigned e)
{
	while (p < e) {
		char ch = f->src[p];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v')
			p++;
		else if (ch == '/' && p + 1 < e && f->src[p + 1] == '/') {
			while (p < e && f->src[p] != '\n')
				p++;
		} else if (ch == '/' && p + 1 < e && f->src[p + 1] == '*') {
			unsigned q = p + 2;
			while (q + 1 < e && !(f->src[q] == '*' && f->src[q + 1] == '/'))
				q++;
			if (q + 1 >= e)
				return p; /* an unterminated comment is no blank */
			p = q + 2;
		} else
			break;
	}
	return p;
}

/* Whether [a, b) holds exactly the tokens `toks` (n of them), with blanks
 * and comments around them: an operator spelled in the source. */
static int only_tokens(const kp_file *f, unsigned a, unsigned b, const char *const *toks, int n)
{
	if (a > b || b > f->len)
		return 0;
	unsigned p = skip_blank(f, a, b);
	for (int i = 0; i < n; i++) {
		size_t tl = strlen(toks[i]);
		if (p + tl > b || strncmp(f->src + p, toks[i], tl))
			return 0;
		if (kp_is_ident_char(toks[i][0]) && p + tl < b && kp_is_ident_char(f->src[p + tl]))
			return 0; /* "if" is not the start of "iffy" */
		p = skip_blank(f, (unsigned)(p + tl), b);
	}
	return p == b;
}

static int has_range(const kp_node *n) { return n && n->in_main && n->begin < n->end; }

/* An assignment whose both sides are delimited by its `=` in the source. */
static int spelled_assign(const kp_file *f, const kp_node *as)
{
	if (!as || as->nkids != 2 || !has_range(as))
		return 0;
	const kp_node *l = as->kids[0], *r = as->kids[1];
	if (!has_range(l) || !has_range(r))
		return 0;
	if (!l->from_macro && !r->from_macro)
		return 1;
	static const char *const eq[] = {"="};
	return l->begin == as->begin && r->end == as->end &&
	       only_tokens(f, l->end, r->begin, eq, 1);
}

/* The guard and both values of `c ? x : v`, the right side of a spelled
 * assignment `as`, delimited by its `?` and `:`. */
static int spelled_ternary(const kp_file *f, const kp_node *as, const kp_node *t)
{
	if (t->nkids != 3 || !has_range(t))
		return 0;
	int macro = t->from_macro;
	for (int i = 0; i < 3; i++) {
		if (!has_range(t->kids[i]))
			return 0;
		macro |= t->kids[i]->from_macro;
	}
	if (!macro)
		return 1;
	static const char *const q[] = {"?"}, *const colon[] = {":"};
	/* a ternary from a macro body is all of the right side, or nothing */
	if (t->from_macro && (t->begin != as->kids[1]->begin || t->end != as->kids[1]->end))
		return 0;
	return t->kids[0]->begin == t->begin && t->kids[2]->end == t->end &&
	       only_tokens(f, t->kids[0]->end, t->kids[1]->begin, q, 1) &&
	       only_tokens(f, t->kids[1]->end, t->kids[2]->begin, colon, 1);
}

/* The condition of `if (c) ... else ...`, delimited by its parentheses. */
static int spelled_if(const kp_file *f, const kp_node *stmt)
{
	const kp_node *cond = stmt->nkids ? stmt->kids[0] : NULL;
	if (!has_range(stmt) || stmt->from_macro || !has_range(cond))
		return 0;
	if (!cond->from_macro)
		return 1;
	static const char *const open[] = {"if", "("}, *const close[] = {")"};
	unsigned e = stmt->nkids > 1 && has_range(stmt->kids[1]) ? stmt->kids[1]->begin : stmt->end;
	unsigned p = skip_blank(f, cond->end, e);
	return only_tokens(f, stmt->begin, cond->begin, open, 2) && p < e && f->src[p] == ')' &&
	       only_tokens(f, cond->end, p + 1, close, 1);
}

/* Every part of the copy the transforms rewrite is spelled in the source
 * (see above); otherwise the copy is refused with kpipe-macro-array. */
static void check_copy_spelled(actx *c, const kp_load *ld, kp_node *as, kp_node *rhs)
{
	int ok = spelled_assign(c->f, as);
	if (ok && ld->guard == KP_G_TERNARY)
		ok = spelled_ternary(c->f, as, rhs);
	if (ok && ld->guard == KP_G_IFELSE)
		ok = spelled_if(c->f, ld->stmt) && spelled_assign(c->f, ld->zero_stmt);
	if (!ok)
		add_reason(
			c, ld->stmt, "kpipe-macro-array",
			"the copy into '%s' is written inside a macro body: kpipe rewrites a copy "
			"through its two sides, which need the '=' (and a guard's '?', ':' or "
			"parentheses) spelled in the source; a macro around each side, as "
			"FLOAT4(t[i]) = FLOAT4(p[j]), is fine",
			ld->tile->name);
}

/* Where a statement of the load phase sits: its copy loops and the
 * conditions around it (kp_load.loops, kp_load.under). */
typedef struct {
	kp_node *loops[4];
	int depth;
	kp_node *under[4];
	int under_else[4];
	int nunder;
} load_scope;

static void scope_copy(kp_file *f, kp_load *ld, const load_scope *sc)
{
	ld->depth = sc->depth;
	for (int i = 0; i < sc->depth && i < 4; i++)
		ld->loops[i] = sc->loops[i];
	ld->nunder = sc->nunder;
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < sc->nunder && i < 4; i++) {
		const kp_node *g = sc->under[i];
		ld->under[i] = sc->under[i];
		ld->under_else[i] = sc->under_else[i];
		kp_strbuf_addf(&sb, "%s%s%s (%s)", i ? ", " : "",
			       sc->under_else[i] ? "else of " : "",
			       g->kind == KP_N_SWITCH ? "switch" : "if",
			       g->nkids ? kp_node_text(f, g->kids[0]) : "?");
	}
	ld->under_text = sb.len ? kp_arena_strdup(&f->arena, kp_strbuf_str(&sb)) : NULL;
	kp_strbuf_release(&sb);
}

/* ------------------------------------------------ copies through a temporary */

/* `T t = VALUE; ... TILE[...] = t;` or `T t; t = VALUE; ... TILE[...] = t;`
 * in one block of the load phase, t named nowhere else in the loop: the
 * copy of VALUE (a global load, possibly guarded) into the tile. */
typedef struct copy_temp {
	kp_decl *var;
	kp_node *decl_stmt; /* the DECLSTMT declaring only t */
	kp_node *set_stmt;  /* `t = VALUE;`, NULL when VALUE is the initialiser */
	kp_node *value;
	kp_node *copy; /* the assignment TILE[...] = t */
} copy_temp;

static int count_refs(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	int r = n->kind == KP_N_DECLREF && n->decl == d;
	for (int i = 0; i < n->nkids; i++)
		r += count_refs(n->kids[i], d);
	return r;
}

/* Type spellings equal once const / volatile are dropped. */
static int same_unqualified(const char *a, const char *b)
{
	if (!a || !b)
		return 0;
	for (;;) {
		while (!strncmp(a, "const ", 6) || !strncmp(a, "volatile ", 9))
			a += *a == 'c' ? 6 : 9;
		while (!strncmp(b, "const ", 6) || !strncmp(b, "volatile ", 9))
			b += *b == 'c' ? 6 : 9;
		if (!*a || !*b || *a != *b)
			return !*a && !*b;
		a++;
		b++;
	}
}

/* Whether the statements v[from..to) leave what `value` reads alone (the
 * cp.async form evaluates VALUE at the copy, not where it was written). */
static int value_stable(kp_node *value, kp_node **v, int from, int to)
{
	rw_set r = {0};
	collect_rw(value, &r);
	int ok = 1;
	for (int i = from; i < to && ok; i++) {
		rw_set w = {0};
		collect_rw(v[i], &w);
		for (int j = 0; j < w.nw && ok; j++)
			ok = !rw_has(r.r, r.nr, w.w[j]);
		ok = ok && w.ngs == 0;
		rw_release(&w);
	}
	rw_release(&r);
	return ok;
}

static void temps_in_list(actx *c, kp_node **v, int n);

static void temps_in_stmt(actx *c, kp_node *n)
{
	if (!n)
		return;
	if (n->kind == KP_N_COMPOUND)
		temps_in_list(c, n->kids, n->nkids);
	else if (n->kind == KP_N_FOR)
		temps_in_stmt(c, n->for_body);
}

/* The copy through the temporary declared by v[i], if it is one. */
static void temp_at(actx *c, kp_node **v, int n, int i)
{
	kp_node *ds = v[i];
	if (ds->kind != KP_N_DECLSTMT || ds->nkids != 1 || ds->kids[0]->kind != KP_N_VARDECL)
		return;
	kp_decl *t = ds->kids[0]->decl;
	if (!t || t->kind != KP_D_VAR || t->is_shared || t->is_array || t->is_pointer || !t->type ||
	    strchr(t->type, '&'))
		return;
	copy_temp ct = {t, ds, NULL, t->init, NULL};
	int j = i + 1;
	if (!ct.value) { /* T t; t = VALUE; */
		for (; j < n && !count_refs(v[j], t); j++)
			;
		kp_node *as = j < n ? assign_of(v[j]) : NULL;
		const kp_node *lhs = as ? kp_node_strip(as->kids[0]) : NULL;
		if (!lhs || lhs->kind != KP_N_DECLREF || lhs->decl != t || count_refs(v[j], t) != 1)
			return;
		ct.set_stmt = v[j];
		ct.value = as->kids[1];
		j++;
	}
	if (!find_global_load(ct.value))
		return;
	int from = j;
	for (; j < n && !count_refs(v[j], t); j++)
		;
	kp_node *as = j < n ? assign_of(v[j]) : NULL;
	kp_decl *tile;
	const kp_node *rhs = as ? kp_node_strip(as->kids[1]) : NULL;
	if (!rhs || rhs->kind != KP_N_DECLREF || rhs->decl != t ||
	    !shared_lhs(as->kids[0], &tile) || count_refs(c->l->body, t) != (ct.set_stmt ? 2 : 1) ||
	    !value_stable(ct.value, v, from, j))
		return;
	ct.copy = as;
	copy_temp *nt = kp_arena_alloc(&c->f->arena, sizeof(*nt) * (size_t)(c->ntemps + 1));
	if (c->ntemps)
		memcpy(nt, c->temps, sizeof(*nt) * (size_t)c->ntemps);
	nt[c->ntemps++] = ct;
	c->temps = nt;
}

static void temps_in_list(actx *c, kp_node **v, int n)
{
	for (int i = 0; i < n; i++) {
		temp_at(c, v, n, i);
		temps_in_stmt(c, v[i]);
	}
}

/* Every copy through a temporary in the load phase. */
static void find_temps(actx *c)
{
	kp_loop *l = c->l;
	temps_in_list(c, l->stmts + l->load_b, l->load_e - l->load_b);
}

static const copy_temp *temp_of_copy(const actx *c, const kp_node *as)
{
	for (int i = 0; i < c->ntemps; i++)
		if (c->temps[i].copy == as)
			return &c->temps[i];
	return NULL;
}

static int classify_store(actx *c, kp_node *stmt, const load_scope *sc)
{
	kp_node *as = assign_of(stmt);
	kp_decl *tile = NULL;
	if (as && shared_lhs(as->kids[0], &tile)) {
		kp_load ld = {0};
		ld.stmt = as;
		ld.tile = tile;
		ld.line = as->line;
		scope_copy(c->f, &ld, sc);
		/* through a temporary: the copy of the temporary's value */
		const copy_temp *ct = temp_of_copy(c, as);
		kp_node *val = ct ? ct->value : as->kids[1];
		if (ct) {
			ld.tmp_decl = ct->decl_stmt;
			ld.tmp_set = ct->set_stmt;
		}
		kp_node *rhs = (kp_node *)kp_node_strip(val);
		if (rhs->kind == KP_N_CONDOP && rhs->nkids == 3) {
			kp_node *a = rhs->kids[1], *b = rhs->kids[2];
			ld.guard = KP_G_TERNARY;
			ld.cond = rhs->kids[0];
			if (is_zero_literal(b)) {
				fill_copy(c, &ld, as->kids[0], a);
				ld.otherwise = kp_node_text(c->f, b);
			} else {
				fill_copy(c, &ld, as->kids[0], rhs);
				ld.pure = 0;
				ld.otherwise = kp_node_text(c->f, b);
			}
		} else {
			fill_copy(c, &ld, as->kids[0], val);
		}
		if (!ct)
			check_copy_spelled(c, &ld, as, rhs);
		else if (!spelled_assign(c->f, as) || ct->value->from_macro || rhs->from_macro)
			/* the temporary's value is edited where it is written */
			add_reason(
				c, ld.stmt, "kpipe-macro-array",
				"the copy into '%s' through the temporary '%s' is written inside a "
				"macro body",
				ld.tile->name, ct->var->name);
		/* a temporary of another type converts on the way */
		if (ct && !same_unqualified(ct->var->type, kp_node_strip(val)->type))
			ld.pure = 0;
		add_load(c, &ld);
		return 1;
	}
	if (stmt->kind == KP_N_IF && stmt->nkids == 3) {
		kp_node *a1 = assign_of(stmt->kids[1]), *a2 = assign_of(stmt->kids[2]);
		kp_decl *t1 = NULL, *t2 = NULL;
		if (a1 && a2 && shared_lhs(a1->kids[0], &t1) && shared_lhs(a2->kids[0], &t2) &&
		    t1 == t2 &&
		    !strcmp(kp_node_text(c->f, a1->kids[0]), kp_node_text(c->f, a2->kids[0]))) {
			kp_load ld = {0};
			ld.stmt = stmt;
			ld.tile = t1;
			ld.line = stmt->line;
			scope_copy(c->f, &ld, sc);
			ld.guard = KP_G_IFELSE;
			ld.cond = stmt->kids[0];
			if (is_zero_literal(a2->kids[1])) {
				fill_copy(c, &ld, a1->kids[0], a1->kids[1]);
				ld.zero_stmt = a2;
				ld.otherwise = kp_node_text(c->f, a2->kids[1]);
			} else if (is_zero_literal(a1->kids[1])) {
				fill_copy(c, &ld, a2->kids[0], a2->kids[1]);
				ld.zero_stmt = a1;
				ld.otherwise = kp_node_text(c->f, a1->kids[1]);
				ld.pure = 0; /* inverted guard: keep it simple */
			} else {
				fill_copy(c, &ld, a1->kids[0], a1->kids[1]);
				ld.zero_stmt = a2; /* the other arm: staged like the first */
				ld.pure = 0;
				ld.otherwise = kp_node_text(c->f, a2->kids[1]);
			}
			check_copy_spelled(c, &ld, ld.zero_stmt == a2 ? a1 : a2, NULL);
			add_load(c, &ld);
			return 1;
		}
	}
	return 0;
}

/* A call's callee as spelled (`wt::loadFromGmem`): a dependent call in a
 * template has no resolved name. */
static const char *callee_name(kp_file *f, const kp_node *n)
{
	if (n->name && n->name[0])
		return n->name;
	const char *t = n->in_main ? kp_node_text(f, n) : NULL;
	size_t len = 0;
	while (t && (kp_is_ident_char(t[len]) || (t[len] == ':' && t[len + 1] == ':') ||
		     (len && t[len] == ':' && t[len - 1] == ':')))
		len++;
	return len ? kp_arena_printf(&f->arena, "%.*s", (int)len, t) : "?";
}

/* A nested statement of the load phase: its copy loop or its condition
 * joins the scope of the statements inside it. */
static void scan_loads(actx *c, kp_node *n, load_scope sc);

static void scan_nested(actx *c, kp_node *n, load_scope sc)
{
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO) {
		/* a copy loop; a while or do loop has no counted range, so its
		 * copies get no trip count (register staging refuses them: one
		 * staging register per execution needs the count) */
		if (sc.depth < 4)
			sc.loops[sc.depth] = n;
		sc.depth++;
		c->l->loads_in_loops = 1;
		if (n->kind == KP_N_FOR) /* only the body holds copies */
			scan_loads(c, n->for_body, sc);
		else
			for (int i = 0; i < n->nkids; i++)
				scan_loads(c, n->kids[i], sc);
		return;
	}
	/* an if or a switch: the statements of its branches run under its
	 * condition (kids[0]) */
	scan_loads(c, n->nkids ? n->kids[0] : NULL, sc);
	for (int i = 1; i < n->nkids; i++) {
		load_scope in = sc;
		if (in.nunder < 4) {
			in.under[in.nunder] = n;
			in.under_else[in.nunder] = n->kind == KP_N_IF && i == 2;
		}
		in.nunder++;
		scan_loads(c, n->kids[i], in);
	}
}

static void scan_loads(actx *c, kp_node *n, load_scope sc)
{
	if (!n)
		return;
	if (classify_store(c, n, &sc))
		return;
	kp_node *as = assign_of(n);
	kp_node *root = as ? lvalue_root(as->kids[0]) : NULL;
	const kp_decl *arr = root ? carve_out_of(c->k, root->decl) : NULL;
	if (arr) {
		c->l->loads_carve_out = 1;
		if (arr->dyn_base)
			add_reason(
				c, n, "kpipe-dynamic-smem",
				"the tile '%s' is carved out of '%s', itself a carve-out of '%s': "
				"kpipe places carve-outs of the extern array itself, each at its "
				"own offset",
				root->decl->name, arr->name, arr->dyn_base->name);
		else if (kp_decl_is_extern_shared(arr))
			add_reason(
				c, n, "kpipe-dynamic-smem",
				"the tile '%s' is a pointer into the dynamic (extern) shared array "
				"'%s' that kpipe cannot place (declared in the loop or changed)",
				root->decl->name, arr->name);
		else
			add_reason(
				c, n, "kpipe-tile-escapes",
				"the tile '%s' is a pointer into the shared array '%s' (a "
				"carve-out): kpipe pipelines tiles declared as __shared__ arrays",
				root->decl->name, arr->name);
		return;
	}
	if (n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO ||
	    n->kind == KP_N_IF || n->kind == KP_N_SWITCH) {
		scan_nested(c, n, sc);
		return;
	}
	/* a call handed a shared array in the load phase: a helper that fills
	 * it (a call in a template kernel may name no declaration yet:
	 * `wt::loadFromGmem<BM, BN>(..., As, Bs, ...)` is resolved per
	 * instantiation) */
	if (n->kind == KP_N_CALL &&
	    (!n->decl || n->decl->kind == KP_D_FUNC || n->decl->kind == KP_D_OTHER)) {
		for (int i = 0; i < n->nkids; i++) {
			kp_node *a = (kp_node *)kp_node_strip(n->kids[i]);
			kp_node *r = a ? lvalue_root(a) : NULL;
			if (r && r->decl && r->decl->is_shared && r->decl->is_array) {
				c->l->loads_in_helper = 1;
				add_reason(
					c, n, "kpipe-load-in-helper",
					"the tile '%s' is filled inside the helper '%s': the loop as "
					"written has no copy to pipeline; kpipe rewrite inlines the "
					"helper first where it can (a remark says why not)",
					r->decl->name, callee_name(c->f, n));
				return;
			}
		}
	}
	for (int i = 0; i < n->nkids; i++)
		scan_loads(c, n->kids[i], sc);
}

/* ------------------------------------------------------------- math */

typedef struct {
	actx *c;
	double flops;
	int unknown;
	kp_math math;
} math_scan;

static kp_node *step_node(kp_node *stmt);

/* Reads a for-statement as a counted loop (analyze.h): the counter's
 * first value from the init (a declaration or an assignment), the bound
 * from the condition, an upward constant step from the increment. */
static void range_of(actx *c, const kp_node *loop, kp_range *r)
{
	memset(r, 0, sizeof(*r));
	if (!loop || loop->kind != KP_N_FOR)
		return;
	kp_node *init = loop->for_init, *inc = loop->for_inc;
	if (init && init->kind == KP_N_DECLSTMT && init->nkids == 1 &&
	    init->kids[0]->kind == KP_N_VARDECL && init->kids[0]->nkids >= 1) {
		r->var_decl = init->kids[0];
		/* the declaration's initialiser (`i{0}`: the 0), else its last part */
		r->lo = r->var_decl->decl && r->var_decl->decl->init
				? r->var_decl->decl->init
				: init->kids[0]->kids[init->kids[0]->nkids - 1];
	} else if (init && is_assign(init))
		r->lo = init->kids[1];
	const kp_decl *var = r->var_decl ? r->var_decl->decl : NULL;
	if (!var && init && is_assign(init)) {
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
	r->step_ok = step_text(c, inc, &sign) && sign > 0;
	r->step_is_one = inc->kind == KP_N_UNOP && inc->op &&
			 (inc->opk == KP_OP_PRE_INC || inc->opk == KP_OP_POST_INC);
	r->step_plus_assign = inc->kind == KP_N_ASSIGNOP && inc->op && inc->opk == KP_OP_ADD_ASSIGN;
	r->step = step_node(inc);
}

/* The trip count of a counted loop whose bounds and step are
 * compile-time constants, -1 otherwise. */
static double range_trip(actx *c, const kp_range *r)
{
	long long a, b, s = 1;
	if (!r->lo || !r->hi || !r->op || !r->step_ok || (!r->step_is_one && !r->step))
		return -1;
	if (kp_eval(r->lo, c->k, c->iv, &a) || kp_eval(r->hi, c->k, c->iv, &b))
		return -1;
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

static double trip_of(actx *c, kp_node *loop)
{
	kp_range r;
	range_of(c, loop, &r);
	return range_trip(c, &r);
}

static int is_float_type(const char *t) { return t && (strstr(t, "float") || strstr(t, "double")); }

/* A pointer or an integer (index and pointer arithmetic, not math); an
 * unknown or dependent type is not. */
static int is_int_or_ptr(const char *t)
{
	static const char *const words[] = {"int",       "unsigned", "long",    "short",
					    "char",      "bool",     "size_t",  "uint",
					    "int64_t",   "uint32_t", "int32_t", "uint64_t",
					    "ptrdiff_t", NULL};
	if (!t)
		return 0;
	if (strchr(t, '*'))
		return 1;
	if (strstr(t, "float") || strstr(t, "double") || strstr(t, "half") || strstr(t, "bf16"))
		return 0;
	for (const char *p = t; *p;) {
		while (*p && !isalnum((unsigned char)*p) && *p != '_')
			p++;
		const char *w = p;
		while (*p && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		for (int i = 0; words[i] && p > w; i++)
			if (strlen(words[i]) == (size_t)(p - w) &&
			    !strncmp(w, words[i], (size_t)(p - w)))
				return 1;
	}
	return 0;
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
		kp_node *body = loop_body(n);
		for (int i = 0; i < n->nkids; i++)
			scan_math(m, n->kids[i], mult * (n->kids[i] == body ? t : 1));
		return;
	}
	if (n->kind == KP_N_CALL && n->name) {
		if (!strcmp(n->name, "mma_sync")) {
			int is_int = 0;
			for (int i = 0; i < n->nkids; i++)
				if (n->kids[i]->type && (strstr(n->kids[i]->type, "signed char") ||
							 strstr(n->kids[i]->type, "int8")))
					is_int = 1;
			m->math = is_int ? KP_MATH_IMMA : KP_MATH_HMMA;
			m->flops += mult * 2.0 * 16 * 16 * 16 / 32.0; /* per thread of the warp */
		} else if (!strcmp(n->name, "__dp4a")) {
			m->math = KP_MATH_DP4A;
			m->flops += mult * 8;
		} else if (!strcmp(n->name, "fmaf") || !strcmp(n->name, "__fmaf_rn") ||
			   !strcmp(n->name, "fma")) {
			if (m->math == KP_MATH_NONE)
				m->math = !strcmp(n->name, "fma") ? KP_MATH_DFMA : KP_MATH_FFMA;
			m->flops += mult * 2;
		} else if (!strcmp(n->name, "__hfma") || !strcmp(n->name, "__hfma2")) {
			if (m->math == KP_MATH_NONE)
				m->math = KP_MATH_HFMA;
			m->flops += mult * (!strcmp(n->name, "__hfma2") ? 4 : 2);
		}
	}
	if (n->kind == KP_N_ASSIGNOP && n->op &&
	    (n->opk == KP_OP_ADD_ASSIGN || n->opk == KP_OP_SUB_ASSIGN) && n->nkids == 2 &&
	    !is_int_or_ptr(n->kids[0]->type)) {
		const kp_node *r = kp_node_strip(n->kids[1]);
		if (r && r->kind == KP_N_BINOP && r->op && r->opk == KP_OP_MUL) {
			const char *t = n->kids[0]->type;
			if (m->math == KP_MATH_NONE || m->math == KP_MATH_FFMA)
				m->math = t && strstr(t, "double") ? KP_MATH_DFMA
					  : t && strstr(t, "half") ? KP_MATH_HFMA
					  : is_float_type(t) || !t || strstr(t, "dependent")
						  ? KP_MATH_FFMA
						  : m->math;
			m->flops += mult * 2;
		} else if (r && is_float_type(n->kids[0]->type)) {
			m->flops += mult * 1;
		}
	}
	for (int i = 0; i < n->nkids; i++)
		scan_math(m, n->kids[i], mult);
}

/* ---------------------------------------------------------- the loop */

static long long decl_elems(actx *c, kp_decl *d)
{
	long long e = 1;
	for (int i = 0; i < d->ndims; i++) {
		long long v = d->dims[i];
		if (v < 0 && d->dim_expr[i] && kp_eval(d->dim_expr[i], c->k, c->iv, &v))
			return -1;
		if (v < 0)
			return -1;
		e *= v;
	}
	return d->ndims ? e : -1;
}

static void add_tile(actx *c, kp_decl *d, kp_node *decl_stmt, int loaded)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].arr == d) {
			l->tiles[i].loaded |= loaded;
			if (decl_stmt)
				l->tiles[i].decl_stmt = decl_stmt, l->tiles[i].in_loop = 1;
			return;
		}
	kp_tile *nt = kp_arena_alloc(&c->f->arena, sizeof(*nt) * (size_t)(l->ntiles + 1));
	if (l->ntiles)
		memcpy(nt, l->tiles, sizeof(*nt) * (size_t)l->ntiles);
	kp_tile *t = &nt[l->ntiles];
	t->arr = d;
	t->elems = decl_elems(c, d);
	long long esz = elem_size_of(c, d);
	t->bytes = t->elems > 0 && esz > 0 ? t->elems * esz : -1;
	t->loaded = loaded;
	t->decl_stmt = decl_stmt;
	t->in_loop = decl_stmt != NULL;
	l->tiles = nt;
	l->ntiles++;
}

typedef struct {
	kp_decl **v;
	int n, cap;
} decl_vec;

static int collect_shared_refs(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	decl_vec *v = ud;
	if (n->kind == KP_N_DECLREF && n->decl && n->decl->is_shared)
		push_decl(&v->v, &v->n, &v->cap, n->decl);
	return 1;
}

static int refs_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	void **a = ud;
	kp_decl *d = a[0];
	unsigned after = *(unsigned *)a[1];
	if (n->kind == KP_N_DECLREF && n->decl == d && n->in_main && n->begin >= after)
		a[2] = n;
	return a[2] == NULL;
}

/* The innermost loop of the kernel around the K-loop that also holds `use`
 * (a use of a tile outside the K-loop, in a loop that runs it again), or
 * NULL. */
typedef struct {
	const kp_node *kloop, *use, *best;
} around_walk;

static int find_around(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	around_walk *w = ud;
	if (n == w->kloop)
		return 0;
	if ((n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO) && n->in_main &&
	    n->begin <= w->kloop->begin && w->kloop->end <= n->end && n->begin <= w->use->begin &&
	    w->use->end <= n->end)
		w->best = n;
	return 1;
}

static const kp_node *loop_around(actx *c, const kp_node *use)
{
	around_walk w = {c->l->node, use, NULL};
	if (c->k->body && use->in_main && c->l->node->in_main)
		kp_node_walk(c->k->body, NULL, find_around, &w);
	return w.best;
}

static int find_macro_ref(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	void **a = ud;
	if (n->kind == KP_N_DECLREF && n->decl == a[0] && !n->name_editable)
		a[1] = n;
	return a[1] == NULL;
}

/* kp_stage, or kp_stage_N: the names kp_fresh_name() gives the stage
 * index of a rewritten loop (transforms/, render.c). */
static int is_stage_name(const char *name)
{
	static const char base[] = "kp_stage";
	if (strncmp(name, base, sizeof(base) - 1))
		return 0;
	name += sizeof(base) - 1;
	if (!*name)
		return 1;
	if (*name++ != '_' || !*name)
		return 0;
	for (; *name; name++)
		if (*name < '0' || *name > '9')
			return 0;
	return 1;
}

static int stage_ref(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	if (n->kind == KP_N_DECLREF && n->name && is_stage_name(n->name))
		*(int *)ud = 1;
	return !*(int *)ud;
}

/* A loop kpipe already rewrote (register staging leaves no cp.async). */
typedef struct {
	const kp_node *loop;
	const kp_decl *tile; /* out: a tile filled before the loop and in it */
	int ntiles;
	const kp_decl *before[16];
} hand_walk;

/* A shared array of 2 to 8 buffers (its first extent) stored to. */
static const kp_decl *buffered_store(const kp_node *n)
{
	if (!(is_assign(n) || n->kind == KP_N_ASSIGNOP) || n->nkids != 2)
		return NULL;
	kp_node *r = lvalue_root(n->kids[0]);
	const kp_decl *d = r ? r->decl : NULL;
	if (!d || !d->is_shared || !d->is_array || d->ndims < 2 || d->dims[0] < 2 || d->dims[0] > 8)
		return NULL;
	return d;
}

static int find_hand_buffers(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	hand_walk *w = ud;
	const kp_decl *d = buffered_store(n);
	if (!d || w->tile)
		return !w->tile;
	if (n->end <= w->loop->begin) {
		if (w->ntiles < 16)
			w->before[w->ntiles++] = d;
	} else if (n->begin >= w->loop->begin && n->end <= w->loop->end && is_assign(n) &&
		   !kp_node_names_decl(n->kids[1], d)) {
		/* the next buffer's fill is a plain store of data from elsewhere;
		 * `acc[ty][tx] += s` or `acc[r] = acc[r] + s` accumulates in a
		 * shared array that merely has 2 to 8 rows (kpipe-smem-carried
		 * says what it is) */
		for (int i = 0; i < w->ntiles; i++)
			if (w->before[i] == d)
				w->tile = d;
	}
	return 1;
}

/* A loop pipelined by hand without cp.async: a shared array of 2 to 8
 * buffers (`s_a[2][BK][BM]`) filled before the loop (the prologue) and
 * again inside it (the next buffer). */
static const kp_decl *hand_buffers(const kp_kernel *k, const kp_node *loop)
{
	hand_walk w = {loop, NULL, 0, {0}};
	kp_node_walk(k->body, NULL, find_hand_buffers, &w);
	return w.tile;
}

static int uses_kpipe_stage(kp_node *body)
{
	int found = 0;
	kp_node_walk(body, NULL, stage_ref, &found);
	return found;
}

/* break/continue that leave the K-loop body, return, goto. */
static kp_node *find_jump(kp_node *n, int in_inner)
{
	if (!n)
		return NULL;
	if (n->kind == KP_N_RETURN || n->kind == KP_N_GOTO)
		return n;
	if ((n->kind == KP_N_BREAK || n->kind == KP_N_CONTINUE) && !in_inner)
		return n;
	if (n->kind == KP_N_LAMBDA)
		return NULL;
	int inner = in_inner || n->kind == KP_N_FOR || n->kind == KP_N_WHILE ||
		    n->kind == KP_N_DO || n->kind == KP_N_SWITCH;
	for (int i = 0; i < n->nkids; i++) {
		/* a break inside a switch leaves only the switch; continue does not */
		kp_node *j = find_jump(n->kids[i], inner);
		if (j)
			return j;
	}
	return NULL;
}

static int count_writes(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	int w = 0;
	if ((is_assign(n) || n->kind == KP_N_ASSIGNOP ||
	     (n->kind == KP_N_UNOP && n->op && (KP_OP_IS_INCDEC(n->opk)))) &&
	    n->nkids >= 1) {
		const kp_node *t = kp_node_strip(n->kids[0]);
		if (t && t->kind == KP_N_DECLREF && t->decl == d)
			w++;
	}
	for (int i = 0; i < n->nkids; i++)
		w += count_writes(n->kids[i], d);
	return w;
}

/* Whether the next tile's loads depend on d: the load phase (addresses,
 * guards, its declarations) or the loop condition name it. */
static int loads_or_cond_read(const kp_loop *l, const kp_decl *d)
{
	for (int i = l->load_b; i < l->load_e; i++)
		if (kp_node_names_decl(l->stmts[i], d))
			return 1;
	return kp_node_names_decl(l->cond, d);
}

/* ------------------------------------------- what the rewrite must follow */

/* The rewrite advances the loop by substituting, in the spelled source of
 * the load phase and of the condition, every use of an induction variable,
 * and it re-indexes every use of a loaded tile inside the loop.  The checks
 * below refuse every way a use escapes that substitution: spelled in a
 * macro body, reached through a reference or an address, hidden in a
 * lambda body (lambda bodies are not part of the model), or made outside
 * the loop; and every store the prefetch could overtake. */

static int node_in(const kp_node *n, unsigned b, unsigned e)
{
	return n->in_main && n->begin >= b && n->end <= e;
}

typedef struct {
	const kp_loop *l;
	unsigned b, e;      /* where uses are advanced: the load phase */
	kp_node *macro_use; /* an induction variable spelled in a macro body */
	kp_node *alias;     /* its address taken or a reference bound to it */
	kp_node *lambda;    /* a lambda of [b, e) or of the condition naming one */
	kp_decl *var;
} hidden_walk;

static int lambda_names_ind(const kp_file *f, const kp_loop *l, const kp_node *n)
{
	for (int i = 0; i < l->nind; i++)
		if (kp_mentions_ident(f->src, n->begin, n->end, l->ind[i].var->name))
			return 1;
	return 0;
}

static int find_hidden(kp_node *n, kp_node *parent, void *ud)
{
	void **a = ud;
	hidden_walk *w = a[0];
	const kp_file *f = a[1];
	int advanced = node_in(n, w->b, w->e) || (w->l->cond && n->in_main && w->l->cond->in_main &&
						  node_in(n, w->l->cond->begin, w->l->cond->end));
	if (n->kind == KP_N_LAMBDA && advanced && !w->lambda && lambda_names_ind(f, w->l, n))
		w->lambda = n;
	if (n->kind != KP_N_DECLREF || !n->decl || !is_ind(w->l, n->decl))
		return 1;
	if (advanced && !n->name_editable && !w->macro_use) {
		w->macro_use = n;
		w->var = n->decl;
	}
	if (parent && !w->alias &&
	    ((parent->kind == KP_N_UNOP && parent->op && parent->opk == KP_OP_ADDR) ||
	     (parent->kind == KP_N_VARDECL && parent->decl && parent->decl != n->decl &&
	      parent->decl->type && strchr(parent->decl->type, '&')))) {
		w->alias = n;
		if (!w->var)
			w->var = n->decl;
	}
	return 1;
}

/* The load phase and the condition see every induction variable where the
 * rewrite can advance it. */
static void check_hidden_induction(actx *c, unsigned load_b, unsigned load_e)
{
	kp_loop *l = c->l;
	hidden_walk w = {l, load_b, load_e, NULL, NULL, NULL, NULL};
	void *a[2] = {&w, c->f};
	kp_node_walk(c->k->body, NULL, find_hidden, a);
	if (w.macro_use)
		add_reason(c, w.macro_use, "kpipe-hidden-induction",
			   "'%s' is used inside a macro body in the %s: kpipe cannot advance it to "
			   "the next tile; pass it to the macro as an argument",
			   w.var->name,
			   l->cond && node_in(w.macro_use, l->cond->begin, l->cond->end)
				   ? "loop condition"
				   : "load phase");
	if (w.alias)
		add_reason(c, w.alias, "kpipe-hidden-induction",
			   "a pointer or reference to '%s' is taken: code reading '%s' through it "
			   "cannot be advanced to the next tile",
			   w.alias->decl->name, w.alias->decl->name);
	if (w.lambda)
		add_reason(c, w.lambda, "kpipe-hidden-induction",
			   "a lambda in the load phase or the loop condition uses an induction "
			   "variable: kpipe cannot advance uses inside a lambda body");
}

/* The condition is evaluated once per iteration by the original loop; the
 * rewrite evaluates it (advanced) in the prologue, the loop and the
 * prefetch guard, so it must have no side effects. */
static int pure_call(const kp_node *n)
{
	/* a function of its operands (pure.h), or a read of global memory
	 * through the read-only cache */
	return kp_call_pure(n) == KP_PURE_VALUE || (n->decl && n->decl->in_system && !n->decl->fn &&
						    n->name && !strcmp(n->name, "__ldg"));
}

static const kp_node *impure_in(const kp_node *n)
{
	if (!n)
		return NULL;
	switch (n->kind) {
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA:
	case KP_N_ASM: return n;
	case KP_N_CALL:
		if (!pure_call(n))
			return n;
		break;
	case KP_N_UNOP:
		if (n->op && (KP_OP_IS_INCDEC(n->opk)))
			return n;
		break;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN)
			return n;
		break;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = impure_in(n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

static void check_cond_pure(actx *c)
{
	const kp_node *bad = impure_in(c->l->cond);
	if (bad && bad->kind == KP_N_CALL && bad->name)
		add_reason(
			c, bad, "kpipe-cond-side-effect",
			"the loop condition calls '%s', which may have a side effect: the rewrite "
			"evaluates the condition more than once per iteration; compute it into a "
			"variable before the loop",
			bad->name);
	else if (bad)
		add_reason(c, bad, "kpipe-cond-side-effect",
			   "the loop condition has a side effect ('%s'): the rewrite evaluates it "
			   "more than once per iteration; compute it into a variable first",
			   kp_node_text(c->f, bad));
}

/* Each step is a loop invariant: no variable of it is written in the body. */
static kp_node *step_node(kp_node *stmt)
{
	if (!stmt || stmt->nkids != 2)
		return NULL;
	if (stmt->kind == KP_N_ASSIGNOP)
		return stmt->kids[1];
	if (is_assign(stmt)) {
		kp_node *rhs = (kp_node *)kp_node_strip(stmt->kids[1]);
		return rhs && rhs->kind == KP_N_BINOP && rhs->nkids == 2 ? rhs->kids[1] : NULL;
	}
	return NULL;
}

static const kp_node *written_ref(const kp_node *n, const rw_set *all)
{
	if (!n)
		return NULL;
	if (n->kind == KP_N_DECLREF && n->decl && rw_has(all->w, all->nw, n->decl))
		return n;
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = written_ref(n->kids[i], all);
		if (r)
			return r;
	}
	return NULL;
}

static void check_steps(actx *c, const rw_set *all)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->nind; i++) {
		const kp_node *r = written_ref(step_node(l->ind[i].stmt), all);
		if (r)
			add_reason(c, l->ind[i].stmt, "kpipe-loop-shape",
				   "the step of '%s' uses '%s', which changes inside the loop",
				   l->ind[i].var->name, r->decl->name);
	}
}

/* Stores the prefetch could overtake.  The next tile is read before the
 * current tile's compute runs, so a store of the loop body into memory the
 * loads read would be missed.  A store is safe when it goes through a
 * kernel parameter that is not a load source and either it or every load
 * source is __restrict__; any other store through a pointer (a local copy,
 * a pointer passed to a function that may write through it) may alias. */
static int is_restrict(const kp_decl *d) { return d && d->ty.is_restrict; }

static int load_sources_restrict(const kp_loop *l)
{
	for (int i = 0; i < l->nloads; i++)
		if (!l->loads[i].src || l->loads[i].src->kind != KP_D_PARM ||
		    !is_restrict(l->loads[i].src))
			return 0;
	return 1;
}

static int is_load_source(const kp_loop *l, const kp_decl *d)
{
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i].src == d)
			return 1;
	return 0;
}

typedef struct {
	actx *c;
	int ok_restrict;
	kp_node *bad;
	kp_decl *target;
} store_walk;

static int unsafe_target(const store_walk *w, const kp_decl *d)
{
	const kp_loop *l = w->c->l;
	if (!d || d->is_shared)
		return 0;
	if (!d->is_pointer && !(d->type && strchr(d->type, '&')))
		return 0; /* a local variable or array of the thread */
	if (is_load_source(l, d))
		return 1;
	if (d->kind != KP_D_PARM)
		/* a local pointer: where it points is not tracked, unless it is a
		 * carve-out of shared memory or points into a variable of the
		 * thread */
		return !carve_out_of(w->c->k, d) && !points_into_local(w->c->f, w->c->k, d);
	return !(is_restrict(d) || w->ok_restrict);
}

static int find_unsafe_store(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	store_walk *w = ud;
	if (w->bad)
		return 0;
	kp_node *target = NULL;
	if ((is_assign(n) || n->kind == KP_N_ASSIGNOP) && n->nkids == 2)
		target = n->kids[0];
	else if (n->kind == KP_N_UNOP && n->nkids == 1 && n->op && (KP_OP_IS_INCDEC(n->opk)))
		target = n->kids[0];
	if (target) {
		kp_node *root = lvalue_root(target);
		/* a store through the pointer, not a change of the pointer */
		if (root && root->decl && root != kp_node_strip(target) &&
		    unsafe_target(w, root->decl)) {
			w->bad = n;
			w->target = root->decl;
		}
		return 1;
	}
	if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC && n->nkids > 1) {
		for (int i = kp_call_first_arg(n); i < n->nkids; i++) {
			kp_node *a = (kp_node *)kp_node_strip(n->kids[i]);
			kp_node *root = a ? lvalue_root(a) : NULL;
			if (!root || !root->decl || root->decl->is_shared)
				continue;
			/* a pointer into global memory handed to a function that may
			 * write through it */
			int pointer_arg = root->decl->is_pointer ||
					  (a->kind == KP_N_UNOP && a->op && a->opk == KP_OP_ADDR &&
					   root->decl->is_pointer);
			if (pointer_arg && kp_call_arg_writes_pointee(n, i) &&
			    unsafe_target(w, root->decl)) {
				w->bad = n;
				w->target = root->decl;
				return 0;
			}
		}
	}
	return 1;
}

static void check_stores(actx *c)
{
	kp_loop *l = c->l;
	store_walk w = {c, load_sources_restrict(l), NULL, NULL};
	kp_node_walk(l->body, NULL, find_unsafe_store, &w);
	if (!w.bad)
		return;
	if (is_load_source(l, w.target))
		add_reason(c, w.bad, "kpipe-memory-order",
			   "the loop stores to '%s', which its tile loads also read",
			   w.target->name);
	else if (w.target->kind != KP_D_PARM)
		add_reason(
			c, w.bad, "kpipe-memory-order",
			"the loop stores through '%s', which may point into memory the tile loads "
			"read: the prefetch of the next tile would miss the store",
			w.target->name);
	else
		add_reason(c, w.bad, "kpipe-memory-order",
			   "the loop stores through '%s', which may alias a loaded array: mark the "
			   "pointers __restrict__ (or move the store after the loop)",
			   w.target->name);
}

/* Every use of a loaded tile must be one the rewrite re-indexes: inside the
 * loop, spelled in the source, not in a lambda body; the tile declared in
 * the kernel; the load phase only writes it. */
typedef struct {
	const kp_loop *l;
	const kp_decl *tile;
	kp_node *outside;
	kp_node *skip[4]; /* the tile in the initialisers of its aliases */
	int nskip;
} tile_walk;

static int find_tile_outside(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	tile_walk *w = ud;
	if (w->outside)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl == w->tile && n->in_main &&
	    !node_in(n, w->l->node->begin, w->l->node->end) && n->begin < w->l->node->begin) {
		for (int i = 0; i < w->nskip; i++)
			if (w->skip[i] == n)
				return 1;
		w->outside = n;
	}
	return 1;
}

typedef struct {
	const kp_file *f;
	const kp_loop *l;
	const kp_decl *tile;
	kp_node *lambda;
} lambda_walk;

static int find_tile_lambda(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	lambda_walk *w = ud;
	if (!w->lambda && n->kind == KP_N_LAMBDA && n->in_main &&
	    kp_mentions_ident(w->f->src, n->begin, n->end, w->tile->name))
		w->lambda = n;
	return !w->lambda;
}

static int load_store_root(const kp_loop *l, const kp_node *n)
{
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		if (ld->lhs && lvalue_root(ld->lhs) == n)
			return 1;
		if (ld->zero_stmt && ld->zero_stmt->nkids &&
		    lvalue_root(ld->zero_stmt->kids[0]) == n)
			return 1;
	}
	return 0;
}

typedef struct {
	const kp_loop *l;
	kp_node *read;
} self_walk;

static int find_tile_self_read(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	self_walk *w = ud;
	if (w->read)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl && n->decl->is_shared) {
		for (int i = 0; i < w->l->ntiles; i++)
			if (w->l->tiles[i].arr == n->decl && w->l->tiles[i].loaded &&
			    !load_store_root(w->l, n))
				w->read = n;
	}
	return 1;
}

/* ------------------------------------------------ pointers into a tile */

/* The tile a pointer's initialiser points into: `(T *)TILE`,
 * `reinterpret_cast<T *>(TILE) + e`, `(T *)&TILE[0][0] + e`... with at
 * least one explicit cast (the address of the tile's first element, the
 * same whatever its dimensions), or NULL.  *ref is the tile's reference. */
static const kp_decl *alias_target(kp_node *init, kp_node **ref)
{
	kp_node *n = init;
	int casts = 0;
	for (int guard = 0; n && guard < 16; guard++) {
		if (n->kind == KP_N_BINOP && n->op && n->opk == KP_OP_ADD && n->nkids == 2)
			n = n->kids[0];
		else if ((n->kind == KP_N_CAST || n->kind == KP_N_PAREN || n->kind == KP_N_OTHER) &&
			 n->nkids) {
			casts += n->kind == KP_N_CAST;
			n = n->kids[n->nkids - 1];
		} else
			break;
	}
	if (!n || n->kind != KP_N_DECLREF || !n->decl || !casts)
		return NULL;
	*ref = n;
	return n->decl;
}

typedef struct {
	const kp_loop *l;
	const kp_decl *tile;
	unsigned comp_b, comp_e; /* the compute phase's text */
	kp_node *refs[4];        /* the tile's references in alias initialisers */
	const kp_decl *alias[4];
	int n;
	const kp_decl *p; /* check_alias_use: the alias looked at */
	kp_node *ok[64];  /* its reads P[i] */
	int nok;
	kp_node *bad; /* its first other use */
} alias_walk;

static int find_alias(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	alias_walk *w = ud;
	if (n->kind != KP_N_VARDECL || !n->decl || !n->decl->is_pointer || !n->decl->init ||
	    !n->in_main || n->begin >= w->l->node->begin || w->n >= 4)
		return 1;
	kp_node *ref = NULL;
	if (alias_target(n->decl->init, &ref) == w->tile) {
		w->refs[w->n] = ref;
		w->alias[w->n++] = n->decl;
	}
	return 1;
}

/* Every use of w->p but reads `P[i]` in the compute phase goes to bad. */
static int check_alias_use(kp_node *n, kp_node *parent, void *ud)
{
	alias_walk *w = ud;
	if (n->kind == KP_N_SUBSCRIPT && n->nkids == 2) {
		kp_node *b = n->kids[0];
		while (b && (b->kind == KP_N_OTHER || b->kind == KP_N_PAREN) && b->nkids == 1)
			b = b->kids[0];
		int written = parent && (((parent->kind == KP_N_BINOP && parent->op &&
					   parent->opk == KP_OP_ASSIGN) ||
					  parent->kind == KP_N_ASSIGNOP) &&
					 parent->nkids && parent->kids[0] == n);
		written |= parent && parent->kind == KP_N_UNOP;
		/* `reinterpret_cast<const float4 *>(&P[i])[0]`: a read of P
		 * through the address of one of its elements */
		kp_node *inner = b;
		while (inner &&
		       (inner->kind == KP_N_OTHER || inner->kind == KP_N_PAREN ||
			inner->kind == KP_N_CAST) &&
		       inner->nkids)
			inner = inner->kids[inner->nkids - 1];
		if (inner && inner->kind == KP_N_UNOP && inner->op && inner->opk == KP_OP_ADDR &&
		    inner->nkids == 1 && inner->kids[0]->kind == KP_N_SUBSCRIPT &&
		    inner->kids[0]->nkids == 2) {
			b = inner->kids[0]->kids[0];
			while (b && (b->kind == KP_N_OTHER || b->kind == KP_N_PAREN) &&
			       b->nkids == 1)
				b = b->kids[0];
		}
		if (b && b->kind == KP_N_DECLREF && b->decl == w->p && !written &&
		    node_in(n, w->comp_b, w->comp_e) && w->nok < 64)
			w->ok[w->nok++] = b;
		return 1;
	}
	if (n->kind != KP_N_DECLREF || n->decl != w->p || w->bad)
		return 1;
	for (int i = 0; i < w->nok; i++)
		if (w->ok[i] == n)
			return 1;
	w->bad = n;
	return 1;
}

/* Pointers into loaded tile t declared before the loop: each one read only
 * as P[i] in the compute phase (never written, moved, handed on or used
 * elsewhere) becomes an alias of t (kp_tile.alias), and its initialiser's
 * reference to t is no use "before the loop".  Returns the reference a
 * find_tile_outside() walk may skip, one per alias (skip[]). */
static int tile_aliases(actx *c, kp_tile *t, kp_node **skip)
{
	kp_loop *l = c->l;
	if (kp_decl_is_dynamic_smem(t->arr) || l->comp_b >= l->comp_e || t->elems <= 0)
		return 0;
	alias_walk w = {.l = l, .tile = t->arr};
	w.comp_b = l->stmts[l->comp_b]->begin;
	w.comp_e = l->stmts[l->comp_e - 1]->end;
	kp_node_walk(c->k->body, NULL, find_alias, &w);
	int n = 0;
	for (int i = 0; i < w.n; i++) {
		w.p = w.alias[i];
		/* a pointer to the tile's element type: a stage is then
		 * sizeof(TILE[0]) / sizeof(*p) elements further */
		const char *pt = w.p->type ? w.p->type : "";
		const char *star = strrchr(pt, '*');
		if (!star || !t->arr->elem_type)
			continue;
		size_t plen = (size_t)(star - pt);
		while (plen && pt[plen - 1] == ' ')
			plen--;
		const char *pointee =
			strip_cv(&c->f->arena, kp_arena_strndup(&c->f->arena, pt, plen));
		if (strcmp(pointee, strip_cv(&c->f->arena, t->arr->elem_type)) != 0)
			continue;
		w.nok = 0;
		w.bad = NULL;
		kp_node_walk(c->k->body, NULL, check_alias_use, &w);
		if (w.bad || !w.nok)
			continue;
		t->alias[t->naliases++] = w.p;
		skip[n++] = w.refs[i];
	}
	return n;
}

static void check_tile_uses(actx *c)
{
	kp_loop *l = c->l;
	kp_kernel *k = c->k;
	for (int i = 0; i < l->ntiles; i++) {
		kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		kp_decl *d = t->arr;
		int in_kernel = d->in_main && d->begin >= k->begin && d->end <= k->end;
		if (!in_kernel)
			add_reason(
				c, l->node, "kpipe-tile-escapes",
				"'%s' is declared outside the kernel: other functions can reach it "
				"and would see one buffer; declare it inside the kernel",
				d->name);
		tile_walk tw = {l, d, NULL, {0}, 0};
		t->naliases = 0;
		if (k->body && l->node->in_main) {
			tw.nskip = tile_aliases(c, t, tw.skip);
			kp_node_walk(k->body, NULL, find_tile_outside, &tw);
		}
		const kp_node *around = tw.outside ? loop_around(c, tw.outside) : NULL;
		if (around)
			add_reason(
				c, tw.outside, "kpipe-tile-escapes",
				"'%s' is used before the loop, in the loop around it at line %d: "
				"what that loop leaves in it for the K-loop would be in one "
				"buffer of the doubled tile",
				d->name, around->line);
		else if (tw.outside)
			add_reason(
				c, tw.outside, "kpipe-tile-escapes",
				"'%s' is used before the loop: a pointer, reference, size or another "
				"loop there would see one buffer of the doubled tile",
				d->name);
		lambda_walk lw = {c->f, l, d, NULL};
		if (k->body)
			kp_node_walk(k->body, NULL, find_tile_lambda, &lw);
		if (lw.lambda)
			add_reason(
				c, lw.lambda, "kpipe-tile-escapes",
				"a lambda uses '%s': kpipe cannot re-index uses inside a lambda body",
				d->name);
	}
	self_walk sw = {l, NULL};
	for (int i = l->load_b;
	     i < l->load_e && !sw.read && !l->loads_in_helper && !l->loads_carve_out; i++)
		kp_node_walk(l->stmts[i], NULL, find_tile_self_read, &sw);
	if (sw.read)
		add_reason(
			c, sw.read, "kpipe-load-depends-on-compute",
			"the load phase reads the tile '%s' it refills: the prefetch would read the "
			"other buffer",
			sw.read->decl->name);
}

/* Whether a subtree references an induction variable (macro bodies
 * included: the AST has their declaration references too). */
static int refs_induction(const kp_loop *l, const kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl && is_ind(l, n->decl))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (refs_induction(l, n->kids[i]))
			return 1;
	return 0;
}

/* Whether the loop condition is monotone in the tiles: `v < E`, `v <= E`
 * (or `E > v` ...) with v the counter stepping up by a positive constant
 * (or `v > E` stepping down, v signed), E free of induction variables.
 * Then "tile t+d exists" is the condition advanced d times alone; any
 * other condition (`k != K`, an unsigned count-down that could wrap) is
 * chained step by step by the transforms. */
static int cond_monotone(actx *c)
{
	kp_loop *l = c->l;
	kp_node *cs = (kp_node *)kp_node_strip(l->cond);
	if (!cs || cs->kind != KP_N_BINOP || cs->nkids != 2 || !cs->op)
		return 0;
	int lt = cs->opk == KP_OP_LT || cs->opk == KP_OP_LE,
	    gt = cs->opk == KP_OP_GT || cs->opk == KP_OP_GE;
	if (!lt && !gt)
		return 0;
	for (int side = 0; side < 2; side++) {
		kp_node *v = (kp_node *)kp_node_strip(cs->kids[side]);
		if (!v || v->kind != KP_N_DECLREF || !v->decl || !is_ind(l, v->decl))
			continue;
		const kp_induct *in = NULL;
		for (int i = 0; i < l->nind; i++)
			if (l->ind[i].var == v->decl)
				in = &l->ind[i];
		/* the other side must not move */
		if (refs_induction(l, cs->kids[1 - side]))
			return 0;
		long long step = 1;
		kp_node *sn = step_node(in->stmt);
		if (sn && kp_eval(sn, c->k, c->iv, &step))
			return 0;
		if (step <= 0 || in->is_pointer)
			return 0;
		int up = in->sign > 0;
		/* counter on the left: `<` needs it to grow; on the right, mirrored */
		int grows_ok = side == 0 ? lt : gt;
		if (up != grows_ok)
			return 0;
		/* counting down, k - 2 * s must not wrap below zero: only a
		 * signed counter is sure not to (an unsigned one, uint32_t and
		 * size_t included, or one whose type depends on a template
		 * argument, is tested tile by tile: kp_tile_exists) */
		if (!up && v->decl->ty.kind != KP_TY_SINT)
			return 0;
		return 1;
	}
	return 0;
}

/* Does the code after the loop need the loop to end with a barrier?  The
 * pipelined cp.async form's last barrier is at the top of its last
 * iteration: without one after the loop, a thread still computing on the
 * last tile races with what the others do next. */
static int count_enclosing(const kp_node *n, const kp_node *target, int *depth)
{
	if (n == target)
		return 1;
	int is_l = n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO;
	for (int i = 0; i < n->nkids; i++)
		if (n->kids[i] && count_enclosing(n->kids[i], target, depth)) {
			if (is_l)
				(*depth)++;
			return 1;
		}
	return 0;
}

typedef struct {
	unsigned after;
	const kp_node *hit;
} after_walk;

static int find_after(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	after_walk *w = ud;
	if (w->hit)
		return 0;
	if (n->in_main && n->begin >= w->after) {
		if (n->kind == KP_N_DECLREF && n->decl && n->decl->is_shared)
			w->hit = n;
		else if (n->kind == KP_N_CALL && n->decl && n->decl->kind == KP_D_FUNC &&
			 n->decl->in_main)
			w->hit = n; /* a helper of this file: it may use shared memory */
		else if (n->kind == KP_N_ASM)
			w->hit = n;
	}
	return 1;
}

static void find_exit_barrier(actx *c)
{
	kp_loop *l = c->l;
	int depth = 0;
	if (!c->k->body || !l->node->in_main)
		return;
	count_enclosing(c->k->body, l->node, &depth);
	if (c->k->is_device) {
		l->exit_barrier = 1;
		l->exit_barrier_why = "the loop is in a __device__ function, which its callers may "
				      "call again";
		return;
	}
	if (depth > 0) {
		l->exit_barrier = 1;
		l->exit_barrier_why = "the loop is nested in another loop";
		return;
	}
	after_walk w = {l->node->end, NULL};
	kp_node_walk(c->k->body, NULL, find_after, &w);
	const kp_effect *ge = l->effects && !w.hit ? kp_effects_read_after(l->effects) : NULL;
	if (ge) {
		l->exit_barrier = 1;
		l->exit_barrier_why = kp_arena_printf(
			&c->f->arena,
			"line %d writes global memory that the kernel reads after the loop",
			ge->at ? ge->at->line : l->node->line);
	}
	if (w.hit) {
		l->exit_barrier = 1;
		l->exit_barrier_why =
			kp_arena_printf(&c->f->arena, "line %d after the loop uses %s", w.hit->line,
					w.hit->kind == KP_N_DECLREF ? "shared memory"
					: w.hit->kind == KP_N_ASM   ? "inline assembly"
								    : "a helper function");
	}
}

/* A block barrier in a top-level statement that is not itself one of the
 * loop's barriers (a result used: `int n = __syncthreads_count(p);`, or
 * operands with a side effect), outside conditional code and nested loops
 * (those have their own reasons). */
typedef struct {
	kp_node *hit;
} kept_sync_walk;

static int find_kept_sync(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	kept_sync_walk *w = ud;
	if (w->hit)
		return 0;
	if (n->kind == KP_N_IF || n->kind == KP_N_SWITCH || n->kind == KP_N_CONDOP ||
	    n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO ||
	    (n->kind == KP_N_BINOP && n->op && (n->opk == KP_OP_LAND || n->opk == KP_OP_LOR)))
		return 0;
	if (n->kind == KP_N_CALL && (n->sync == KP_SYNC_BLOCK || n->sync == KP_SYNC_BLOCK_VALUE)) {
		w->hit = n;
		return 0;
	}
	return 1;
}

/* The barriers the rewrite cannot replace by its own __syncthreads():
 * one it does not model (a grid, cluster or thread-group sync ...), one
 * whose result the loop uses, one with side effects in its operands.
 * Returns 1 when there is such a barrier (the reason is added). */
static int unmodelled_barriers(actx *c, const scan_info *si)
{
	kp_loop *l = c->l;
	if (si->first_other_sync) {
		add_reason(
			c, si->first_other_sync, "kpipe-extra-barrier",
			"%s is a barrier kpipe does not model (a grid, cluster, thread-group or "
			"split barrier, or an unknown sync()): moving the copies across it could "
			"break what it orders",
			call_label(c, si->first_other_sync));
		return 1;
	}
	for (int i = 0; i < l->nstmts; i++) {
		if (is_barrier(l->stmts[i]))
			continue;
		kept_sync_walk w = {NULL};
		kp_node_walk(l->stmts[i], NULL, find_kept_sync, &w);
		if (!w.hit)
			continue;
		if (w.hit->sync == KP_SYNC_BLOCK_VALUE && w.hit != l->stmts[i])
			add_reason(
				c, w.hit, "kpipe-extra-barrier",
				"%s is a barrier whose result the loop uses: the rewrite replaces "
				"the loop's barriers by its own and cannot keep the result",
				call_label(c, w.hit));
		else
			add_reason(c, w.hit, "kpipe-extra-barrier",
				   "%s is a barrier with side effects in its operands: the rewrite "
				   "replaces the loop's barriers by its own and would lose them",
				   call_label(c, w.hit));
		return 1;
	}
	return 0;
}

/* The top-level barriers (l->bar1, l->bar2) and what the barriers and
 * memory operations of the loop rule out; returns their number. */
static int top_barriers(actx *c, const scan_info *si)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	/* the body's statements, null statements apart (`SYNC_THREADS;` of
	 * `#define SYNC_THREADS __syncthreads();` leaves one after the
	 * barrier): an empty statement is no phase's */
	l->stmts = l->body->kids;
	l->nstmts = l->body->nkids;
	for (int i = 0; i < l->body->nkids; i++)
		if (l->body->kids[i]->kind == KP_N_NULLSTMT) {
			kp_node **v =
				kp_arena_alloc(&c->f->arena, sizeof(*v) * (size_t)l->body->nkids);
			l->nstmts = 0;
			for (int j = 0; j < l->body->nkids; j++)
				if (l->body->kids[j]->kind != KP_N_NULLSTMT)
					v[l->nstmts++] = l->body->kids[j];
			l->stmts = v;
			break;
		}
	l->bar1 = l->bar2 = -1;
	int ntop = 0;
	for (int i = 0; i < l->nstmts; i++)
		if (is_barrier(l->stmts[i])) {
			if (ntop == 0)
				l->bar1 = i;
			else if (ntop == 1)
				l->bar2 = i;
			ntop++;
		}
	if (si->divergent_barriers)
		add_reason(c, si->first_barrier_nested, "kpipe-divergent-barrier",
			   "%s inside conditional code: barriers must sit in block-uniform "
			   "control flow",
			   call_label(c, si->first_barrier_nested));
	else if (si->nested_barriers)
		add_reason(
			c, si->first_barrier_nested, "kpipe-extra-barrier",
			"a barrier inside a nested loop of the K-loop: another ordering is being "
			"crossed");
	int unmodelled = unmodelled_barriers(c, si);
	int odd = si->nested_barriers || unmodelled;
	/* a warp's or a tile's sync where a block barrier is missing */
	const char *part =
		si->first_part_sync
			? kp_arena_printf(&c->f->arena,
					  " (%s on line %d synchronises only part of the block)",
					  call_label(c, si->first_part_sync),
					  si->first_part_sync->line)
			: "";
	if (si->barriers == 0) {
		add_reason(c, n, "kpipe-no-barrier",
			   "no __syncthreads() separates the tile loads from the compute phase%s",
			   part);
		return 0;
	}
	if (ntop == 1 && !odd)
		/* one of the two barriers is missing: either the compute reads
		 * tiles other threads may still be writing, or the next copy
		 * overwrites tiles other threads may still be reading */
		add_reason(
			c, n, "kpipe-no-barrier",
			"only one __syncthreads() in the loop: the tile loads and the compute phase "
			"need one barrier between them and another before the next loads%s",
			part);
	else if (ntop != 2 && !odd)
		add_reason(c, n, "kpipe-loop-shape",
			   "expected two top-level barriers (load; sync; compute; sync), found %d",
			   ntop);
	/* with a barrier of its own in place of one of the two, the phases
	 * cannot be told apart: nothing more to say about them */
	if (ntop < 1 || (unmodelled && ntop != 2))
		return 0;
	if (si->atomics)
		add_reason(c, si->first_atomic, "kpipe-memory-order",
			   "'%s' in the loop: atomics order memory that pipelining would reorder",
			   si->first_atomic->name);
	if (si->fences)
		add_reason(c, si->first_fence, "kpipe-memory-order",
			   "'%s' in the loop: a fence orders memory that pipelining would reorder",
			   si->first_fence->name);
	return ntop;
}

/* The load and compute phases between the barriers, and the bumps that
 * close the load phase; 0 when there is no load phase. */
static int split_phases(actx *c, int ntop)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	/* phases: skip leading __shared__ declarations */
	int first = 0;
	while (first < l->nstmts && l->stmts[first]->kind == KP_N_DECLSTMT) {
		kp_node *ds = l->stmts[first];
		int all_shared = ds->nkids > 0;
		for (int i = 0; i < ds->nkids; i++)
			if (ds->kids[i]->kind != KP_N_VARDECL || !ds->kids[i]->decl ||
			    !ds->kids[i]->decl->is_shared)
				all_shared = 0;
		if (!all_shared)
			break;
		for (int i = 0; i < ds->nkids; i++)
			add_tile(c, ds->kids[i]->decl, ds, 0);
		first++;
	}
	if (ntop >= 2 && l->bar1 == first) {
		l->form = KP_FORM_TOP;
		l->load_b = l->bar1 + 1;
		l->load_e = l->bar2;
		l->comp_b = l->bar2 + 1;
		l->comp_e = l->nstmts;
	} else {
		l->form = KP_FORM_BOTTOM;
		l->load_b = first;
		l->load_e = l->bar1;
		l->comp_b = l->bar1 + 1;
		l->comp_e = l->bar2 >= 0 ? l->bar2 : l->nstmts;
		if (l->bar2 >= 0)
			for (int i = l->bar2 + 1; i < l->nstmts; i++) {
				kp_decl *v = inc_var(l->stmts[i]);
				int sign;
				if (!v || !step_text(c, l->stmts[i], &sign))
					add_reason(
						c, l->stmts[i], "kpipe-loop-shape",
						"statement after the closing barrier is not a pointer "
						"or counter bump");
			}
	}
	/* pointer or counter bumps closing the load phase move after the compute */
	l->bump_b = l->bump_e = l->load_e;
	while (l->load_e > l->load_b) {
		kp_node *s = l->stmts[l->load_e - 1];
		kp_decl *v = inc_var(s);
		int sign;
		if (!v || v->is_shared || !step_text(c, s, &sign) ||
		    (v->in_main && n->in_main && v->name_off >= n->begin && v->name_off < n->end))
			break;
		l->load_e--;
		l->bump_b = l->load_e;
	}
	if (l->load_e <= l->load_b) {
		add_reason(c, n, "kpipe-loop-shape", "no load phase before the first barrier");
		return 0;
	}
	return 1;
}

/* Induction variables: the header's increments and the bumps after the
 * loads; each must advance once per iteration, and nothing may leave the
 * body early. */
static void find_induction(actx *c)
{
	kp_loop *l = c->l;
	/* induction: header increments, then top-level bumps after the loads.
	 * A bump is what the next tile's loads or the condition read: an
	 * update the loads do not depend on (an accumulator, `acc += v;`
	 * after a per-tile partial sum) is compute, which the rewrite keeps
	 * in place, not an induction variable to advance.  The bumps that
	 * close the load phase move after the compute: those stay induction
	 * variables whatever reads them (each must advance once). */
	gather_header_incs(c, l->inc);
	for (int i = l->load_e; i < l->nstmts; i++) {
		kp_node *s = l->stmts[i];
		kp_decl *v = inc_var(s);
		int sign;
		const char *st = v ? step_text(c, s, &sign) : NULL;
		if (v && st && !v->is_shared && !is_ind(l, v) &&
		    (i < l->bump_e || loads_or_cond_read(l, v))) {
			/* only a bump when declared outside the loop */
			if (l->node->in_main && v->in_main && v->name_off >= l->node->begin &&
			    v->name_off < l->node->end)
				continue;
			add_ind(c, v, st, sign, 0, s);
		}
	}
	for (int i = 0; i < l->nind; i++) {
		kp_induct *in = &l->ind[i];
		if (in->in_header && !strcmp(in->step, "1") && in->sign > 0)
			l->tile_count = 1;
	}

	/* control flow that leaves the body skips the buffer rotation */
	kp_node *jump = find_jump(l->body, 0);
	if (jump)
		add_reason(
			c, jump, "kpipe-loop-shape",
			"'%s' leaves the loop body early; the rewrite rotates buffers at the end of "
			"every iteration",
			jump->kind == KP_N_RETURN  ? "return"
			: jump->kind == KP_N_GOTO  ? "goto"
			: jump->kind == KP_N_BREAK ? "break"
						   : "continue");
	/* every induction variable advances exactly once per iteration */
	for (int i = 0; i < l->nind; i++) {
		int nw = count_writes(l->body, l->ind[i].var) + (l->ind[i].in_header ? 1 : 0);
		if (nw != 1)
			add_reason(
				c, l->ind[i].stmt, "kpipe-loop-shape",
				"'%s' is updated %d times per iteration; kpipe needs exactly one "
				"constant step",
				l->ind[i].var->name, nw);
	}
}

typedef struct {
	const kp_decl *d;
	const kp_node *call;
} tile_call_walk;

static int find_tile_call(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	tile_call_walk *w = ud;
	if (w->call)
		return 0;
	if (n->kind == KP_N_CALL && n->sync == KP_SYNC_NONE)
		for (int i = kp_call_first_arg(n); i < n->nkids; i++) {
			const kp_node *a = kp_node_strip(n->kids[i]);
			if (a && a->kind == KP_N_DECLREF && a->decl == w->d &&
			    kp_call_arg_write(n, i))
				w->call = n;
		}
	return 1;
}

/* The call of the compute phase that is handed the tile d where it may
 * write it (never one whose parameter is a pointer or reference to
 * const), or NULL (the tile is written otherwise). */
static const kp_node *tile_call(const kp_loop *l, const kp_decl *d)
{
	tile_call_walk w = {d, NULL};
	for (int i = l->comp_b; i < l->comp_e && !w.call; i++)
		kp_node_walk(l->stmts[i], NULL, find_tile_call, &w);
	return w.call;
}

/* The shared tiles of the loop (written by the load phase, or used in the
 * body) and what keeps each from being multi-buffered. */
static void check_tiles(actx *c, const rw_set *lw, const rw_set *cw)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	/* tiles */
	for (int i = 0; i < lw->nw; i++)
		if (lw->w[i]->is_shared)
			add_tile(c, lw->w[i], NULL, 1);
	decl_vec sv = {0};
	kp_node_walk(l->body, NULL, collect_shared_refs, &sv);
	for (int i = 0; i < sv.n; i++)
		add_tile(c, sv.v[i], NULL, rw_has(lw->w, lw->nw, sv.v[i]));
	free(sv.v);

	for (int i = 0; i < l->ntiles; i++) {
		kp_tile *t = &l->tiles[i];
		if (!t->loaded)
			continue;
		if (rw_has(cw->w, cw->nw, t->arr)) {
			const kp_node *call = tile_call(l, t->arr);
			if (call)
				add_reason(c, call, "kpipe-compute-writes-tile",
					   "the compute phase passes the loaded tile '%s' to '%s', "
					   "which may write it: %s",
					   t->arr->name, callee_name(c->f, call),
					   call->decl && call->decl->nparam_ty >= 0 &&
							   !call->decl->variadic
						   ? "its parameter is not a pointer or reference "
						     "to const"
						   : "a call whose parameter types kpipe cannot "
						     "see (no declaration yet, dependent in a "
						     "template, or `...`)");
			else
				add_reason(c, n, "kpipe-compute-writes-tile",
					   "the compute phase writes the loaded tile '%s'",
					   t->arr->name);
		}
		if (kp_decl_is_dynamic_smem(t->arr)) {
			const char *why = dynamic_tile_problem(c, t);
			if (why)
				add_reason(c, n, "kpipe-dynamic-smem", "%s", why);
			else
				l->dyn_tiles++;
		}
		if (!t->arr->in_main || t->arr->bounds_hidden)
			add_reason(
				c, n, "kpipe-macro-array",
				"the declaration of '%s' comes from a macro (or its bounds from a "
				"typedef) and cannot be edited",
				t->arr->name);
		/* references spelled inside a macro body cannot be re-indexed */
		void *mr[2] = {t->arr, NULL};
		kp_node_walk(l->body, NULL, find_macro_ref, mr);
		if (mr[1])
			add_reason(
				c, mr[1], "kpipe-macro-array",
				"'%s' is used inside a macro body; kpipe can only re-index uses "
				"spelled in the source (macro arguments are fine); kpipe rewrite "
				"expands such macros in the loop first where it can (a remark "
				"says why not)",
				t->arr->name);
		/* read after the loop */
		if (n->in_main && c->k->body) {
			unsigned after = n->end;
			void *a[3] = {t->arr, &after, NULL};
			kp_node_walk(c->k->body, NULL, refs_after, a);
			const kp_node *around = a[2] ? loop_around(c, a[2]) : NULL;
			if (around)
				add_reason(c, a[2], "kpipe-tile-read-after-loop",
					   "'%s' is read after the loop, in the loop around it at "
					   "line %d: the last tile would be observable there",
					   t->arr->name, around->line);
			else if (a[2] && !kp_tile_refilled_after(c->f, c->k, l, t))
				add_reason(
					c, a[2], "kpipe-tile-read-after-loop",
					"'%s' is read after the loop: the last tile would be observable",
					t->arr->name);
		}
	}
}

/* Whether a variable of the load phase is given a value read from global
 * memory there (its initialiser or an assignment). */
typedef struct {
	const kp_decl *d;
	int hit;
} loaded_walk;

static int find_loaded_value(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	loaded_walk *w = ud;
	if (n->kind == KP_N_VARDECL && n->decl == w->d && n->decl->init &&
	    find_global_load(n->decl->init))
		w->hit = 1;
	if (is_assign(n) && n->nkids == 2) {
		const kp_node *t = kp_node_strip(n->kids[0]);
		if (t && t->kind == KP_N_DECLREF && t->decl == w->d && find_global_load(n->kids[1]))
			w->hit = 1;
	}
	return !w->hit;
}

static int holds_loaded_value(const kp_loop *l, const kp_decl *d)
{
	loaded_walk w = {d, 0};
	for (int i = l->load_b; i < l->load_e && !w.hit; i++)
		kp_node_walk(l->stmts[i], NULL, find_loaded_value, &w);
	return w.hit;
}

/* What the phases read and write: the next tile's loads must not depend on
 * this iteration, and the compute phase must not carry state through
 * shared memory or read what the load phase declares or bumps. */
/* Whether n loads from global memory through d (a load rooted at d; the
 * target of a plain `=` is a store, only its indices are read). */
static int reads_global(kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	if (is_assign(n) && n->nkids == 2) {
		for (kp_node *t = n->kids[0]; t && t->kind == KP_N_SUBSCRIPT && t->nkids == 2;
		     t = t->kids[0])
			if (reads_global(t->kids[1], d))
				return 1;
		return reads_global(n->kids[1], d);
	}
	kp_node *r = global_load_root(n);
	if (r && r->decl == d)
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (reads_global(n->kids[i], d))
			return 1;
	return 0;
}

static void check_dependences(actx *c, const rw_set *lw, const rw_set *cw, const rw_set *all)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	/* shared state carried by compute */
	for (int i = 0; i < cw->nw; i++)
		if (cw->w[i]->is_shared && !rw_has(lw->w, lw->nw, cw->w[i]))
			add_reason(
				c, cw->wat[i], "kpipe-smem-carried",
				"the compute phase writes the shared array '%s', which carries state "
				"from one iteration to the next",
				cw->w[i]->name);
	/* load addresses: only loop counter, bumps and invariants */
	for (int i = 0; i < lw->nr; i++) {
		kp_decl *d = lw->r[i];
		if (rw_has(lw->decl, lw->nd, d) || is_ind(l, d) || d->is_shared ||
		    kp_is_scratch(c->f, c->k, l, d) || kp_var_phase_private(c->f, c->k, l, d))
			continue;
		if (rw_has(all->w, all->nw, d)) {
			add_reason(
				c, n, "kpipe-load-depends-on-compute",
				"the tile loads read '%s', which the loop body modifies: the next "
				"tile's addresses are not known in advance",
				d->name);
			break;
		}
	}
	for (int i = 0; i < lw->nr && !l->loads_in_helper; i++)
		if (lw->r[i]->is_shared && !rw_has(lw->w, lw->nw, lw->r[i])) {
			add_reason(c, n, "kpipe-load-depends-on-compute",
				   "the load phase reads the shared array '%s'", lw->r[i]->name);
			break;
		}
	for (int i = 0; i < lw->nw; i++) {
		kp_decl *d = lw->w[i];
		if (d->is_shared || rw_has(lw->decl, lw->nd, d) ||
		    kp_is_scratch(c->f, c->k, l, d) || kp_var_phase_private(c->f, c->k, l, d))
			continue;
		add_reason(c, lw->wat[i], "kpipe-load-side-effect",
			   "the load phase modifies '%s', which lives outside it", d->name);
		break;
	}
	/* bumps moved after the compute must not be read by it */
	for (int i = l->bump_b; i < l->bump_e; i++) {
		kp_decl *v = inc_var(l->stmts[i]);
		if (v && rw_has(cw->r, cw->nr, v))
			add_reason(
				c, l->stmts[i], "kpipe-loop-shape",
				"'%s' is bumped before the barrier and read by the compute phase",
				v->name);
	}
	/* declarations of the load phase used later */
	for (int i = 0; i < lw->nd; i++)
		if (rw_has(cw->r, cw->nr, lw->decl[i])) {
			if (holds_loaded_value(l, lw->decl[i]))
				add_reason(
					c, n, "kpipe-load-decl-used-later",
					"'%s' holds a value the load phase reads from global memory, and "
					"the compute phase uses it: pipelined, the load phase runs a tile "
					"ahead and the compute would see the next tile's value; read it "
					"from the tile instead",
					lw->decl[i]->name);
			else
				add_reason(
					c, n, "kpipe-load-decl-used-later",
					"'%s' is declared in the load phase and used by the compute "
					"phase; move its declaration before the loop",
					lw->decl[i]->name);
			break;
		}
	/* a global store to memory that the loads read (any store of the
	 * loop, not only the first: a store to the output may come before) */
	for (int g = 0; g < all->ngs; g++) {
		int hit = 0;
		for (int i = 0; i < l->nloads && !hit; i++)
			hit = l->loads[i].src == all->gs[g];
		/* or any load of the load phase: a copy through a temporary set
		 * under a condition has no source of its own */
		for (int i = l->load_b; i < l->load_e && !hit; i++)
			hit = reads_global(l->stmts[i], all->gs[g]);
		if (hit) {
			add_reason(c, all->gsat[g], "kpipe-memory-order",
				   "the loop stores to '%s', which its tile loads also read",
				   all->gs[g]->name);
			break;
		}
	}
	/* the condition may only move with the induction variables */
	{
		rw_set cr = {0};
		collect_rw(l->cond, &cr);
		for (int i = 0; i < cr.nr; i++)
			if (!is_ind(l, cr.r[i]) && rw_has(all->w, all->nw, cr.r[i])) {
				add_reason(
					c, l->cond, "kpipe-loop-shape",
					"the loop condition reads '%s', which the body modifies: the "
					"next tile's existence is not known in advance",
					cr.r[i]->name);
				break;
			}
		rw_release(&cr);
	}
	/* induction variables must not be written elsewhere in the body */
	for (int i = 0; i < l->nind; i++) {
		kp_induct *in = &l->ind[i];
		int writes = 0;
		for (int j = 0; j < all->nw; j++)
			if (all->w[j] == in->var)
				writes++;
		if (!in->in_header && writes > 1)
			add_reason(c, in->stmt, "kpipe-loop-shape",
				   "'%s' is updated more than once per iteration", in->var->name);
		if (in->in_header && rw_has(all->w, all->nw, in->var))
			add_reason(c, n, "kpipe-loop-shape",
				   "the loop counter '%s' is also modified inside the body",
				   in->var->name);
	}
}

static const kp_node *ref_to(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return NULL;
	if (n->kind == KP_N_DECLREF && n->decl == d)
		return n;
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = ref_to(n->kids[i], d);
		if (r)
			return r;
	}
	return NULL;
}

/* Register staging stores the tile after the math, from its registers,
 * with the address computed there: an address (or guard) that reads the
 * register the source stages a copy in would see the value it holds at
 * the end of the next tile's load phase, not the one it held at the
 * store. */
typedef struct {
	const actx *c;
	const kp_node *hit;
} scratch_ref_walk;

typedef struct {
	const kp_decl *d;
	int hit;
} written_walk;

static int find_write_to(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	written_walk *w = ud;
	int plain;
	kp_node *t = kp_write_target(n, &plain);
	kp_node *r = t ? lvalue_root(t) : NULL;
	if (r && r->decl == w->d)
		w->hit = 1;
	return !w->hit;
}

/* A scratch register the load phase writes (not a constant of the thread
 * that only the load phase happens to name). */
static int written_scratch(const actx *c, const kp_decl *d)
{
	if (!kp_is_scratch(c->f, c->k, c->l, d) && !kp_var_phase_private(c->f, c->k, c->l, d))
		return 0;
	written_walk w = {d, 0};
	for (int i = c->l->load_b; i < c->l->load_e && !w.hit; i++)
		kp_node_walk(c->l->stmts[i], NULL, find_write_to, &w);
	return w.hit;
}

static int find_scratch_ref(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	scratch_ref_walk *w = ud;
	if (n->kind == KP_N_DECLREF && n->decl && written_scratch(w->c, n->decl))
		w->hit = n;
	return !w->hit;
}

static void check_staged_addresses(actx *c)
{
	kp_loop *l = c->l;
	for (int j = 0; j < l->nloads; j++) {
		scratch_ref_walk w = {c, NULL};
		kp_node_walk(l->loads[j].lhs, NULL, find_scratch_ref, &w);
		if (!w.hit && l->loads[j].guard != KP_G_NONE)
			kp_node_walk(l->loads[j].cond, NULL, find_scratch_ref, &w);
		if (w.hit) {
			add_reason(
				c, w.hit, "kpipe-load-depends-on-compute",
				"the address or guard of the copy on line %d reads '%s', which the "
				"load phase itself writes",
				l->loads[j].line, w.hit->decl->name);
			return;
		}
	}
	for (int i = 0; i < l->nloads; i++) {
		const kp_decl *v = l->loads[i].via;
		for (int j = 0; v && j < l->nloads; j++) {
			const kp_node *r = ref_to(l->loads[j].lhs, v);
			if (!r && l->loads[j].guard != KP_G_NONE)
				r = ref_to(l->loads[j].cond, v);
			if (r) {
				add_reason(
					c, r, "kpipe-load-depends-on-compute",
					"the address or guard of the copy on line %d reads '%s', "
					"which the load phase itself fills from global memory",
					l->loads[j].line, v->name);
				return;
			}
		}
	}
}

/* A condition a copy runs under (kp_load.under), and the header of each
 * copy loop around it, must be the same in every iteration.  Where a
 * condition fails (or a copy loop stops early) the original leaves the
 * element as it was, the previous tile; with two buffers it would hold a
 * tile from two iterations back.  Values fixed before the loop (thread
 * and block indices, parameters, variables the loop never writes, locals
 * of the loop computed from those) leave the same elements unwritten in
 * every iteration, in both buffers alike, so the rewrite is the same. */
typedef struct {
	const kp_loop *l;
	const rw_set *all;
	const kp_decl *allow[4]; /* the counters of the copy loops around */
	int nallow;
	int depth;
	const char *why; /* what the part found does */
} vary_ctx;

static const kp_node *varying_part(vary_ctx *v, const kp_node *n);

static const kp_node *varying_ref(vary_ctx *v, const kp_node *n)
{
	const kp_decl *d = n->decl;
	if (!d || (d->kind != KP_D_VAR && d->kind != KP_D_PARM))
		return NULL;
	for (int i = 0; i < v->nallow; i++)
		if (v->allow[i] == d)
			return NULL;
	if (is_ind(v->l, d))
		v->why = "advances every iteration";
	else if (rw_has(v->all->w, v->all->nw, d))
		v->why = "changes inside the loop";
	else if (d->is_shared || KP_TY_ANY_VOLATILE(d->ty) || d->ty.is_ref)
		v->why = "is memory other threads may write";
	else if (rw_has(v->all->decl, v->all->nd, d)) {
		/* a compile-time constant declared in the loop (constexpr, or
		 * const with a value clang folds) has one value in every
		 * iteration */
		if (d->kind == KP_D_VAR && (d->is_constexpr || (d->is_const && d->has_value)))
			return NULL;
		/* a local of the loop: as fixed as what it is computed from */
		if (!d->init || v->depth > 16) {
			v->why = "is declared inside the loop";
			return n;
		}
		v->depth++;
		const kp_node *r = varying_part(v, d->init);
		v->depth--;
		if (!r)
			return NULL;
		v->why = "is computed from a value that may change from tile to tile";
		return n;
	} else
		return NULL;
	return n;
}

static const kp_node *varying_part(vary_ctx *v, const kp_node *n)
{
	if (!n)
		return NULL;
	switch (n->kind) {
	case KP_N_DECLREF: return varying_ref(v, n);
	case KP_N_MEMBER: /* threadIdx.x; p->x reads memory */
		if (n->nkids && n->kids[0]->type && strchr(n->kids[0]->type, '*')) {
			v->why = "reads memory";
			return n;
		}
		break;
	case KP_N_CALL:
		if (!pure_call(n) || !strcmp(n->name, "__ldg")) {
			v->why = "is a call";
			return n;
		}
		break;
	case KP_N_SUBSCRIPT: v->why = "reads memory"; return n;
	case KP_N_UNOP:
		if (n->op && (n->opk == KP_OP_DEREF || KP_OP_IS_INCDEC(n->opk))) {
			v->why = (n->opk == KP_OP_MUL || n->opk == KP_OP_DEREF)
					 ? "reads memory"
					 : "has a side effect";
			return n;
		}
		break;
	case KP_N_BINOP:
		if (n->op && n->opk == KP_OP_ASSIGN) {
			v->why = "has a side effect";
			return n;
		}
		break;
	case KP_N_ASSIGNOP:
	case KP_N_LAMBDA:
	case KP_N_ASM:
	case KP_N_DECLSTMT:
	case KP_N_VARDECL: v->why = "is not a plain expression"; return n;
	default: break;
	}
	for (int i = 0; i < n->nkids; i++) {
		const kp_node *r = varying_part(v, n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

/* The header of a copy loop: its first value, its condition and its step
 * fixed but for its own counter (added to v->allow).  A while or do loop
 * has no counter of its own: its condition reads what the body changes. */
static const kp_node *varying_loop(vary_ctx *v, const kp_node *lp)
{
	if (lp->kind != KP_N_FOR)
		return varying_part(v, lp->kind == KP_N_DO ? lp->kids[lp->nkids - 1] : lp->kids[0]);
	const kp_node *init = lp->for_init, *inc = lp->for_inc;
	const kp_node *first = NULL;
	if (init && init->kind == KP_N_DECLSTMT) {
		for (int i = 0; i < init->nkids; i++) {
			const kp_node *vd = init->kids[i];
			if (vd->kind != KP_N_VARDECL || !vd->decl)
				return init;
			if (v->nallow < 4)
				v->allow[v->nallow++] = vd->decl;
			if (!first)
				first = vd->decl->init;
		}
	} else if (init && is_assign(init)) {
		const kp_node *t = kp_node_strip(init->kids[0]);
		if (t->kind == KP_N_DECLREF && t->decl && v->nallow < 4)
			v->allow[v->nallow++] = t->decl;
		first = init->kids[1];
	} else if (init) {
		v->why = "is not a counted loop's start";
		return init;
	}
	const kp_node *r = varying_part(v, first);
	if (!r)
		r = varying_part(v, lp->for_cond);
	if (!r && inc && (inc->kind == KP_N_ASSIGNOP || is_assign(inc)))
		r = varying_part(v, inc->kids[1]);
	else if (!r && inc && inc->kind != KP_N_UNOP) {
		v->why = "is not a counted loop's step";
		r = inc;
	}
	return r;
}

/* varying_part() for guard_cover.c: ctx is a vary_ctx, copied. */
static int guard_part_varies(void *ctx, const kp_node *n)
{
	vary_ctx v = *(vary_ctx *)ctx;
	return varying_part(&v, n) != NULL;
}

static void check_guards(actx *c, const rw_set *all)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		if (ld->nunder > 4 || ld->depth > 4) {
			add_reason(c, ld->stmt, "kpipe-partial-tile-write",
				   "'%s' is written under more than 4 nested conditions or loops: "
				   "kpipe does not follow them",
				   ld->tile->name);
			return;
		}
		vary_ctx v = {l, all, {NULL}, 0, 0, "may change"};
		for (int d = 0; d < ld->depth; d++) {
			const kp_node *bad = varying_loop(&v, ld->loops[d]);
			if (!bad)
				continue;
			add_reason(
				c, ld->loops[d], "kpipe-partial-tile-write",
				"'%s' is written in a copy loop whose '%s' %s: the elements it writes "
				"may change from one tile to the next, and one left out keeps the "
				"previous tile, which the other buffer does not hold",
				ld->tile->name, kp_node_text(c->f, bad), v.why);
			return;
		}
		for (int u = 0; u < ld->nunder; u++) {
			const kp_node *g = ld->under[u];
			const kp_node *bad = g->nkids ? varying_part(&v, g->kids[0]) : g;
			if (!bad)
				continue;
			/* the compute reads only what the guard wrote (guard_cover.h) */
			if (g->kind == KP_N_IF && g->nkids == 2 && !ld->under_else[u] &&
			    kp_guard_covers_reads(c->f, c->k, l, ld, g->kids[0], guard_part_varies,
						  &v))
				continue;
			/* an if/else already has its else: what kpipe reads as a
			 * guarded copy is one copy per branch */
			int has_else = g->kind == KP_N_IF && g->nkids == 3;
			add_reason(
				c, g, "kpipe-partial-tile-write",
				"'%s' is written under the condition '%s', whose '%s' %s: where the "
				"condition fails the element keeps the previous tile, which the other "
				"buffer does not hold; %s",
				ld->tile->name, g->nkids ? kp_node_text(c->f, g->kids[0]) : "?",
				kp_node_text(c->f, bad), v.why,
				has_else ? "kpipe reads an if/else as a guarded copy when each "
					   "branch is one store to the same element, the else "
					   "storing 0 (kpipe rewrite splits an if/else of "
					   "several copies where it can; a remark says why not)"
					 : "store 0 in an else branch, or guard with values fixed "
					   "before the loop");
			return;
		}
	}
}

/* The copy loops' trip counts (what register staging indexes by), and
 * whether a template kernel's parameters were left symbolic.  Which copy
 * mechanism can move the loads is the transforms' question
 * (transforms/cp_async.c, transforms/reg_staging.c). */
static void copy_trips(actx *c)
{
	kp_loop *l = c->l;
	for (int i = 0; i < l->nloads; i++) {
		kp_load *ld = &l->loads[i];
		for (int d = 0; d < 4; d++) {
			range_of(c, d < ld->depth ? ld->loops[d] : NULL, &ld->ranges[d]);
			ld->trips[d] = range_trip(c, &ld->ranges[d]);
		}
	}
	l->params_symbolic = c->k->is_template && !c->iv;
}

/* The compute phase's math and FLOPs, and the bytes of the loaded tiles. */
static void count_math(actx *c)
{
	kp_loop *l = c->l;
	/* math */
	math_scan ms = {c, 0, 0, KP_MATH_NONE};
	for (int i = l->comp_b; i < l->comp_e; i++)
		scan_math(&ms, l->stmts[i], 1.0);
	l->math = ms.math;
	l->flops_thread = ms.unknown && ms.flops == 0 ? -1 : ms.flops;
	l->tile_bytes = 0;
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].loaded) {
			if (l->tiles[i].bytes < 0)
				l->tile_bytes = -1;
			else if (l->tile_bytes >= 0)
				l->tile_bytes += l->tiles[i].bytes;
		}
}

static kp_node *nested_kloop(kp_node *n);
static int kloop_like(const kp_node *n);

static void analyze_loop(actx *c)
{
	kp_loop *l = c->l;
	kp_node *n = l->node;
	l->not_kloop = !kloop_like(n); /* a copy loop, a reduction: remarks */
	/* a loop around K-loops (a persistent kernel's tile loop, a loop over
	 * batches) is no K-loop itself, whatever barriers it has of its own:
	 * its K-loops are candidates of their own (find_candidates) */
	kp_node *inner = nested_kloop(loop_body(n));
	if (inner) {
		l->encloses_line = inner->line;
		l->cond = n->kind == KP_N_FOR ? n->for_cond : NULL;
		l->inc = n->kind == KP_N_FOR ? n->for_inc : NULL;
		l->init = n->kind == KP_N_FOR ? n->for_init : NULL;
		l->bar1 = l->bar2 = -1;
		add_reason(c, n, "kpipe-loop-shape",
			   "not a K-loop: the loop encloses the K-loop at line %d, which is "
			   "analysed on its own",
			   inner->line);
		return;
	}
	/* kpipe's own output says so through kp_stage (below) */
	const kp_decl *hb = c->k->body && !uses_kpipe_stage(loop_body(n)) ? hand_buffers(c->k, n)
									  : NULL;
	if (hb) {
		l->already_pipelined = 1;
		add_reason(c, n, "kpipe-already-pipelined",
			   "'%s' has %lld buffers, filled before the loop and again inside it: the "
			   "loop is pipelined by hand and is left alone",
			   hb->name, hb->dims[0]);
		return;
	}
	if (n->kind != KP_N_FOR) {
		add_reason(c, n, "kpipe-loop-shape",
			   "only for-loops are pipelined; rewrite this loop as a for-loop");
		return;
	}
	l->body = n->for_body;
	l->init = n->for_init;
	l->cond = n->for_cond;
	l->inc = n->for_inc;
	if (!l->body) {
		add_reason(c, n, "kpipe-loop-shape", "the loop has no body kpipe can read");
		return;
	}
	scan_info si = {0};
	si.c = c;
	scan_calls(l->body, &si, 0, 0);
	l->nbarriers = si.barriers;
	if (si.pipeline || uses_kpipe_stage(l->body)) {
		l->already_pipelined = 1;
		add_reason(c, si.first_pipeline ? si.first_pipeline : n, "kpipe-already-pipelined",
			   "the loop already uses '%s': it is pipelined and is left alone",
			   si.first_pipeline && si.first_pipeline->name ? si.first_pipeline->name
			   : si.first_pipeline                          ? "cp.async"
									: "kp_stage");
		return;
	}
	if (!l->cond || !l->inc) {
		add_reason(c, n, "kpipe-loop-shape",
			   "the loop needs a condition and an increment (for (init; cond; inc))");
		return;
	}
	if (l->body->kind != KP_N_COMPOUND) {
		/* a one-statement loop has no barrier: that is what keeps it from
		 * being a K-loop (a copy loop of a K-loop whose barriers are gone) */
		if (si.barriers == 0)
			add_reason(c, n, "kpipe-no-barrier",
				   "no __syncthreads() separates the tile loads from the compute "
				   "phase (the loop is one statement, not a braced block)");
		else
			add_reason(c, n, "kpipe-loop-shape", "the loop body is not a braced block");
		return;
	}
	int ntop = top_barriers(c, &si);
	if (ntop < 1 || !split_phases(c, ntop))
		return;
	find_induction(c);

	/* loads */
	find_temps(c);
	for (int i = l->load_b; i < l->load_e; i++)
		scan_loads(c, l->stmts[i], (load_scope){0});
	if (l->nloads == 0 && !l->loads_in_helper && !l->loads_carve_out)
		add_reason(c, n, "kpipe-no-tile-load",
			   "the load phase copies nothing from global into __shared__ memory");

	/* read/write sets */
	rw_set lw = {0}, cw = {0}, all = {0};
	collect_range(l, l->load_b, l->load_e, &lw);
	collect_range(l, l->comp_b, l->comp_e, &cw);
	collect_rw(l->body, &all);
	check_tiles(c, &lw, &cw);
	check_dependences(c, &lw, &cw, &all);
	check_guards(c, &all);
	/* steps must be invariant: no variable written in the body */
	check_steps(c, &all);
	check_cond_pure(c);
	check_stores(c);
	check_hidden_induction(c, l->stmts[l->load_b]->begin, l->stmts[l->load_e - 1]->end);
	copy_trips(c);
	check_staged_addresses(c);
	check_tile_uses(c);
	kp_copy_facts(c->f, c->k, l, c->iv, c->targs);
	l->effects = kp_effects_of_loop(c->f, c->k, l);
	kp_rule_ctx rc = {c->f, c->k, l, c->iv, c->targs};
	kp_rules_run(&rc);
	l->cond_monotone = cond_monotone(c);
	find_exit_barrier(c);
	count_math(c);
	rw_release(&lw);
	rw_release(&cw);
	rw_release(&all);
}

void kp_loop_budget(const kp_loop *l, const kp_arch *a, int stages, kp_budget *out)
{
	memset(out, 0, sizeof(*out));
	out->stages = stages;
	if (l->tile_bytes < 0) {
		out->bytes = -1;
		return;
	}
	out->bytes = l->tile_bytes * stages + l->other_smem;
	out->fits_static = out->bytes <= a->smem_static_per_block;
	out->fits_optin = out->bytes <= a->smem_optin_per_block;
	out->occ = kp_arch_occupancy(a, l->threads > 0 ? l->threads : 256, 0, (int)out->bytes);
}

static void finish_loop(actx *c, const kp_analyze_opts *o)
{
	kp_loop *l = c->l;
	kp_kernel *k = c->k;
	/* other static shared memory of the kernel */
	decl_vec sv = {0};
	kp_node_walk(k->body, NULL, collect_shared_refs, &sv);
	l->other_smem = 0;
	for (int i = 0; i < sv.n; i++) {
		int is_tile = 0;
		for (int j = 0; j < l->ntiles; j++)
			if (l->tiles[j].arr == sv.v[i] && l->tiles[j].loaded)
				is_tile = 1;
		if (!is_tile) {
			long long e = decl_elems(c, sv.v[i]);
			long long esz = elem_size_of(c, sv.v[i]);
			if (e > 0 && esz > 0)
				l->other_smem += e * esz;
		}
	}
	free(sv.v);
	/* threads per block */
	if (o->threads > 0) {
		l->threads = o->threads;
		l->threads_from = "--threads";
	} else if (o->spec_threads > 0 && (!o->spec_kernel || !strcmp(o->spec_kernel, k->name))) {
		l->threads = o->spec_threads;
		l->threads_from = "launch description";
	} else if (k->launch_bounds > 0) {
		l->threads = k->launch_bounds;
		l->threads_from = "__launch_bounds__";
	}
	if (l->flops_thread >= 0 && l->threads > 0)
		l->flops_tile = l->flops_thread * l->threads;
	else
		l->flops_tile = -1;
	l->ratio = l->flops_tile >= 0 && l->tile_bytes > 0 ? l->flops_tile / (double)l->tile_bytes
							   : -1;
	/* the static shared-memory limit depends on the buffers of the
	 * transform: plan.c checks it (kp_plan_smem) */
	l->eligible = l->nreasons == 0;
}

/* Candidate loops: loops whose body holds a barrier or a copy into shared
 * memory.  A loop with a barrier at the top level of its body is a
 * candidate (the loops nested in it are part of it: copy loops, loops of
 * the compute phase), unless it encloses K-loops of its own (nested_kloop):
 * then it is reported as an enclosing loop and each K-loop in it is a
 * candidate.  A loop without top-level barriers gives way to the candidates
 * nested in it, and is one itself only when there are none. */
typedef struct {
	kp_node **v;
	int n, cap;
} node_vec;

/* An assignment of something loaded from global memory (in a helper's
 * body, whose destination is a parameter). */
static int assigns_global_load(kp_node *n)
{
	if (!n)
		return 0;
	if ((is_assign(n) || n->kind == KP_N_ASSIGNOP) && n->nkids == 2 &&
	    find_global_load(n->kids[1]))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (assigns_global_load(n->kids[i]))
			return 1;
	return 0;
}

/* A call of a helper whose body is `return E;` with E loaded from global
 * memory (`ld_vec(p)`: `return *(const float4 *)p;`). */
static int loading_call(const kp_node *n)
{
	n = kp_node_strip(n);
	if (!n || n->kind != KP_N_CALL || !n->decl || !n->decl->fn || !n->decl->fn->body)
		return 0;
	const kp_node *b = n->decl->fn->body;
	return b->nkids == 1 && b->kids[0]->kind == KP_N_RETURN && b->kids[0]->nkids == 1 &&
	       find_global_load(b->kids[0]->kids[0]);
}

/* A call of a load helper (kp_decl.fn) handed a shared array: the loop
 * copies into shared memory through it, the load in its body or in an
 * argument (`st_vec(&As[y][x], ld_vec(A + ...))`). */
static int helper_copy(const kp_node *n)
{
	if (n->kind != KP_N_CALL || !n->decl || !n->decl->fn || !n->decl->fn->body ||
	    !kp_call_shared_arg(n))
		return 0;
	if (assigns_global_load(n->decl->fn->body))
		return 1;
	for (int i = 1; i < n->nkids; i++)
		if (loading_call(n->kids[i]))
			return 1;
	return 0;
}

static int has_smem_copy(kp_node *n)
{
	if (!n)
		return 0;
	if (helper_copy(n))
		return 1;
	if (is_assign(n) && n->nkids == 2) {
		kp_decl *t;
		/* a plain copy, or a converting or guarded one (c ? A[i] : 0) */
		if (shared_lhs(n->kids[0], &t) && find_global_load(n->kids[1]))
			return 1;
	}
	for (int i = 0; i < n->nkids; i++)
		if (has_smem_copy(n->kids[i]))
			return 1;
	return 0;
}

/* A copy through a temporary somewhere in `body`: a store into a shared
 * array of a local that the body sets (or whose initialiser is) a load
 * from global memory (`T v = 0; if (in) v = A[i]; As[r][c] = v;`). */
typedef struct {
	kp_node *body;
	int found;
} temp_copy_walk;

static int find_temp_copy(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	temp_copy_walk *w = ud;
	kp_decl *t;
	const kp_node *v = is_assign(n) && n->nkids == 2 ? kp_node_strip(n->kids[1]) : NULL;
	if (w->found || !v || v->kind != KP_N_DECLREF || !v->decl || v->decl->kind != KP_D_VAR ||
	    v->decl->is_shared || !shared_lhs(n->kids[0], &t))
		return !w->found;
	if (v->decl->init && find_global_load(v->decl->init))
		w->found = 1;
	else {
		assign_walk aw = {v->decl, NULL};
		kp_node_walk(w->body, NULL, find_assign_load, &aw);
		w->found = aw.load != NULL;
	}
	return !w->found;
}

/* A copy from global into shared memory in n: direct (has_smem_copy) or
 * through a temporary of n. */
static int has_copy(kp_node *n)
{
	if (has_smem_copy(n))
		return 1;
	temp_copy_walk w = {n, 0};
	kp_node_walk(n, NULL, find_temp_copy, &w);
	return w.found;
}

static int has_barrier(kp_node *n)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_CALL && (n->sync == KP_SYNC_BLOCK || n->sync == KP_SYNC_BLOCK_VALUE))
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (has_barrier(n->kids[i]))
			return 1;
	return 0;
}

static int has_barrier_or_smem_store(kp_node *n) { return has_barrier(n) || has_copy(n); }

static int is_loop(const kp_node *n)
{
	return n->kind == KP_N_FOR || n->kind == KP_N_WHILE || n->kind == KP_N_DO;
}

/* A barrier among the top-level statements of a loop's body. */
static int top_level_barrier(const kp_node *loop)
{
	kp_node *body = loop_body(loop);
	if (!body || body->kind != KP_N_COMPOUND)
		return 0;
	for (int i = 0; i < body->nkids; i++)
		if (is_barrier(body->kids[i]))
			return 1;
	return 0;
}

/* A loop that is a K-loop of its own wherever it is nested: a barrier at
 * the top level of its body and a copy from global into shared memory in
 * it.  (A copy loop of a load phase has no barrier; a loop of a compute
 * phase with a barrier in it copies nothing.) */
static int kloop_like(const kp_node *n)
{
	return is_loop(n) && top_level_barrier(n) && has_copy(loop_body(n));
}

/* The first K-loop nested in a subtree, in source order. */
static kp_node *nested_kloop(kp_node *n)
{
	if (!n)
		return NULL;
	if (kloop_like(n))
		return n;
	for (int i = 0; i < n->nkids; i++) {
		kp_node *r = nested_kloop(n->kids[i]);
		if (r)
			return r;
	}
	return NULL;
}

static void push_node(node_vec *v, kp_node *n)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->v = kp_xrealloc(v->v, sizeof(*v->v) * (size_t)v->cap);
	}
	v->v[v->n++] = n;
}

static void find_candidates(kp_node *n, node_vec *out)
{
	if (!n)
		return;
	if (!is_loop(n) || !has_barrier_or_smem_store(loop_body(n))) {
		for (int i = 0; i < n->nkids; i++)
			find_candidates(n->kids[i], out);
		return;
	}
	node_vec inner = {0};
	for (int i = 0; i < n->nkids; i++)
		find_candidates(n->kids[i], &inner);
	int encloses = 0;
	for (int i = 0; i < inner.n && !encloses; i++)
		encloses = kloop_like(inner.v[i]);
	if (top_level_barrier(n) || !inner.n)
		push_node(out, n);
	if (!top_level_barrier(n) || encloses)
		for (int i = 0; i < inner.n; i++)
			push_node(out, inner.v[i]);
	free(inner.v);
}

/* ---------------------------------------------------- instantiations */

/* Whether every argument of instantiation i is known (values, and the
 * sizes of types); otherwise it is analysed with its parameters left
 * symbolic, as a template without instantiations. */
static int inst_known(const kp_kernel *k, int i)
{
	if (!k->inst_targs || k->ntparams > KP_MAX_TARGS)
		return 0;
	for (int p = 0; p < k->ntparams; p++)
		if (!k->inst_targs[i][p].known)
			return 0;
	return 1;
}

/* One analysis of a candidate loop: for instantiation `inst` of a template
 * kernel, or (inst < 0) with the template parameters left symbolic. */
static kp_loop *analyze_one(kp_file *f, kp_kernel *k, kp_node *node, int index, int inst,
			    const kp_analyze_opts *o)
{
	kp_loop *l = kp_arena_alloc(&f->arena, sizeof(*l));
	l->kernel = k;
	l->index = index;
	l->node = node;
	actx c = {f, k, NULL, l, NULL, NULL, 0};
	if (inst >= 0) {
		l->inst = k->inst_args[inst];
		if (inst_known(k, inst)) {
			c.iv = k->inst_values[inst];
			c.targs = k->inst_targs[inst];
		}
	}
	analyze_loop(&c);
	finish_loop(&c, o);
	return l;
}

/* A fixed order of instantiations that does not depend on where they
 * appear in the file: argument by argument, types by spelling and values
 * by value, then the argument text. */
static int inst_cmp(const kp_kernel *k, int a, int b)
{
	for (int p = 0; p < k->ntparams && p < KP_MAX_TARGS && k->inst_targs; p++) {
		const kp_targ *x = &k->inst_targs[a][p], *y = &k->inst_targs[b][p];
		if (x->type && y->type) {
			int r = strcmp(x->type, y->type);
			if (r)
				return r;
		} else if (x->known && y->known && !x->type && !y->type &&
			   k->inst_values[a][p] != k->inst_values[b][p])
			return k->inst_values[a][p] < k->inst_values[b][p] ? -1 : 1;
	}
	return strcmp(k->inst_args[a], k->inst_args[b]);
}

static long long double_buffered(const kp_loop *l)
{
	return l->tile_bytes >= 0 ? l->tile_bytes * 2 + l->other_smem : -1;
}

static int has_reason(const kp_loop *l, const char *id, const char *msg)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id) && (!msg || !strcmp(l->reasons[i].message, msg)))
			return 1;
	return 0;
}

/* Merges the analyses of one loop for each instantiation (`per`, in the
 * kernel's order) into the loop that is reported and rewritten: the
 * instantiation with the largest double-buffered shared memory gives the
 * sizes shown (and the copies the transforms read), the loop is eligible
 * only if it is for every instantiation, and a reason that does not hold
 * for every instantiation names the one it comes from.  Whether a
 * transform applies to all of them is the transform's question
 * (kp_transform_facts). */
static kp_loop *merge_insts(kp_file *f, kp_kernel *k, kp_loop **per)
{
	int n = k->ninst;
	kp_arena *a = &f->arena;
	int *order = kp_xcalloc((size_t)n, sizeof(*order));
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && inst_cmp(k, order[j - 1], i) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	/* the worst case for shared memory (the first in the order on a tie) */
	int w = order[0];
	for (int i = 1; i < n; i++)
		if (double_buffered(per[order[i]]) > double_buffered(per[w]))
			w = order[i];
	/* the order reasons are taken in: the worst case first */
	int *seq = kp_xcalloc((size_t)n, sizeof(*seq));
	seq[0] = w;
	for (int i = 0, m = 1; i < n; i++)
		if (order[i] != w)
			seq[m++] = order[i];

	kp_loop *l = kp_arena_alloc(a, sizeof(*l));
	*l = *per[w];
	l->per_inst = kp_arena_alloc(a, sizeof(*l->per_inst) * (size_t)n);
	for (int i = 0; i < n; i++) {
		l->per_inst[i] = per[order[i]];
		if (order[i] == w)
			l->inst_shown = i;
	}
	l->nper_inst = n;
	l->reasons = NULL;
	l->nreasons = 0;
	for (int s = 0; s < n; s++) {
		const kp_loop *p = per[seq[s]];
		for (int r = 0; r < p->nreasons; r++) {
			const kp_reason *pr = &p->reasons[r];
			if (has_reason(l, pr->id, NULL))
				continue; /* one entry per id and loop */
			int everywhere = 1;
			for (int i = 0; i < n && everywhere; i++)
				everywhere = has_reason(per[i], pr->id, pr->message);
			kp_reason *nr = kp_arena_alloc(a, sizeof(*nr) * (size_t)(l->nreasons + 1));
			if (l->nreasons)
				memcpy(nr, l->reasons, sizeof(*nr) * (size_t)l->nreasons);
			nr[l->nreasons] = *pr;
			if (!everywhere)
				nr[l->nreasons].message =
					kp_arena_printf(a, "for instantiation <%s>: %s",
							k->inst_args[seq[s]], pr->message);
			l->reasons = nr;
			l->nreasons++;
		}
		if (p->already_pipelined)
			l->already_pipelined = 1;
		l->not_kloop |= p->not_kloop;
	}
	/* one condition per tile only if monotone for every instantiation; a
	 * barrier after the loop if any instantiation needs one */
	for (int i = 0; i < n; i++) {
		if (!per[i]->cond_monotone)
			l->cond_monotone = 0;
		if (per[i]->exit_barrier && !l->exit_barrier) {
			l->exit_barrier = 1;
			l->exit_barrier_why = per[i]->exit_barrier_why;
		}
	}
	l->eligible = l->nreasons == 0;
	free(order);
	free(seq);
	return l;
}

int kp_loop_inst_seq(const kp_loop *l, int s)
{
	if (s == 0)
		return l->inst_shown;
	return s <= l->inst_shown ? s - 1 : s;
}

int kp_analyze(kp_analysis *out, kp_file *f, const kp_analyze_opts *o)
{
	memset(out, 0, sizeof(*out));
	int cap = 0;
	for (int ki = 0; ki < f->nkernels; ki++) {
		kp_kernel *k = f->kernels[ki];
		if (!kp_kernel_matches(k, o->kernel))
			continue;
		out->nkernels++;
		mark_carve_outs(k);
		node_vec cands = {0};
		find_candidates(k->body, &cands);
		for (int i = 0; i < cands.n; i++) {
			kp_loop *l;
			if (k->is_template && k->ninst > 0) {
				kp_loop **per = kp_xcalloc((size_t)k->ninst, sizeof(*per));
				for (int j = 0; j < k->ninst; j++)
					per[j] = analyze_one(f, k, cands.v[i], i + 1, j, o);
				l = merge_insts(f, k, per);
				free(per);
			} else
				l = analyze_one(f, k, cands.v[i], i + 1, -1, o);
			if (k->error) { /* analysed for the report, never rewritten */
				actx c = {f, k, NULL, l, NULL, NULL, 0};
				add_reason(
					&c, NULL, "kpipe-kernel-error",
					"clang reports an error in this kernel (%s); kpipe does not "
					"rewrite a kernel that does not compile",
					k->error);
				l->eligible = 0;
			}
			if (out->nloops == cap) {
				cap = cap ? cap * 2 : 8;
				kp_loop **nl = kp_arena_alloc(&f->arena, sizeof(*nl) * (size_t)cap);
				if (out->nloops)
					memcpy(nl, out->loops, sizeof(*nl) * (size_t)out->nloops);
				out->loops = nl;
			}
			out->loops[out->nloops++] = l;
		}
		free(cands.v);
	}
	return 0;
}
