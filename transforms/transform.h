/*
 * transform.h - the interface every transform in transforms/ implements,
 * the registry that lists them, and the rendering helpers they share
 * (substitution lists over source ranges, phase spans, indentation).
 *
 * Transforms produce edits only: they never open files, print or exit.
 * Text they return is malloc'd and owned by the caller (kp_edits copies).
 */
#ifndef KPIPE_TRANSFORM_H
#define KPIPE_TRANSFORM_H

#include "analyze.h"
#include "edit.h"

typedef struct {
	const kp_arch *arch;
	int stages;          /* 2 for double buffering */
	const char *why;     /* the reason shown in the comment line */
} kp_xform_opts;

typedef struct {
	const char *name;    /* "cp-async", "register" */
	const char *summary;
	/* 1 when the transform applies; otherwise *why_not says why. */
	int (*match)(const kp_loop *l, const kp_arch *a, const char **why_not);
	/* Appends the edits for this loop; 0 or -1 with *err set (static text). */
	int (*apply)(kp_file *f, const kp_loop *l, const kp_xform_opts *o, kp_edits *out,
		     const char **err);
} kp_transform;

const kp_transform *kp_transform_find(const char *name);
const kp_transform *const *kp_transform_all(int *n);

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

/* Adds "[idx]" after every use of each loaded tile inside [b, e). */
void kp_subs_tiles(kp_subs *s, const kp_loop *l, unsigned b, unsigned e, const char *idx);
/* Replaces every use of an induction variable in [b, e) with its value
 * `steps` iterations ahead (1 = the next iteration). */
void kp_subs_ahead(kp_subs *s, const kp_loop *l, unsigned b, unsigned e, int steps);
#define kp_subs_next(s, l, b, e) kp_subs_ahead((s), (l), (b), (e), 1)

/* Byte spans of the phases, whole lines where the code allows. */
typedef struct {
	unsigned load_b, load_e;
	unsigned comp_b, comp_e;
	unsigned tail_b, tail_e; /* statements after the closing barrier */
	unsigned bump_b, bump_e; /* bumps that closed the load phase */
} kp_spans;
void kp_loop_spans(const kp_file *f, const kp_loop *l, kp_spans *sp);

/* Indentation of the line holding `off`, and the body's indent unit. */
char *kp_line_indent(const kp_file *f, unsigned off);
char *kp_indent_unit(const kp_file *f, const kp_loop *l);
/* Adds `prefix` to every non-empty line of text (caller frees). */
char *kp_reindent(const char *text, const char *prefix);
/* The loop's init as a statement ("int k = 0;"), or "" when empty. */
char *kp_init_stmt(kp_file *f, const kp_loop *l);
/* Header edits shared by the pipelined forms: "[S]" on out-of-loop tile
 * declarations; the in-loop ones are returned as text to hoist. */
char *kp_tile_decl_edits(kp_file *f, const kp_loop *l, int stages, kp_edits *out);
/* Opens the rewritten loop: the comment line, the wrapper block, the
 * loop's init, the hoisted tile declarations and `int kp_stage = 0;`
 * (KP_NAME_STAGE as kp_fresh_name() gives it).
 * `start` is kp_loop_start()'s offset; I1 the indentation inside the
 * wrapper. */
void kp_emit_open(kp_strbuf *sb, kp_file *f, const kp_loop *l, unsigned start, const char *ind,
		  const char *I1, const char *comment, int stages, kp_edits *out);
/* Appends the bumps that closed the load phase and the statements after
 * the closing barrier, one level deeper (`iu`). */
void kp_emit_tail(kp_strbuf *sb, const kp_file *f, const kp_spans *sp, const char *iu);

/* Offset where the loop replacement starts (a preceding "#pragma unroll"
 * line is taken along and returned in *pragma, caller frees). */
unsigned kp_loop_start(const kp_file *f, const kp_loop *l, char **pragma);

#endif
