/*
 * edit.h - offset-based edit lists over a source buffer, and the unified
 * diff between two buffers.  No libclang: edits are (offset, length, text)
 * triples, so every output form (-o, -i, --diff, fixes) derives from one
 * list.
 *
 * Ownership: a kp_edits owns the text of its edits; kp_edits_release()
 * frees them.  Results of kp_edits_apply() and kp_diff() belong to the
 * caller.
 */
#ifndef KPIPE_EDIT_H
#define KPIPE_EDIT_H

#include <stddef.h>

typedef struct {
	unsigned off, len;
	char *text;
	int seq; /* insertion order, keeps inserts at one offset stable */
	/* NULL, or the name of text a file needs once whatever number of loops
	 * asks for it (an #include, helper functions: kp_edits_add_once);
	 * the pipeline pass keeps the first edit of each name.  Static text. */
	const char *once;
} kp_edit;

typedef struct {
	kp_edit *v;
	int n, cap;
} kp_edits;

void kp_edits_add(kp_edits *e, unsigned off, unsigned len, const char *text);
/* An insertion at `off` that the file needs once, named `once` (static
 * text): of the edits of one name, a consumer keeps the first. */
void kp_edits_add_once(kp_edits *e, unsigned off, const char *text, const char *once);
/* Applies the edits to src; -1 when two edits overlap or one is out of range. */
int kp_edits_apply(const kp_edits *e, const char *src, size_t len, char **out, size_t *outlen);
void kp_edits_release(kp_edits *e);
/* Where byte `out_off` of kp_edits_apply()'s result comes from: the index
 * in e->v of the edit whose text holds it, or -1 when it is source text,
 * with *src_off set to its offset in the source. */
int kp_edits_origin(const kp_edits *e, size_t out_off, size_t *src_off);

/* The edits of `src` that give what b gives applied to the result of a
 * (b's offsets are in a's result), appended to *out: each edit of a that
 * no edit of b touches as it is, and each group of edits of a and b that
 * touch (overlap, or meet at an offset) as one edit of the source range
 * they cover, whose text is that range of a's result with b's edits
 * applied (edits of a that touch only each other stay as they are).  -1
 * (out unchanged) when a or b does not apply. */
int kp_edits_compose(const kp_edits *a, const char *src, size_t len, const kp_edits *b,
		     kp_edits *out);

/* A run of kp_edits_apply()'s result that is source text, unchanged:
 * out[out, out + len) is src[src, src + len). */
typedef struct {
	size_t out, src, len;
} kp_edit_run;
/* The runs (each len > 0, in order) of applying e to a source of `len`
 * bytes, into *runs (malloc'd, the caller's) and *n; -1 when two edits
 * overlap or one is out of range (as kp_edits_apply()). */
int kp_edits_runs(const kp_edits *e, size_t len, kp_edit_run **runs, int *n);

/* Unified diff (git apply / patch -p1 compatible) with 3 lines of context;
 * labels are the paths to print after "--- " and "+++ ".  Returns "" when
 * the buffers are equal. */
char *kp_diff(const char *label_a, const char *a, size_t alen, const char *label_b, const char *b,
	      size_t blen);

#endif
