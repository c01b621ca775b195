/*
 * resources.h - what ptxas says about each kernel: registers, static shared
 * memory, stack frame and spills, from `nvcc -cubin -Xptxas -v`, plus the
 * compiler's warnings.
 *
 * Ownership: a kp_resources owns its kernels, warnings, log and every string
 * in them until kp_resources_release().  Nothing here prints or exits.
 */
#ifndef KPIPE_RESOURCES_H
#define KPIPE_RESOURCES_H

#include <stddef.h>

#include "arch.h"
#include "util.h"

typedef struct {
	const char *name;      /* mangled */
	const char *demangled; /* NULL until kp_resources_demangle() found one */
	int is_entry;          /* a __global__ kernel (else a called function) */
	int registers;
	int smem;     /* static shared memory, bytes */
	int cmem0;    /* bytes of cmem[0] when reported, else 0 */
	int barriers; /* "used N barriers", -1 when not reported */
	int stack_frame;
	int spill_stores;
	int spill_loads;
	int cumulative_stack; /* bytes, 0 when not reported */
} kp_kernel_res;

typedef struct {
	kp_arena arena;
	kp_kernel_res *kernels;
	int nkernels, kcap;
	const char **warnings; /* lines holding "warning", as printed */
	int nwarnings, wcap;
	const char *log; /* everything nvcc printed (kp_resources_compile) */
	int status;      /* nvcc's exit status; -1 when it did not start */
	char error[512]; /* why compile failed, one line */
} kp_resources;

enum {
	KP_RES_OK = 0,
	KP_RES_ENOTOOL = -1,  /* nvcc could not be started */
	KP_RES_ECOMPILE = -2, /* nvcc failed; error[] has its first error */
	KP_RES_ETEMP = -3,    /* no temporary directory */
};

/* Parses ptxas -v output (as nvcc prints it) into out, which must be zeroed
 * or fresh; appends.  Pure: no tools run.  Returns the number of kernels. */
int kp_resources_parse(kp_resources *out, const char *ptxas_output);

typedef struct {
	const char *nvcc;        /* path or name of nvcc */
	const char *arch;        /* passed as -arch=ARCH ("sm_90") */
	const char *const *args; /* extra nvcc arguments (-I, -D, ...) */
	int nargs;
	const char *cache_dir; /* NULL, or where cubins and nvcc's output are kept by
				  content (build_cache.h): a second compilation of the
				  same source with the same command is a copy */
} kp_compile_opts;

/* Compiles source with `nvcc -arch=ARCH -cubin -O3 -Xptxas -v ARGS -o
 * cubin_path source` and parses the output into out (zeroed first).
 * Returns KP_RES_OK or a negative KP_RES_E* code (out->error says why; out
 * must be released either way). */
int kp_resources_compile(kp_resources *out, const kp_compile_opts *o, const char *source,
			 const char *cubin_path);

/* Fills the demangled names with one run of filt (cu++filt or c++filt).
 * Returns 0, or -1 when it could not run (names stay NULL). */
int kp_resources_demangle(kp_resources *r, const char *filt);

const kp_kernel_res *kp_resources_find(const kp_resources *r, const char *name);

/* Appends a copy of k to r (its strings copied into r's arena), named
 * `name` (NULL: k's own name). */
void kp_resources_add_copy(kp_resources *r, const kp_kernel_res *k, const char *name);

/* 1 when name selects k: the mangled or demangled name, or the function's
 * unqualified identifier ("matmul" selects "void matmul<128>(float*)"). */
int kp_resources_name_matches(const kp_kernel_res *k, const char *name);

/* The warning text without its "file(line): " prefix, so the same warning
 * in two files compares equal.  Returns a pointer into w. */
const char *kp_resources_warning_key(const char *w);

/* Resident blocks per SM of both versions at `threads` per block on a.
 * Returns 1 with msg set ("occupancy cliff crossed: 2 -> 1 blocks/SM
 * (registers 128 -> 134; limited by registers)") when the rewritten kernel
 * has fewer; 0 otherwise (also when a is NULL). */
int kp_resources_cliff(const kp_arch *a, int threads, const kp_kernel_res *before,
		       const kp_kernel_res *after, char *msg, size_t msgsz);

void kp_resources_release(kp_resources *r);

#endif
