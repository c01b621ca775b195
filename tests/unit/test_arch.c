/*
 * test_arch.c - the sm_XX table (lookup by name, NVIDIA's figures) and the
 * occupancy arithmetic, checked against values worked out by hand with the
 * rules of the CUDA occupancy calculator.
 */
#include "arch.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#define KB 1024

/* --- lookup ------------------------------------------------------------- */

/* Parameters are copied into a freshly exec'd worker (different addresses
 * under ASLR), so they hold strings inline rather than pointers. */
struct spelling {
	char name[24];
	int cc;
};

ParameterizedTestParameters(arch_find, spellings)
{
	static struct spelling params[] = {
		{"sm_90", 90},    {"sm90", 90},       {"90", 90},     {"compute_90", 90},
		{"SM_80", 80},    {"Compute_86", 86}, {"sm_90a", 90}, {"sm_100f", 100},
		{"sm_120a", 120}, {"9.0", 90},        {"12.0", 120},  {"compute_75", 75},
		{"sm_70", 70},    {"sm_72", 72},      {"sm_87", 87},  {"89", 89},
	};
	return cr_make_param_array(struct spelling, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct spelling *p, arch_find, spellings)
{
	const kp_arch *a = kp_arch_find(p->name);
	cr_assert_not_null(a, "'%s' not found", p->name);
	cr_expect_eq(a->cc, p->cc, "'%s' gave cc %d", p->name, a->cc);
}

struct bad_name {
	char name[24];
};

ParameterizedTestParameters(arch_find, unknown)
{
	static struct bad_name params[] = {
		{"sm_30"},          {"sm_"},      {""},        {"sm_90x"},
		{"gfx90a"},         {"compute_"}, {"sm_90aa"}, {"9.10"},
		{"sm_99999999999"}, {" sm_90"},   {"sm_90 "},  {"-90"},
	};
	return cr_make_param_array(struct bad_name, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct bad_name *p, arch_find, unknown)
{
	cr_expect_null(kp_arch_find(p->name), "'%s' should be unknown", p->name);
}

Test(arch_find, null_name) { cr_expect_null(kp_arch_find(NULL)); }

/* --- the table ---------------------------------------------------------- */

Test(arch_table, covers_the_documented_targets)
{
	static const int want[] = {35, 50, 52, 53, 60, 61,  62,  70,  72, 75,
				   80, 86, 87, 89, 90, 100, 103, 120, 121};
	int n = 0;
	const kp_arch *all = kp_arch_all(&n);
	cr_assert_eq(n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < n; i++)
		cr_expect_eq(all[i].cc, want[i], "entry %d is cc %d", i, all[i].cc);
	cr_expect_not_null(kp_arch_all(NULL));
}

Test(arch_table, entries_are_consistent)
{
	int n = 0;
	const kp_arch *all = kp_arch_all(&n);
	for (int i = 0; i < n; i++) {
		const kp_arch *a = &all[i];
		char name[16];
		snprintf(name, sizeof(name), "sm_%d", a->cc);
		cr_expect_str_eq(a->name, name);
		cr_expect_eq(kp_arch_find(a->name), a, "%s does not find itself", a->name);
		cr_expect_not_null(a->family);
		cr_expect_eq(a->max_warps_per_sm * 32, a->max_threads_per_sm, "%s", a->name);
		cr_expect_leq(a->smem_optin_per_block, a->smem_per_sm, "%s", a->name);
		cr_expect_eq(a->smem_static_per_block, 48 * KB, "%s", a->name);
		cr_expect_eq(a->smem_reserved_per_block, a->cc >= 80 ? KB : 0, "%s", a->name);
		cr_expect_eq(a->has_cp_async, a->cc >= 80, "%s", a->name);
		cr_expect_eq(a->max_threads_per_block, 1024, "%s", a->name);
		cr_expect_eq(a->regs_per_sm, 65536, "%s", a->name);
		cr_expect_eq(a->regs_per_block, a->cc == 53 || a->cc == 62 ? 32768 : 65536, "%s",
			     a->name);
		if (a->cc < 70) /* no opt-in before Volta */
			cr_expect_eq(a->smem_optin_per_block, 48 * KB, "%s", a->name);
		cr_expect_eq(a->max_regs_per_thread, 255, "%s", a->name);
		cr_expect_eq(a->reg_alloc_unit, 256, "%s", a->name);
	}
}

struct figures {
	char name[8];
	int smem_per_sm_kb;
	int optin_kb;
	int threads_per_sm;
	int blocks_per_sm;
	char family[16];
};

/* CUDA C++ Programming Guide, "Technical Specifications per Compute
 * Capability"; blocks per SM as in the toolkit's cuda_occupancy.h. */
ParameterizedTestParameters(arch_table, figures)
{
	static struct figures params[] = {
		{"sm_35", 48, 48, 2048, 16, "Kepler"},
		{"sm_50", 64, 48, 2048, 32, "Maxwell"},
		{"sm_52", 96, 48, 2048, 32, "Maxwell"},
		{"sm_53", 64, 48, 2048, 32, "Maxwell"},
		{"sm_60", 64, 48, 2048, 32, "Pascal"},
		{"sm_61", 96, 48, 2048, 32, "Pascal"},
		{"sm_62", 64, 48, 2048, 32, "Pascal"},
		{"sm_70", 96, 96, 2048, 32, "Volta"},
		{"sm_72", 96, 96, 2048, 32, "Volta"},
		{"sm_75", 64, 64, 1024, 16, "Turing"},
		{"sm_80", 164, 163, 2048, 32, "Ampere"},
		{"sm_86", 100, 99, 1536, 16, "Ampere"},
		{"sm_87", 164, 163, 1536, 16, "Ampere"},
		{"sm_89", 100, 99, 1536, 24, "Ada"},
		{"sm_90", 228, 227, 2048, 32, "Hopper"},
		{"sm_100", 228, 227, 2048, 32, "Blackwell"},
		{"sm_120", 100, 99, 1536, 24, "Blackwell"},
	};
	return cr_make_param_array(struct figures, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct figures *p, arch_table, figures)
{
	const kp_arch *a = kp_arch_find(p->name);
	cr_assert_not_null(a);
	cr_expect_eq(a->smem_per_sm, p->smem_per_sm_kb * KB, "%s smem/SM", p->name);
	cr_expect_eq(a->smem_optin_per_block, p->optin_kb * KB, "%s opt-in", p->name);
	cr_expect_eq(a->max_threads_per_sm, p->threads_per_sm, "%s threads/SM", p->name);
	cr_expect_eq(a->max_blocks_per_sm, p->blocks_per_sm, "%s blocks/SM", p->name);
	cr_expect_str_eq(a->family, p->family);
}

/* --- occupancy ---------------------------------------------------------- */

struct occ_case {
	char arch[8];
	int threads, regs, smem;
	int blocks, limiter;
};

ParameterizedTestParameters(arch_occupancy, cases)
{
	static struct occ_case params[] = {
		/* registers: 128 regs -> 4096/warp, 4 warps per sub-partition */
		{"sm_90", 256, 128, 0, 2, KP_LIMIT_REGS},
		/* 134 regs -> 4288 -> 4352/warp, 3 warps per sub-partition = 12 */
		{"sm_90", 256, 134, 0, 1, KP_LIMIT_REGS},
		/* 65 regs -> 2304/warp: 7 per sub-partition, 28 warps, 7 blocks of 4 */
		{"sm_90", 128, 65, 0, 7, KP_LIMIT_REGS},
		{"sm_90", 256, 24, 0, 8, KP_LIMIT_THREADS},
		/* a tie names registers before threads */
		{"sm_90", 256, 32, 0, 8, KP_LIMIT_REGS},
		{"sm_90", 256, 255, 0, 1, KP_LIMIT_REGS},
		{"sm_90", 256, 256, 0, 0, KP_LIMIT_REGS},
		/* 1024 threads x 72 regs: 32 warps x 2304 > 64K */
		{"sm_90", 1024, 72, 0, 0, KP_LIMIT_REGS},
		/* 64 regs: 2048/warp, 8 per sub-partition = 32 warps = one block */
		{"sm_90", 1024, 64, 0, 1, KP_LIMIT_REGS},
		/* shared memory: + 1 KB reserved, 228 KB per SM */
		{"sm_90", 256, 0, 8 * KB, 8, KP_LIMIT_THREADS},
		{"sm_90", 256, 0, 28 * KB, 7, KP_LIMIT_SMEM},
		{"sm_90", 256, 0, 100 * KB, 2, KP_LIMIT_SMEM},
		{"sm_90", 256, 0, 200 * KB, 1, KP_LIMIT_SMEM},
		{"sm_90", 256, 0, 227 * KB, 1, KP_LIMIT_SMEM},
		{"sm_90", 256, 0, 227 * KB + 1, 0, KP_LIMIT_SMEM},
		/* threads and blocks */
		{"sm_90", 32, 0, 0, 32, KP_LIMIT_BLOCKS},
		{"sm_90", 33, 0, 0, 32, KP_LIMIT_THREADS}, /* 2 warps: a tie */
		{"sm_90", 1024, 0, 0, 2, KP_LIMIT_THREADS},
		{"sm_90", 1025, 0, 0, 0, KP_LIMIT_THREADS},
		{"sm_80", 128, 64, 48 * KB, 3, KP_LIMIT_SMEM},
		{"sm_80", 256, 0, 163 * KB, 1, KP_LIMIT_SMEM},
		{"sm_75", 256, 32, 0, 4, KP_LIMIT_THREADS},
		{"sm_75", 64, 0, 0, 16, KP_LIMIT_THREADS},
		{"sm_75", 32, 0, 0, 16, KP_LIMIT_BLOCKS},
		{"sm_75", 128, 0, 32 * KB, 2, KP_LIMIT_SMEM},
		{"sm_86", 128, 0, 0, 12, KP_LIMIT_THREADS},
		{"sm_86", 256, 0, 50 * KB, 1, KP_LIMIT_SMEM},
		{"sm_86", 256, 0, 49 * KB, 2, KP_LIMIT_SMEM},
		{"sm_89", 32, 0, 0, 24, KP_LIMIT_BLOCKS},
		{"sm_120", 32, 0, 0, 24, KP_LIMIT_BLOCKS},
		{"sm_120", 512, 0, 0, 3, KP_LIMIT_THREADS},
		/* sm_70: 256-byte granularity, nothing reserved */
		{"sm_70", 256, 0, 48 * KB, 2, KP_LIMIT_SMEM},
		{"sm_70", 256, 0, 1, 8, KP_LIMIT_THREADS},
		{"sm_70", 64, 0, 3 * KB + 1, 29, KP_LIMIT_SMEM},
	};
	return cr_make_param_array(struct occ_case, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct occ_case *p, arch_occupancy, cases)
{
	const kp_arch *a = kp_arch_find(p->arch);
	cr_assert_not_null(a);
	kp_occupancy o = kp_arch_occupancy(a, p->threads, p->regs, p->smem);
	cr_expect_eq(o.blocks_per_sm, p->blocks, "%s %d threads %d regs %d B: %d blocks, want %d",
		     p->arch, p->threads, p->regs, p->smem, o.blocks_per_sm, p->blocks);
	cr_expect_eq(o.limiter, p->limiter, "%s %d threads %d regs %d B: limited by %s, want %s",
		     p->arch, p->threads, p->regs, p->smem, kp_limit_name(o.limiter),
		     kp_limit_name(p->limiter));
	cr_expect_eq(o.warps_per_sm, o.blocks_per_sm * ((p->threads + 31) / 32));
}

Test(arch_occupancy, invalid_input)
{
	const kp_arch *a = kp_arch_find("sm_90");
	kp_occupancy o = kp_arch_occupancy(NULL, 256, 0, 0);
	cr_expect_eq(o.blocks_per_sm, 0);
	cr_expect_eq(o.limiter, KP_LIMIT_NONE);
	o = kp_arch_occupancy(a, 0, 0, 0);
	cr_expect_eq(o.blocks_per_sm, 0);
	cr_expect_eq(o.limiter, KP_LIMIT_NONE);
	o = kp_arch_occupancy(a, 256, -1, 0);
	cr_expect_eq(o.limiter, KP_LIMIT_NONE);
	o = kp_arch_occupancy(a, 256, 0, -1);
	cr_expect_eq(o.limiter, KP_LIMIT_NONE);
}

Test(arch_occupancy, limit_names)
{
	cr_expect_str_eq(kp_limit_name(KP_LIMIT_THREADS), "threads");
	cr_expect_str_eq(kp_limit_name(KP_LIMIT_BLOCKS), "blocks");
	cr_expect_str_eq(kp_limit_name(KP_LIMIT_SMEM), "shared memory");
	cr_expect_str_eq(kp_limit_name(KP_LIMIT_REGS), "registers");
	cr_expect_str_eq(kp_limit_name(KP_LIMIT_NONE), "none");
	cr_expect_str_eq(kp_limit_name(42), "unknown");
}

/* More shared memory never raises occupancy. */
Test(arch_occupancy, monotonic_in_smem)
{
	int n = 0;
	const kp_arch *all = kp_arch_all(&n);
	for (int i = 0; i < n; i++) {
		int prev = kp_arch_occupancy(&all[i], 128, 40, 0).blocks_per_sm;
		for (int smem = 128; smem <= all[i].smem_per_sm; smem += 128) {
			int b = kp_arch_occupancy(&all[i], 128, 40, smem).blocks_per_sm;
			cr_assert_leq(b, prev, "%s: %d B gives %d blocks after %d", all[i].name,
				      smem, b, prev);
			prev = b;
		}
		cr_expect_leq(prev, 1, "%s: a block using the whole SM", all[i].name);
	}
}

/* --- cliff -------------------------------------------------------------- */

struct cliff_case {
	char arch[8];
	int blocks, bytes;
};

ParameterizedTestParameters(arch_cliff, values)
{
	static struct cliff_case params[] = {
		{"sm_90", 1, 227 * KB}, /* capped by the opt-in limit */
		{"sm_90", 2, 113 * KB}, /* 114 KB each, less 1 KB reserved */
		{"sm_90", 3, 76800},    /* 77824 - 1024 */
		{"sm_90", 32, 6272},    /* 7296 - 1024 */
		{"sm_80", 1, 163 * KB}, {"sm_80", 2, 81 * KB}, {"sm_86", 1, 99 * KB},
		{"sm_86", 2, 49 * KB},  {"sm_89", 3, 33024}, /* 34048 (34133 to 128 B) - 1024 */
		{"sm_75", 1, 64 * KB},  {"sm_75", 2, 32 * KB}, {"sm_70", 3, 32 * KB},
		{"sm_70", 5, 19456},  /* 19660 to 256 B */
		{"sm_120", 24, 3200}, /* 4266 -> 4224 - 1024 */
		{"sm_90", 0, -1},       {"sm_90", -3, -1},     {"sm_90", 33, -1},
		{"sm_75", 17, -1},
	};
	return cr_make_param_array(struct cliff_case, params, sizeof(params) / sizeof(params[0]));
}

ParameterizedTest(struct cliff_case *p, arch_cliff, values)
{
	const kp_arch *a = kp_arch_find(p->arch);
	cr_assert_not_null(a);
	int got = kp_arch_smem_cliff(a, p->blocks);
	cr_expect_eq(got, p->bytes, "%s, %d blocks: cliff %d, want %d", p->arch, p->blocks, got,
		     p->bytes);
}

Test(arch_cliff, null_arch) { cr_expect_eq(kp_arch_smem_cliff(NULL, 1), -1); }

/* The cliff agrees with kp_arch_occupancy: at the cliff `blocks` still fit,
 * one byte above fewer do. One-warp blocks keep threads from limiting. */
Test(arch_cliff, agrees_with_occupancy)
{
	int n = 0;
	const kp_arch *all = kp_arch_all(&n);
	for (int i = 0; i < n; i++) {
		const kp_arch *a = &all[i];
		for (int b = 1; b <= a->max_blocks_per_sm; b++) {
			int c = kp_arch_smem_cliff(a, b);
			cr_assert_geq(c, 0, "%s, %d blocks", a->name, b);
			cr_expect_geq(kp_arch_occupancy(a, 32, 0, c).blocks_per_sm, b,
				      "%s, %d blocks at %d B", a->name, b, c);
			cr_expect_lt(kp_arch_occupancy(a, 32, 0, c + 1).blocks_per_sm, b,
				     "%s, %d blocks at %d B", a->name, b, c + 1);
		}
	}
}

/* --- several targets (targets.c) ------------------------------------------ */

Test(arch_targets, parse_orders_and_dedups)
{
	kp_targets t;
	char bad[64];
	cr_assert_eq(kp_targets_parse(&t, "sm_90,sm_52,compute_90,75", bad, (int)sizeof(bad)), 0);
	cr_assert_eq(t.n, 3);
	cr_expect_str_eq(t.v[0]->name, "sm_52");
	cr_expect_str_eq(t.v[1]->name, "sm_75");
	cr_expect_str_eq(t.v[2]->name, "sm_90");
	char names[64];
	kp_targets_names(t.v, t.n, names, (int)sizeof(names));
	cr_expect_str_eq(names, "sm_52,sm_75,sm_90");
	cr_expect_eq(kp_targets_parse(&t, "sm_70,sm_30", bad, (int)sizeof(bad)), -1);
	cr_expect_str_eq(bad, "sm_30");
	cr_expect_eq(kp_targets_parse(&t, "sm_70,", bad, (int)sizeof(bad)), 0);
	cr_expect_eq(kp_targets_parse(&t, ",", bad, (int)sizeof(bad)), -1);
}

/* The limits a group shares: the smallest of each, the oldest's name. */
Test(arch_targets, common_limits)
{
	const kp_arch *v[] = {kp_arch_find("sm_86"), kp_arch_find("sm_80"), kp_arch_find("sm_75")};
	kp_arch c;
	kp_arch_common(v, 3, &c);
	cr_expect_str_eq(c.name, "sm_75");
	cr_expect_eq(c.cc, 75);
	cr_expect_eq(c.smem_optin_per_block, 64 * KB);
	cr_expect_eq(c.smem_per_sm, 64 * KB);
	cr_expect_eq(c.max_threads_per_sm, 1024);
	cr_expect_eq(c.smem_reserved_per_block, KB);
	cr_expect_eq(c.has_cp_async, 0);
	kp_arch_common(v, 2, &c);
	cr_expect_str_eq(c.name, "sm_80");
	cr_expect_eq(c.smem_optin_per_block, 99 * KB);
	cr_expect_eq(c.max_blocks_per_sm, 16);
	cr_expect_eq(c.has_cp_async, 1);
}

/* sm_53 and sm_62: a block may hold 32K registers. */
Test(arch_occupancy, registers_per_block)
{
	const kp_arch *a = kp_arch_find("sm_62");
	cr_assert_not_null(a);
	cr_expect_eq(kp_arch_occupancy(a, 1024, 32, 0).blocks_per_sm, 2);
	cr_expect_eq(kp_arch_occupancy(a, 1024, 33, 0).blocks_per_sm, 0);
	cr_expect_eq(kp_arch_occupancy(kp_arch_find("sm_61"), 1024, 33, 0).blocks_per_sm, 1);
}
