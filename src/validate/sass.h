/*
 * sass.h - reading disassembled SASS (cuobjdump -sass or nvdisasm -c),
 * finding a kernel's main loop and judging whether the next tile's global
 * loads are in flight while the current tile's math runs.
 *
 * Ownership: a kp_sass owns every function, instruction and string reachable
 * from it (they live in its arena) until kp_sass_release().  A kp_sass_loop
 * is plain data; its instruction indices refer to the kp_sass_func it was
 * computed from.  Nothing here prints, exits or runs a tool.
 */
#ifndef KPIPE_SASS_H
#define KPIPE_SASS_H

#include <stddef.h>

#include "util.h"

/* What the validator cares about in an instruction.  Instructions whose
 * predicate is never true (`@!PT`) and math-unit moves (`HFMA2.MMA R0, -RZ,
 * RZ, ...`) are KP_SC_OTHER. */
typedef enum {
	KP_SC_OTHER,
	KP_SC_LDGSTS,    /* cp.async: global -> shared */
	KP_SC_LDG,       /* global -> registers */
	KP_SC_LDGDEPBAR, /* cp.async commit */
	KP_SC_DEPBAR,    /* cp.async wait */
	KP_SC_BAR,       /* a block barrier that waits (not BAR.ARV) */
	KP_SC_MATH,      /* FFMA HFMA2 DFMA HMMA IMMA IDP4A ... */
	KP_SC_LDL,
	KP_SC_STL,
	KP_SC_LDS, /* LDS, LDSM */
	KP_SC_STS,
	KP_SC_BRA,
	KP_SC_BULK,  /* bulk async copy global -> shared, sm_90+: UBLKCP, UTMALDG (TMA) */
	KP_SC_SYNCS, /* mbarrier operation, sm_90+: SYNCS.ARRIVE / .PHASECHK / .EXCH ... */
	KP_SC_COUNT
} kp_sass_class;

/* Short upper-case name ("LDGSTS", "MATH", ...). */
const char *kp_sass_class_name(kp_sass_class c);
/* Classifies one instruction from its predicate (NULL when none), opcode
 * with modifiers and operand text. */
kp_sass_class kp_sass_classify(const char *pred, const char *opcode, const char *operands);

typedef struct {
	unsigned addr;
	const char *pred;     /* "@!P0", or NULL */
	const char *opcode;   /* "LDGSTS.E.BYPASS.128" */
	const char *operands; /* "[R5], desc[UR8][R2.64]"; "" when none */
	kp_sass_class cls;
	long target; /* branch target address; -1 when none or unknown */
} kp_sass_insn;

typedef struct {
	const char *name; /* mangled, as the disassembler prints it */
	kp_sass_insn *insns;
	int ninsns;
} kp_sass_func;

typedef struct {
	kp_arena arena;
	kp_sass_func *funcs;
	int nfuncs;
} kp_sass;

/* Parses cuobjdump -sass or nvdisasm output (both forms are recognised).
 * Returns 0, or -1 when the text holds no function (out is still valid and
 * must be released). */
int kp_sass_parse(kp_sass *out, const char *text);
const kp_sass_func *kp_sass_find(const kp_sass *s, const char *name);
void kp_sass_release(kp_sass *s);

#define KP_SASS_MAX_BARS 16

/* The main loop of one function and the overlap verdict on it. */
typedef struct {
	int found;      /* a loop with math was found */
	int begin, end; /* instruction indices: branch target .. backward branch */
	unsigned begin_addr, end_addr;
	int nbackward;              /* backward branches in the function (self-loops excluded) */
	int nloops;                 /* distinct loops (branch targets) among them */
	int has_loads;              /* the loop holds LDG or LDGSTS */
	int counts[KP_SC_COUNT];    /* per class, one static iteration */
	int first_load;             /* index of the first LDG/LDGSTS in the loop, -1 */
	int first_math;             /* index of the first math instruction, -1 */
	int nbars;                  /* barriers in the loop */
	int bars[KP_SASS_MAX_BARS]; /* indices of the first KP_SASS_MAX_BARS */
	int overlap;                /* verdict: loads in flight over >= half the math */
	int overlap_load;           /* the load overlapping the most math, -1 */
	int overlap_math;           /* the first math instruction it reaches, -1 */
	int overlap_nmath;          /* math instructions issued before the next barrier */
	int overlap_wraps;          /* the walk crossed the backward branch */
	char reason[256];           /* one line explaining the verdict */
} kp_sass_loop;

/* Finds the main loop of f and judges it; see docs/validate.md for the
 * rules.  Always fills *out; returns 0 when a loop was found, -1 if not. */
int kp_sass_main_loop(kp_sass_loop *out, const kp_sass_func *f);

/* 1 when the math per iteration of the original and the rewritten loop are
 * equal; otherwise 0 and a one-line explanation in msg. */
int kp_sass_math_equal(const kp_sass_loop *orig, const kp_sass_loop *rew, char *msg, size_t msgsz);

/* 1 when the two functions hold the same instruction sequence (opcodes,
 * predicates and operands; addresses may differ). */
int kp_sass_same_code(const kp_sass_func *a, const kp_sass_func *b);

/* The main loop's loads, fences, barriers, math, local-memory traffic and
 * branches, one per line: a tag (LOAD, FENCE, BAR, MATH, LOCAL, BRA), the
 * address as the disassembler writes it, the instruction.  Runs of math are
 * folded; at most max_lines lines.  Caller frees. */
char *kp_sass_excerpt(const kp_sass_func *f, const kp_sass_loop *l, int max_lines);

#endif
