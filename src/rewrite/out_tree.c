/*
 * out_tree.c - the rest of an --out-dir tree (out_tree.h): the headers a
 * batch's inputs include under the inputs' common directory, found by
 * reading their #include lines (no parse: a header named under an #if
 * that is off is copied too, which does no harm), and the inputs nothing
 * wrote, copied unchanged to OUT at their relative path.
 */
#define _GNU_SOURCE
#include "out_tree.h"

#include "safe_write.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef struct {
	char **v;
	int n;
	const kp_tree_src **src; /* the flags each file's includes are looked up with */
	char *included;          /* an #include of a file in the list names it */
} plist;

static int plist_find(const plist *l, const char *p)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], p))
			return i;
	return -1;
}

static void plist_add(plist *l, char *p, const kp_tree_src *src, int included)
{
	l->v = kp_xrealloc(l->v, sizeof(char *) * (size_t)(l->n + 1));
	l->src = kp_xrealloc(l->src, sizeof(*l->src) * (size_t)(l->n + 1));
	l->included = kp_xrealloc(l->included, (size_t)(l->n + 1));
	l->v[l->n] = p;
	l->included[l->n] = (char)included;
	l->src[l->n++] = src;
}

static void plist_release(plist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->src);
	free(l->included);
}

static int under(const char *p, const char *root)
{
	size_t k = strlen(root);
	if (!strcmp(root, "/"))
		return 1;
	return !strncmp(p, root, k) && p[k] == '/';
}

/* dir/name resolved, when it is a regular file under root; else NULL. */
static char *try_dir(const char *dir, const char *name, const char *root)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%s", dir, name);
	char *r = realpath(kp_strbuf_str(&sb), NULL);
	kp_strbuf_release(&sb);
	struct stat st;
	if (r && (stat(r, &st) || !S_ISREG(st.st_mode) || !under(r, root))) {
		free(r);
		r = NULL;
	}
	return r;
}

/* The directory an include flag names: `-Idir`, `-I dir` (then *skip 1). */
static const char *inc_dir(const char *const *a, int n, int i, int *skip)
{
	static const char *const fl[] = {"-I", "-iquote", "-isystem", "-idirafter", NULL};
	*skip = 0;
	for (int k = 0; fl[k]; k++) {
		size_t m = strlen(fl[k]);
		if (strncmp(a[i], fl[k], m))
			continue;
		if (a[i][m])
			return a[i] + m;
		if (i + 1 < n) {
			*skip = 1;
			return a[i + 1];
		}
	}
	return NULL;
}

static char *search_flags(const char *const *a, int n, const char *name, const char *root)
{
	for (int i = 0; i < n; i++) {
		int skip;
		const char *d = inc_dir(a, n, i, &skip);
		char *r = d ? try_dir(d, name, root) : NULL;
		if (r)
			return r;
		i += skip;
	}
	return NULL;
}

/* The files one file's #include lines name, resolved, added to l. */
static void scan_file(const kp_out_tree *t, plist *l, int at)
{
	char *text = NULL;
	size_t len = 0;
	if (kp_read_file(l->v[at], &text, &len))
		return;
	const kp_tree_src *src = l->src[at];
	char *dir = kp_xstrdup(l->v[at]);
	char *sl = strrchr(dir, '/');
	if (sl)
		*(sl == dir ? sl + 1 : sl) = '\0';
	for (const char *p = text; p && p < text + len;) {
		const char *eol = memchr(p, '\n', (size_t)(text + len - p));
		const char *e = eol ? eol : text + len;
		const char *q = p;
		while (q < e && isspace((unsigned char)*q))
			q++;
		if (q < e && *q == '#') {
			q++;
			while (q < e && isspace((unsigned char)*q))
				q++;
			if (e - q > 7 && !strncmp(q, "include", 7)) {
				q += 7;
				while (q < e && isspace((unsigned char)*q))
					q++;
				char close = q < e && *q == '"'   ? '"'
					     : q < e && *q == '<' ? '>'
								  : 0;
				const char *z = close ? memchr(q + 1, close, (size_t)(e - q - 1))
						      : NULL;
				if (z) {
					char *name = kp_xstrndup(q + 1, (size_t)(z - q - 1));
					char *r = close == '"' ? try_dir(dir, name, t->root) : NULL;
					if (!r && src)
						r = search_flags(src->args, src->nargs, name,
								 t->root);
					if (!r)
						r = search_flags(t->args, t->nargs, name, t->root);
					int at = r ? plist_find(l, r) : -1;
					if (r && at < 0)
						plist_add(l, r, src, 1);
					else {
						if (at >= 0)
							l->included[at] = 1;
						free(r);
					}
					free(name);
				}
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	free(dir);
	free(text);
}

static int excluded(const kp_out_tree *t, const char *p)
{
	size_t k = strcmp(t->root, "/") ? strlen(t->root) + 1 : 1;
	const char *rel = p + k, *base = strrchr(p, '/');
	base = base ? base + 1 : p;
	for (int i = 0; i < t->nexcludes; i++)
		if (!fnmatch(t->excludes[i], rel, 0) || !fnmatch(t->excludes[i], base, 0))
			return 1;
	return 0;
}

/* mkdir -p of the directory that holds `path`; 0 or -errno. */
static int mkdirs_for(const char *path)
{
	char *p = kp_xstrdup(path);
	char *last = strrchr(p, '/');
	int rc = 0;
	if (last && last != p) {
		*last = '\0';
		for (char *s = p + 1; !rc; s++) {
			int end = !*s;
			if (*s == '/' || end) {
				char c = *s;
				*s = '\0';
				if (mkdir(p, 0777) && errno != EEXIST)
					rc = -errno;
				*s = c;
			}
			if (end)
				break;
		}
	}
	free(p);
	return rc;
}

/* The file p (under root) copied to its place under out_dir; a failure
 * is a line in e.  0 or -1. */
static int copy_file(const kp_out_tree *t, const char *p, kp_strbuf *e)
{
	char *text = NULL;
	size_t len = 0;
	int r = kp_read_file(p, &text, &len);
	if (r) {
		kp_strbuf_addf(e, "%s: error: cannot read it to copy it to %s: %s\n", p, t->out_dir,
			       strerror(-r));
		return -1;
	}
	const char *rel = p + (strcmp(t->root, "/") ? strlen(t->root) + 1 : 1);
	kp_strbuf dest = KP_STRBUF_INIT;
	kp_strbuf_addf(&dest, "%s/%s", t->out_dir, rel);
	r = mkdirs_for(kp_strbuf_str(&dest));
	if (!r)
		r = kp_write_file_atomic(kp_strbuf_str(&dest), text, len);
	if (r)
		kp_strbuf_addf(e, "%s: error: cannot write '%s': %s\n", p, kp_strbuf_str(&dest),
			       strerror(-r));
	kp_strbuf_release(&dest);
	free(text);
	return r ? -1 : 0;
}

static int is_cuda_source(const char *p)
{
	const char *dot = strrchr(p, '.');
	return dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh"));
}

/* t's inputs and every file they include under t->root, directly or not. */
static void closure(const kp_out_tree *t, plist *l)
{
	for (int i = 0; i < t->nsrcs; i++)
		if (plist_find(l, t->srcs[i].abs) < 0)
			plist_add(l, kp_xstrdup(t->srcs[i].abs), &t->srcs[i], 0);
	for (int i = 0; i < l->n; i++) /* l grows as it is read */
		scan_file(t, l, i);
}

int kp_tree_included(const kp_out_tree *t, char ***out)
{
	plist l = {0};
	closure(t, &l);
	int n = 0;
	*out = kp_xcalloc((size_t)l.n + 1, sizeof(char *));
	for (int i = 0; i < l.n; i++)
		if (l.included[i])
			(*out)[n++] = kp_xstrdup(l.v[i]);
	plist_release(&l);
	return n;
}

int kp_out_tree_fill(const kp_out_tree *t, char **err)
{
	*err = NULL;
	plist l = {0};
	closure(t, &l);
	kp_strbuf e = KP_STRBUF_INIT;
	int ncopied = 0, failed = 0;
	for (int i = 0; i < l.n; i++) {
		const char *p = l.v[i];
		int done = 0;
		for (int w = 0; w < t->nwritten && !done; w++)
			done = !strcmp(t->written[w], p);
		/* an input that failed stays out (exit 3 says so), unless it
		 * is also a header another file includes */
		if (l.src[i] && l.src[i]->failed && !strcmp(l.src[i]->abs, p))
			done |= !l.included[i];
		if (done || (!t->cuda_sources_too && is_cuda_source(p)) || !under(p, t->root) ||
		    excluded(t, p))
			continue;
		if (copy_file(t, p, &e))
			failed = 1;
		else
			ncopied++;
	}
	plist_release(&l);
	if (e.len)
		*err = kp_strbuf_detach(&e);
	else
		kp_strbuf_release(&e);
	return failed ? -1 : ncopied;
}
