/*
 * pch.c - builds the precompiled CUDA header a batch parses every file
 * with (-include-pch), and keeps such headers between runs for single
 * files (kp_pch_cached).  It calls libclang (parse an empty .cu file as an
 * incomplete translation unit, save it), as the parser (parse.c,
 * parse_*.c) and compdb.c do.  The arguments must be those
 * of the parse: a header built with other language options is rejected by
 * clang, and the parse then goes without it (correct, only slower).
 */
#define _GNU_SOURCE
#include "pch.h"

#include "util.h"

#include <clang-c/Index.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

/* the smallest file-size limit a precompiled header is written under */
#define KP_PCH_MIN_FSIZE ((rlim_t)64 << 20)

int kp_pch_build(const char *const *argv, int n, const char *main_path, const char *pch_path,
		 char **err)
{
	*err = NULL;
	/* The header is several megabytes, and LLVM aborts the process when
	 * a write of it fails (EFBIG under `ulimit -f`), so under a small
	 * file-size limit kpipe goes without one. */
	struct rlimit fs;
	if (getrlimit(RLIMIT_FSIZE, &fs) == 0 && fs.rlim_cur != RLIM_INFINITY &&
	    fs.rlim_cur < KP_PCH_MIN_FSIZE) {
		*err = kp_xstrdup("the file-size limit (ulimit -f) is below 64 MiB");
		return -1;
	}
	CXIndex idx = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	enum CXErrorCode ec = clang_parseTranslationUnit2(
		idx, main_path, argv, n, NULL, 0,
		CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization, &tu);
	int rc = 0;
	if (ec != CXError_Success || !tu) {
		*err = kp_xstrdup("libclang could not parse the CUDA headers");
		rc = -1;
	} else {
		unsigned nd = clang_getNumDiagnostics(tu);
		for (unsigned i = 0; i < nd && !rc; i++) {
			CXDiagnostic d = clang_getDiagnostic(tu, i);
			if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
				CXString s = clang_getDiagnosticSpelling(d);
				*err = kp_xstrdup(clang_getCString(s));
				clang_disposeString(s);
				rc = -1;
			}
			clang_disposeDiagnostic(d);
		}
		if (!rc && clang_saveTranslationUnit(tu, pch_path, clang_defaultSaveOptions(tu)) !=
				   CXSaveError_None) {
			*err = kp_xstrdup("libclang could not save the precompiled header");
			rc = -1;
		}
	}
	if (tu)
		clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return rc;
}

/* ---- the cache kept between runs ------------------------------------- */

/* how many headers the cache keeps (each a few megabytes; one per set of
 * parse flags), the least recently used going first */
#define KP_PCH_CACHE_MAX 24

char *kp_pch_cache_dir(void)
{
	const char *d = getenv("KPIPE_CACHE_DIR");
	if (d)
		return *d && strcmp(d, "off") && strcmp(d, "0") ? kp_xstrdup(d) : NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	if (x && *x == '/')
		kp_strbuf_addf(&sb, "%s/kpipe", x);
	else if (h && *h == '/')
		kp_strbuf_addf(&sb, "%s/.cache/kpipe", h);
	else
		return NULL;
	return kp_strbuf_detach(&sb);
}

unsigned long long kp_pch_args_key(const char *const *argv, int argc, unsigned long long h)
{
	CXString v = clang_getClangVersion();
	const char *vs = clang_getCString(v);
	h = kp_fnv1a64(vs, strlen(vs), h);
	clang_disposeString(v);
	for (int i = 0; i < argc; i++)
		h = kp_fnv1a64(argv[i], strlen(argv[i]) + 1, h);
	return h;
}

typedef struct {
	char *name;
	time_t mtime;
} cache_entry;

static int by_mtime(const void *a, const void *b)
{
	const cache_entry *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Removes the least recently used headers past KP_PCH_CACHE_MAX (with
 * their sources), and temporary files a killed build left an hour ago or
 * more. */
static void prune(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	cache_entry *v = NULL;
	int n = 0, cap = 0;
	time_t now = time(NULL);
	struct dirent *e;
	char path[4400];
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (strncmp(e->d_name, "pch-", 4) || stat(path, &st))
			continue;
		if (strstr(e->d_name, ".tmp.")) {
			if (now - st.st_mtime > 3600)
				unlink(path);
		} else if (l > 4 && !strcmp(e->d_name + l - 4, ".pch")) {
			if (n == cap) {
				cap = cap ? 2 * cap : 32;
				v = kp_xrealloc(v, (size_t)cap * sizeof(*v));
			}
			v[n++] = (cache_entry){kp_xstrndup(e->d_name, l - 4), st.st_mtime};
		}
	}
	closedir(d);
	if (n > KP_PCH_CACHE_MAX)
		qsort(v, (size_t)n, sizeof(*v), by_mtime);
	for (int i = 0; i < n; i++) {
		if (i < n - KP_PCH_CACHE_MAX) {
			static const char *const ext[] = {".pch", ".cu"};
			for (int k = 0; k < 2; k++) {
				snprintf(path, sizeof(path), "%s/%s%s", dir, v[i].name, ext[k]);
				unlink(path);
			}
		}
		free(v[i].name);
	}
	free(v);
}

char *kp_pch_cached(const char *const *argv, int argc)
{
	char *dir = kp_pch_cache_dir();
	if (!dir)
		return NULL;
	char base[4200], pch[4300], src[4300], tmp[4400];
	snprintf(base, sizeof(base), "%s/pch-%016llx", dir,
		 kp_pch_args_key(argv, argc, KP_FNV1A64_INIT));
	snprintf(pch, sizeof(pch), "%s.pch", base);
	snprintf(src, sizeof(src), "%s.cu", base);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", pch, (long)getpid());
	char *out = NULL;
	if (access(pch, R_OK) == 0 && access(src, R_OK) == 0) {
		utime(pch, NULL); /* recently used */
		out = kp_xstrdup(pch);
		goto done;
	}
	if (kp_make_parents(src) != 0)
		goto done;
	/* the empty source the header is built from stays beside it (clang
	 * checks it when it loads the header); never truncated, so a header
	 * another kpipe just built from it stays valid */
	int fd = open(src, O_WRONLY | O_CREAT, 0666);
	if (fd < 0)
		goto done;
	close(fd);
	char *err = NULL;
	if (kp_pch_build(argv, argc, src, tmp, &err) == 0 && rename(tmp, pch) == 0)
		out = kp_xstrdup(pch);
	else
		unlink(tmp);
	free(err);
	prune(dir);
done:
	free(dir);
	return out;
}

void kp_pch_drop(const char *pch_path) { unlink(pch_path); }

/* ---- small entries kept by key (the probe's reports, the guard's
 * verdicts) --------------------------------------------------------- */

char *kp_cache_subdir(const char *name)
{
	char *base = kp_pch_cache_dir();
	if (!base)
		return NULL;
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_addf(&sb, "%s/%s", base, name);
	if ((mkdir(base, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(kp_strbuf_str(&sb), 0755) != 0 && errno != EEXIST)) {
		kp_strbuf_release(&sb);
		sb.len = 0;
	}
	free(base);
	return sb.len ? kp_strbuf_detach(&sb) : NULL;
}

static int cmp_time(const void *a, const void *b)
{
	time_t x = *(const time_t *)a, y = *(const time_t *)b;
	return (x > y) - (x < y);
}

/* The entries of entry's folder whose names end in `suffix` (and do not
 * begin with '.': kp_write_file_atomic's temporary files): past `max`,
 * those older than the median go. */
static void cache_trim(const char *entry, const char *suffix, int max)
{
	char *dir = kp_xstrdup(entry);
	*strrchr(dir, '/') = 0;
	DIR *d = opendir(dir);
	char **names = NULL;
	time_t *when = NULL;
	int n = 0, cap = 0;
	size_t sl = strlen(suffix);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l <= sl || e->d_name[0] == '.' || strcmp(e->d_name + l - sl, suffix))
			continue;
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(kp_strbuf_str(&sb), &st) != 0) {
			kp_strbuf_release(&sb);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			names = kp_xrealloc(names, sizeof(*names) * (size_t)cap);
			when = kp_xrealloc(when, sizeof(*when) * (size_t)cap);
		}
		names[n] = kp_strbuf_detach(&sb);
		when[n++] = st.st_mtime;
	}
	if (d)
		closedir(d);
	if (n > max) {
		time_t *sorted = kp_xcalloc((size_t)n, sizeof(*sorted));
		memcpy(sorted, when, sizeof(*sorted) * (size_t)n);
		qsort(sorted, (size_t)n, sizeof(*sorted), cmp_time);
		time_t cut = sorted[n / 2]; /* the median: what is older goes */
		free(sorted);
		for (int i = 0; i < n; i++)
			if (when[i] < cut)
				unlink(names[i]);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(when);
	free(dir);
}

int kp_cache_put(const char *entry, const char *data, size_t len, const char *suffix, int max)
{
	if (kp_write_file_atomic(entry, data, len) != 0)
		return -1;
	const char *name = strrchr(entry, '/');
	if (name && name[1] == '0')
		cache_trim(entry, suffix, max);
	return 0;
}
