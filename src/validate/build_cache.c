/*
 * build_cache.c - nvcc's outputs kept by content hash within one tune run
 * (see build_cache.h).
 */
#define _GNU_SOURCE
#include "build_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

typedef struct {
	unsigned long long a, b;
} hash2;

/* Two FNV-1a 64 hashes with different offset bases, over the bytes and a
 * separator (so that "ab","c" and "a","bc" differ). */
static void mix(hash2 *h, const char *s, size_t n)
{
	for (size_t i = 0; i <= n; i++) {
		unsigned char c = i < n ? (unsigned char)s[i] : 0xFF;
		h->a = (h->a ^ c) * 1099511628211ULL;
		h->b = (h->b ^ c) * 1099511628211ULL;
	}
}

static char *key_of(const char *const *args, int nargs, const char *const *files, int nfiles,
		    int with_paths)
{
	hash2 h = {14695981039346656037ULL, 0x84222325cbf29ce4ULL};
	for (int i = 0; i < nargs; i++)
		if (args[i])
			mix(&h, args[i], strlen(args[i]));
	for (int i = 0; i < nfiles; i++) {
		char *text = NULL;
		size_t len = 0;
		if (kp_read_file(files[i], &text, &len) != 0)
			return NULL;
		if (with_paths)
			mix(&h, files[i], strlen(files[i]));
		mix(&h, text, len);
		free(text);
	}
	char buf[40];
	snprintf(buf, sizeof(buf), "%016llx%016llx", h.a, h.b);
	return kp_xstrdup(buf);
}

char *kp_build_key(const char *const *args, int nargs, const char *const *files, int nfiles)
{
	return key_of(args, nargs, files, nfiles, 1);
}

char *kp_build_key_content(const char *const *args, int nargs, const char *const *files, int nfiles)
{
	return key_of(args, nargs, files, nfiles, 0);
}

static char *entry(const char *dir, const char *key, const char *suffix)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%s.%s", dir, key, suffix);
	return kp_strbuf_detach(&sb);
}

/* Copies from to to with mode; 0 or -errno. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
	char *data = NULL;
	size_t len = 0;
	int e = kp_read_file(from, &data, &len);
	if (!e)
		e = kp_write_file_atomic(to, data, len);
	free(data);
	if (!e && chmod(to, mode) != 0)
		e = -errno;
	return e;
}

int kp_build_cache_get(const char *dir, const char *key, const char *suffix, const char *dest)
{
	char *p = entry(dir, key, suffix);
	struct stat st;
	int hit = stat(p, &st) == 0 && copy_file(p, dest, st.st_mode & 0777) == 0;
	free(p);
	return hit;
}

int kp_build_cache_put(const char *dir, const char *key, const char *suffix, const char *src)
{
	struct stat st;
	if (stat(src, &st) != 0)
		return -errno;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	char *p = entry(dir, key, suffix);
	int e = copy_file(src, p, st.st_mode & 0777);
	free(p);
	return e;
}

int kp_build_cache_put_text(const char *dir, const char *key, const char *suffix, const char *text)
{
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	char *p = entry(dir, key, suffix);
	int e = kp_write_file_atomic(p, text, strlen(text));
	free(p);
	return e;
}

char *kp_build_cache_get_text(const char *dir, const char *key, const char *suffix)
{
	char *p = entry(dir, key, suffix), *text = NULL;
	if (kp_read_file(p, &text, NULL) != 0)
		text = NULL;
	free(p);
	return text;
}
