/*
 * inline.h - what the "inline" pass (pass_inline.c) does with one K-loop,
 * for the pass itself and for `kpipe analyze`, which shows it: a loop
 * refused because its copies are in a load helper, or its tiles are named
 * inside macro bodies, is tried with the helper calls replaced by their
 * bodies and the macros expanded, in a parse of its own.
 *
 * Ownership: the edits belong to the caller (kp_edits_release); messages
 * are in f's arena; the environment is borrowed.
 */
#ifndef KPIPE_INLINE_H
#define KPIPE_INLINE_H

#include "analyze.h"
#include "arch.h"
#include "edit.h"
#include "model.h"

typedef struct {
	const kp_arch *arch; /* the plan's options */
	const char *variant;
	int stages;
	const kp_analyze_opts *ao; /* the analysis options of the unit */
	const kp_file *tu;         /* the main file's model of this parse */
	/* The unit parsed again with f's text replaced (pass.h, reparse). */
	kp_file *(*reparse)(void *env, const kp_file *f, const char *text, size_t len,
			    kp_file **tu);
	void *env;
	int no_comment; /* --no-comment: no "kpipe: ... inlined here" comment */
} kp_inline_env;

typedef struct {
	int status;          /* 0: nothing to do; 1: inlined, the loop is then planned;
				-1: not inlined */
	const char *message; /* status 1: the kpipe-inlined note; -1: the kpipe-inline-refused
				remark */
	const char *variant; /* status 1: the plan's transform and stages for the result */
	int stages;
} kp_inline_result;

/* What the inline pass does with loop l of model f; with status 1, ed
 * holds the edits (offsets of f->src). */
void kp_inline_loop(const kp_inline_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		    kp_inline_result *out);

#endif
