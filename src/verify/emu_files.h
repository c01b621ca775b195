/*
 * emu_files.h - the CPU emulator's files (runtime/emu/: kp_cpu_cuda.h,
 * kp_harness.h, the stand-in CUDA headers of include/), compiled into
 * kpipe by CMake (generated/kpipe_emu_src.h), written out on first use
 * into a folder named by their hash, with a g++ precompiled header of
 * kp_cpu_cuda.h and the object of the runtime's functions (KP_EMU_SPLIT)
 * beside them.
 */
#ifndef KPIPE_VERIFY_EMU_FILES_H
#define KPIPE_VERIFY_EMU_FILES_H

/* A hash of every file's name and text (part of every cache key). */
unsigned long long kp_emu_hash(void);

/* The folder base/emu-HASH holding the files (written there once, each by
 * rename, so kpipes side by side never read half a file); in
 * base/emu-HASH/rt/ kp_emu_rt.o, the functions kp_cpu_cuda.h and
 * kp_harness.h mark KP_RT, which every build links (*rt set to its path);
 * and with want_pch, in base/emu-HASH/pch/ kp_cpu_cuda.h.gch, both built
 * side by side with g++ `cxx` and `flags` (NULL-terminated, holding
 * -DKP_EMU_SPLIT), the header when it can be (*pch set to that folder,
 * else NULL).  Returns the folder (caller frees), or NULL with *err
 * (caller frees; also when the runtime's object does not build).
 * *static_libs: with want_pch (a cache), whether g++ links libstdc++ and
 * libgcc statically here (KP_EMU_STATIC_LIBS, asked once per folder): an
 * executable so linked starts some 3 ms sooner and links in half the
 * time, and a verification runs each executable some twenty times. */
char *kp_emu_install(const char *base, const char *cxx, const char *const *flags, int want_pch,
		     char **pch, char **rt, int *static_libs, char **err);

/* The link options of *static_libs, for an argv. */
#define KP_EMU_STATIC_LIBS "-static-libstdc++", "-static-libgcc"

#endif
