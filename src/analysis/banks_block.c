/*
 * banks_block.c - the block shape the bank and sector analysis (banks.c)
 * evaluates a kernel's warp 0 for (kp_bk_block_of): --block, the launch
 * description, the kernel's <<<...>>> launches in the file (numbers, named
 * constants, dim3 variables), else a 1-D shape from --threads or
 * __launch_bounds__.
 */
#include "banks.h"
#include "analyze_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ block shape */

const kp_node *kp_bk_dim_expr(const kp_decl *d, int i)
{
	/* the parser records them in the order clang visits them, which is
	 * not always the order of the source */
	const kp_node *v[KP_MAX_DIMS];
	int n = 0;
	for (int j = 0; j < d->ndims && j < KP_MAX_DIMS; j++)
		if (d->dim_expr[j])
			v[n++] = d->dim_expr[j];
	if (n != d->ndims || i < 0 || i >= n)
		return NULL;
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && v[b]->begin < v[b - 1]->begin; b--) {
			const kp_node *t = v[b];
			v[b] = v[b - 1];
			v[b - 1] = t;
		}
	return v[i];
}

/* The value of `#define name N` in f (an object-like macro whose body is
 * one number; the last definition wins), -1 when none. */
static int define_value(const kp_file *f, const char *name, int *out)
{
	int found = -1;
	size_t n = strlen(name);
	for (const char *p = f->src; (p = strstr(p, "#define")); p += 7) {
		const char *q = p + 7;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, name, n) || (q[n] != ' ' && q[n] != '\t'))
			continue;
		char *end;
		long v = strtol(q + n, &end, 10);
		while (*end == ' ' || *end == '\t' || *end == 'u' || *end == 'U')
			end++;
		if (end != q + n && (*end == '\n' || !*end) && v > 0 && v <= 1024) {
			*out = (int)v;
			found = 0;
		}
	}
	return found;
}

/* The value of one dim3 component's text: a number or a named constant. */
static int dim_value(const kp_file *f, const char *s, size_t n, int *out)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n)
		return -1;
	char buf[64];
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	long v = strtol(buf, &end, 10);
	if (end != buf) {
		while (*end == 'u' || *end == 'U')
			end++;
		if (*end || v <= 0 || v > 1024)
			return -1;
		*out = (int)v;
		return 0;
	}
	for (int i = 0; i < f->ndecls; i++) {
		const kp_decl *d = f->decls[i];
		if (d->name && !strcmp(d->name, buf) && d->has_value && d->value > 0 &&
		    d->value <= 1024) {
			*out = (int)d->value;
			return 0;
		}
	}
	return define_value(f, buf, out);
}

/* "dim3(a, b, c)", "(a, b)", "{a}" or "a" into x y z (1 when absent). */
static int parse_dim3(const kp_file *f, const char *s, int xyz[3])
{
	xyz[0] = xyz[1] = xyz[2] = 1;
	const char *o = strpbrk(s, "({");
	if (!o)
		return dim_value(f, s, strlen(s), &xyz[0]);
	const char *c = strpbrk(o + 1, ")}");
	if (!c)
		return -1;
	const char *p = o + 1;
	for (int i = 0; i < 3; i++) {
		const char *e = memchr(p, ',', (size_t)(c - p));
		if (!e)
			e = c;
		if (dim_value(f, p, (size_t)(e - p), &xyz[i]))
			return -1;
		if (e == c)
			return 0;
		p = e + 1;
	}
	return -1;
}

/* The text after `dim3 name` of the last declaration of the dim3 variable
 * `name` before offset `before` in f (host locals are not in the model),
 * or NULL. */
static const char *dim3_decl(kp_file *f, const char *name, unsigned before)
{
	const char *found = NULL;
	size_t n = strlen(name);
	for (const char *p = f->src; (p = strstr(p, "dim3")) && p < f->src + before; p += 4) {
		if (p > f->src && kp_is_ident_char(p[-1]))
			continue;
		const char *q = p + 4;
		while (*q == ' ' || *q == '\t')
			q++;
		if (q == p + 4 || strncmp(q, name, n) || kp_is_ident_char(q[n]))
			continue;
		q += n;
		while (*q == ' ' || *q == '\t' || *q == '=')
			q++;
		const char *e = strpbrk(q, ";\n");
		if (e)
			found = kp_range_text(f, (unsigned)(q - f->src), (unsigned)(e - f->src));
	}
	return found;
}

/* The block of a launch: its text, or the dim3 variable it names. */
static int launch_block(kp_file *f, const kp_launch *x, int xyz[3])
{
	if (x->block[0] > 0) { /* clang's evaluation (launch_scan.c) */
		memcpy(xyz, x->block, sizeof(x->block));
		return 0;
	}
	if (x->block_runtime) /* not a constant: its text is not the shape */
		return -1;
	unsigned b, e;
	kp_launch_span(f, x, 1, &b, &e);
	const char *t = kp_range_text(f, b, e);
	if (kp_is_ident(t) && strcmp(t, "dim3")) {
		const char *d = dim3_decl(f, t, x->begin);
		if (d)
			return parse_dim3(f, d, xyz);
		return dim_value(f, t, strlen(t), &xyz[0]) ? -1 : (xyz[1] = xyz[2] = 1, 0);
	}
	return parse_dim3(f, t, xyz);
}

/* The text of launch x's block, or of the dim3 variable's initialiser it
 * names (without white space), split into its three components. */
int kp_bk_block_texts(kp_file *f, const kp_launch *x, const char *comp[3])
{
	if (x->block_runtime || x->api || x->nconfig < 2)
		return -1;
	unsigned b, e;
	kp_launch_span(f, x, 1, &b, &e);
	const char *t = kp_range_text(f, b, e);
	while (t && isspace((unsigned char)*t))
		t++;
	if (t && kp_is_ident(t) && strcmp(t, "dim3"))
		t = dim3_decl(f, t, x->begin);
	const char *o = t ? strpbrk(t, "({") : NULL;
	if (!o)
		return -1;
	comp[0] = comp[1] = comp[2] = "1";
	int n = 0, depth = 0;
	const char *p = o + 1;
	for (const char *q = p;; q++) {
		if (!*q)
			return -1;
		if (*q == '(' || *q == '{' || *q == '[' || *q == '<')
			depth++;
		else if ((*q == ')' || *q == '}' || *q == ']' || *q == '>') && depth)
			depth--;
		else if ((*q == ',' && !depth) || *q == ')' || *q == '}') {
			if (n == 3)
				return -1;
			kp_strbuf sb = KP_STRBUF_INIT;
			for (const char *r = p; r < q; r++)
				if (!isspace((unsigned char)*r))
					kp_strbuf_addc(&sb, *r);
			comp[n++] = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
			kp_strbuf_release(&sb);
			if (*q != ',')
				break;
			p = q + 1;
		}
	}
	return n ? 0 : -1;
}

void kp_bk_block_of(kp_file *f, const kp_kernel *k, const kp_analyze_opts *o, kp_bk_block *b)
{
	memset(b, 0, sizeof(*b));
	if (o->block[0] > 0) {
		*b = (kp_bk_block){o->block[0], o->block[1] > 0 ? o->block[1] : 1,
				   o->block[2] > 0 ? o->block[2] : 1, "--block"};
		return;
	}
	if (o->spec_block[0] > 0 && (!o->spec_kernel || !strcmp(o->spec_kernel, k->name))) {
		*b = (kp_bk_block){o->spec_block[0], o->spec_block[1], o->spec_block[2],
				   "launch description"};
		return;
	}
	int seen = 0, bad = 0, xyz[3], line = 0;
	for (int i = 0; i < f->nlaunches; i++) {
		const kp_launch *x = &f->launches[i];
		if (x->kernel != k || x->nconfig < 2)
			continue;
		if (launch_block(f, x, xyz)) {
			bad = 1;
			break;
		}
		if (seen && (xyz[0] != b->x || xyz[1] != b->y || xyz[2] != b->z)) {
			bad = 1;
			break;
		}
		if (!seen)
			line = x->line;
		b->x = xyz[0], b->y = xyz[1], b->z = xyz[2];
		seen = 1;
	}
	if (seen && !bad) {
		b->from = kp_arena_printf(&f->arena, "launch at line %d", line);
		return;
	}
	memset(b, 0, sizeof(*b));
	if (o->threads > 0)
		*b = (kp_bk_block){o->threads, 1, 1, "--threads (1-D)"};
	else if (o->spec_threads > 0 && (!o->spec_kernel || !strcmp(o->spec_kernel, k->name)))
		*b = (kp_bk_block){o->spec_threads, 1, 1, "launch description (1-D)"};
	else if (k->launch_bounds > 0)
		*b = (kp_bk_block){k->launch_bounds, 1, 1, "__launch_bounds__ (1-D)"};
}

int kp_bk_launches_within(kp_file *f, const kp_kernel *k, int threads, int *line)
{
	*line = 0;
	for (int i = 0; i < f->nlaunches; i++) {
		const kp_launch *x = &f->launches[i];
		if (x->kernel != k)
			continue;
		int xyz[3];
		*line = x->line;
		if (x->api || x->nconfig < 2 || launch_block(f, x, xyz))
			return -1;
		long long n =
			(long long)xyz[0] * (xyz[1] > 0 ? xyz[1] : 1) * (xyz[2] > 0 ? xyz[2] : 1);
		if (n > threads)
			return 1;
	}
	*line = 0;
	return 0;
}

void kp_loop_block(kp_file *f, const kp_kernel *k, const kp_analyze_opts *o, int block[3],
		   const char **from)
{
	kp_bk_block b;
	kp_bk_block_of(f, k, o, &b);
	block[0] = b.x;
	block[1] = b.y;
	block[2] = b.z;
	*from = b.from;
}
