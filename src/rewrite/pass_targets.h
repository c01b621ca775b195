/*
 * pass_targets.h - the pipeline pass's side of several targets
 * (pass_targets.c): the plan of a loop for the build's targets, the two
 * transforms applied and composed under #if __CUDA_ARCH__, and the note
 * that says which target got which form.
 */
#ifndef KPIPE_PASS_TARGETS_H
#define KPIPE_PASS_TARGETS_H

#include "pass.h"
#include "plan.h"

/* Plans l: for c->o->targets when it holds two or more (kp_plan_targets
 * into *tp; a split whose two loops do not combine becomes one loop for
 * every target), else for c->o->arch.  *p gets the plan the pass checks
 * and reports (the newer side's when split).  Returns 1 when the loop is
 * split (two forms), 0 otherwise. */
int kp_pass_plan(kp_pass_ctx *c, const kp_loop *l, kp_tplan *tp, kp_plan *p);
/* Applies tp's two transforms and composes them (kp_split_compose). 0, or
 * -1 with *err. */
int kp_pass_split_apply(kp_pass_ctx *c, const kp_loop *l, const kp_tplan *tp, kp_edits *out,
			const char **err);
/* The kpipe-pipelined note of a split loop. */
void kp_pass_split_note(kp_strbuf *note, const kp_tplan *tp);

#endif
