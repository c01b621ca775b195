/*
 * parse_text.c - what kpipe reads from the source text itself: the
 * includes (kp_file.includes_pipeline, last_include_end: where a rewrite
 * adds an #include), and the names a rewrite must not declare
 * (kp_file.idents: the file's words and the KP_GEN_PREFIX words of its
 * headers and arguments), the function-like macros (kp_file.fn_macros)
 * and the hash of the files the unit includes (kp_file.deps_hash).
 */
#define _GNU_SOURCE
#include "parse.h"
#include "parse_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where a file without #include lines takes one: after its opening
 * comments (a licence, an SPDX line), after `#pragma once` or an include
 * guard's `#ifndef X` / `#define X`, never above them. */
static unsigned preamble_end(const kp_file *f)
{
	const char *s = f->src;
	size_t n = f->len, i = f->has_bom ? 3 : 0, end = i;
	int guard = 0; /* saw #ifndef: its #define closes the preamble */
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
			i++;
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			end = i < n ? i + 1 : i;
			continue;
		}
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			const char *c = memmem(s + i + 2, n - i - 2, "*/", 2);
			if (!c)
				break;
			i = (size_t)(c - s) + 2;
			while (i < n && s[i] != '\n')
				i++;
			end = i < n ? i + 1 : i;
			continue;
		}
		if (i < n && s[i] == '#') {
			size_t e = i;
			while (e < n && s[e] != '\n')
				e++;
			size_t p = i + 1;
			while (p < e && (s[p] == ' ' || s[p] == '\t'))
				p++;
			int once = e - p >= 11 && !strncmp(s + p, "pragma once", 11);
			int ifndef = e - p >= 6 && !strncmp(s + p, "ifndef", 6) && !guard;
			int define = e - p >= 6 && !strncmp(s + p, "define", 6) && guard;
			if (!once && !ifndef && !define)
				break;
			guard = ifndef;
			i = e < n ? e + 1 : e;
			if (!ifndef)
				end = i;
			continue;
		}
		break;
	}
	return (unsigned)end;
}

/* The end of the preprocessor line at i (with its continuations). */
static size_t directive_end(const char *s, size_t n, size_t i)
{
	while (i < n && s[i] != '\n')
		i += s[i] == '\\' && i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
	return i;
}

/* Is the directive at s[p..e) (after the '#' and blanks) `word`? */
static int directive_is(const char *s, size_t p, size_t e, const char *word)
{
	size_t k = strlen(word);
	char next = e - p > k ? s[p + k] : ' ';
	return e - p >= k && !strncmp(s + p, word, k) && next != '_' &&
	       !(next >= 'a' && next <= 'z') && !(next >= 'A' && next <= 'Z') &&
	       !(next >= '0' && next <= '9');
}

/*
 * The offset after the last #include of the top of the file: the lines
 * before its first line of code (blank, comments, directives), outside
 * any #if but an include guard's; 0 when there is none.  An #include
 * further down, below kernels, is no place for <cuda_pipeline.h>: the
 * kernels above it would not see its declarations.
 */
static unsigned top_include_end(const kp_file *f)
{
	const char *s = f->src;
	size_t n = f->len, i = f->has_bom ? 3 : 0;
	int depth = 0, ndirectives = 0, guard = 0; /* 1: a first #ifndef, maybe a guard */
	unsigned last = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
			i++;
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
			i = directive_end(s, n, i);
			continue;
		}
		if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			const char *c = memmem(s + i + 2, n - i - 2, "*/", 2);
			i = c ? (size_t)(c - s) + 2 : n;
			continue;
		}
		if (i >= n || s[i] != '#')
			break; /* code */
		size_t e = directive_end(s, n, i), p = i + 1;
		while (p < e && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (guard == 1 && !directive_is(s, p, e, "define"))
			depth++; /* the #ifndef was not a guard */
		if (guard == 1)
			guard = 2;
		if (directive_is(s, p, e, "include") && depth == 0)
			last = (unsigned)(e < n ? e + 1 : e);
		else if (directive_is(s, p, e, "ifndef") && !ndirectives && depth == 0)
			guard = 1;
		else if (directive_is(s, p, e, "if") || directive_is(s, p, e, "ifdef") ||
			 directive_is(s, p, e, "ifndef"))
			depth++;
		else if (directive_is(s, p, e, "endif") && depth > 0)
			depth--;
		ndirectives++;
		i = e;
	}
	return last;
}

void kp_parse_scan_includes(kp_file *f)
{
	const char *s = f->src;
	size_t i = 0;
	while (i < f->len) {
		size_t e = i;
		while (e < f->len && s[e] != '\n')
			e++;
		size_t p = i;
		while (p < e && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p < e && s[p] == '#') {
			p++;
			while (p < e && (s[p] == ' ' || s[p] == '\t'))
				p++;
			if (e - p >= 7 && !strncmp(s + p, "include", 7) &&
			    memmem(s + p, e - p, "cuda_pipeline", 13))
				f->includes_pipeline = 1;
		}
		i = e + 1;
	}
	f->last_include_end = top_include_end(f);
	if (!f->last_include_end)
		f->last_include_end = preamble_end(f);
}

/* ---- names a rewrite must not declare (kp_file.idents) ---- */

typedef struct {
	const char *p; /* into a buffer that lives until the list is stored */
	unsigned n;
} word;

typedef struct {
	word *v;
	int n, cap;
} word_list;

static int word_start(unsigned char ch)
{
	return ch == '_' || ch >= 0x80 || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
}

static int word_char(unsigned char ch) { return word_start(ch) || (ch >= '0' && ch <= '9'); }

static void word_add(word_list *l, const char *p, size_t n)
{
	if (n > 4096)
		return; /* no name kpipe generates is that long */
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = kp_xrealloc(l->v, sizeof(*l->v) * (size_t)l->cap);
	}
	l->v[l->n++] = (word){p, (unsigned)n};
}

/* The identifier-like words of s[0, len) (runs of letters, digits, '_' and
 * non-ASCII bytes that do not start with a digit), or, with `prefix`, only
 * those that begin with it.  Comments and strings are read like code:
 * a word there only makes kpipe avoid one more name. */
static void scan_words(word_list *l, const char *s, size_t len, const char *prefix)
{
	if (!prefix) {
		size_t i = 0;
		while (i < len) {
			if (!word_char((unsigned char)s[i])) {
				i++;
				continue;
			}
			size_t b = i;
			while (i < len && word_char((unsigned char)s[i]))
				i++;
			if (word_start((unsigned char)s[b]))
				word_add(l, s + b, i - b);
		}
		return;
	}
	size_t pl = strlen(prefix);
	const char *p = s, *end = s + len;
	/* memchr for the first byte, then the rest: several times faster than
	 * memmem over the megabytes of CUDA headers */
	while (p < end && (p = memchr(p, prefix[0], (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) < pl || memcmp(p, prefix, pl)) {
			p++;
			continue;
		}
		const char *e = p + pl;
		while (e < end && word_char((unsigned char)*e))
			e++;
		if (p == s || !word_char((unsigned char)p[-1]))
			word_add(l, p, (size_t)(e - p));
		p = e;
	}
}

/* The names of the function-like macros s[0, len) defines (`#define
 * NAME(`: no blank before the parenthesis), added to l. */
static void scan_fn_macros(word_list *l, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	while (p < end && (p = memchr(p, '#', (size_t)(end - p))) != NULL) {
		const char *q = p + 1;
		p = q;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q < 7 || memcmp(q, "define", 6) || (q[6] != ' ' && q[6] != '\t'))
			continue;
		q += 7;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		const char *b = q;
		while (q < end && word_char((unsigned char)*q))
			q++;
		if (q > b && q < end && *q == '(' && word_start((unsigned char)*b))
			word_add(l, b, (size_t)(q - b));
	}
}

typedef struct {
	CXFile main;
	word_list *words;
	word_list *fn_macros;
	kp_arena *arena;
	CXFile *seen;
	int nseen;
	unsigned long long deps; /* kp_file.deps_hash */
} inclusion_scan;

/* Every file of the translation unit but the main one (scanned whole),
 * once: the words that begin with KP_GEN_PREFIX, copied to the arena (they
 * are few).  The text is read from disk through mmap: asking libclang for
 * its buffer (clang_getFileContents) costs a search through all of its
 * source locations per file, several ms for the CUDA headers.  The headers
 * of a precompiled header (a batch's CUDA headers) are not listed. */
static void scan_inclusion(CXFile inc, CXSourceLocation *stack, unsigned depth, CXClientData ud)
{
	(void)stack;
	(void)depth;
	inclusion_scan *x = ud;
	if (!inc || clang_File_isEqual(inc, x->main))
		return;
	for (int i = 0; i < x->nseen; i++)
		if (clang_File_isEqual(inc, x->seen[i]))
			return;
	x->seen = kp_xrealloc(x->seen, sizeof(*x->seen) * (size_t)(x->nseen + 1));
	x->seen[x->nseen++] = inc;
	CXString name = clang_getFileName(inc);
	const char *path = clang_getCString(name);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (path) /* the file as a cache key sees it: its path, size and time */
		x->deps = kp_fnv1a64(path, strlen(path) + 1, x->deps);
	clang_disposeString(name);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) == 0) {
		long long stamp[3] = {(long long)st.st_size, (long long)st.st_mtim.tv_sec,
				      (long long)st.st_mtim.tv_nsec};
		x->deps = kp_fnv1a64(stamp, sizeof(stamp), x->deps);
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			int first = x->words->n;
			scan_words(x->words, m, (size_t)st.st_size, KP_GEN_PREFIX);
			for (int i = first; i < x->words->n; i++)
				x->words->v[i].p = kp_arena_strndup(x->arena, x->words->v[i].p,
								    x->words->v[i].n);
			first = x->fn_macros->n;
			scan_fn_macros(x->fn_macros, m, (size_t)st.st_size);
			for (int i = first; i < x->fn_macros->n; i++)
				x->fn_macros->v[i].p = kp_arena_strndup(
					x->arena, x->fn_macros->v[i].p, x->fn_macros->v[i].n);
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
}

static int cmp_word(const void *a, const void *b)
{
	const word *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* f->idents: the main file's words, the KP_GEN_PREFIX words of the other
 * files and of the compiler arguments (a -Dkp_stage=3), sorted, unique. */
void kp_parse_collect_names(pctx *c, const char *const *argv, int argc)
{
	kp_file *f = c->f;
	word_list l = {0};
	scan_words(&l, f->src, f->len, NULL);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i] + (strncmp(argv[i], "-D", 2) ? 0 : 2); /* -Dkp_stage=3 */
		scan_words(&l, a, strlen(a), KP_GEN_PREFIX);
	}
	word_list fm = {0};
	scan_fn_macros(&fm, f->src, f->len);
	inclusion_scan x = {c->main, &l, &fm, &f->arena, NULL, 0, KP_FNV1A64_INIT};
	clang_getInclusions(c->tu, scan_inclusion, &x);
	free(x.seen);
	f->deps_hash = x.deps;
	if (fm.n)
		qsort(fm.v, (size_t)fm.n, sizeof(*fm.v), cmp_word);
	int nm = 0;
	for (int i = 0; i < fm.n; i++)
		if (!nm || cmp_word(&fm.v[nm - 1], &fm.v[i]))
			fm.v[nm++] = fm.v[i];
	f->fn_macros = kp_arena_alloc(&f->arena, sizeof(*f->fn_macros) * (size_t)(nm + 1));
	for (int i = 0; i < nm; i++)
		f->fn_macros[i] = kp_arena_strndup(&f->arena, fm.v[i].p, fm.v[i].n);
	f->nfn_macros = nm;
	free(fm.v);
	if (l.n)
		qsort(l.v, (size_t)l.n, sizeof(*l.v), cmp_word);
	int n = 0;
	for (int i = 0; i < l.n; i++)
		if (!n || cmp_word(&l.v[n - 1], &l.v[i]))
			l.v[n++] = l.v[i];
	f->idents = kp_arena_alloc(&f->arena, sizeof(*f->idents) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		f->idents[i] = kp_arena_strndup(&f->arena, l.v[i].p, l.v[i].n);
	f->nidents = n;
	free(l.v);
}
