/*
 * batch_incl.h - which inputs of a batch include which (docs/batch.md,
 * "Headers"): a header input that a .cu input includes, directly or
 * through other header inputs, is reached through that file and is not
 * analysed on its own.  Read from the #include lines of the inputs' text
 * (no parse): a name resolves against the including file's folder and its
 * -I/-iquote/-isystem folders, else to the one input whose path ends in
 * "/NAME".
 */
#ifndef KPIPE_BATCH_INCL_H
#define KPIPE_BATCH_INCL_H

#include <stddef.h>

/* One input: its real path and the compiler arguments it is parsed with
 * (a database's and the user's; NULL/0 when none). */
typedef struct {
	const char *abs;
	const char *const *args;
	int nargs;
	const char *const *more; /* the user's arguments after `--` */
	int nmore;
} kp_incl_input;

/* For each input i, via[i]: the index of the first .cu input (in order)
 * that includes it, directly or through header inputs, or -1 (always -1
 * for a .cu).  via has n entries. */
void kp_batch_includers(const kp_incl_input *in, int n, int *via);

/* Whether the file at path holds `word` (anywhere: comments too); 1 when
 * it cannot be read. */
int kp_file_mentions(const char *path, const char *word);

/* Whether two rewrites of one header are the same code: equal once every
 * "// kpipe:" comment (to the end of its line) is left out of both.  The
 * comments quote the facts of the instantiations a translation unit saw
 * (staging registers, FLOP/B), which differ between files. */
int kp_same_code(const char *a, size_t alen, const char *b, size_t blen);

#endif
