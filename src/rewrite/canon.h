/*
 * canon.h - what the "canon" pass (pass_canon.c) does with one K-loop,
 * for the pass itself and for `kpipe analyze`, which shows it: a loop
 * refused (or left without a variant) whose load phase is written in a
 * shape the analysis does not read as tile copies is tried with that load
 * phase written in the copy forms it proves, in a parse of its own.  The
 * shapes (canon.c, docs/design.md "The canon pass"):
 *
 *   - a guarded temporary: `T v = 0; if (g) v = P[e]; TILE[..] = v;`
 *     becomes `TILE[..] = (g) ? P[e] : 0;`
 *   - an if/else of several copies, `if (g) { T1[..] = A; T2[..] = B; }
 *     else { T1[..] = 0; T2[..] = 0; }`, becomes one if/else per copy;
 *   - declarations in the loop body that the pipelined loop cannot keep
 *     there (an uninitialised scalar of the load phase the compute uses,
 *     `__shared__` tiles declared after the first statement) move to just
 *     before the loop.
 *
 * The environment and the result are the trial's (trial.h).
 *
 * Ownership: the edits belong to the caller (kp_edits_release); messages
 * are in f's arena; the environment is borrowed.
 */
#ifndef KPIPE_CANON_H
#define KPIPE_CANON_H

#include "analyze.h"
#include "edit.h"
#include "model.h"
#include "trial.h"

/* The edits that write loop l's load phase (and its declarations) in the
 * copy forms the analysis reads, appended to ed without being tried: 0
 * when l has none of the shapes; otherwise 1, with what they do in *what
 * ("rewrote ...; moved ...", arena text), or -1 with why a shape found
 * cannot be rewritten in *why (ed then unchanged).  For a pass that tries
 * them (kp_canon_loop) or composes them with its own. */
int kp_canon_edits(kp_file *f, const kp_loop *l, kp_edits *ed, const char **what, const char **why);

/* Whether the canon pass looks at loop l of model f: it is eligible but
 * no variant applies, or it is refused for something its shapes cause
 * (kpipe-partial-tile-write, kpipe-load-decl-used-later).  For a pass
 * that runs the shapes in its own trial (the inline pass). */
int kp_canon_wanted(const kp_trial_env *e, kp_file *f, const kp_loop *l);

/* What the canon pass does with loop l of model f: nothing (status 0)
 * when l is pipelined as written or has none of the shapes; with status
 * 1, ed holds the edits (offsets of f->src), kept because the loop parsed
 * again with them is pipelined (by the pipeline pass, or after the inline
 * pass); -1 and why not. */
void kp_canon_loop(const kp_trial_env *e, kp_file *f, const kp_loop *l, kp_edits *ed,
		   kp_trial_result *out);

#endif
