/*
 * vbuild.h - the verifier's builds (verify.h): one version of a kernel
 * file prepared for the emulator, with its launcher, compiled by g++ into
 * an executable kept in the cache under a key of everything that went
 * into it.  Runs g++; writes under the given folders only.
 */
#ifndef KPIPE_VERIFY_VBUILD_H
#define KPIPE_VERIFY_VBUILD_H

#include "launch_spec.h"

/* Where builds happen and what they share. */
typedef struct {
	const char *emu;        /* the emulator's folder (emu_files.h) */
	const char *pch;        /* its precompiled header's folder, or NULL */
	const char *rt;         /* the object of its runtime, linked into every build */
	int static_libs;        /* link libstdc++ and libgcc statically (emu_files.h) */
	const char *work;       /* scratch files */
	const char *store;      /* where executables are kept (the cache, or work) */
	const char *src_dir;    /* the kernel file's folder (its quoted includes) */
	unsigned long long key; /* emulator, flags, the local headers' texts */
} kp_vbuild_env;

/* One version: its text in, its executable out. */
typedef struct {
	const char *label; /* "original", "rewrite" */
	const char *path;  /* as named in #line */
	const char *text;
	size_t len;
	/* out */
	char *exe;    /* the executable, NULL when it did not build */
	char *why;    /* why not: unsupported (status 1), malformed or g++'s errors */
	int status;   /* 0 built, 1 unsupported by the emulator, 2 does not compile, -1 other */
	int cp_async; /* the version issues asynchronous copies (cp.async, bulk) */
} kp_vbuild;

/* The g++ flags of every build, NULL-terminated. */
extern const char *const kp_vbuild_flags[];
/* The compiler: $KPIPE_VERIFY_CXX, else g++. */
const char *kp_vbuild_cxx(void);

/* The texts of the headers `text` includes with quotes that lie in dir,
 * and theirs in turn (part of the cache keys).  Caller frees. */
char *kp_vbuild_local_headers(const char *text, const char *dir);

/* Builds each of the n versions (side by side) with spec s. */
void kp_vbuild_run(const kp_vbuild_env *env, const kp_launch_spec *s, kp_vbuild *v, int n);
void kp_vbuild_release(kp_vbuild *v);

#endif
