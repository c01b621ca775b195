/*
 * pch.h - a precompiled header of the CUDA headers every kpipe parse
 * includes (clang's __clang_cuda_runtime_wrapper.h, which pulls in
 * cuda_runtime.h and the math and device functions), so a batch parses
 * those headers once instead of once per file: about 0.25 s of the 0.29 s
 * a small kernel file takes.  The header is what `-x cuda` includes
 * implicitly anyway, so parsing with it changes nothing but the time.
 */
#ifndef KPIPE_PCH_H
#define KPIPE_PCH_H

/* Writes the precompiled header `pch_path` for these parse settings:
 * the same leading arguments kp_parse() uses (target, CUDA path, -std,
 * the CUDA 13 stand-in directory), then args.  `main_path` is an empty
 * .cu file to build it from; it must stay until the header is no longer
 * used.  Returns 0, or -1 with *err set (malloc'd). */
int kp_pch_build(const char *arch, const char *cuda_path, const char *const *args, int nargs,
		 const char *main_path, const char *pch_path, char **err);

#endif
