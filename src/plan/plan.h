/*
 * plan.h - chooses how to pipeline an eligible loop: which transform,
 * how many stages, and the reason shown to the user, or why none.  A
 * forced --variant is checked against its descriptor (stages, the shared
 * memory of its buffers, its match); --variant auto follows the rule of
 * src/plan/auto.c.  The plan is plain data so it can be printed and
 * tested.
 */
#ifndef KPIPE_PLAN_H
#define KPIPE_PLAN_H

#include "transform.h"

typedef struct {
	const kp_transform *xform; /* NULL when refused */
	int stages;
	const char *why;       /* the reason for the choice */
	const char *refuse_id; /* when refused */
	const char *refuse_msg;
	/* The transform's buffers exceed the static shared-memory limit but
	 * fit the opt-in limit: the tiles move to dynamic shared memory
	 * (transform.h, kp_tile_decl_edits) and every launch passes
	 * dyn_bytes (the most any instantiation needs). */
	int dynamic;
	long long dyn_bytes;
	/* A compiler run kpipe made (the ptxas probe) reported an error:
	 * refused with kpipe-compiler-error, and the file must not be written
	 * (the driver exits with an input error). */
	int fatal;
	/* A launch-level check that could not run (registers per thread
	 * without ptxas), or NULL: said beside the choice, not in it */
	const char *unchecked;
	/* auto's ptxas check of a register-staged choice (auto.c,
	 * staging_occupancy()): the resident warps per SM of the original and
	 * of the rewrite, 0 when not compiled */
	int warps_before, warps_after;
} kp_plan;

/* requested: "auto" or a registered transform's name; stages 0 when the
 * user gave none (auto then picks the depth, a named variant gets 2).  A loop whose tiles
 * are dynamic shared memory (kp_loop.dyn_tiles) and whose transform keeps
 * more than one buffer gets a copy of the region per buffer: refused
 * (kpipe-dynamic-smem) when a launch of the kernel in the file cannot pass
 * that many times its bytes.  Strings live in f's arena. */
void kp_plan_loop(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, const char *requested,
		  int stages);

/* Whether `buffers` buffers of the loop's tiles, with the kernel's other
 * static shared memory and `extra` bytes the rewrite adds (bulk's
 * mbarriers), fit the static limit of `a` for every
 * instantiation (1 also when the sizes are unknown).  When they do not,
 * *need gets the bytes per block of the first one over in
 * kp_loop_inst_seq's order and *inst its arguments, or NULL when every
 * instantiation is over by as much (or the kernel is no template). */
int kp_plan_smem(const kp_loop *l, const kp_arch *a, int buffers, long long extra, long long *need,
		 const char **inst);
/* 1 when t with `stages` fits the static shared-memory limit, or fits
 * the opt-in limit with the tiles in dynamic shared memory (then
 * p->dynamic and p->dyn_bytes are set: kp_plan_dynamic); otherwise p's
 * refusal is set (kpipe-smem-over-limit) and 0 returned. */
int kp_plan_fits(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, const kp_transform *t,
		 int stages);

/* Whether `buffers` buffers of the loop's tiles can move to dynamic
 * shared memory: the target has an opt-in limit they fit (with the
 * kernel's other static shared memory, every instantiation), one buffer
 * fits the static limit (the original builds), the kernel is a __global__
 * kernel of the main file without dynamic shared memory of its own,
 * kp_dynamic_problem() finds nothing, and every call of the kernel in the
 * file is a <<<>>> launch kpipe can edit that passes no dynamic shared
 * memory.  NULL when they can (*bytes: the most any instantiation needs),
 * else why not (arena text). */
const char *kp_plan_dynamic(kp_file *f, const kp_loop *l, const kp_arch *a, int buffers,
			    long long *bytes);

/* A template kernel's K-loop pipelined with `buffers` buffers whose tiles
 * are sized by template parameters no instantiation in the file fixes
 * (l->params_symbolic, a loaded tile of unknown size): the warning for
 * kpipe-template-tiles, with the formula of the buffers' bytes and the
 * smallest power of two that, given to every value parameter, takes them
 * over a's static limit (template_tiles.c).  NULL otherwise. */
const char *kp_plan_template_tiles(kp_file *f, const kp_loop *l, const kp_arch *a, int buffers);
/* The number of <<<>>> launches of l's kernel in the file. */
int kp_plan_launches(const kp_file *f, const kp_loop *l);

/* ---- src/plan/launch_check.c ---- */

/* The launch-level resources of p's rewrite, against every launch of the
 * kernel the file shows: static plus dynamic shared memory (a __device__
 * function's K-loop: with its callers'), and registers times threads
 * where no __launch_bounds__ bounds them (ptxas through f->auto_probe).
 * Refuses p (kpipe-smem-over-limit, kpipe-registers-over-limit,
 * kpipe-compiler-error) or adds to p->why that a check could not run. */
void kp_plan_launch_check(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a);
/* Refuses p because a compiler run kpipe made failed with `error`
 * (p->fatal). */
void kp_plan_compile_error(kp_plan *p, kp_file *f, const char *error);

/* ---- src/plan/auto.c ---- */

/* What ptxas says about the original kernel of a loop (src/validate/
 * probe.c fills it): the facts auto cannot know from the source. */
typedef struct {
	int regs;        /* registers per thread */
	int warps;       /* resident warps per SM at `threads` per block */
	int threads;     /* threads per block assumed */
	const char *why; /* when unknown: why (nvcc failed, no such kernel) */
	/* variant(): the original's registers and warps for the same
	 * instantiation (the one that loses the most warps when the kernel
	 * has several); 0 when not known, then facts() is the comparison */
	int base_regs, base_warps;
	/* nvcc ran and reported an error (why has it): kp_plan_compile_error */
	int compile_error;
	/* static shared memory of the kernel reported (bytes) and of the
	 * original's same instantiation (variant(), text(); 0 not known) */
	int smem, base_smem;
	/* spill stores plus loads: the most any instantiation of the kernel
	 * has in this build */
	int spills;
} kp_auto_facts;

/* Set on the file (kp_file.auto_probe) by the driver when nvcc can be
 * run; NULL: auto decides from the source alone and says so where ptxas
 * would have decided. */
struct kp_auto_probe {
	int (*facts)(const struct kp_auto_probe *self, const kp_file *f, const kp_loop *l,
		     const kp_arch *a, kp_auto_facts *out); /* 1 known, 0 not (out->why) */
	/* The same for l's kernel once transform t (stages) has rewritten l
	 * alone: ptxas on the rewrite.  dyn_bytes > 0: the rewrite's tiles
	 * are in dynamic shared memory (kp_plan.dynamic) and every launch
	 * passes dyn_bytes, which the resident warps count.  NULL: not
	 * offered. */
	int (*variant)(const struct kp_auto_probe *self, kp_file *f, const kp_loop *l,
		       const kp_arch *a, const kp_transform *t, int stages, long long dyn_bytes,
		       kp_auto_facts *out);
	/* The same for l's kernel in `text`, a rewrite of f's whole text
	 * (the modifiers of the rewrite, occ_bound.c).  NULL: not offered. */
	int (*text)(const struct kp_auto_probe *self, kp_file *f, const kp_loop *l,
		    const kp_arch *a, const char *text, size_t len, kp_auto_facts *out);
	/* facts() and variant(t, stages, dyn_bytes) are about to be asked for l: both
	 * compiled by one nvcc where it can (probe.c, "one compilation for
	 * both"); they then answer as they would have.  Changes no answer;
	 * NULL: not offered. */
	void (*pair)(const struct kp_auto_probe *self, kp_file *f, const kp_loop *l,
		     const kp_arch *a, const kp_transform *t, int stages, long long dyn_bytes);
};
typedef struct kp_auto_probe kp_auto_probe;

/* --variant auto: fills p with the transform the rule picks for an
 * eligible loop whose stage count and conditionals are already checked,
 * or its refusal.  stages 0: auto picks the depth too. */
void kp_plan_auto(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, int stages);
/* The compute/load rule of thumb (FLOP per loaded byte; from a tuning
 * guide measured on a GA104), which analyze prints for comparison and the
 * plan does not follow ("register", "cp-async", "none"); *why in `arena`. */
const char *kp_ratio_rule(const kp_loop *l, kp_arena *arena, const char **why);

/* ---- src/plan/targets.c: several targets ---- */

/* Below this compute capability a group of targets gets its own loop
 * (cp.async needs sm_80). */
#define KP_SPLIT_CC 80

/* The plan of a loop for every target of a build. */
typedef struct {
	int split; /* 1: hi for the targets >= guard_cc, lo below; 0: one */
	/* split, and the targets below guard_cc keep the loop as written:
	 * lo is their refusal (no form applies there, or auto predicts no
	 * gain), hi the newer targets' plan; the tile declarations the hi
	 * form changes are declared both ways (transforms/split.c) */
	int lo_asis;
	kp_plan hi, lo; /* split: the same number of static tile buffers */
	kp_plan one;    /* !split: the plan for every target (or the refusal) */
	int guard_cc;   /* split: the #if's compute capability (80, 90) */
	int nlo;        /* how many of the targets are below KP_SPLIT_CC */
	/* the limits each group shares (kp_arch_common): all targets, those
	 * below KP_SPLIT_CC, those above; the plans' arch arguments */
	kp_arch all, alo, ahi;
	const char *why_one; /* why the targets that span the line share one loop, or NULL */
} kp_tplan;

/* Plans l for the targets t (n >= 2): two plans when they span
 * KP_SPLIT_CC and each side has its own form, else one for the limits
 * all share.  When the older side has no form (or auto predicts no gain
 * there) and the newer one has, the older targets keep the loop as
 * written (lo_asis); a newer side that refuses refuses the loop (its
 * reason, naming the side). */
void kp_plan_targets(kp_tplan *tp, kp_file *f, const kp_loop *l, const kp_targets *t,
		     const char *requested, int stages);
/* The plan target a gets. */
const kp_plan *kp_tplan_for(const kp_tplan *tp, const kp_arch *a);

#endif
