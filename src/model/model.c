/*
 * model.c - helpers over kpipe's source model: line/column lookup, node
 * text, tree walking and release.  No libclang here.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kp_file_release(kp_file *f)
{
	for (int i = 0; i < f->nheaders; i++) {
		kp_file_release(f->headers[i]);
		free(f->headers[i]);
	}
	free(f->headers);
	f->headers = NULL;
	f->nheaders = 0;
	for (int i = 0; i < f->nhelper_homes; i++) {
		kp_file_release(f->helper_homes[i]);
		free(f->helper_homes[i]);
	}
	free(f->helper_homes);
	f->helper_homes = NULL;
	f->nhelper_homes = 0;
	kp_arena_release(&f->arena);
	free(f->src);
	free(f->line_starts);
	f->src = NULL;
	f->line_starts = NULL;
}

/* The line table, built on first use. */
static void line_table(const kp_file *cf)
{
	kp_file *f = (kp_file *)cf; /* the line table is a cache */
	if (!f->line_starts) {
		int cap = 1024, n = 0;
		f->line_starts = kp_xmalloc(sizeof(unsigned) * (size_t)cap);
		f->line_starts[n++] = 0;
		for (size_t i = 0; i < f->len; i++)
			if (f->src[i] == '\n') {
				if (n == cap) {
					cap *= 2;
					f->line_starts = kp_xrealloc(
						f->line_starts, sizeof(unsigned) * (size_t)cap);
				}
				f->line_starts[n++] = (unsigned)i + 1;
			}
		f->nlines = n;
	}
}

void kp_file_linecol(const kp_file *f, unsigned off, int *line, int *col)
{
	line_table(f);
	int lo = 0, hi = f->nlines - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (f->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (line)
		*line = lo + 1;
	if (col)
		*col = (int)(off - f->line_starts[lo]) + 1;
}

long kp_file_offset(const kp_file *f, int line, int col)
{
	if (line <= 0)
		return -1;
	line_table(f);
	if (line > f->nlines)
		return -1;
	size_t i = (size_t)f->line_starts[line - 1] + (size_t)(col > 0 ? col - 1 : 0);
	return i <= f->len ? (long)i : -1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int kp_file_uses_name(const kp_file *f, const char *name)
{
	return f->nidents &&
	       bsearch(&name, f->idents, (size_t)f->nidents, sizeof(*f->idents), cmp_name) != NULL;
}

/* want[0, n) names k: its name, its qualified name, or the qualified
 * name's tail after a `::` (`gemm::k` for `ops::gemm::k`). */
static int names_kernel(const kp_kernel *k, const char *want, size_t n)
{
	const char *q = k->qualified ? k->qualified : k->name;
	size_t ql = strlen(q);
	if ((strlen(k->name) == n && !strncmp(want, k->name, n)) ||
	    (ql == n && !strncmp(want, q, n)))
		return 1;
	return ql > n + 2 && !strncmp(q + ql - n, want, n) && !strncmp(q + ql - n - 2, "::", 2);
}

int kp_kernel_matches(const kp_kernel *k, const char *want)
{
	if (!want)
		return 1;
	if (names_kernel(k, want, strlen(want)))
		return 1;
	const char *lt = strchr(want, '<');
	if (!lt || want[strlen(want) - 1] != '>')
		return 0;
	size_t n = (size_t)(lt - want);
	while (n && want[n - 1] == ' ')
		n--;
	if (!names_kernel(k, want, n))
		return 0;
	char args[512];
	snprintf(args, sizeof(args), "%.*s", (int)(strlen(lt + 1) - 1), lt + 1);
	if (kp_str_eq_but_space(args, strchr(k->display, '<') ? strchr(k->display, '<') + 1 : ""))
		return 1; /* the parameters' names, as `display` shows them */
	for (int i = 0; i < k->ninst; i++)
		if (kp_str_eq_but_space(args, k->inst_args[i]))
			return 1;
	return 0;
}

kp_file *kp_file_model_in(kp_file *tu, const kp_file *f)
{
	if (!f->abs_path)
		return tu;
	for (int i = 0; i < tu->nheaders; i++)
		if (!strcmp(tu->headers[i]->abs_path, f->abs_path))
			return tu->headers[i];
	return NULL;
}

int kp_file_has_kernel(const kp_file *f, const char *want)
{
	for (int i = 0; i < f->nkernels; i++)
		if (kp_kernel_matches(f->kernels[i], want))
			return 1;
	for (int h = 0; h < f->nheaders; h++)
		if (kp_file_has_kernel(f->headers[h], want))
			return 1;
	return 0;
}

static void add_kernel_names(kp_strbuf *sb, const kp_file *f)
{
	for (int i = 0; i < f->nkernels; i++) {
		const kp_kernel *k = f->kernels[i];
		const char *lt = strchr(k->display, '<');
		kp_strbuf_addf(sb, "%s%s%s", sb->len ? ", " : "",
			       k->qualified ? k->qualified : k->name, lt ? lt : "");
	}
}

const char *kp_kernel_names(kp_file *f)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	add_kernel_names(&sb, f);
	for (int h = 0; h < f->nheaders; h++)
		add_kernel_names(&sb, f->headers[h]);
	const char *r = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
	kp_strbuf_release(&sb);
	return r;
}

int kp_decl_is_extern_shared(const kp_decl *d)
{
	return d && d->kind == KP_D_VAR && d->is_shared && d->is_array && !d->dyn_base &&
	       (d->unsized || d->ndims == 0);
}

int kp_decl_is_dynamic_smem(const kp_decl *d)
{
	return d && ((d->dyn_base && kp_decl_is_extern_shared(d->dyn_base)) ||
		     kp_decl_is_extern_shared(d));
}

int kp_decl_is_static_carve(const kp_decl *d)
{
	return d && d->dyn_base && !kp_decl_is_extern_shared(d->dyn_base);
}

void kp_launch_span(const kp_file *f, const kp_launch *x, int arg, unsigned *b, unsigned *e)
{
	*b = arg < 0 ? x->begin : x->arg_b[arg];
	*e = arg < 0 ? x->open : x->arg_e[arg];
	while (*b < *e && strchr(" \t\r\n", f->src[*b]))
		(*b)++;
	while (*e > *b && strchr(" \t\r\n", f->src[*e - 1]))
		(*e)--;
}

const char *kp_launch_uneditable(const kp_launch *x, kp_arena *arena)
{
	if (x->editable)
		return NULL;
	if (x->api && !strcmp(x->api, "reference"))
		return kp_arena_printf(
			arena,
			"'%s' is named at line %d outside a <<<>>> launch (its address "
			"taken): kpipe cannot see or edit the launches made through it",
			x->kernel->name, x->line);
	if (x->api && !strcmp(x->api, "skipped"))
		return kp_arena_printf(arena,
				       "'%s' is named at line %d in host code left out of the "
				       "parse: kpipe cannot see or edit the launches there",
				       x->kernel->name, x->line);
	if (x->api)
		return kp_arena_printf(
			arena,
			"the launch of '%s' at line %d is a %s call, which kpipe does "
			"not edit",
			x->kernel->name, x->line, x->api);
	return kp_arena_printf(arena,
			       "the call of '%s' at line %d is no <<<>>> launch kpipe can edit "
			       "(written by a macro?)",
			       x->kernel->name, x->line);
}

static int name_taken(const kp_file *f, const char *name)
{
	if (kp_file_uses_name(f, name))
		return 1;
	for (int i = 0; i < f->nfresh; i++)
		if (!strcmp(f->fresh_name[i], name))
			return 1;
	return 0;
}

const char *kp_fresh_name(kp_file *f, const char *base)
{
	for (int i = 0; i < f->nfresh; i++)
		if (!strcmp(f->fresh_base[i], base))
			return f->fresh_name[i];
	const char *name = base;
	for (unsigned k = 1; name_taken(f, name); k++)
		name = kp_arena_printf(&f->arena, "%s_%u", base, k);
	/* arena arrays: grow by copying (a file asks for a handful of names) */
	const char **nb = kp_arena_alloc(&f->arena, sizeof(*nb) * (size_t)(f->nfresh + 1));
	const char **nn = kp_arena_alloc(&f->arena, sizeof(*nn) * (size_t)(f->nfresh + 1));
	if (f->nfresh) {
		memcpy(nb, f->fresh_base, sizeof(*nb) * (size_t)f->nfresh);
		memcpy(nn, f->fresh_name, sizeof(*nn) * (size_t)f->nfresh);
	}
	nb[f->nfresh] = kp_arena_strdup(&f->arena, base);
	nn[f->nfresh] = name == base ? nb[f->nfresh] : name;
	f->fresh_base = nb;
	f->fresh_name = nn;
	f->nfresh++;
	return nn[f->nfresh - 1];
}

const char *kp_range_text(kp_file *f, unsigned begin, unsigned end)
{
	if (end < begin || end > f->len)
		return "";
	return kp_arena_strndup(&f->arena, f->src + begin, end - begin);
}

const char *kp_node_text(kp_file *f, const kp_node *n)
{
	if (!n || !n->in_main)
		return "";
	return kp_range_text(f, n->begin, n->end);
}

const kp_node *kp_node_strip(const kp_node *n)
{
	while (n && (n->kind == KP_N_PAREN || (n->kind == KP_N_OTHER && n->nkids == 1) ||
		     (n->kind == KP_N_CAST && n->nkids >= 1)))
		n = n->kids[n->nkids - 1];
	return n;
}

const char *kp_call_name(const kp_node *n)
{
	return n->name && *n->name ? n->name : n->lookup_name ? n->lookup_name : "";
}

const kp_node *kp_call_object(const kp_node *n, int *arg0)
{
	if (!n || n->kind != KP_N_CALL)
		return NULL;
	int a = 0;
	const kp_node *o = NULL;
	if (n->nkids >= 2 && n->kids[1]->kind == KP_N_DECLREF && n->decl &&
	    n->kids[1]->decl == n->decl) {
		a = 2;
		o = n->kids[0];
	} else if (n->nkids >= 1 && n->kids[0]->kind == KP_N_MEMBER && n->kids[0]->nkids == 1) {
		a = 1;
		o = n->kids[0]->kids[0];
	}
	if (o && arg0)
		*arg0 = a;
	return o;
}

int kp_node_names_decl(const kp_node *n, const kp_decl *d)
{
	if (!n)
		return 0;
	if (n->kind == KP_N_DECLREF && n->decl == d)
		return 1;
	for (int i = 0; i < n->nkids; i++)
		if (kp_node_names_decl(n->kids[i], d))
			return 1;
	return 0;
}

void kp_node_walk(kp_node *n, kp_node *parent, kp_visit_fn fn, void *ud)
{
	if (!n)
		return;
	if (!fn(n, parent, ud))
		return;
	for (int i = 0; i < n->nkids; i++)
		kp_node_walk(n->kids[i], n, fn, ud);
}

const char *kp_parse_diag_note(const kp_parse_diag *d)
{
	if (d->kernel)
		return "in a kernel that is not rewritten";
	if (d->missing_include)
		return "kernels analysed without this header (a kernel that needs it is not "
		       "rewritten; give its directory with -I after --, or use -p)";
	return "ignored, outside every kernel (host code nvcc may accept)";
}

const char *kp_node_builtin(const kp_file *f, const kp_node *n, int by_name, int *comp)
{
	static const char *const names[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
	if (n->kind != KP_N_MEMBER || !n->nkids)
		return NULL;
	const kp_node *b = kp_node_strip(n->kids[0]);
	while (b && b->kind == KP_N_OTHER && b->nkids == 1)
		b = kp_node_strip(b->kids[0]);
	if (!b || b->kind != KP_N_DECLREF || !b->name)
		return NULL;
	*comp = -1;
	if (n->in_main && !n->from_macro && n->end >= n->begin + 2 && n->end <= f->len &&
	    f->src[n->end - 2] == '.' && strchr("xyz", f->src[n->end - 1]))
		*comp = f->src[n->end - 1] - 'x';
	else if (by_name && n->name && *n->name && strchr("xyz", n->name[strlen(n->name) - 1]))
		*comp = n->name[strlen(n->name) - 1] - 'x';
	for (size_t i = 0; i < KP_ARRAY_LEN(names); i++)
		if (!strcmp(b->name, names[i]))
			return names[i];
	return NULL;
}

kp_op kp_op_of(const char *spelling, int unary, int postfix)
{
	static const char *const bin[] = {"*",  "/",  "%",  "+",  "-",  "<<", ">>", "<=>", "<",
					  ">",  "<=", ">=", "==", "!=", "&",  "^",  "|",   "&&",
					  "||", "=",  "*=", "/=", "%=", "+=", "-=", "<<=", ">>=",
					  "&=", "^=", "|=", ",",  ".*", "->*"};
	static const char *const un[] = {"++", "--", "++", "--", "&", "*", "+", "-", "~", "!"};
	if (!spelling)
		return KP_OP_NONE;
	if (!unary) {
		for (size_t i = 0; i < KP_ARRAY_LEN(bin); i++)
			if (!strcmp(spelling, bin[i]))
				return (kp_op)(KP_OP_MUL + (int)i);
		return KP_OP_NONE;
	}
	for (size_t i = 0; i < KP_ARRAY_LEN(un); i++)
		if (!strcmp(spelling, un[i])) {
			kp_op o = (kp_op)(KP_OP_PRE_INC + (int)i);
			/* ++ and -- are listed prefix first, then postfix */
			if (postfix && (o == KP_OP_PRE_INC || o == KP_OP_PRE_DEC))
				o = (kp_op)(o + 2);
			return o;
		}
	return KP_OP_NONE;
}

int kp_node_path(const kp_node *n, const kp_node *target, const kp_node **path, int *np, int max)
{
	if (!n || *np >= max)
		return 0;
	path[(*np)++] = n;
	if (n == target)
		return 1;
	if (n->begin <= target->begin && n->end >= target->end)
		for (int i = 0; i < n->nkids; i++)
			if (kp_node_path(n->kids[i], target, path, np, max))
				return 1;
	(*np)--;
	return 0;
}
