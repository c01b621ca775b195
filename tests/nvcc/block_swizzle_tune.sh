#!/usr/bin/env bash
# block_swizzle_tune.sh - `kpipe tune` builds V+swz (issue 35): each
# variant also with `rewrite --block-swizzle` (the blocks remapped in
# groups of 8 rows, src/rewrite/pass_block_swizzle.c), one more candidate
# where the remap changes the text; its text is `rewrite --variant V
# --block-swizzle`'s; a kernel the remap refuses gets no +swz build; the
# table lists the +swz builds.  Without a GPU tune stops before timing
# (exit 6) with the builds kept in --gpu-dir.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir block-swizzle-tune
export KPIPE_NO_PTXAS=1
s="$root/samples"

"$kpipe" tune "$s/matmul_32x32.cu" -o "$tmp/t.cu" --gpu-dir "$tmp/gd" >"$tmp/t.out" 2>"$tmp/t.err"
"$kpipe" rewrite "$s/matmul_32x32.cu" --variant cp-async --block-swizzle -o "$tmp/cp.cu" 2>/dev/null
"$kpipe" rewrite "$s/matmul_32x32.cu" --variant register --block-swizzle -o "$tmp/reg.cu" 2>/dev/null
check "tune: cp-async+swz built" test -s "$tmp/gd/cp-async+swz.cu"
check "tune: cp-async+swz is rewrite --block-swizzle's text" cmp -s "$tmp/gd/cp-async+swz.cu" "$tmp/cp.cu"
check "tune: register+swz is rewrite --block-swizzle's text" cmp -s "$tmp/gd/register+swz.cu" "$tmp/reg.cu"
check "tune: only the +swz builds are remapped" \
	bash -c "cd '$tmp/gd' && ! grep -l kp_swz_bx *.cu | grep -v '+swz.cu\$'"

# a persistent kernel: the remap is refused, so no +swz build
"$kpipe" tune "$s/matmul_persistent.cu" -o "$tmp/p.cu" --gpu-dir "$tmp/pd" >"$tmp/p.out" 2>"$tmp/p.err"
check "tune: persistent kernel, a variant built" bash -c "ls '$tmp/pd'/*.cu >/dev/null 2>&1"
check "tune: persistent kernel, no +swz build" bash -c "! ls '$tmp/pd'/*+swz.cu >/dev/null 2>&1"

kp_summary
