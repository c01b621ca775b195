/*
 * pass.h - the passes of the rewrite driver (rewrite.c).  A pass looks at
 * one model of a parse (the main file, or a project header with kernels)
 * and appends edits to that model's text, with the diagnostic each edit
 * belongs to, and diagnostics and counts to the file's kp_rw_result.  The
 * driver runs a list of passes in order over every model of the unit and
 * parses the unit again, with the new texts, between a pass that changed a
 * file and the next one (docs/design.md, "Passes").  The registry finds
 * the passes by name: the built-in ones ("canon", "inline", "pipeline": the
 * default list)
 * and those a test registers.
 *
 * Ownership: a pass owns nothing it is given.  What it appends belongs to
 * the context (its edits and owners, which the driver takes) and to the
 * result; the registry keeps pointers to static descriptors.
 */
#ifndef KPIPE_PASS_H
#define KPIPE_PASS_H

#include "edit.h"
#include "model.h"
#include "rw_opts.h"
#include "rw_result.h"

/* What a pass works on, and where it puts what it finds. */
typedef struct {
	const kp_rw_opts *o;
	const kp_file *tu; /* the main file's model of this parse (its path, diagnostics) */
	kp_file *f;        /* the model to work on: tu itself, or one of tu->headers */
	kp_rw_result *r;   /* the result of f's file: diagnostics, counts */
	kp_edits ed;       /* the pass's edits, in offsets of f->src */
	int *owner;        /* owner[i]: the index in r->diags of edit i's diagnostic, or -1 */
	/* Parses the unit again with f's text replaced by `text` (the other
	 * files as they stand) into *tu; returns the model of f's file in it
	 * (*tu itself or one of its headers), NULL when it does not parse.
	 * The caller releases *tu (kp_file_release, free).  For a pass that
	 * tries a change before it makes it (pass_inline.c). */
	kp_file *(*reparse)(void *env, const kp_file *f, const char *text, size_t len,
			    kp_file **tu);
	void *env;
	/* the offset in f->src of the loop whose diagnostics are being added
	 * (0: none): a "// kpipe: ignore" comment on its line also suppresses
	 * them */
	unsigned loop_begin;
} kp_pass_ctx;

typedef struct kp_pass {
	const char *name; /* "pipeline" */
	const char *summary;
	/* Appends edits, owners, diagnostics and counts for c->f; never
	 * prints, opens files or exits. */
	void (*run)(kp_pass_ctx *c);
} kp_pass;

/* The pass that pipelines K-loops (pass_pipeline.c). */
extern const kp_pass kp_pass_pipeline;
/* The pass that prepares K-loops for it: inlines the load helpers they
 * call and expands the macros that name their tiles, where the loop is
 * then pipelined (pass_inline.c). */
extern const kp_pass kp_pass_inline;
/* The pass before those two: writes the load phase of a refused loop in
 * the copy forms the pipeline pass proves (guarded temporaries, if/else
 * blocks of copies, declarations the loop body cannot keep), where the
 * loop is then pipelined (pass_canon.c, canon.h). */
extern const kp_pass kp_pass_canon;

/* The pass that remaps a kernel's blocks in groups of rows
 * (`rewrite --block-swizzle`, pass_block_swizzle.c): the driver runs it
 * after the list when kp_rw_opts.block_swizzle is set. */
extern const kp_pass kp_pass_block_swizzle;

/* The pass that pads the rows of shared arrays against bank conflicts
 * (pass_pad.c): in the list of `rewrite --pad` (inline, pad, pipeline)
 * and alone for --pad-only. */
extern const kp_pass kp_pass_pad;
/* The list of `rewrite --pad` (pad_only 0: canon, inline, pad, pipeline) or of
 * --pad-only (pad). */
const kp_pass *const *kp_pass_pad_list(int pad_only, int *n);

/* Byte offset of a 1-based line and (byte) column in src, -1 when out of
 * range. */
long kp_text_offset(const char *src, size_t len, int line, int col);

/* A diagnostic at (line, col) of c->f (0, 0: none); its index in c->r.
 * Marked suppressed when a "// kpipe: ignore [ID...]" comment on its
 * line, on c->loop_begin's or on the line before either names its id (or
 * no id: all). */
int kp_pass_diag(kp_pass_ctx *c, int line, int col, const char *level, const char *id,
		 const char *msg);
/* A warning that refuses something (a loop): counted in c->r->refused and
 * c->r->by_reason. */
void kp_pass_refuse(kp_pass_ctx *c, int line, int col, const char *id, const char *msg);
/* An edit of c->f->src (text copied), owned by diagnostic `diag` (or -1). */
void kp_pass_edit(kp_pass_ctx *c, unsigned off, unsigned len, const char *text, int diag);

/* Whether the pass works on loop l of c->f: always, unless c->o names
 * one loop (loop_line), which must then be l, in the main file. */
struct kp_loop;
int kp_pass_loop_wanted(const kp_pass_ctx *c, const struct kp_loop *l);

/* The pass called `name`, built in or registered, or NULL. */
const kp_pass *kp_pass_find(const char *name);
/* The default list (kp_rw_opts.passes NULL): canon, inline, pipeline. */
const kp_pass *const *kp_pass_default(int *n);
/* Tests only: makes p known to kp_pass_find() (it joins no default list).
 * Returns -1 when its name is taken or the registry is full. */
int kp_pass_register(const kp_pass *p);

#endif
