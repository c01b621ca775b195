/*
 * arch.h - the target table: per-architecture shared-memory, thread, block,
 * warp and register limits, looked up by name ("sm_90"), and the occupancy
 * arithmetic kpipe uses for its shared-memory budget and cliff warnings.
 *
 * The table is static data; nothing here allocates.
 */
#ifndef KPIPE_ARCH_H
#define KPIPE_ARCH_H

typedef struct {
	const char *name;            /* "sm_90" */
	int cc;                      /* 90 */
	const char *family;          /* "Hopper" */
	int smem_per_sm;             /* bytes of shared memory per SM (max carve-out) */
	int smem_static_per_block;   /* 48 KB static limit */
	int smem_optin_per_block;    /* max dynamic per block with the opt-in attribute */
	int smem_reserved_per_block; /* bytes the runtime reserves per block (1 KB on sm_80+) */
	int max_threads_per_sm;
	int max_threads_per_block;
	int max_blocks_per_sm;
	int max_warps_per_sm;
	int regs_per_sm;
	int regs_per_block; /* registers one block may hold (32K on sm_53, sm_62) */
	int max_regs_per_thread;
	int reg_alloc_unit; /* registers are allocated per warp in this granularity */
	int has_cp_async;   /* sm_80+ */
} kp_arch;

/* Returns the entry, or NULL for an unknown name (caller reports
 * "unknown target 'x'"). Accepts "sm_90", "sm90", "90", "compute_90". */
const kp_arch *kp_arch_find(const char *name);
/* All entries, for listing; *n receives the count. */
const kp_arch *kp_arch_all(int *n);

typedef struct {
	int blocks_per_sm; /* resident blocks per SM */
	int warps_per_sm;
	int limiter; /* which limit bound it */
} kp_occupancy;

enum { KP_LIMIT_THREADS, KP_LIMIT_BLOCKS, KP_LIMIT_SMEM, KP_LIMIT_REGS, KP_LIMIT_NONE };
const char *kp_limit_name(int limiter);

/* Occupancy from threads per block, registers per thread (0 = unknown,
 * not limiting) and shared memory per block in bytes. */
kp_occupancy kp_arch_occupancy(const kp_arch *a, int threads, int regs, int smem_bytes);

/* The shared-memory size per block above which the number of resident
 * blocks drops below `blocks` (given threads/regs), i.e. the cliff. */
int kp_arch_smem_cliff(const kp_arch *a, int blocks);

/* ---- several targets (targets.c) ----
 * The targets one build compiles for (`--arch sm_70,sm_80,sm_90`, a
 * compile database's -gencode list): each once, oldest first. */
#define KP_MAX_TARGETS 16
typedef struct {
	const kp_arch *v[KP_MAX_TARGETS];
	int n;
} kp_targets;

/* Adds a to t in order of compute capability, once; -1 when t is full. */
int kp_targets_add(kp_targets *t, const kp_arch *a);
/* Parses a comma list ("sm_70,sm_80,90") into t (emptied first): 0, or
 * -1 with the first name kp_arch_find() does not know copied to bad. */
int kp_targets_parse(kp_targets *t, const char *list, char *bad, int nbad);
/* The limits all of v[0..n) (n >= 1) share, in *out: the oldest target's
 * name, family and compute capability, and the smallest of every limit
 * (static and opt-in shared memory per block, shared memory, threads,
 * blocks and registers per SM, registers per block); cp.async only when
 * every one has it. */
void kp_arch_common(const kp_arch *const *v, int n, kp_arch *out);
/* "sm_70,sm_75" into buf (nbuf bytes, truncated). */
void kp_targets_names(const kp_arch *const *v, int n, char *buf, int nbuf);

#endif
