/*
 * batch_incl.c - which inputs of a batch include which (batch_incl.h).
 */
#define _GNU_SOURCE
#include "batch_incl.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

static int is_cu(const char *p)
{
	size_t n = strlen(p);
	return n >= 3 && !strcmp(p + n - 3, ".cu");
}

/* The index of the input dir/name names, or -1. */
static int input_at(const kp_incl_input *in, int n, const char *dir, const char *name)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%s", dir, name);
	char *r = realpath(kp_strbuf_str(&sb), NULL);
	kp_strbuf_release(&sb);
	int hit = -1;
	for (int j = 0; r && j < n && hit < 0; j++)
		if (!strcmp(in[j].abs, r))
			hit = j;
	free(r);
	return hit;
}

/* The folder an include flag names (-Idir, -I dir, -iquote dir,
 * -isystem dir), the index of the next argument in *i; NULL when
 * args[*i] is no such flag. */
static const char *include_dir(const char *const *args, int n, int *i)
{
	static const char *const flags[] = {"-I", "-iquote", "-isystem", NULL};
	const char *a = args[*i];
	for (int k = 0; flags[k]; k++) {
		size_t fl = strlen(flags[k]);
		if (strncmp(a, flags[k], fl))
			continue;
		if (a[fl])
			return a + fl;
		if (*i + 1 < n)
			return args[++*i];
	}
	return NULL;
}

/* The input an include of `name` in input i resolves to, or -1. */
static int resolve(const kp_incl_input *in, int n, int i, const char *name)
{
	char *dir = kp_xstrdup(in[i].abs);
	char *s = strrchr(dir, '/');
	if (s)
		*s = '\0';
	int hit = input_at(in, n, dir, name);
	free(dir);
	for (int pass = 0; pass < 2 && hit < 0; pass++) {
		const char *const *a = pass ? in[i].more : in[i].args;
		int na = pass ? in[i].nmore : in[i].nargs;
		for (int k = 0; k < na && hit < 0; k++) {
			const char *d = include_dir(a, na, &k);
			if (d)
				hit = input_at(in, n, d, name);
		}
	}
	/* flags kpipe does not see (a header folder given another way): the
	 * one input whose path ends in /NAME */
	size_t nl = strlen(name);
	for (int j = 0; j < n && hit < 0 && !strstr(name, ".."); j++) {
		size_t al = strlen(in[j].abs);
		if (al > nl && in[j].abs[al - nl - 1] == '/' && !strcmp(in[j].abs + al - nl, name))
			hit = j;
	}
	return hit;
}

typedef struct {
	int *from, *to;
	int n;
} edges;

/* Adds an edge i -> j for each #include line of input i that names an
 * input j. */
static void scan(const kp_incl_input *in, int n, int i, edges *g)
{
	char *t = NULL;
	size_t len = 0;
	if (kp_read_file(in[i].abs, &t, &len))
		return;
	for (size_t p = 0; p < len;) {
		size_t e = p;
		while (e < len && t[e] != '\n')
			e++;
		size_t q = p;
		while (q < e && (t[q] == ' ' || t[q] == '\t'))
			q++;
		if (q < e && t[q] == '#') {
			q++;
			while (q < e && (t[q] == ' ' || t[q] == '\t'))
				q++;
			if (e - q > 7 && !strncmp(t + q, "include", 7)) {
				q += 7;
				while (q < e && (t[q] == ' ' || t[q] == '\t'))
					q++;
				char close = q < e && t[q] == '"'   ? '"'
					     : q < e && t[q] == '<' ? '>'
								    : 0;
				const char *c = close ? memchr(t + q + 1, close, e - q - 1) : NULL;
				if (c && c > t + q + 1) {
					char *name =
						kp_xstrndup(t + q + 1, (size_t)(c - t - q - 1));
					int j = resolve(in, n, i, name);
					if (j >= 0 && j != i) {
						g->from = kp_xrealloc(
							g->from, sizeof(int) * (size_t)(g->n + 1));
						g->to = kp_xrealloc(
							g->to, sizeof(int) * (size_t)(g->n + 1));
						g->from[g->n] = i;
						g->to[g->n++] = j;
					}
					free(name);
				}
			}
		}
		p = e + 1;
	}
	free(t);
}

void kp_batch_includers(const kp_incl_input *in, int n, int *via)
{
	for (int i = 0; i < n; i++)
		via[i] = -1;
	if (n < 2)
		return;
	edges g = {0};
	for (int i = 0; i < n; i++)
		scan(in, n, i, &g);
	int *todo = kp_xcalloc((size_t)n, sizeof(int));
	for (int s = 0; s < n; s++) {
		if (!is_cu(in[s].abs))
			continue;
		int nt = 0;
		todo[nt++] = s;
		while (nt) {
			int i = todo[--nt];
			for (int e = 0; e < g.n; e++) {
				int j = g.to[e];
				if (g.from[e] == i && via[j] < 0 && !is_cu(in[j].abs)) {
					via[j] = s;
					todo[nt++] = j;
				}
			}
		}
	}
	free(todo);
	free(g.from);
	free(g.to);
}

/* The position after the next character of s (at *i, of n) that is not
 * in a "// kpipe:" comment; n at the end. */
static size_t next_code(const char *s, size_t n, size_t i)
{
	while (i + 9 <= n && !memcmp(s + i, "// kpipe:", 9)) {
		while (i < n && s[i] != '\n')
			i++;
	}
	return i;
}

int kp_same_code(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, j = 0;
	for (;;) {
		i = next_code(a, alen, i);
		j = next_code(b, blen, j);
		if (i == alen || j == blen)
			return i == alen && j == blen;
		if (a[i++] != b[j++])
			return 0;
	}
}

int kp_file_mentions(const char *path, const char *word)
{
	char *t = NULL;
	size_t len = 0;
	if (kp_read_file(path, &t, &len))
		return 1;
	int hit = memmem(t, len, word, strlen(word)) != NULL;
	free(t);
	return hit;
}
