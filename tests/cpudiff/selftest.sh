#!/usr/bin/env bash
# selftest.sh - CTest cpudiff.selftest: the CPU checker's own checks on the
# small kernels of tests/cpudiff/selftest/ (one block reverses 64 elements
# through shared memory):
#   reverse.cu against itself and against its cp.async form   -> PASS (0)
#   the barrier removed                                        -> MISMATCH (1)
#   cp.async without __pipeline_wait_prior                     -> MISMATCH (1)
#   a barrier only half the threads reach                      -> ERROR divergent barrier (1)
#   a read past the end of the input                           -> ERROR out-of-bounds (1)
#   a thread recursing past its fiber stack                   -> ERROR stack overflow (1)
#   a warp shuffle                                             -> SKIP (77)
#   the barrier-less kernel as the ORIGINAL                    -> original schedule-dependent (2)
#   __syncthreads_count/_and/_or against shared atomics        -> PASS (0)
#   the copy as one cp.async.bulk completing an mbarrier         -> PASS (0)
#   ... without the mbarrier wait                              -> ERROR copies never waited for /
#                                                                 MISMATCH (1)
#   ... the mbarrier armed for more bytes than the copy brings -> ERROR deadlock (1)
#   a warp-wise reverse with __syncwarp() in a block using an
#   mbarrier (a barrier of the warp there)                     -> PASS (0)
#   CUDA's fast math intrinsics (__expf, __powf, __sincosf ...) -> PASS (0)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
st="$here/selftest"
if ! command -v g++ >/dev/null; then
	echo "SKIP: g++ not found"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
# expect ORIGINAL REWRITTEN STATUS PATTERN [SPEC]: the checker's exit status
# and a line of its output
expect() {
	local orig=$1 rew=$2 want=$3 pattern=$4 spec=${5:-reverse.launch.json} rc=0
	python3 "$here/cpudiff.py" "$st/$orig" "$st/$rew" --spec "$st/$spec" \
		--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" -eq "$want" ] && grep -Eq -- "$pattern" "$tmp/out"; then
		echo "ok   $orig vs $rew: exit $rc ($(grep -Em1 -- "$pattern" "$tmp/out" | cut -c1-110))"
		pass=$((pass + 1))
	else
		echo "FAIL $orig vs $rew: exit $rc, expected $want and a line matching '$pattern'"
		sed 's/^/    /' "$tmp/out" | head -20
		fail=$((fail + 1))
	fi
}
expect reverse.cu reverse.cu 0 '^cpudiff: PASS'
expect reverse.cu reverse_cpasync.cu 0 '^cpudiff: PASS: 20 runs'
expect reverse.cu reverse_nobar.cu 1 'rewrite +fwd +wait +MISMATCH out:'
expect reverse.cu reverse_cpasync_nowait.cu 1 'rewrite +fwd +wait +MISMATCH'
expect reverse.cu reverse_divergent.cu 1 'ERROR divergent barrier'
expect reverse.cu reverse_oob.cu 1 "ERROR .*out-of-bounds access .* past the end of buffer 'in'"
expect reverse.cu reverse_shfl.cu 77 '^SKIP: .*__shfl_sync'
expect reverse_nobar.cu reverse.cu 2 'original +rev +wait +MISMATCH'
expect vote.cu vote_atomic.cu 0 '^cpudiff: PASS' vote.launch.json
expect reverse.cu reverse_bulk.cu 0 '^cpudiff: PASS: 20 runs'
expect reverse.cu reverse_bulk_nowait.cu 1 'rewrite +fwd +wait +ERROR .*bulk copies into shared memory were never waited for'
expect reverse.cu reverse_bulk_overexpect.cu 1 'ERROR deadlock: .* waits for the phase of parity 0 of the mbarrier'
expect warp_reverse.cu warp_reverse_syncwarp.cu 0 '^cpudiff: PASS'
expect reverse_intrin.cu reverse_intrin.cu 0 '^cpudiff: PASS'
expect reverse.cu reverse_deep.cu 1 'ERROR stack overflow: in block \(0,0,0\) thread \(5,0,0\) used more than the emulator.s 512 KB of stack'
# the cp.async form without the wait is right when copies land at issue:
# the checker must not call it wrong there
python3 "$here/cpudiff.py" "$st/reverse.cu" "$st/reverse_cpasync_nowait.cu" --spec "$st/reverse.launch.json" \
	--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" --modes issue -q >"$tmp/out" 2>&1 && rc=0 || rc=$?
if [ "$rc" -eq 0 ]; then
	echo "ok   reverse.cu vs reverse_cpasync_nowait.cu with copies landing at issue only: PASS"
	pass=$((pass + 1))
else
	echo "FAIL reverse_cpasync_nowait.cu with --modes issue: exit $rc, expected 0"
	fail=$((fail + 1))
fi
echo "cpudiff.selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
