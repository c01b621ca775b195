/*
 * transform.h - the interface every transform in transforms/ implements,
 * the registry that lists them, and the rendering helpers they share
 * (substitution lists over source ranges, phase spans, indentation).
 *
 * A transform's descriptor (kp_transform) is the one place that knows it:
 * its name, the targets and stage counts it builds, the shared buffers it
 * declares, its own feasibility facts and match, and the builds `kpipe
 * tune` tries.  The plan, the command line's checks, --help, `analyze`
 * and `tune` iterate the registry (kp_transform_all); only the --variant
 * auto rule (src/plan/auto.c) names transforms.
 *
 * Transforms produce edits only: they never open files, print or exit.
 * Text they return is malloc'd and owned by the caller (kp_edits copies);
 * facts and reasons live in the arena they are given (the file's).
 */
#ifndef KPIPE_TRANSFORM_H
#define KPIPE_TRANSFORM_H

#include "analyze.h"
#include "edit.h"

typedef struct {
	const kp_arch *arch;
	int stages;      /* 2 for double buffering */
	const char *why; /* the reason shown in the comment line */
	int dynamic;     /* the tiles move to dynamic shared memory (plan.h) */
	int no_comment;  /* --no-comment: none of kpipe's explanatory comments */
} kp_xform_opts;

/* What a transform's own feasibility check finds for a loop. */
typedef struct {
	int ok;                /* the copies allow the transform */
	const char *why_not;   /* when not: why (arena text); NULL: there are no copies */
	int regs;              /* staging registers per thread, -1 unknown, 0 none */
	const char *regs_inst; /* a template loop: the instantiation needing the most */
	const char *note;      /* when ok: what the form is not (static text), or NULL */
} kp_xfacts;

/* One build `kpipe tune` tries: `rewrite --variant NAME --stages N`. */
typedef struct {
	const char *name; /* tune's name for it: "cp-async-s3" */
	int stages;
	int order; /* its row in tune's table, smallest first */
} kp_tune_cand;

typedef struct kp_transform kp_transform;
struct kp_transform {
	const char *name;    /* --variant NAME: "cp-async", "register" */
	const char *label;   /* in messages and analyze: "cp.async", "register staging" */
	const char *summary; /* one sentence: what the rewritten loop does */
	const char *usage;   /* a few words for --help after the name, or NULL */
	int min_cc;          /* oldest target, compute capability x 10 (80: sm_80); 0 any */
	int min_stages, max_stages;
	/* Shared buffers of every tile for `stages` (what the static
	 * shared-memory limit is checked with). */
	int (*buffers)(int stages);
	/* Optional: the static shared memory the rewrite adds besides the
	 * tiles for `stages` (bulk's mbarriers), counted with them against
	 * the static limit. */
	long long (*own_smem)(int stages);
	int reports_regs; /* analyze prints kp_xfacts.regs */
	/* Feasibility for one analysis (one instantiation of a template
	 * kernel, or the loop).  Every field set; text from `arena`. */
	void (*facts)(const kp_file *f, const kp_loop *l, kp_arena *arena, kp_xfacts *out);
	/* Optional: what must also agree between the instantiations of a
	 * template loop (`l` the merged loop, `x` already merged and ok). */
	void (*facts_merged)(const kp_loop *l, kp_arena *arena, kp_xfacts *x);
	/* 1 when the transform applies to an eligible loop on a target it
	 * supports; otherwise *why says why (static or arena text).  Called
	 * through kp_transform_match, which checks those two first. */
	int (*match)(const kp_file *f, const kp_loop *l, const kp_arch *a, kp_arena *arena,
		     const char **why);
	const kp_tune_cand *tune; /* the builds tune tries, ntune of them */
	int ntune;
	/* tune: a build whose text lacks tune_marker is the same as
	 * tune_base's (register-ca that found no tile to read through
	 * __ldca is register); NULL when not. */
	const char *tune_marker, *tune_base;
	/* The diagnostic id of its refusals under --variant NAME (its own
	 * conditions or the target); NULL: kpipe-variant-unavailable. */
	const char *refuse_id;
	/* Appends the edits for this loop; 0 or -1 with *err set (static text). */
	int (*apply)(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		     const char **err);
};

/* ---- the registry (registry.c) ---- */

const kp_transform *kp_transform_find(const char *name);
/* Every registered transform, in the registry's order. */
const kp_transform *const *kp_transform_all(int *n);
/* Tests only: adds a transform after the built-in ones (at most 4);
 * 0, or -1 when full or the name is taken. */
int kp_transform_register_for_test(const kp_transform *t);

/* Every build `kpipe tune` tries, in the order of its table (the
 * candidates' `order`, then the registry's): cand[i] and the transform
 * it builds, xf[i].  Returns how many (at most max). */
int kp_transform_tune_list(const kp_tune_cand **cand, const kp_transform **xf, int max);

/* Whether the target is one the transform supports (min_cc). */
int kp_transform_arch_ok(const kp_transform *t, const kp_arch *a);
/* The transform's facts for the loop; for a template loop the merge of
 * every instantiation's: ok only if ok for all, the first reason in
 * kp_loop_inst_seq's order ("for instantiation <...>: " unless every one
 * says the same), the most registers (-1 when one is unknown) and whose. */
/* match() for a transform whose feasibility is its facts: t's facts for
 * the loop, *why_not their reason (or `otherwise`) when they say no. */
int kp_transform_match_facts(const kp_transform *t, const kp_file *f, const kp_loop *l,
			     kp_arena *arena, const char **why_not, const char *otherwise);
void kp_transform_facts(const kp_transform *t, const kp_file *f, const kp_loop *l, kp_arena *arena,
			kp_xfacts *out);
/* The loop is eligible, the target supported, and t->match agrees;
 * otherwise *why says why. */
int kp_transform_match(const kp_transform *t, const kp_file *f, const kp_loop *l, const kp_arch *a,
		       kp_arena *arena, const char **why);
/* Whether t is the first registered transform with its facts function:
 * analyze reports each set of facts once, under that transform's label
 * (register-ca and register-2bar share register's). */
int kp_transform_reports_facts(const kp_transform *t);

/* ---- generated names ----
 * The identifiers a rewrite declares.  Transforms never spell them: they
 * ask kp_fresh_name(f, base) (model.h), which gives `base` itself, or
 * base_1, base_2, ... when the translation unit already uses that name (a
 * variable, a macro), the same answer for every loop of the file.
 * analyze.c recognises a rewritten loop by KP_NAME_STAGE or
 * KP_NAME_STAGE_N. */
#define KP_NAME_STAGE "kp_stage"       /* the buffer the current tile is in */
#define KP_NAME_HAS_NEXT "kp_has_next" /* register staging: a next tile exists */
#define KP_NAME_REG "kp_reg"           /* register staging: kp_reg0, kp_reg1, ... per copy */
#define KP_NAME_DSMEM "kp_dsmem"       /* the extern array tiles moved to dynamic shared memory */
#define KP_NAME_STAGE_BYTES "kp_stage_bytes" /* bytes between the stages of dynamic tiles */
#define KP_NAME_LAST "kp_last"               /* + the loop's index: the stage of its last tile */

/* ---- shared rendering helpers (render.c) ---- */

typedef struct {
	unsigned off, len;
	char *text;
} kp_sub;

typedef struct {
	kp_sub *v;
	int n, cap;
} kp_subs;

void kp_subs_add(kp_subs *s, unsigned off, unsigned len, const char *text);
void kp_subs_release(kp_subs *s);
/* Source [b, e) with the substitutions that fall inside it applied
 * (a substitution that contains another wins).  Caller frees. */
char *kp_render(const kp_file *f, unsigned b, unsigned e, const kp_subs *s);

/* Adds "[idx]" after every use of each loaded tile inside [b, e); a tile
 * in dynamic shared memory (kp_decl_is_dynamic_smem) becomes the same pointer
 * idx regions further: `((decltype(&As[0]))((unsigned char *)&As[0] +
 * (idx) * kp_stage_bytes))`. */
void kp_subs_tiles(kp_subs *s, kp_file *f, const kp_loop *l, unsigned b, unsigned e,
		   const char *idx);
/* Replaces every use of an induction variable in [b, e) with its value
 * `steps` iterations ahead (1 = the next iteration). */
void kp_subs_ahead(kp_subs *s, const kp_loop *l, unsigned b, unsigned e, int steps);
#define kp_subs_next(s, l, b, e) kp_subs_ahead((s), (l), (b), (e), 1)

/* Removes a statement (with its ';', and its line when it is alone there). */
void kp_subs_drop_stmt(kp_subs *s, const kp_file *f, const kp_node *stmt);

/* Byte spans of the phases, whole lines where the code allows. */
typedef struct {
	unsigned load_b, load_e;
	unsigned comp_b, comp_e;
	unsigned tail_b, tail_e; /* statements after the closing barrier */
	unsigned bump_b, bump_e; /* bumps that closed the load phase */
} kp_spans;
void kp_loop_spans(const kp_file *f, const kp_loop *l, kp_spans *sp);
/* The compute phase [sp->comp_b, sp->comp_e) with s applied, after the
 * loop's tile values evaluated again as written (kp_loop.tval_stmt: the
 * load phase, a tile ahead, left the next tile's), each on a line of its
 * own with a comment unless `quiet`.  Caller frees. */
char *kp_render_compute(const kp_file *f, const kp_loop *l, const kp_spans *sp, const kp_subs *s,
			int quiet);

/* Indentation of the line holding `off`, and the body's indent unit. */
char *kp_line_indent(const kp_file *f, unsigned off);
char *kp_indent_unit(const kp_file *f, const kp_loop *l);
/* Adds `prefix` to every non-empty line of text (caller frees). */
char *kp_reindent(const char *text, const char *prefix);
/* The loop's init as a statement ("int k = 0;"), or "" when empty. */
char *kp_init_stmt(kp_file *f, const kp_loop *l);
/* Header edits shared by the pipelined forms: "[S]" on out-of-loop tile
 * declarations; the in-loop ones are returned as text to hoist.  With
 * `dynamic`, the tiles move to dynamic shared memory instead: an `extern
 * __shared__ __align__(16) unsigned char kp_dsmem[];` after the kernel's
 * opening brace, and each tile's declaration becomes a reference to an
 * array of the same type carved out of it (`float (&As)[2][32][32] =
 * *reinterpret_cast<float (*)[2][32][32]>(kp_dsmem + 0);`), so no use of
 * the tile changes. */
char *kp_tile_decl_edits(kp_file *f, const kp_loop *l, int stages, int dynamic, int comments,
			 kp_edits *out);
/* Why the loop's tiles cannot move to dynamic shared memory, or NULL: each
 * must be declared outside the loop, in a statement of the kernel (in this
 * file) that declares tiles of the loop only, without initialiser. */
const char *kp_dynamic_problem(kp_file *f, const kp_loop *l);
/* The dynamic shared memory `buffers` buffers of l's tiles take as
 * kp_tile_decl_edits() lays them out (each at a multiple of 16 B or of its
 * __align__), or -1 when a size is unknown.  For one analysis (an
 * instantiation of a template loop: its per_inst entry). */
long long kp_dynamic_bytes(const kp_loop *l, int buffers);
/* Opens the rewritten loop: the comment line (none when `comment` is
 * NULL: --no-comment), the wrapper block, the
 * loop's init, the hoisted tile declarations and `int kp_stage = 0;`
 * (KP_NAME_STAGE as kp_fresh_name() gives it).
 * `start` is kp_loop_start()'s offset; I1 the indentation inside the
 * wrapper. */
void kp_emit_open(kp_strbuf *sb, kp_file *f, const kp_loop *l, unsigned start, const char *ind,
		  const char *I1, const char *comment, int stages, int dynamic, kp_edits *out);
/* The variable holding the stage of loop l's last tile (KP_NAME_LAST and
 * the loop's index, fresh) when a tile of l is read after the loop as the
 * loop left it (analysis/last_tile.h) and there are `stages` > 1 buffers;
 * else NULL.  kp_tile_decl_edits() declares it at the top of the kernel
 * and indexes the tile's uses after the loop with it;
 * kp_emit_last_set() appends `kp_lastN = stage;` (indent I) where an
 * iteration has computed on buffer `stage`, before it advances. */
const char *kp_last_var(kp_file *f, const kp_loop *l, int stages);
/* `[idx]` after every use of the tile d of kernel k spelled in [b, e): the
 * range of a later loop over shared tiles that was not pipelined after all
 * (rewrite/pass_pipeline.c). */
void kp_tile_index_range(const kp_kernel *k, const kp_decl *d, unsigned b, unsigned e,
			 const char *idx, kp_edits *out);
void kp_emit_last_set(kp_strbuf *sb, kp_file *f, const kp_loop *l, const char *I, const char *stage,
		      int stages);
/* Appends the bumps that closed the load phase and the statements after
 * the closing barrier, one level deeper (`iu`). */
void kp_emit_tail(kp_strbuf *sb, const kp_file *f, const kp_spans *sp, const char *iu);

/* `text` without its // comments: a line holding only one goes, a
 * trailing one is cut, a line holding only a block comment goes (string
 * and character literals respected; other lines with a block comment, a
 * comment ending in a backslash and text with a raw string stay).  For the repeated copies of a
 * phase, so that the source's comments appear once.  Caller frees. */
/* The loop condition with the induction variables advanced d times, and
 * "tile i+d exists" where tile i+from-1 is known to exist (render.c; the
 * cp.async and bulk rings' guards).  Caller frees. */
char *kp_cond_ahead(kp_file *f, const kp_loop *l, int d);
char *kp_tile_exists(kp_file *f, const kp_loop *l, int from, int d);
char *kp_strip_comments(const char *text);
/* "&lvalue", except that `*reinterpret_cast<T *>(p)` gives the cast itself
 * rather than `&*reinterpret_cast<T *>(p)`.  Caller frees. */
char *kp_addr_of(const char *lvalue);

/* Where every transform writes its replacement of loop l: the phases'
 * spans, the offset it starts at (kp_loop_start(), and the "#pragma"
 * line it takes along, or NULL), the loop line's indentation `ind`, the
 * body's indent unit `iu`, and one (I1), two (I2) and three (I3) levels
 * inside the wrapper block.  kp_frame_release() frees it. */
typedef struct {
	kp_spans sp;
	unsigned start;
	char *pragma;
	char *ind, *iu;
	const char *I1, *I2, *I3;
	kp_strbuf lv[3];
} kp_frame;
void kp_frame_open(kp_frame *fr, const kp_file *f, const kp_loop *l);
void kp_frame_release(kp_frame *fr);
/* Closes a ring's main loop: the stage index `stage` advances (S stages),
 * `drain` (a statement, or NULL) and the loop's exit barrier follow the
 * loop, then the wrapper block closes. */
void kp_emit_ring_close(kp_strbuf *sb, const kp_frame *fr, const kp_loop *l, const kp_xform_opts *o,
			const char *stage, int S, const char *drain);

/* Offset where the loop replacement starts (a preceding "#pragma unroll"
 * line is taken along and returned in *pragma, caller frees). */
unsigned kp_loop_start(const kp_file *f, const kp_loop *l, char **pragma);

/* ---- several targets (split.c) ---- */

/* The line before the newer targets' loop: the compute capability x 10
 * follows ("800"); the older targets' loop is in the #else.  The CPU
 * verifier replaces it to check the #else (src/rewrite/verify_file.c). */
#define KP_SPLIT_GUARD "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= "
/* The edits of two transforms of loop l (hi for targets of compute
 * capability guard_cc and newer, lo for the older) as one list in *out:
 * the loop under KP_SPLIT_GUARD, the rest once.  lo NULL: the older
 * targets keep the loop as written, and hi's edited lines outside it are
 * guarded too.  0, or -1 with *err set (static text) when they do not
 * combine. */
int kp_split_compose(const kp_file *f, const kp_loop *l, const kp_edits *hi, const kp_edits *lo,
		     int guard_cc, kp_edits *out, const char **err);

#endif
