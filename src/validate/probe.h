/*
 * probe.h - what ptxas says about the original kernel, for --variant auto
 * (src/plan/auto.c): its registers and resident warps per SM, from one
 * nvcc compilation of the file as parsed; and the same for the file with
 * one loop rewritten by a given transform.  The command layer creates a
 * probe when nvcc is there and hands it to the rewrite driver as a
 * kp_auto_probe (plan.h); the plan layer never starts a process itself.
 *
 * Ownership: a kp_ptxas_probe owns its strings and the compiled result
 * (the original's and the last rewrite's, each cached by its text's hash)
 * until kp_ptxas_probe_release().
 */
#ifndef KPIPE_PROBE_H
#define KPIPE_PROBE_H

#include "plan.h"
#include "resources.h"

/* One compilation, cached by the hash of its text and architecture. */
typedef struct {
	unsigned long long hash;
	int compiled; /* 1 ok, -1 failed, 0 not yet */
	/* compiled -1 because nvcc reported an error (not a missing tool):
	 * its message, which stops the output (plan.h, kp_auto_facts) */
	int ecompile;
	char error[512];
	kp_resources res;
	/* var: counted against the budget (a build filled by the combined
	 * compilation of probe.c's pair() is counted when first asked) */
	int counted;
} kp_probe_build;

typedef struct {
	kp_auto_probe base; /* what the plan layer calls */
	char *cuda_path;    /* --cuda-path, or NULL */
	char *nvcc;         /* found on the first compilation; NULL: not yet or none */
	int looked;         /* nvcc was looked for */
	const char **args;  /* -I, -D, -U, -std=, -include of the parse flags */
	int nargs;
	kp_probe_build orig; /* the file as parsed */
	kp_probe_build var;  /* the last rewrite asked about */
	/* The budget (ptxas's time grows with the file): the file it counts for
	 * (its path, owned) and the rewrites compiled for it so far. */
	char *budget_path;
	int nrewrites;
	char error[512];
	int last_ecompile; /* the last compile_once failed with nvcc's error */
	/* pair(): the original and a rewrite compiled as one file; 0 when
	 * KPIPE_PROBE_PAIR=off (tests/nvcc/probe_pair.sh compares the two) */
	int pair_on;
} kp_ptxas_probe;

/* ptxas is not asked about files of more kernels than this, nor about more
 * rewrites of one file than KP_PROBE_MAX_REWRITES: auto then decides from
 * the source and says so.  A file of 100 kernels took 8 minutes of CPU
 * when every loop's rewrite was compiled. */
#define KP_PROBE_MAX_KERNELS 64
#define KP_PROBE_MAX_REWRITES 8

/* A probe for files parsed with args (the parse flags; the ones nvcc
 * understands are kept).  nvcc is looked for (cuda_path, or as
 * cuda_env.h does) on the first question, not before. */
void kp_ptxas_probe_init(kp_ptxas_probe *p, const char *cuda_path, const char *const *args,
			 int nargs);
void kp_ptxas_probe_release(kp_ptxas_probe *p);
/* A fresh budget for the next rewrite of the same file (kpipe tune: each
 * variant's rewrite is asked what one `kpipe rewrite` would be). */
void kp_ptxas_probe_new_budget(kp_ptxas_probe *p);

#endif
