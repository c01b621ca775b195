/*
 * out_tree.h - the rest of an --out-dir tree: after a batch has written
 * what it rewrote (and the inputs it left as they were), every other file
 * the batch read under the inputs' common directory (the headers its
 * inputs include, directly or not, and inputs nothing wrote) is copied to
 * its place under OUT, so that the output tree builds on its own.
 */
#ifndef KPIPE_OUT_TREE_H
#define KPIPE_OUT_TREE_H

/* One source of the batch: its real path and the flags it is parsed with
 * (its include directories are searched). */
typedef struct {
	const char *abs;
	const char *const *args;
	int nargs;
	int failed; /* the file itself could not be read or rewritten: not copied
		       unless another file includes it */
} kp_tree_src;

/* What kp_out_tree_fill() copies. */
typedef struct {
	const char *out_dir;
	const char *root;        /* the inputs' common directory (real path) */
	const kp_tree_src *srcs; /* the batch's inputs */
	int nsrcs;
	const char *const *args; /* the user's compiler arguments (-I ...) */
	int nargs;
	const char *const *written; /* real paths already written under OUT */
	int nwritten;
	const char *const *excludes; /* --exclude GLOB: matched against the path
					relative to root and the name; not copied */
	int nexcludes;
	int cuda_sources_too; /* copy .cu/.cuh files too (0: a sharded batch,
				 whose other shards own them) */
} kp_out_tree;

/* Copies every file of t's include closure (quoted and angle includes
 * found in the text, resolved against the including file's directory and
 * the -I, -iquote, -isystem directories of its flags; files under root
 * only, less those --exclude drops) and every input not written yet.  A copy that fails is one line
 * "kpipe: error: ..." appended to *err (caller frees).  Returns the number
 * of files copied, or -1 when one failed. */
int kp_out_tree_fill(const kp_out_tree *t, char **err);

/* The real paths of the files that an #include of t's inputs, or of a
 * file they include, names (found as kp_out_tree_fill finds them; out_dir,
 * written and excludes are not read): *out, caller frees each and the
 * array.  Returns their number. */
int kp_tree_included(const kp_out_tree *t, char ***out);

#endif
