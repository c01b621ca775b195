/*
 * host_edits.h - the one service for the edits a rewrite makes outside the
 * loop it pipelines, for the transforms and the pipeline pass alike: text
 * a file needs once (an #include, helper functions) at its include point,
 * named so that the pass keeps one copy however many loops ask for it; and
 * the edits of a kernel's <<<>>> launches (a configuration argument set,
 * or the launch turned into a call of a launcher kpipe writes).
 */
#ifndef KPIPE_HOST_EDITS_H
#define KPIPE_HOST_EDITS_H

#include "edit.h"
#include "model.h"

/* Where text a file needs goes: after its last #include, else at its
 * start (after a byte-order mark). */
unsigned kp_include_point(const kp_file *f);
/* `text` at the include point, once per file: named `once` (static text;
 * kp_edit.once), of which the pipeline pass keeps the first. */
void kp_edit_file_once(kp_edits *out, const kp_file *f, const char *once, const char *text);

/* Sets configuration argument `arg` (2: the dynamic shared memory) of
 * launch x to `text`: replaces it when the launch gives it, else appends
 * it after the last one given.  0, or -1 (nothing added) when the launch
 * gives fewer than `arg` (or none: an API launch). */
int kp_launch_set_config(kp_edits *out, const kp_file *f, const kp_launch *x, int arg,
			 const char *text);
/* Turns launch x, `k<<<g, b, s, t>>>(args)`, into `callee(g, b, s, t,
 * args)` (a configuration argument not given is 0).  0, or -1 (nothing
 * added) when no argument list follows the `>>>`. */
int kp_launch_to_call(kp_edits *out, const kp_file *f, const kp_launch *x, const char *callee);

#endif
