/*
 * canon_shapes.h - what the canon pass's files share among themselves
 * (canon.c, canon_carve.c, canon_fuse.c); not for other modules, which
 * use canon.h.
 */
#ifndef KPIPE_CANON_SHAPES_H
#define KPIPE_CANON_SHAPES_H

#include "analyze.h"
#include "edit.h"
#include "model.h"

/* The first part of n with a side effect (or, reads 0, that reads memory
 * or a variable that memory may change), or NULL (canon.c). */
const kp_node *kp_canon_impure(const kp_file *f, kp_node *n, int reads);
/* The offset after the ';' that closes statement n (canon.c). */
unsigned kp_canon_stmt_end(const kp_file *f, const kp_node *n);

/* Shapes 6 and 7 (canon_carve.c, canon_fuse.c): the carve-out pointers
 * of a static tile the load phase stores through (`float *P =
 * &TILE[y][x];` before the loop) replaced by their initialiser at each
 * use, their declarations dropped; and the if/else of copy loops fused.
 * Returns as kp_canon_edits (canon.h). */
int kp_canon_carve_edits(kp_file *f, const kp_loop *l, kp_edits *ed, const char **what,
			 const char **why);

/* The tile `&T[i]..[j]`, `T[i]` (decayed) or `T` points into, a static
 * __shared__ array, or NULL; *first (when asked) the first subscript, i,
 * NULL for `T` (canon_carve.c). */
const kp_decl *kp_canon_ptr_tile(const kp_node *init, const kp_node **first);

/* Tile pointers replaced by their initialiser's text (canon_carve.c). */
#define KP_CANON_MAX_SUBST 8
typedef struct {
	const kp_decl *p[KP_CANON_MAX_SUBST];
	const char *text[KP_CANON_MAX_SUBST]; /* "(&TILE[y][x])" */
	int n;
} kp_canon_subst;

/* Source ranges [b[i], e[i]) that edits of one shape replace whole. */
#define KP_CANON_MAX_RANGES 48
typedef struct {
	unsigned b[KP_CANON_MAX_RANGES], e[KP_CANON_MAX_RANGES];
	int n;
} kp_canon_ranges;

/* Shape 7 (canon_fuse.c): in loop l's load phase, each `if (g) { for (H)
 * S; } else { for (H) Z; }` (the same headers H, nested as deep in both,
 * S a copy into a tile and Z a store of 0 into the same element) becomes
 * `for (H) if (g) S; else Z;`, S and Z written with s's substitutions.
 * Appends the edits to ed and their ranges to r; returns how many it
 * fused (their lines in *lines); *why says why the first if/else of copy
 * loops it left as it is was not fused (NULL when none). */
int kp_canon_fuse(kp_file *f, const kp_loop *l, const kp_canon_subst *s, kp_edits *ed,
		  kp_canon_ranges *r, const char **lines, const char **why);

/* Shape 8 (canon_counter.c): the copy loops of l's load phase that count
 * with a variable declared before the loop, which the kernel uses only as
 * the counter of for-loops, declare their own (`for (l = 0; ..)` becomes
 * `for (int l = 0; ..)`). Returns as kp_canon_edits (canon.h). */
int kp_canon_counter_edits(kp_file *f, const kp_loop *l, kp_edits *ed, const char **what,
			   const char **why);

#endif
