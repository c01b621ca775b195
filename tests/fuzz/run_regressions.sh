#!/usr/bin/env bash
# run_regressions.sh - replays every input in tests/fuzz/regressions/ (inputs
# that once crashed, hung or misbehaved, found by the fuzzer or by hand)
# through `kpipe analyze` (text and JSON) and `kpipe rewrite -o`, with a
# timeout each.  Exit codes 0, 1 and 3 are answers; a signal, an exit of
# 124 (timeout) or >= 128, or a sanitizer report is a failure.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
limit="${KPIPE_REGRESSION_TIMEOUT:-60}"
kp_tmpdir fuzzreg

# run NAME CMD...: the command must answer (0, 1 or 3) in time, cleanly.
run() {
	local what="$1"
	shift
	local t0 t1 rc
	t0=$(date +%s.%N)
	timeout -k 5 "$limit" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	t1=$(date +%s.%N)
	local why=""
	case "$rc" in
	0 | 1 | 3) ;;
	124 | 137) why="no answer within $limit s" ;;
	*) why="exit $rc" ;;
	esac
	if [ -z "$why" ] && grep -qE 'Sanitizer|runtime error:|internal error' "$tmp/err"; then
		why="sanitizer or internal error report"
	fi
	if [ -n "$why" ]; then
		fail=$((fail + 1))
		echo "FAIL: $what: $why"
		tail -n 20 "$tmp/err" | sed 's/^/    /'
	else
		pass=$((pass + 1))
		printf 'ok   %s (exit %s, %.1f s)\n' "$what" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
	fi
}

shopt -s nullglob
inputs=("$root"/tests/fuzz/regressions/*)
for f in "${inputs[@]}"; do
	n=$(basename "$f")
	# the name kpipe sees ends in .cu whatever the input is called
	cp "$f" "$tmp/in.cu"
	run "$n: analyze" "$kpipe" analyze "$tmp/in.cu"
	run "$n: analyze --format json" "$kpipe" analyze --format json "$tmp/in.cu"
	run "$n: rewrite -o" "$kpipe" rewrite "$tmp/in.cu" -o "$tmp/out.cu"
	if [ -f "$tmp/out.cu" ]; then
		run "$n: rewrite of the output" "$kpipe" rewrite "$tmp/out.cu" -o "$tmp/out2.cu"
		rm -f "$tmp/out.cu" "$tmp/out2.cu"
	fi
done
echo "$pass passed, $fail failed (${#inputs[@]} regression inputs)"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
