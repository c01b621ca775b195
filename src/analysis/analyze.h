/*
 * analyze.h - finds the candidate K-loops of each kernel and checks them:
 * the load / barrier / compute partition, induction variables and pointer
 * bumps, each global->shared copy, the compute phase's math, the shared
 * memory per buffer and the budget rows for the target, and every
 * legality condition of docs/diagnostics.md with its stable id (the
 * static limit, which depends on the transform's buffers, is the plan's).
 *
 * Works on the model (model.h) only; allocations come from the file's
 * arena and live as long as the kp_file.
 */
#ifndef KPIPE_ANALYZE_H
#define KPIPE_ANALYZE_H

#include "arch.h"
#include "model.h"

/* One induction variable or pointer bump: `var` advances by `step` once
 * per iteration (sign -1 for -= / --). */
typedef struct {
	kp_decl *var;
	const char *step; /* source text of the step, "1" for ++ */
	int sign;
	int in_header; /* from the for-increment, else a body statement */
	int is_pointer;
	kp_node *stmt;
} kp_induct;

typedef enum { KP_G_NONE, KP_G_TERNARY, KP_G_IFELSE } kp_guard_kind;

/* A counted loop, for (int i = lo; i op hi; i += step), read once from
 * the for-statement's slots (model.h): the analysis computes its trip
 * count from it (kp_load.trips), register staging the count and the
 * index of its staging registers (transforms/reg_staging.c).  A field is
 * NULL (0) where the loop does not have that part in this form. */
typedef struct {
	const kp_node *var_decl; /* the counter's VARDECL when the init declares it */
	const kp_node *lo;       /* the counter's first value (init) */
	const kp_node *hi;       /* the bound: the condition's right operand */
	const kp_node *hi_off;   /* c of `i + c < hi` (the bound is then hi - c), or NULL */
	const char *op;          /* the condition's operator ("<", "<=", ...) */
	const kp_node *step;     /* s of `i += s` and of `i = i + s`; NULL for ++ */
	int step_is_one;         /* the increment is ++ */
	int step_plus_assign;    /* the increment is += */
	int step_ok;             /* the increment adds a side-effect-free step (not --, -=) */
} kp_range;

/* One global -> shared copy statement of the load phase. */
typedef struct {
	kp_node *stmt;      /* the assignment (for IFELSE: the if statement) */
	kp_node *lhs, *rhs; /* store target and loaded expression (load arm) */
	kp_node *zero_stmt; /* IFELSE: the else-arm assignment */
	/* A copy through a temporary of the load phase (`T t = A[i]; ...
	 * TILE[...] = t;`, or `T t; t = A[i];`): rhs is the temporary's value,
	 * tmp_decl the temporary's declaration statement and tmp_set the
	 * assignment of its value when separate (else NULL).  The temporary
	 * is named nowhere else in the loop. */
	kp_node *tmp_decl, *tmp_set;
	kp_decl *tile;         /* shared array written */
	kp_decl *src;          /* global pointer read, NULL when unknown */
	kp_node *src_base;     /* DECLREF of the global pointer */
	const char *elem_type; /* type stored */
	long long bytes;       /* bytes per copy (4, 8, 16; 2 for half...) */
	int vector;            /* 1 scalar, else elements of the vector type */
	kp_guard_kind guard;
	kp_node *cond;         /* guard condition */
	const char *otherwise; /* text stored when the guard fails */
	int pure;              /* the stored value is the loaded value (or 0) */
	const kp_decl *via;    /* staged by the source: the load-phase local the
				* stored value reads (float4 v = A4[i]; As[..] = v.x) */
	int depth;             /* enclosing loops inside the load phase */
	kp_node *loops[4];     /* those loops, outermost first */
	kp_range ranges[4];    /* those loops read as counted loops */
	double trips[4];       /* their compile-time trip counts, -1 unknown */
	/* The conditions the copy runs under inside the load phase (an if
	 * without the zero-storing else of KP_G_IFELSE, either branch of an if,
	 * a switch), outermost first: each, like the header of each copy loop,
	 * must be the same in every iteration (kpipe-partial-tile-write), and
	 * the transforms keep them as written. */
	kp_node *under[4];
	int under_else[4];      /* the copy is in that if's else branch */
	int nunder;             /* may exceed 4: then refused */
	const char *under_text; /* "if (c)", "else of if (c)", "switch (v)", joined
				 * with ", ", outermost first; NULL when none */
	int line;
} kp_load;

typedef struct {
	const char *id; /* "kpipe-divergent-barrier" */
	const char *message;
	int line, col;
} kp_reason;

typedef enum {
	KP_MATH_NONE,
	KP_MATH_FFMA,
	KP_MATH_HFMA,
	KP_MATH_HMMA,
	KP_MATH_IMMA,
	KP_MATH_DP4A,
	KP_MATH_DFMA
} kp_math;
const char *kp_math_name(kp_math m);

typedef enum { KP_FORM_BOTTOM, KP_FORM_TOP } kp_form;

typedef struct {
	kp_decl *arr;
	long long elems;    /* -1 unknown */
	long long bytes;    /* -1 unknown */
	int in_loop;        /* declared inside the loop body */
	kp_node *decl_stmt; /* DECLSTMT when declared in the loop */
	int loaded;         /* written by the load phase */
	/* Pointers into the tile declared before the loop and only read in
	 * the compute phase (`const float *A_thread = (const float *)As +
	 * off;`): the pipelined loop reads them at the current stage,
	 * `(p + stage * (sizeof(As[0]) / sizeof(*p)))` (transforms/render.c). */
	const kp_decl *alias[4];
	int naliases;
} kp_tile;

typedef struct kp_loop {
	kp_kernel *kernel;
	int index;     /* 1-based within the kernel */
	kp_node *node; /* the loop statement */
	kp_node *init, *cond, *inc, *body;
	kp_node **stmts; /* top-level statements of the body */
	int nstmts;
	int bar1, bar2; /* indices of the two top-level barriers, -1 */
	kp_form form;
	int load_b, load_e, comp_b, comp_e; /* [b, e) statement ranges */
	int bump_b, bump_e; /* bumps at the end of the load phase, moved after the compute */
	int nbarriers;      /* all barriers in the body, nested included */
	kp_induct *ind;
	int nind;
	int tile_count;        /* loop counts tiles (step 1) */
	const char *trip_text; /* trip count expression, NULL when unknown */
	kp_load *loads;
	int nloads;
	int loads_in_loops;
	int loads_in_helper;
	int loads_carve_out; /* copies into pointers carved out of a static shared array */
	int dyn_tiles;       /* loaded tiles in dynamic shared memory (extern arrays and
				their carve-outs): each stage is a copy of the whole
				region, kp_stage_bytes apart (transforms/render.c) */
	kp_tile *tiles;      /* shared arrays referenced by the loop */
	int ntiles;
	long long tile_bytes; /* bytes of the loaded arrays per stage, -1 unknown */
	long long other_smem; /* other static shared memory of the kernel */
	kp_math math;
	double flops_thread; /* per thread per tile, <0 unknown */
	double flops_tile;   /* per block per tile, <0 unknown */
	int threads;         /* threads per block used, 0 unknown */
	const char *threads_from;
	double ratio;        /* FLOP per loaded byte, <0 unknown */
	int params_symbolic; /* a template kernel analysed with its parameters
			      * left symbolic (no instantiation, or one whose
			      * arguments are not all known) */
	kp_reason *reasons;
	int nreasons;
	int already_pipelined;
	int eligible;
	const char *inst; /* template instantiation whose sizes are shown, or NULL */
	/* A template kernel's loop is analysed once per instantiation; this
	 * loop is then the merge: sizes of the instantiation with the largest
	 * double-buffered shared memory, eligible only if every one is,
	 * reasons that do not hold for all of them prefixed "for instantiation
	 * <...>: ".  What each transform needs (its feasibility, the shared
	 * memory of its buffers) is decided per instantiation by the
	 * transforms and the plan (transform.h, plan.h).  NULL / 0 for other
	 * kernels. */
	struct kp_loop **per_inst; /* per instantiation, in a fixed order (argument values) */
	int nper_inst;
	int inst_shown;    /* index in per_inst of the one whose sizes are shown */
	int cond_monotone; /* cond(t+d) implies cond(t+1) .. cond(t+d-1): one test per tile */
	int exit_barrier;  /* code after the loop (or the next iteration of an
			    * enclosing loop) touches shared memory: a pipelined
			    * form that ends without a barrier must add one */
	const char *exit_barrier_why;
	int encloses_line; /* not a K-loop but a loop around one: the line of the
			    * first K-loop nested in it (a candidate of its own) */
} kp_loop;

typedef struct {
	const kp_arch *arch;
	int threads;        /* --threads, 0 = find out */
	const char *kernel; /* --kernel filter, NULL all */
	int spec_threads;   /* threads from the launch description, 0 none */
	const char *spec_kernel;
	int block[3];      /* --block X,Y,Z (banks.h), 0 0 0: not given */
	int spec_block[3]; /* the launch description's block when all three are numbers */
} kp_analyze_opts;

typedef struct {
	kp_loop **loops;
	int nloops;
	int nkernels; /* kernels considered (after --kernel) */
} kp_analysis;

int kp_analyze(kp_analysis *out, kp_file *f, const kp_analyze_opts *o);

/* The instantiations of a merged template loop in the order their
 * findings are reported: the one whose sizes are shown first, then the
 * others in per_inst order.  Returns the per_inst index of the s-th. */
int kp_loop_inst_seq(const kp_loop *l, int s);

/* Integer constant evaluation of an expression, with template arguments
 * of `inst_values` bound to the kernel's template parameters. */
int kp_eval(const kp_node *n, const kp_kernel *k, const long long *inst_values, long long *out);

/* Budget row for S stages. */
typedef struct {
	int stages;
	long long bytes; /* per block */
	int fits_static;
	int fits_optin;
	kp_occupancy occ;
} kp_budget;
void kp_loop_budget(const kp_loop *l, const kp_arch *a, int stages, kp_budget *out);

/* Whether d is a scratch register of l's load phase: a plain local of
 * kernel k declared before the loop and named only in the load phase
 * (the source's own staging array, `float ldg_a[4];`). */
int kp_is_scratch(const kp_file *f, const kp_kernel *k, const kp_loop *l, const kp_decl *d);

/* Whether n is a value a guarded copy may store where its guard fails
 * (docs/design.md, "Guarded copies"): a zero literal, possibly cast or
 * parenthesised, make_T(0, ...), __float2half(0) and the like, or an
 * all-zero initializer list. */
int kp_is_zero_value(const kp_node *n);

/* The variable an lvalue (or address) expression is rooted at: the
 * DECLREF of `As` in `As[i][j]`, `*(float4 *)&As[i]`, `p + 4`; or NULL. */
kp_node *kp_lvalue_root(kp_node *n);

/* The variable of the thread a local pointer points into (a pointer of one
 * level, never changed, initialised with the variable's address or, for
 * an array, the array: `T *const p = reinterpret_cast<T *>(&vec);`), or
 * NULL.  Stores through it stay in the thread. */
const kp_decl *kp_points_into_local(const kp_file *f, const kp_kernel *k, const kp_decl *d);

/* What a write node writes: the target of an assignment (plain or
 * compound; *plain says which) or of ++/--; NULL for other nodes. */
kp_node *kp_write_target(const kp_node *n, int *plain);
/* The variable a write to target t changes: the declaration t is rooted
 * at or, for a store through a pointer into a variable of the thread
 * (kp_points_into_local, `vp[3 - i] = 0.f`), that variable (*through set);
 * NULL when t has no root. */
const kp_decl *kp_written_var(const kp_file *f, const kp_kernel *k, kp_node *t, int *through);

/* Whether d is assigned, incremented, has its address taken, or is handed
 * to something that may change it (a non-const reference parameter, an
 * unknown callee, asm, a lambda) anywhere in k's body. */
int kp_assigned_in(const kp_kernel *k, const kp_decl *d);
/* kp_assigned_in(), but an asm statement of f's text changes only its
 * output operands (an input "r"(addr) leaves addr as it is). */
int kp_changed_in(const kp_file *f, const kp_kernel *k, const kp_decl *d);

/* The first argument of a call (kids[1..]) that is a __shared__ array, or
 * an element or row of one: its declaration, or NULL. */
const kp_decl *kp_call_shared_arg(const kp_node *call);

#endif
