/*
 * effects.h - what each phase of a K-loop reads and writes, over abstract
 * locations (docs/design.md, "Effects"): each variable of the thread, each
 * __shared__ array, each base of global memory (a pointer parameter with its
 * __restrict__ / const facts, a __device__ variable) and "unknown".
 *
 * Effects are denied by default: a call kpipe cannot prove pure writes
 * "unknown" (a function of the pure table, pure.h, a wmma / mma call writing
 * its fragment arguments, or a __device__ helper of the file whose body the
 * same analysis reads, to a depth limit, are proven); so does asm with a
 * memory clobber or memory operands, a store through a pointer or a
 * reference kpipe cannot follow.  A write through a plain local reference
 * or pointer (`int &extent = lim;`, `int *const p = &lim;`, a `T *&`
 * parameter of a helper) goes to the variable it aliases.
 *
 * Works on the model only; the sets live in the file's arena.
 */
#ifndef KPIPE_EFFECTS_H
#define KPIPE_EFFECTS_H

#include "loop.h"
#include "model.h"

typedef enum {
	KP_LOC_LOCAL,  /* a variable of the thread (a parameter's value included) */
	KP_LOC_TILE,   /* a __shared__ array or a carve-out of one */
	KP_LOC_GLOBAL, /* global memory reached from decl: a pointer parameter, a
			* __device__ variable */
	KP_LOC_PARAM,  /* inside a helper's body: what its pointer or reference
			* parameter decl designates (mapped to the argument at the call) */
	KP_LOC_UNKNOWN /* memory kpipe cannot name */
} kp_loc_kind;

typedef struct {
	kp_loc_kind kind;
	const kp_decl *decl; /* LOCAL, TILE, GLOBAL, PARAM; NULL for UNKNOWN */
	int is_restrict;     /* GLOBAL: a __restrict__ pointer parameter */
	int readonly;        /* GLOBAL: memory no code of the kernel writes (a const
			      * __restrict__ parameter's pointee, __constant__) */
} kp_loc;

typedef struct {
	kp_loc loc;
	const kp_node *at;  /* the expression or statement */
	const kp_decl *via; /* the reference or pointer it goes through, or NULL */
	const char *call;   /* the call it happens in (its callee's name), or NULL */
	int by_asm;         /* an asm statement's effect */
} kp_effect;

typedef struct {
	kp_effect *v;
	int n, cap;
} kp_effect_set;

typedef enum {
	KP_PH_LOAD,  /* the load phase (with the bumps that close it) */
	KP_PH_COMP,  /* the compute phase */
	KP_PH_AFTER, /* the statements after the closing barrier */
	KP_PH_COND,  /* the loop condition */
	KP_PH_INC,   /* the loop increment */
	KP_NPHASES
} kp_phase;

typedef struct kp_effects {
	kp_effect_set rd[KP_NPHASES], wr[KP_NPHASES];
	kp_effect_set after_rd; /* what the kernel reads after the loop */
} kp_effects;

/* How deep the walk reads __device__ helpers called by helpers: a call
 * deeper than that writes memory kpipe cannot name. */
#define KP_EFFECTS_HELPER_DEPTH 3

/* The first node of n (n itself included, then its children in order)
 * for which hit() holds, reading on into the body of each __device__
 * helper it calls; depth is how many helpers deep n already is.  A helper
 * call KP_EFFECTS_HELPER_DEPTH deep is itself the answer when deep_hits,
 * else its body is not read.  *helper (when helper is not NULL) is then
 * the helper whose body holds the node, left as it was for n's own.  For
 * the rules that look for what the effect sets do not record (a volatile
 * read, a warp operation). */
const kp_node *kp_find_through_helpers(const kp_node *n, int depth, int (*hit)(const kp_node *n),
				       int deep_hits, const kp_kernel **helper);

/* Computes the sets of loop l (its phases found: l->load_b < l->load_e) of
 * kernel k, in f's arena. */
kp_effects *kp_effects_of_loop(kp_file *f, const kp_kernel *k, const kp_loop *l);

/* The effects of one statement or expression n of k's body, added to rd and
 * wr. */
void kp_effects_of_node(kp_file *f, const kp_kernel *k, const kp_node *n, kp_effect_set *rd,
			kp_effect_set *wr);

/* Whether two locations may be the same memory (UNKNOWN may be any memory
 * but a variable of the thread and read-only global memory). */
int kp_loc_may_alias(const kp_loc *a, const kp_loc *b);

/* The first write of set s to the variable d (the whole or a part; through
 * an alias or a call included), or NULL. */
const kp_effect *kp_effects_write_to(const kp_effect_set *s, const kp_decl *d);

/* "'lim'", "the __device__ variable 'g'", "global memory through 'A'",
 * "memory kpipe cannot name", in f's arena. */
const char *kp_loc_text(kp_file *f, const kp_loc *loc);
/* How an effect happens: " through the reference 'extent'", " in the call
 * to 'advance'", " by inline assembly", or "". */
const char *kp_effect_how(kp_file *f, const kp_effect *e);

/* Whether the compute phase or the statements after the closing barrier
 * write global memory that the kernel may read after the loop (another
 * thread's write, which the original's closing barrier orders): the first
 * such write, or NULL. */
const kp_effect *kp_effects_read_after(const kp_effects *e);

/* Calls fn with each instruction's opcode (its first word, after a
 * predicate or a label; "mma.sync.aligned.m16n8k16...") in the template of
 * the asm statement t as clang prints it.  Returns where the template
 * ends (the operands follow), NULL when it is not a string literal (a
 * macro parameter). */
const char *kp_asm_each_opcode(const char *t, void (*fn)(const char *op, size_t n, void *ctx),
			       void *ctx);

#endif
