/*
 * rw_opts.h - how the rewrite driver rewrites every file (kp_rw_opts): the
 * target, the compiler's arguments, the analysis's inputs, the plan's
 * choices and the passes to run.  Its own header so that the driver
 * (rewrite.h) and the passes (pass.h) share it without including each
 * other.
 */
#ifndef KPIPE_RW_OPTS_H
#define KPIPE_RW_OPTS_H

#include "arch.h"

struct kp_pass;

/* --block-swizzle without =G: the rows of blocks per group (Triton's
 * GROUP_SIZE_M in its tutorial's matmul; pass_block_swizzle.c) */
#define KP_BLOCK_SWIZZLE_DEFAULT 8

/* How every file is rewritten. */
typedef struct {
	const kp_arch *arch; /* the target: budget, plan, and what libclang parses as */
	/* Every target the build compiles for, oldest first (arch is the
	 * oldest); fewer than two: arch alone.  Across the cp.async line the
	 * pipeline pass writes one loop per side of a #if __CUDA_ARCH__
	 * (src/plan/targets.c, docs/design.md "Several targets"). */
	kp_targets targets;
	const char *cuda_path;   /* NULL: clang finds the toolkit */
	const char *const *args; /* compiler arguments (the user's, after the database's) */
	int nargs;
	const char *build_dir;     /* -p: directory of compile_commands.json */
	const char *header_filter; /* kernels in headers (parse.h); NULL: the default */
	const char *kernel;        /* only this kernel, or NULL */
	int threads;               /* threads per block, 0: from the launch description */
	int block[3];              /* --block X,Y,Z for the bank analysis (banks.h); 0: not given */
	const char *spec;          /* launch description; NULL: NAME.launch.json beside the file */
	const char *variant;       /* "auto" or a transform's name */
	int stages;                /* 0: not given (auto picks; else 2) */
	/* ptxas's view of each original for --variant auto (plan.h), or NULL:
	 * auto decides from the source alone */
	const struct kp_auto_probe *auto_probe;
	int no_comment; /* --no-comment: no explanatory comments in the code */
	/* the CPU verification of every rewrite before it is returned
	 * (verify.h, docs/verify.md): --no-verify skips it; --require-verify
	 * refuses a rewrite it cannot check (kpipe-unverified) */
	int no_verify, require_verify;
	/* --swizzle: the pad pass XOR-swizzles a conflicted array's columns
	 * rather than padding its rows wherever a swizzle does as well
	 * (pass_pad.c); without it, only where no padding helps or fits */
	int swizzle;
	/* --variant auto without --pad or --no-pad: the pad pass runs before
	 * the pipeline pass and pads, silently, only the loaded tiles of the
	 * loops it will pipeline whose bank conflicts a padding lowers at an
	 * eighth more shared memory or less (pass_pad.c) */
	int pad_auto;
	/* --keep-occupancy (1): a pipelined loop's kernel gets
	 * __launch_bounds__(THREADS, MINBLOCKS) where the rewrite loses
	 * resident blocks per SM to registers; --raise-occupancy (2): where
	 * registers limit the rewrite's blocks per SM, one more (occ_bound.c) */
	int keep_occupancy;
	/* --block-swizzle[=G]: G rows of blocks per group, 0 none: after the
	 * other passes, the block-swizzle pass remaps each kernel's (x, y)
	 * blocks where that is proven safe (pass_block_swizzle.c) */
	int block_swizzle;
	/* --format-style: "file" (NULL: the .clang-format above the file, when
	 * there is one), "none", or a clang-format style (format.h) */
	const char *format_style;
	/* the passes to run, in order (pass.h); NULL: the default list */
	const struct kp_pass *const *passes;
	int npasses;
	/* only the K-loop that starts at this 1-based line and column of the
	 * main file (the inline and pipeline passes leave every other loop
	 * alone, without a diagnostic); 0: every loop */
	int loop_line, loop_col;
	void *pass_data; /* for a pass the caller supplies; NULL otherwise */
} kp_rw_opts;

#endif
