#!/usr/bin/env bash
# template_instantiations.sh - rewrites of template kernels instantiated
# more than once compile with nvcc for sm_90 (and sm_80), every
# instantiation included: kpipe checks each instantiation it sees, so what
# it rewrites must fit all of them.
#   - template <int TILE> launched as <32> and <16>: cp.async, register
#     staging and the default choice;
#   - template <typename T, int TILE> for float and __half: the default
#     (register staging: the __half copies are 2 bytes, too small for
#     cp.async), and --variant cp-async refused naming <__half, 32>;
#   - <32> and <64>, where two buffers of <64> would need 64 KB of static
#     shared memory (ptxas would reject it: "uses too much shared data"):
#     both launches are in the file, so the default, cp.async and
#     two-buffer register staging move the tiles to dynamic shared memory
#     and edit both launches (sized for <64>), in either launch order, and
#     the whole file compiles; register-2bar keeps one static buffer; 4
#     stages on sm_86 (99 KB opt-in) are refused naming <64>.
# The inputs are those of the golden cases tests/golden/cases/*template_*.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
cases="$root/tests/golden/cases"
fit="$cases/analyze-template_tiles_fit/kernel.cu"
typed="$cases/analyze-template_typename/kernel.cu"
over="$cases/analyze-template_tile_over_budget/kernel.cu"
over_swapped="$cases/analyze-template_tile_over_budget_swapped/kernel.cu"
kp_tmpdir nvcc-templates

# rewrite SRC NAME [kpipe options...]: rewrite, then compile for sm_80/sm_90
compiles() {
	local src="$1" name="$2"
	shift 2
	local out="$tmp/$name.cu"
	if ! "$kpipe" rewrite "$@" "$src" -o "$out" 2>"$tmp/err"; then
		bad "$name: rewrite failed: $(head -c 300 "$tmp/err")"
		return
	fi
	if ! grep -q "kp_stage" "$out"; then
		bad "$name: the loop was not rewritten"
		return
	fi
	if kp_nvcc_both "$out"; then
		ok
	else
		bad "$name: nvcc (sm_80, sm_90) failed: $(head -c 400 "$tmp/nv")"
	fi
}

# refused SRC NAME PATTERN [kpipe options...]: exit 0, the input written
# unchanged, PATTERN on stderr
refused() {
	local src="$1" name="$2" pat="$3"
	shift 3
	local out="$tmp/$name.cu"
	"$kpipe" rewrite "$@" "$src" -o "$out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -eq 0 ] && cmp -s "$out" "$src" && grep -q -- "$pat" "$tmp/err"; then
		ok
	else
		bad "$name: expected a refusal matching '$pat' (rc=$rc): $(head -c 300 "$tmp/err")"
	fi
}

compiles "$fit" fit-auto
compiles "$fit" fit-cp-async --variant cp-async
compiles "$fit" fit-cp-async-s3 --variant cp-async --stages 3
compiles "$fit" fit-register --variant register
compiles "$typed" typed-auto
compiles "$typed" typed-register --variant register
if grep -q "// kpipe:.*converts" "$tmp/typed-auto.cu"; then
	bad "typed-auto: the rewrite's comment claims a T -> T copy converts"
else
	ok
fi
if grep -q "kpipe: register staging.*for instantiation <__half, 32>" "$tmp/typed-auto.cu"; then ok; else bad "typed-auto: the comment does not name <__half, 32>"; fi
refused "$typed" typed-cp-async "for instantiation <__half, 32>: .*2-byte copies.*kpipe-variant-unavailable" --variant cp-async
compiles "$over" over-auto
compiles "$over_swapped" over-swapped-auto
compiles "$over" over-cp-async --variant cp-async
compiles "$over" over-register --variant register
compiles "$over" over-register-2bar --variant register-2bar
for v in over-auto over-swapped-auto over-cp-async over-register; do
	if grep -q "extern __shared__ __align__(16) unsigned char kp_dsmem\[\];" "$tmp/$v.cu" &&
		[ "$(grep -c 'cudaFuncAttributeMaxDynamicSharedMemorySize, 65536), 65536)>>>' "$tmp/$v.cu")" = 2 ]; then
		ok
	else
		bad "$v: the tiles are not in dynamic shared memory, or the two launches do not pass 65536 B"
	fi
done
if grep -q "// kpipe: register staging, 1 buffer, 2 barriers" "$tmp/over-register-2bar.cu"; then ok; else bad "over-register-2bar: not the one-buffer form"; fi
refused "$over" over-sm86-s4 "for instantiation <64>: 4 stages need 131072 B.*opt-in limit of sm_86.*kpipe-smem-over-limit" --variant cp-async --stages 4 --arch sm_86
# the original of the over-budget kernel compiles: only a two-buffer rewrite would not
if "$nvcc" -arch=sm_90 -c -o "$tmp/o.o" "$over" 2>"$tmp/nv"; then ok; else bad "over: the original does not compile: $(head -c 300 "$tmp/nv")"; fi

kp_summary
