/*
 * inline.h - what the "inline" pass (pass_inline.c) does with one K-loop,
 * for the pass itself and for `kpipe analyze`, which shows it: a loop
 * refused because its copies are in a load helper, or its tiles are named
 * inside macro bodies, is tried with the helper calls replaced by their
 * bodies and the macros expanded, in a parse of its own.
 *
 * The environment and the result are the trial's (trial.h).
 *
 * Ownership: the edits belong to the caller (kp_edits_release); messages
 * are in f's arena; the environment is borrowed.
 */
#ifndef KPIPE_INLINE_H
#define KPIPE_INLINE_H

#include "analyze.h"
#include "edit.h"
#include "model.h"
#include "trial.h"

/* What the inline pass does with loop l of model f; with status 1, ed
 * holds the edits (offsets of f->src). */
void kp_inline_loop(const kp_trial_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		    kp_trial_result *out);

#endif
