#!/usr/bin/env bash
# block_swizzle.sh - `rewrite --block-swizzle[=G]` (issue 35,
# src/rewrite/pass_block_swizzle.c) on the samples and the fixtures of
# tests/cli/block_swizzle/:
#   - the option: G's default (8) and =G in the code and the note, bad
#     values and other commands refuse it (usage error), the help lists it;
#   - every blockIdx.x / .y of the kernel's body reads the remapped
#     coordinates (blockIdx left only in the entry's declaration), the
#     launch and blockIdx.z are unchanged, the grid's bijection is the one
#     of the pass's comment (checked here over many grids and G in C);
#   - without the option, and with --variant auto, nothing is remapped;
#     --no-comment drops the comment; --kernel limits it to one kernel;
#     with --pad it composes (padded, pipelined and remapped); a second
#     run on kpipe's output leaves the remap as it is (a remark);
#   - refusals with their reasons: PTX reading %ctaid, red.global, a grid
#     group of cooperative groups, a callee without a body, blockIdx used
#     whole (more_refusals.cu), libcu++'s atomic_ref and device-scope
#     fence (libcu.cu; a block-scope fence is remapped); the golden case
#     rewrite-block-swizzle-refusals has the others.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir block_swizzle
cd "$root" || exit 1
export KPIPE_NO_PTXAS=1
s=samples
fx=tests/cli/block_swizzle
note='\[kpipe-block-swizzled\]'
refused='\[kpipe-block-swizzle-refused\]'

# 1. the option
"$kpipe" rewrite --block-swizzle --variant cp-async "$s/matmul_32x32.cu" -o "$tmp/m8.cu" 2>"$tmp/m8.err"
check "default: exit 0" test $? = 0
check "default: G = 8 in the code" grep -q 'kp_swz_n = 8ull \* gridDim.x;' "$tmp/m8.cu"
check "default: the note says G = 8" grep -q "remapped in groups of 8 rows of blocks (--block-swizzle=8).*$note" "$tmp/m8.err"
check "default: pipelined too" grep -q '__pipeline_memcpy_async' "$tmp/m8.cu"
"$kpipe" rewrite --block-swizzle=5 "$s/matmul_32x32.cu" -o "$tmp/m5.cu" 2>"$tmp/m5.err"
check "=5: in the code" grep -q 'kp_swz_h = gridDim.y - kp_swz_y0 < 5u ? gridDim.y - kp_swz_y0 : 5u;' "$tmp/m5.cu"
for bad in 0 -1 x 65536 3x; do
	"$kpipe" rewrite --block-swizzle="$bad" "$s/matmul_32x32.cu" -o /dev/null 2>"$tmp/bad.err"
	check "=$bad: usage error (exit 2)" test $? = 2
	check "=$bad: said" grep -q "invalid value '$bad' for '--block-swizzle'" "$tmp/bad.err"
done
"$kpipe" analyze --block-swizzle "$s/matmul_32x32.cu" >/dev/null 2>"$tmp/an.err"
check "analyze: unknown option (exit 2)" test $? = 2
"$kpipe" rewrite --help >"$tmp/help.txt"
check "help: listed" grep -q -- '--block-swizzle=G ' "$tmp/help.txt"
"$kpipe" --list-options rewrite >"$tmp/opts.txt" 2>/dev/null
check "completions: listed" grep -q -- '^--block-swizzle' "$tmp/opts.txt"

# 2. what is rewritten
"$kpipe" rewrite --block-swizzle=3 --variant register "$s/sgemm_128x128x8.cu" -o "$tmp/sg.cu" 2>"$tmp/sg.err"
check "sgemm: 2 reads of each replaced" grep -q "2 reads of blockIdx.x and 2 of blockIdx.y now read kp_swz_bx and kp_swz_by.*$note" "$tmp/sg.err"
check "sgemm: blockIdx left only in the entry's declaration" \
	test "$(grep -c 'blockIdx' "$tmp/sg.cu")" = 1
check "sgemm: the launch unchanged" \
	bash -c "diff <(grep '<<<' '$s/sgemm_128x128x8.cu') <(grep '<<<' '$tmp/sg.cu')"
"$kpipe" rewrite --block-swizzle=4 "$fx/batched.cu" -o "$tmp/bt.cu" 2>"$tmp/bt.err"
check "batched: remapped" grep -q "$note" "$tmp/bt.err"
check "batched: blockIdx.z left as it is (twice)" test "$(grep -v '^//' "$tmp/bt.cu" | grep -c 'blockIdx\.z')" = 2
check "batched: verified on the CPU emulator (no warning)" bash -c "! grep -q 'warning:' '$tmp/bt.err'"

# the remap of the entry, compiled as C over grids of 1..12 x 1..12 blocks
# and G of 1..10: every (x, y) of the grid once
sed -n 's/^ *const unsigned \(long long\|int\) \(kp_swz_[a-z0-9]*\) = /\2 = /p' "$tmp/m5.cu" |
	sed 's/blockIdx\.\([xy]\)/b\1/g; s/gridDim\.\([xy]\)/g\1/g; s/5ull/(unsigned long long)G/; s/5u\b/G/g; s/5u;/G;/' >"$tmp/remap.inc"
cat >"$tmp/bij.c" <<'C'
#include <stdio.h>
#include <string.h>
int main(void)
{
	static char seen[12][12];
	for (unsigned G = 1; G <= 10; G++)
		for (unsigned gx = 1; gx <= 12; gx++)
			for (unsigned gy = 1; gy <= 12; gy++) {
				memset(seen, 0, sizeof(seen));
				for (unsigned by = 0; by < gy; by++)
					for (unsigned bx = 0; bx < gx; bx++) {
						unsigned long long kp_swz_id, kp_swz_n;
						unsigned kp_swz_y0, kp_swz_h, kp_swz_by, kp_swz_bx;
#include "remap.inc"
						if (kp_swz_bx >= gx || kp_swz_by >= gy || seen[kp_swz_by][kp_swz_bx]++) {
							printf("G %u grid %ux%u: (%u,%u) -> (%u,%u)\n", G, gx, gy, bx, by, kp_swz_bx, kp_swz_by);
							return 1;
						}
					}
			}
	puts("bijection");
	return 0;
}
C
check "the remap is a bijection of every grid up to 12x12 for G 1..10" \
	bash -c "cc -o '$tmp/bij' -I'$tmp' '$tmp/bij.c' && '$tmp/bij' | grep -qx bijection"
check "the remap's C reads no blockIdx left (the test substituted all)" bash -c "! grep -q 'blockIdx\|gridDim' '$tmp/remap.inc'"

# 3. when nothing is remapped, and how the option composes
"$kpipe" rewrite --variant cp-async "$s/matmul_32x32.cu" -o "$tmp/plain.cu" 2>/dev/null
check "without the option: no remap" bash -c "! grep -q kp_swz '$tmp/plain.cu'"
"$kpipe" rewrite "$s/matmul_32x32.cu" -o "$tmp/auto.cu" 2>/dev/null
check "--variant auto: no remap" bash -c "! grep -q kp_swz '$tmp/auto.cu'"
"$kpipe" rewrite --block-swizzle --no-comment --variant cp-async "$s/matmul_32x32.cu" -o "$tmp/nc.cu" 2>/dev/null
check "--no-comment: no comment, the remap kept" \
	bash -c "! grep -q 'kpipe --block-swizzle' '$tmp/nc.cu' && grep -q kp_swz_bx '$tmp/nc.cu'"
check "the comment otherwise" grep -q '// kpipe --block-swizzle=8: blocks started one after another' "$tmp/m8.cu"
"$kpipe" rewrite --block-swizzle --kernel shared_histogram \
	tests/golden/cases/rewrite-block-swizzle-refusals/input.cu -o "$tmp/one.cu" 2>"$tmp/one.err"
check "--kernel: that kernel remapped" grep -q "kernel 'shared_histogram' remapped" "$tmp/one.err"
check "--kernel: the others not looked at" test "$(grep -c 'block-swizzle' "$tmp/one.err")" = 1
"$kpipe" rewrite --pad --block-swizzle --variant cp-async "$s/matmul_column_read.cu" -o "$tmp/pad.cu" 2>"$tmp/pad.err"
check "--pad: padded and remapped" \
	bash -c "grep -q 'kpipe-padded' '$tmp/pad.err' && grep -q '$note' '$tmp/pad.err' && grep -q kp_swz_bx '$tmp/pad.cu'"
"$kpipe" rewrite --block-swizzle "$tmp/m8.cu" -o "$tmp/again.cu" 2>"$tmp/again.err"
check "again: left as it is (a remark)" \
	bash -c "grep -q \"remark: .*already remapped (kpipe's own output).*$refused\" '$tmp/again.err' && ! grep -q kp_swz_id_1 '$tmp/again.cu'"

# 4. refusals, each with its reason
"$kpipe" rewrite --block-swizzle "$fx/more_refusals.cu" -o "$tmp/mr.cu" 2>"$tmp/mr.err"
check "refusals: exit 0, nothing remapped" bash -c "! grep -q kp_swz '$tmp/mr.cu'"
check "refused: %ctaid in PTX" grep -q "kernel 'ctaid_in_asm' not remapped.*reads the block's or the cluster's coordinates (%ctaid.*$refused" "$tmp/mr.err"
check "refused: red.global" grep -q "kernel 'red_global' not remapped.*'red.global.add.f32' is an atomic outside shared memory.*$refused" "$tmp/mr.err"
check "refused: this_grid" grep -q "kernel 'grid_group' not remapped.*'this_grid' at line 27 reads the grid.*$refused" "$tmp/mr.err"
check "refused: a callee without a body" grep -q "kernel 'unknown_callee' not remapped.*the call to 'elsewhere' at line 37: kpipe does not read its body.*$refused" "$tmp/mr.err"
check "refused: blockIdx used whole" grep -q "kernel 'whole_blockidx' not remapped.*blockIdx is used whole at line 42.*$refused" "$tmp/mr.err"
check "refusals: five" test "$(grep -c "$refused" "$tmp/mr.err")" = 5
"$kpipe" rewrite --block-swizzle "$fx/libcu.cu" -o "$tmp/lc.cu" 2>"$tmp/lc.err"
check "refused: cuda::atomic_ref" grep -q "kernel 'counted' not remapped.*atomic_ref at line 10.*$refused" "$tmp/lc.err"
check "refused: cuda::atomic_thread_fence" grep -q "kernel 'device_fence' not remapped.*atomic_thread_fence at line 18.*$refused" "$tmp/lc.err"
check "__threadfence_block: remapped" grep -q "kernel 'block_fence' remapped.*$note" "$tmp/lc.err"

kp_summary
