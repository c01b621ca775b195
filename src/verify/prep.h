/*
 * prep.h - turns a CUDA source into C++ that g++ compiles against the CPU
 * emulator (runtime/emu/kp_cpu_cuda.h; docs/verify.md), as
 * tests/cpudiff/prep.py does:
 *
 * - `NAME<<<grid, block[, smem[, stream]]>>>(args)` (NAME may be qualified
 *   and carry template arguments) becomes
 *   `kp::launch(kp::cfg(grid, block, smem, stream), NAME, args)`;
 * - `extern __shared__ T name[];` becomes a pointer to the emulator's
 *   dynamic shared memory;
 * - each `__shared__ T name[...];` (one declarator, no initializer) gets a
 *   static kp::ShmReg on the same line, so the emulator fills it with
 *   poison at every block start;
 * - the inline PTX of kpipe's own helpers (the dynamic shared-memory size,
 *   mbarriers, the fences, cp.async.bulk and its tensor form) becomes calls
 *   of the emulator's kp::ptx_* functions;
 * - constructs the emulator cannot run (warp shuffles and votes, other
 *   inline PTX, cooperative groups beyond the thread block, textures,
 *   bf16, ...) are reported instead.
 *
 * Line numbers are kept (a #line and as many line breaks as each replaced
 * construct spanned), so g++'s messages and the emulator's barrier reports
 * point into the original file.  Pure: text in, text out.
 */
#ifndef KPIPE_VERIFY_PREP_H
#define KPIPE_VERIFY_PREP_H

#include <stddef.h>

/* Same length as src: comments and the contents of string and character
 * literals replaced by spaces (line breaks kept).  Caller frees. */
char *kp_prep_blank(const char *src, size_t len);

/* The constructs of src the emulator cannot run, "line N: what" joined by
 * "; ", or NULL when there is none.  Caller frees. */
char *kp_prep_unsupported(const char *src, size_t len);

/* src with the bodies of the other __global__ functions blanked (spaces,
 * line breaks kept): a kernel the launch of `kernel` ("matmul<32>",
 * "ns::k") never reaches cannot stop its check with what the emulator
 * cannot run (another kernel's inline PTX, warp shuffles).  Nothing is
 * blanked when no definition of `kernel` is found (a kernel a macro
 * defines) or when it launches kernels itself.  Caller frees. */
char *kp_prep_only_kernel(const char *src, size_t len, const char *kernel);

/* Prepares src (named path in the #line).  Returns 0 with *out (caller
 * frees), 1 with *why (caller frees) when the emulator cannot run it, -1
 * with *why when the source is malformed (an unbalanced launch). */
int kp_prep(const char *src, size_t len, const char *path, char **out, char **why);

#endif
