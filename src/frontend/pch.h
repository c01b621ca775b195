/*
 * pch.h - a precompiled header of the CUDA headers every kpipe parse
 * includes (clang's __clang_cuda_runtime_wrapper.h, which pulls in
 * cuda_runtime.h and the math and device functions), so a batch parses
 * those headers once instead of once per file, and single runs find them
 * in a cache kept between runs: about three quarters of the time a small
 * kernel file takes.  The header is what `-x cuda` includes implicitly
 * anyway, so parsing with it changes nothing but the time.
 */
#ifndef KPIPE_PCH_H
#define KPIPE_PCH_H

#include <stddef.h>

/* Writes the precompiled header `pch_path` for parses with argv (every
 * argument but the file, kp_clang_base_args() first: a header built with
 * other language options is rejected by clang).  `main_path` is an empty
 * .cu file to build it from; it must stay until the header is no longer
 * used.  Returns 0, or -1 with *err set (malloc'd). */
int kp_pch_build(const char *const *argv, int argc, const char *main_path, const char *pch_path,
		 char **err);

/* The cache kept between runs: $KPIPE_CACHE_DIR ("" or "off": none),
 * else $XDG_CACHE_HOME/kpipe, else ~/.cache/kpipe (malloc'd, or NULL
 * when there is none). */
char *kp_pch_cache_dir(void);

/* The cached header for a parse with these arguments (all of them but the
 * file, kp_clang_base_args() first), built there on first use and written
 * by rename, so kpipes running side by side never read half a header; the
 * least recently used go past 24 headers.  Returns its path (malloc'd), or
 * NULL when there is no cache or it could not be built: parse without. */
char *kp_pch_cached(const char *const *argv, int argc);

/* The key of a parse's arguments, FNV-1a (kp_fnv1a64) on from h: the
 * libclang version and every argument.  The cached header's name (h
 * KP_FNV1A64_INIT); the re-parse guard's cache key goes on from it
 * (kp_parse_key). */
unsigned long long kp_pch_args_key(const char *const *argv, int argc, unsigned long long h);

/* Removes a cached header clang refused (built by another libclang, or
 * its CUDA headers changed since): the next run builds it again. */
void kp_pch_drop(const char *pch_path);

/* Small entries kept in the same cache by a hash of what they answer (the
 * ptxas probe's reports, probe.c; the re-parse guard's verdicts,
 * rewrite.c): <cache>/NAME, created (malloc'd; NULL when there is no
 * cache or it cannot be created). */
char *kp_cache_subdir(const char *name);

/* Writes `entry`, a file of such a folder named by its key in hex,
 * atomically (a temporary name, then rename).  At one write in 16 (the
 * name begins with 0) the folder is trimmed: past `max` entries whose
 * names end in `suffix`, the older half goes.  Returns 0, or -1 when it
 * could not be written. */
int kp_cache_put(const char *entry, const char *data, size_t len, const char *suffix, int max);

#endif
