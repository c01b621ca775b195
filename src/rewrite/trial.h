/*
 * trial.h - what the passes that try a change of a K-loop before they
 * keep it have in common (the "canon" pass, canon.h, and the "inline"
 * pass, inline.h): the environment a trial runs in, its result, the
 * trial itself (the unit parsed again with the edits, the loop found at
 * its new place), and the pass that runs one kind of trial over every
 * loop of a model and writes its note or remark (trial.c).  `kpipe
 * analyze` shows the same outcome under each loop (cmd_analyze.c).
 *
 * Ownership: the edits belong to the caller (kp_edits_release); messages
 * are in the arena of the model worked on; the environment is borrowed.
 */
#ifndef KPIPE_TRIAL_H
#define KPIPE_TRIAL_H

#include "analyze.h"
#include "arch.h"
#include "edit.h"
#include "model.h"
#include "pass.h"
#include "plan.h"

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
	/* the build's targets (several: the loop is planned for each group,
	 * kp_trial_plan), or NULL: arch alone */
	const kp_targets *targets;
} kp_trial_env;

typedef struct {
	int status;          /* 0: nothing to do; 1: changed, the loop is then planned;
				-1: not changed */
	const char *message; /* status 1: the note; -1: the remark */
	const char *variant; /* status 1: the plan's transform and stages for the result */
	int stages;
	const char *why; /* status 1: the plan's reason (in f's arena), or NULL */
} kp_trial_result;

/* One kind of trial: what it does with a loop, and the ids of its note
 * and remark. */
typedef struct {
	const char *name;       /* "canon": the pass's name, analyze's JSON member */
	const char *done_id;    /* "kpipe-canonicalized" */
	const char *refused_id; /* "kpipe-canon-refused" */
	/* What the trial does with loop l of model f (status 0, nothing;
	 * 1 with ed holding the edits, in offsets of f->src; -1 and why not). */
	void (*loop)(const kp_trial_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		     kp_trial_result *out);
} kp_trial_kind;

extern const kp_trial_kind kp_trial_canon;  /* pass_canon.c */
extern const kp_trial_kind kp_trial_inline; /* pass_inline.c */

/* The plan of loop l2 of the trial parse g as the pipeline pass makes it:
 * for arch, or for the environment's targets (pass_targets.c): the
 * oldest target's plan, or the newer targets' where the older keep the
 * loop as written. */
void kp_trial_plan(const kp_trial_env *e, kp_file *g, const kp_loop *l2, kp_plan *p);

/* Decides about loop l2 of the trial parse g (unit tu): NULL when it is
 * pipelined (the plan into *out), else why not (text that may be in g's
 * arena: the caller copies it). */
typedef const char *(*kp_trial_judge)(void *ud, kp_file *g, kp_file *tu, kp_loop *l2,
				      kp_trial_result *out);

/* Parses the unit with ed applied to f, finds loop l at its new place
 * and asks judge about it: NULL when it is pipelined, else why not (in
 * f's arena).  `noun` says what the code is in the messages ("the
 * inlined code does not parse"). */
const char *kp_trial_try(const kp_trial_env *e, kp_file *f, const kp_loop *l, const kp_edits *ed,
			 const char *noun, kp_trial_judge judge, void *ud, kp_trial_result *out);

/* The loop of the analysis at offset `begin`, in the kernel named as l's,
 * or NULL. */
kp_loop *kp_trial_loop_at(const kp_analysis *an, const kp_loop *l, unsigned begin);

/* Whether loop l is refused with diagnostic id `id`. */
int kp_trial_refused_for(const kp_loop *l, const char *id);

/* The pass of trial kind k over c->f: every loop it wants tried, the
 * edits of a kept change with its note (k->done_id), or the remark
 * (k->refused_id) saying why nothing is written. */
void kp_trial_pass_run(const kp_trial_kind *k, kp_pass_ctx *c);

#endif
