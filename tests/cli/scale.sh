#!/usr/bin/env bash
# scale.sh - a file of many kernels is rewritten in time linear in their
# number: 2000 small tiled kernels in one file must take at most 8 times
# the CPU time of 500 (4x is linear; the quadratic lookups this guards
# against gave 12x and more: 2000 kernels 20 s, 5000 two minutes), or
# under 8 s of CPU in all.  CPU time (user + sys), not wall time, so a
# loaded machine does not fail it.  Every kernel must be pipelined.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir scale

# cpu N: rewrites the N-kernel file; sets secs (CPU seconds) and rc
cpu() {
	kp_gen_kernels "$1" >"$tmp/k$1.cu"
	local TIMEFORMAT='%U %S'
	local t
	t=$({ time "$kpipe" rewrite "$tmp/k$1.cu" -o "$tmp/o$1.cu" 2>"$tmp/e$1" >/dev/null; } 2>&1)
	rc=$?
	secs=$(echo "$t" | awk '{ printf "%.2f", $1 + $2 }')
}

cpu 500
check "500 kernels: exit 0" test "$rc" -eq 0
s500=$secs
cpu 2000
check "2000 kernels: exit 0" test "$rc" -eq 0
s2000=$secs
check "2000 kernels: every one pipelined" test "$(grep -c 'kp_stage' "$tmp/o2000.cu")" -ge 2000
echo "CPU seconds: 500 kernels $s500, 2000 kernels $s2000"
check "2000 kernels in time linear in their number ($s2000 s vs $s500 s for 500)" \
	awk -v a="$s500" -v b="$s2000" 'BEGIN { exit !(b <= 8 * a || b < 8) }'
kp_summary scale
