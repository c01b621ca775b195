/*
 * util.c - checked allocation, string buffers, the per-run arena, file
 * reading, temporary directories and identifier characters (atomic file
 * writing is in safe_write.c, beside the signal handler that cleans up
 * after it; running other programs is in proc.c).
 *
 * This is the only module that aborts (on out-of-memory); everything else
 * returns status codes to its caller.
 */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void *kp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("kpipe: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *kp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fputs("kpipe: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *kp_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("kpipe: out of memory\n", stderr);
		abort();
	}
	return p;
}

char *kp_xstrdup(const char *s) { return kp_xstrndup(s, strlen(s)); }

char *kp_xstrndup(const char *s, size_t n)
{
	char *p = kp_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void strbuf_grow(kp_strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->buf = kp_xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void kp_strbuf_add(kp_strbuf *sb, const char *s, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void kp_strbuf_adds(kp_strbuf *sb, const char *s) { kp_strbuf_add(sb, s, strlen(s)); }

void kp_strbuf_addc(kp_strbuf *sb, char c) { kp_strbuf_add(sb, &c, 1); }

void kp_strbuf_vaddf(kp_strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void kp_strbuf_addf(kp_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

const char *kp_strbuf_str(kp_strbuf *sb) { return sb->buf ? sb->buf : ""; }

char *kp_strbuf_detach(kp_strbuf *sb)
{
	char *s = sb->buf ? sb->buf : kp_xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void kp_strbuf_release(kp_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

struct kp_arena_chunk {
	kp_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *kp_arena_alloc(kp_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	kp_arena_chunk *c = a->head;
	if (!c || c->used + n > c->cap) {
		size_t cap = n > 65536 ? n : 65536;
		c = kp_xmalloc(sizeof(*c) + cap);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *kp_arena_strndup(kp_arena *a, const char *s, size_t n)
{
	char *p = kp_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *kp_arena_strdup(kp_arena *a, const char *s) { return kp_arena_strndup(a, s, strlen(s)); }

char *kp_arena_printf(kp_arena *a, const char *fmt, ...)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	kp_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	char *p = kp_arena_strndup(a, kp_strbuf_str(&sb), sb.len);
	kp_strbuf_release(&sb);
	return p;
}

void kp_arena_release(kp_arena *a)
{
	kp_arena_chunk *c = a->head;
	while (c) {
		kp_arena_chunk *n = c->next;
		free(c);
		c = n;
	}
	a->head = NULL;
}

int kp_read_stream(void *fp, char **out, size_t *len)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), (FILE *)fp)) > 0)
		kp_strbuf_add(&sb, tmp, n);
	if (ferror((FILE *)fp)) {
		kp_strbuf_release(&sb);
		return -EIO;
	}
	if (len)
		*len = sb.len;
	*out = kp_strbuf_detach(&sb);
	return 0;
}

int kp_read_file(const char *path, char **out, size_t *len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -errno;
	int rc = kp_read_stream(fp, out, len);
	fclose(fp);
	return rc;
}

char *kp_display_path(const char *abs)
{
	char *cwd = getcwd(NULL, 0);
	size_t n = cwd ? strlen(cwd) : 0;
	char *r = n > 1 && !strncmp(abs, cwd, n) && abs[n] == '/' ? kp_xstrdup(abs + n + 1)
								  : kp_xstrdup(abs);
	free(cwd);
	return r;
}

char *kp_dir_of_real_path(const char *path)
{
	char *abs = realpath(path, NULL);
	if (!abs)
		return realpath(".", NULL);
	char *slash = strrchr(abs, '/');
	if (slash == abs)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return abs;
}

const char *kp_tempdir_base(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp && *tmp ? tmp : "/tmp";
}

char *kp_tempdir(const char *purpose)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/kpipe-%s-XXXXXX", kp_tempdir_base(), purpose);
	if (!mkdtemp(sb.buf)) {
		int e = errno;
		kp_strbuf_release(&sb);
		errno = e;
		return NULL;
	}
	return kp_strbuf_detach(&sb);
}

static int remove_rc;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP || flag == FTW_DNR ? rmdir(path) : unlink(path)) != 0 && !remove_rc)
		remove_rc = -errno;
	return 0;
}

int kp_remove_tree(const char *dir)
{
	remove_rc = 0;
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && !remove_rc)
		remove_rc = -errno;
	return remove_rc;
}

int kp_is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

int kp_is_ident(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!kp_is_ident_char(*s))
			return 0;
	return 1;
}

int kp_mentions_ident(const char *s, size_t b, size_t e, const char *name)
{
	size_t n = strlen(name);
	for (size_t p = b; n && p + n <= e; p++)
		if (!strncmp(s + p, name, n) && (p == b || !kp_is_ident_char(s[p - 1])) &&
		    (p + n == e || !kp_is_ident_char(s[p + n])))
			return 1;
	return 0;
}

int kp_str_eq_but_space(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t')
			a++;
		while (*b == ' ' || *b == '\t')
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++;
		b++;
	}
}

unsigned long long kp_fnv1a64(const void *p, size_t n, unsigned long long h)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

double kp_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
