/*
 * loop.h - the analysis's picture of one candidate K-loop (kp_loop): its
 * phases, induction variables, copies, tiles, math and the reasons it is
 * refused.  Types only: analyze.c fills them (analyze.h), the rules
 * (rules/rules.h) refuse through them, every later stage reads them.
 */
#ifndef KPIPE_LOOP_H
#define KPIPE_LOOP_H

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
	const char *op;          /* the condition's operator ("<", "<=", ...): its spelling */
	kp_op opk;               /* the condition's operator */
	const kp_node *step;     /* s of `i += s` and of `i = i + s`; NULL for ++ */
	int step_is_one;         /* the increment is ++ */
	int step_plus_assign;    /* the increment is += */
	int step_ok;             /* the increment adds a side-effect-free step (not --, -=) */
	const kp_node *loop;     /* the for-statement it was read from */
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
	kp_node *cond; /* guard condition */
	/* KP_G_IFELSE written the other way round, `if (cond) zero; else
	 * load;` (MAGMA's first block column): the copy loads where cond is
	 * false; a form that renders cond renders `!(cond)` */
	int guard_inverted;
	const char *otherwise; /* text stored when the guard fails */
	int pure;              /* the stored value is the loaded value (or 0) */
	const kp_decl *via;    /* staged by the source: the load-phase local the
				* stored value reads (float4 v = A4[i]; As[..] = v.x) */
	int depth;             /* enclosing loops inside the load phase */
	kp_node *loops[4];     /* those loops, outermost first */
	kp_range ranges[4];    /* those loops read as counted loops */
	double trips[4];       /* their compile-time trip counts, -1 unknown */
	/* where trips[] is -1 because the loop's first value depends on the
	 * thread: the most trips any thread makes (from the least first value,
	 * trip_bound.c), else -1 */
	double max_trips[4];
	/* where trips[] is -1 in a template whose parameters are left
	 * symbolic (never instantiated in the file): the loop's bounds and
	 * step are constant expressions of the template parameters, so each
	 * instantiation has a compile-time count (kp_eval_symbolic) */
	unsigned char trips_symbolic[4];
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
	/* Set by kp_copy_facts (copies.c).  src_global: the source is proven
	 * to be global memory (a __global__ kernel's pointer parameter, a
	 * __device__ variable, arithmetic on them, a local set only from
	 * them); only then may a copy read it through cp.async or __ldca.
	 * async_why: why the copy may not become an asynchronous copy
	 * (cp.async, bulk, tensor) - its source not proven global, its width
	 * past the alignment its types prove, another copy of the load phase
	 * that may write the same element - or NULL.  Register staging copies
	 * it as written whatever it says. */
	int src_global;
	const char *async_why;
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
	/* Read after the loop as the loop left it (analysis/last_tile.h): the
	 * uses after the loop index the stage the last iteration computed on. */
	int last_after;
	/* Named before the loop, safely (analysis/earlier_use.h): those uses
	 * index the stage that holds the original's buffer too. */
	int used_before;
	/* Set by the pipeline pass: an earlier loop of the kernel already gave
	 * the tile its stages (this loop indexes them and leaves the
	 * declaration and the uses outside it to that loop). */
	int cont;
} kp_tile;

/* The most tile values (kp_loop.tval_stmt) one loop may have. */
#define KP_MAX_TVALS 4

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
	int carve_tiles;     /* loaded carve-outs of a static shared array that kpipe
				can place: the array is repeated once per stage
				(static_carve.c) */
	kp_tile *tiles;      /* shared arrays referenced by the loop */
	int ntiles;
	long long tile_bytes; /* bytes of the loaded arrays per stage, -1 unknown */
	long long other_smem; /* other static shared memory of the kernel */
	kp_math math;
	double flops_thread; /* per thread per tile, <0 unknown */
	/* the compute phase's work is not all counted: a loop of it whose trip
	 * count is not a compile-time constant (its body counted once), or no
	 * arithmetic kpipe counts at all (flops_thread 0); compute/load is then
	 * no measure of the tile (plan/auto.c, busy_kernel()) */
	int flops_uncounted;
	double flops_tile; /* per block per tile, <0 unknown */
	int threads;       /* threads per block used, 0 unknown */
	const char *threads_from;
	/* the block's shape for the warp-level analysis (banks.h,
	 * kp_bk_block_of: --block, the launch description, the file's
	 * launches, __launch_bounds__ as 1-D); block[0] 0: not known */
	int block[3];
	const char *block_from;
	double ratio;        /* FLOP per loaded byte, <0 unknown */
	int params_symbolic; /* a template kernel analysed with its parameters
			      * left symbolic (no instantiation, or one whose
			      * arguments are not all known) */
	/* Values the load phase computes for its own tile and the compute
	 * phase reads (analysis/tile_value.c): statements at the top level of
	 * the load phase, `v = E;` or `T v = E;`, E a pure function of the
	 * loop counter and of values the loop never changes.  Pipelined, the
	 * load phase leaves the next tile's value; the transforms evaluate
	 * each statement again, as written, at the top of the compute phase
	 * (transforms/render.c, kp_render_compute). */
	const kp_node *tval_stmt[KP_MAX_TVALS];
	const kp_decl *tval_var[KP_MAX_TVALS];
	int ntvals;
	kp_reason *reasons;
	int nreasons;
	int comp_writes_shared; /* the compute phase writes a shared array that is no tile */
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
	/* the loop's own trip count where its bounds and step are compile-time
	 * constants (of this instantiation), -1 otherwise (plan/auto.c: a loop
	 * that runs at most once has no load to overlap) */
	double trips;
	int exit_barrier; /* code after the loop (or the next iteration of an
			   * enclosing loop) touches shared memory: a pipelined
			   * form that ends without a barrier must add one */
	const char *exit_barrier_why;
	/* what each phase reads and writes (effects.h), set before the rules
	 * run; NULL for a loop whose phases were not found */
	const struct kp_effects *effects;
	/* the line of the innermost loop of the kernel around this one, 0 where
	 * none (plan/auto.c: a short loop there fills its pipeline again at
	 * each of that loop's iterations) */
	int within_line;
	int encloses_line; /* not a K-loop but a loop around one: the line of the
			    * first K-loop nested in it (a candidate of its own) */
	int not_kloop;     /* no K-loop shape at all (no top-level barrier, or no
			    * copy into shared memory): its refusals are remarks */
	/* Set by the pipeline pass (rewrite/pass_pipeline.c) for tiles two
	 * pipelined loops share (analysis/earlier_use.h).  The first loop
	 * indexes every use outside it but the ranges of the later ones
	 * (skip_b/skip_e); a later loop sets the first's last-stage variable,
	 * last_name, instead of declaring its own. */
	unsigned skip_b[4], skip_e[4];
	int nskip;
	const char *last_name;
} kp_loop;

#endif
