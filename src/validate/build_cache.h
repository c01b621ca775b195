/*
 * build_cache.h - nvcc's outputs kept by content: `kpipe tune` compiles
 * the same original (and, when it times more rounds, the same harness and
 * libraries) more than once in one run; the second time the file comes
 * from the cache.  The key is a hash of the command's arguments, the
 * source files' paths and their contents (not the headers they include:
 * a cache lives in one tune run's work directory, during which the
 * headers do not change).  Files go in atomically (a temporary name, then
 * rename), so processes that share a cache never read half a file.
 *
 * Ownership: keys are heap strings the caller frees.
 */
#ifndef KPIPE_BUILD_CACHE_H
#define KPIPE_BUILD_CACHE_H

/* The key of a build: args[0..nargs) (NULL entries skipped) and, for each
 * of files[0..nfiles), its path and contents.  32 hex digits (two 64-bit
 * FNV-1a hashes); NULL when a file cannot be read. */
char *kp_build_key(const char *const *args, int nargs, const char *const *files, int nfiles);
/* The same without the files' paths: their contents only (a disassembly
 * of a cubin written to a fresh temporary folder each time). */
char *kp_build_key_content(const char *const *args, int nargs, const char *const *files,
			   int nfiles);

/* Copies the cached DIR/KEY.SUFFIX to dest (its mode too: an executable
 * stays one).  Returns 1 on a hit, 0 when absent or not copied. */
int kp_build_cache_get(const char *dir, const char *key, const char *suffix, const char *dest);

/* Stores a copy of src as DIR/KEY.SUFFIX (created when missing).  Returns
 * 0, or -errno (the build still stands; the next one compiles again). */
int kp_build_cache_put(const char *dir, const char *key, const char *suffix, const char *src);

/* The same for text held in memory (nvcc's output). */
int kp_build_cache_put_text(const char *dir, const char *key, const char *suffix, const char *text);
/* The cached text, or NULL (heap string). */
char *kp_build_cache_get_text(const char *dir, const char *key, const char *suffix);

#endif
