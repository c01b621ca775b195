/*
 * arch.c - the sm_XX target table and the occupancy arithmetic built on it.
 *
 * One static const array, looked up by name; nothing allocates, nothing
 * prints. The figures are NVIDIA's: the CUDA C++ Programming Guide's
 * "Technical Specifications per Compute Capability" table, cross-checked
 * against the occupancy calculator shipped with the toolkit
 * (include/cuda_occupancy.h), whose arithmetic kp_arch_occupancy() follows
 * for the default launch state (maximum shared-memory carve-out, the opt-in
 * attribute set when a block wants more than 48 KB, no block barriers).
 */
#include "arch.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#define KB 1024

/* Registers are handed to warps in each of the four SM sub-partitions. */
#define SUB_PARTITIONS 4
#define WARP_SIZE 32

/*
 * One row per target. Fields that are the same everywhere (48 KB static
 * shared memory, 1024 threads per block, 64K registers per SM, 255 per thread,
 * allocated per warp in units of 256) are filled in by the macro; the rows
 * hold what differs: shared memory per SM (maximum carve-out) and the opt-in
 * maximum per block in KB, bytes reserved per block by the runtime, resident
 * threads and blocks per SM, and registers per block (64K but on sm_53 and
 * sm_62, 32K); cp.async (LDGSTS) support follows the compute capability.
 * Before Volta there is no opt-in: 48 KB per block is all a block gets.
 * sm_35 (Kepler, 16 blocks per SM) is kept for the projects that still
 * list it (CUDA 12 dropped it; kpipe plans register staging for it).
 */
#define ARCH(nm, c, fam, smem_kb, optin_kb, reserved, threads, blocks, regs_block)                 \
	{                                                                                          \
		.name = (nm),                                                                      \
		.cc = (c),                                                                         \
		.family = (fam),                                                                   \
		.smem_per_sm = KB * (smem_kb),                                                     \
		.smem_static_per_block = 48 * KB,                                                  \
		.smem_optin_per_block = KB * (optin_kb),                                           \
		.smem_reserved_per_block = (reserved),                                             \
		.max_threads_per_sm = (threads),                                                   \
		.max_threads_per_block = 1024,                                                     \
		.max_blocks_per_sm = (blocks),                                                     \
		.max_warps_per_sm = (threads) / WARP_SIZE,                                         \
		.regs_per_sm = 65536,                                                              \
		.regs_per_block = (regs_block),                                                    \
		.max_regs_per_thread = 255,                                                        \
		.reg_alloc_unit = 256,                                                             \
		.has_cp_async = (c) >= 80,                                                         \
	}

/* clang-format off */
static const kp_arch arch_table[] = {
	/*    name      cc   family       smem/SM  opt-in  reserved  threads/SM  blocks/SM  regs/block */
	ARCH("sm_35",   35,  "Kepler",     48,      48,    0,        2048,       16,        65536),
	ARCH("sm_50",   50,  "Maxwell",    64,      48,    0,        2048,       32,        65536),
	ARCH("sm_52",   52,  "Maxwell",    96,      48,    0,        2048,       32,        65536),
	ARCH("sm_53",   53,  "Maxwell",    64,      48,    0,        2048,       32,        32768),
	ARCH("sm_60",   60,  "Pascal",     64,      48,    0,        2048,       32,        65536),
	ARCH("sm_61",   61,  "Pascal",     96,      48,    0,        2048,       32,        65536),
	ARCH("sm_62",   62,  "Pascal",     64,      48,    0,        2048,       32,        32768),
	ARCH("sm_70",   70,  "Volta",      96,      96,    0,        2048,       32,        65536),
	ARCH("sm_72",   72,  "Volta",      96,      96,    0,        2048,       32,        65536),
	ARCH("sm_75",   75,  "Turing",     64,      64,    0,        1024,       16,        65536),
	ARCH("sm_80",   80,  "Ampere",     164,     163,   1 * KB,   2048,       32,        65536),
	ARCH("sm_86",   86,  "Ampere",     100,     99,    1 * KB,   1536,       16,        65536),
	ARCH("sm_87",   87,  "Ampere",     164,     163,   1 * KB,   1536,       16,        65536),
	ARCH("sm_89",   89,  "Ada",        100,     99,    1 * KB,   1536,       24,        65536),
	ARCH("sm_90",   90,  "Hopper",     228,     227,   1 * KB,   2048,       32,        65536),
	ARCH("sm_100",  100, "Blackwell",  228,     227,   1 * KB,   2048,       32,        65536),
	ARCH("sm_103",  103, "Blackwell",  228,     227,   1 * KB,   2048,       32,        65536),
	ARCH("sm_120",  120, "Blackwell",  100,     99,    1 * KB,   1536,       24,        65536),
	ARCH("sm_121",  121, "Blackwell",  100,     99,    1 * KB,   1536,       24,        65536),
};
/* clang-format on */

const kp_arch *kp_arch_all(int *n)
{
	if (n)
		*n = (int)(sizeof(arch_table) / sizeof(arch_table[0]));
	return arch_table;
}

/* Case-insensitive prefix match; advances *s past it. */
static int eat_prefix(const char **s, const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)(*s)[i]) != prefix[i])
			return 0;
	*s += n;
	return 1;
}

/*
 * Accepts "sm_90", "sm90", "90", "compute_90", "9.0", and nvcc's
 * architecture-specific suffixes ("sm_90a", "sm_100f"), which share the
 * base entry's limits. Returns the compute capability, or -1.
 */
static int parse_cc(const char *name)
{
	const char *s = name;
	if (!eat_prefix(&s, "compute_") && !eat_prefix(&s, "sm_"))
		eat_prefix(&s, "sm");
	if (!isdigit((unsigned char)*s))
		return -1;
	int cc = 0;
	while (isdigit((unsigned char)*s) && cc < 10000)
		cc = cc * 10 + (*s++ - '0');
	if (*s == '.') { /* "9.0": major.minor, one minor digit */
		s++;
		if (!isdigit((unsigned char)*s) || isdigit((unsigned char)s[1]))
			return -1;
		cc = cc * 10 + (*s++ - '0');
	}
	if (*s == 'a' || *s == 'A' || *s == 'f' || *s == 'F')
		s++;
	return *s == '\0' ? cc : -1;
}

const kp_arch *kp_arch_find(const char *name)
{
	if (!name)
		return NULL;
	int cc = parse_cc(name);
	if (cc < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++)
		if (arch_table[i].cc == cc)
			return &arch_table[i];
	return NULL;
}

const char *kp_limit_name(int limiter)
{
	switch (limiter) {
	case KP_LIMIT_THREADS: return "threads";
	case KP_LIMIT_BLOCKS: return "blocks";
	case KP_LIMIT_SMEM: return "shared memory";
	case KP_LIMIT_REGS: return "registers";
	case KP_LIMIT_NONE: return "none";
	}
	return "unknown";
}

static int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }

/* Shared memory is carved out in 128-byte units from Ampere on, 256 before. */
static int smem_granularity(const kp_arch *a) { return a->cc >= 80 ? 128 : 256; }

/* Blocks that fit by shared memory: the block's bytes plus the runtime's
 * reservation, rounded up to the allocation unit, against the SM's maximum
 * carve-out. 0 when the block exceeds the per-block opt-in limit. */
static int smem_limit(const kp_arch *a, int smem_bytes)
{
	if (smem_bytes > a->smem_optin_per_block)
		return 0;
	int per_block = round_up(smem_bytes + a->smem_reserved_per_block, smem_granularity(a));
	if (per_block == 0)
		return INT_MAX;
	return a->smem_per_sm / per_block;
}

/* Blocks that fit by registers: each warp gets regs*32 rounded up to the
 * allocation unit, in each of the four sub-partitions; the hardware also
 * checks the block's warps rounded up to a multiple of four against the
 * registers a block may hold (64K, 32K on sm_53 and sm_62). */
static int regs_limit(const kp_arch *a, int regs, int warps)
{
	if (regs <= 0)
		return INT_MAX;
	if (regs > a->max_regs_per_thread)
		return 0;
	int per_warp = round_up(regs * WARP_SIZE, a->reg_alloc_unit);
	if (per_warp * round_up(warps, SUB_PARTITIONS) > a->regs_per_block)
		return 0;
	int warps_per_partition = a->regs_per_sm / SUB_PARTITIONS / per_warp;
	return warps_per_partition * SUB_PARTITIONS / warps;
}

kp_occupancy kp_arch_occupancy(const kp_arch *a, int threads, int regs, int smem_bytes)
{
	kp_occupancy o = {0, 0, KP_LIMIT_NONE};
	if (!a || threads <= 0 || regs < 0 || smem_bytes < 0)
		return o;

	int warps = (threads + WARP_SIZE - 1) / WARP_SIZE;
	int by_threads = threads > a->max_threads_per_block ? 0 : a->max_warps_per_sm / warps;
	int by_blocks = a->max_blocks_per_sm;
	int by_regs = regs_limit(a, regs, warps);
	int by_smem = smem_limit(a, smem_bytes);

	/* On a tie, name the limit a transform is most likely to move:
	 * shared memory first, then registers, threads, blocks. */
	o.blocks_per_sm = by_smem;
	o.limiter = KP_LIMIT_SMEM;
	if (by_regs < o.blocks_per_sm) {
		o.blocks_per_sm = by_regs;
		o.limiter = KP_LIMIT_REGS;
	}
	if (by_threads < o.blocks_per_sm) {
		o.blocks_per_sm = by_threads;
		o.limiter = KP_LIMIT_THREADS;
	}
	if (by_blocks < o.blocks_per_sm) {
		o.blocks_per_sm = by_blocks;
		o.limiter = KP_LIMIT_BLOCKS;
	}
	o.warps_per_sm = o.blocks_per_sm * warps;
	return o;
}

/*
 * The largest shared memory per block, in bytes, at which `blocks` blocks
 * still fit on one SM by shared memory; one byte more and fewer fit. Capped
 * at the opt-in per-block maximum. -1 when `blocks` is out of range
 * (<= 0, or more than the SM can ever hold).
 */
int kp_arch_smem_cliff(const kp_arch *a, int blocks)
{
	if (!a || blocks <= 0 || blocks > a->max_blocks_per_sm)
		return -1;
	int gran = smem_granularity(a);
	int per_block = a->smem_per_sm / blocks / gran * gran;
	int bytes = per_block - a->smem_reserved_per_block;
	if (bytes > a->smem_optin_per_block)
		bytes = a->smem_optin_per_block;
	return bytes < 0 ? -1 : bytes;
}
