/*
 * launch_spec.h - the launch description (docs/launch-spec.md): how a
 * kernel is launched, its buffers, sizes and tolerance; and the
 * "// kpipe-launch:" lines a rewritten kernel file carries (a launcher it
 * wrote, a dynamic shared-memory size).  Parsed here, in the verify layer,
 * which runs the spec's launches on the CPU emulator before a rewrite is
 * written (verify.h); the gpu layer generates the GPU harness from it
 * (gpu_gen.h).
 *
 * Ownership: a kp_launch_spec owns every string and array reachable from it
 * (one arena) until kp_launch_spec_release().
 */
#ifndef KPIPE_LAUNCH_SPEC_H
#define KPIPE_LAUNCH_SPEC_H

#include <stddef.h>

#include "util.h"

typedef enum { KP_ROLE_IN, KP_ROLE_OUT, KP_ROLE_INOUT, KP_ROLE_SCALAR } kp_arg_role;
/* float2 and double2 are the CUDA vector types that cuFloatComplex,
 * cuDoubleComplex and libraries' complex typedefs (MAGMA's
 * magmaDoubleComplex) name: a buffer of them is 2 x count scalars to the
 * harnesses, filled and compared lane by lane. */
typedef enum {
	KP_TYPE_FLOAT,
	KP_TYPE_HALF,
	KP_TYPE_INT8,
	KP_TYPE_INT,
	KP_TYPE_DOUBLE,
	KP_TYPE_FLOAT2,
	KP_TYPE_DOUBLE2
} kp_arg_type;

typedef struct {
	const char *name;
	kp_arg_role role;
	kp_arg_type type;
	const char *expr; /* a buffer's element count, or a scalar's value */
} kp_launch_arg;

typedef struct {
	const char *name; /* "small" */
	long *vals;       /* one per symbol, in the spec's symbol order */
} kp_launch_size;

typedef struct {
	kp_arena arena;
	const char *path;          /* as given */
	const char *name;          /* NAME of NAME.launch.json */
	const char *kernel;        /* "matmul_32x32", "ns::k" */
	const char *template_args; /* "" or "<32, 32, 32>": the first instantiation's */
	/* every instantiation the description names ("template_args" as a
	 * list), in its order; one ("" for a kernel that is no template)
	 * with the single-string form */
	const char **insts;
	int ninsts;
	const char *block[3], *grid[3];
	const char *dynamic_smem;
	const char **
		requires;
	int nrequires;
	const char **symbols; /* size symbols, in the first size's order */
	int nsymbols;
	kp_launch_size *sizes; /* in the file's order */
	int nsizes;
	kp_launch_arg *args;
	int nargs;
	double tol_abs, tol_rel;
	const char *work_kind; /* "flops", "bytes" or "" */
	const char *work;      /* expression, "0" without work */
	int eligible;
} kp_launch_spec;

/* The most instantiations one description names. */
#define KP_LAUNCH_MAX_INSTS 8

enum {
	KP_SPEC_OK = 0,
	KP_SPEC_EREAD = -1,    /* the file cannot be read (err says why) */
	KP_SPEC_EINVALID = -2, /* not JSON, or a field is wrong */
};

/* Parses and checks a launch description as gpu_bench.py's load_spec does:
 * unknown fields, bad expressions, missing sizes (tiny, small, target are
 * mandatory), sizes with different symbols, no output buffer.  path names
 * the file in messages and gives the spec's name.  On error *out is
 * released and err holds "PATH: 'field': what is wrong". */
int kp_launch_spec_parse(kp_launch_spec *out, const char *text, const char *path, char *err,
			 size_t errsz);
int kp_launch_spec_load(kp_launch_spec *out, const char *path, char *err, size_t errsz);
void kp_launch_spec_release(kp_launch_spec *s);

/* Index of a size by name, or -1. */
int kp_launch_spec_size(const kp_launch_spec *s, const char *name);

/* Threads per block when every block entry is an integer literal, else 0. */
int kp_launch_spec_threads(const kp_launch_spec *s);
/* The same, and the block's shape in block[] when every entry is also at
 * most 1024 (else block[] all 0). */
int kp_launch_spec_block(const kp_launch_spec *s, int block[3]);

/* "dir/x.cu" -> "dir/x.launch.json" (".cuh" likewise, any other name gets
 * the suffix appended).  Caller frees. */
char *kp_launch_spec_default_path(const char *source);

/* The launcher a kernel file names for `kernel` in a "// kpipe-launch:
 * launcher(KERNEL) = NAME" line (kpipe's tensor-map form writes one; its
 * launches call NAME(grid, block, smem, stream, the kernel's arguments)),
 * or NULL.  Caller frees.  kp_gpu_gen_launcher() calls it as `via`. */
char *kp_gpu_launch_via(const char *source, const char *kernel);

/* The dynamic shared memory a kernel file gives `kernel`, overriding the
 * spec's: a "// kpipe-launch: dynamic_smem(KERNEL) = EXPR" line for it
 * (kpipe rewrite writes one per kernel it moves to dynamic shared memory,
 * so a file with several keeps each one's size), else the first
 * unqualified "// kpipe-launch: dynamic_smem = EXPR" line (one for every
 * kernel of the file).  Returns 1 with *expr (heap) set, 0 when there is
 * none, -1 when EXPR is not a plain expression (err set). */
int kp_gpu_launch_override(const char *source, const char *kernel, char **expr, char *err,
			   size_t errsz);

/* Checks a C expression as the spec's fields must be: not empty, none of
 * ; { } " ' \ # or newlines.  Returns 0 or -1. */
int kp_gpu_check_expr(const char *e);

/* Splits a "--sizes a,b" list and checks every name against the spec.
 * Returns the number of names stored in names[] (at most max; duplicates
 * dropped), or -1 with err naming the first unknown size. The stored
 * pointers point into the spec. */
int kp_gpu_parse_sizes(const kp_launch_spec *s, const char *list, const char **names, int max,
		       char *err, size_t errsz);

/* "float", "__half", "int8_t", "int", "double", "float2", "double2". */
const char *kp_arg_type_ctype(kp_arg_type t);

/* Scalars per element: 2 for float2 and double2, else 1. */
int kp_arg_type_lanes(kp_arg_type t);

/* " * N" for a type of N > 1 lanes (float2, double2), "" otherwise: the
 * factor a buffer's count takes in the harnesses' element counts. */
const char *kp_arg_lanes_factor(kp_arg_type t);

/* The type of one lane: KP_TYPE_FLOAT for float2, KP_TYPE_DOUBLE for
 * double2, t itself otherwise. */
kp_arg_type kp_arg_type_lane(kp_arg_type t);

/* A scalar argument's C expression for value expression e of type t
 * ("(int)(e)", "__float2half((float)(e))", "make_double2((double)(e), 0)":
 * a complex scalar's value is its real part). */
char *kp_arg_scalar_expr(kp_arg_type t, const char *e);

/* The harness's enum names of a type and a role ("T_F32", "R_IN"). */
const char *kp_arg_type_enum(kp_arg_type t);
const char *kp_arg_role_enum(kp_arg_role r);

/* Python's repr() of a float: the shortest text that reads back the same,
 * with ".0" when it would look like an integer. */
void kp_float_repr(char *buf, size_t sz, double v);

#endif
