#!/usr/bin/env bash
# analyze_time.sh - wall time of `kpipe analyze` on each sample (median of
# 5 runs), the figure issue #2 asks to stay under 1 s on a 2-core machine.
#
#   bash bench/analyze_time.sh [KPIPE]
set -eu
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kpipe="${1:-$root/build/kpipe}"
printf '| sample | median s | max s |\n|---|---|---|\n'
for src in "$root"/samples/*.cu; do
	ts=()
	for _ in 1 2 3 4 5; do
		s=$(date +%s.%N)
		"$kpipe" analyze "$src" >/dev/null 2>&1 || true
		e=$(date +%s.%N)
		ts+=("$(echo "$e - $s" | bc)")
	done
	sorted=$(printf '%s\n' "${ts[@]}" | sort -n)
	printf '| %s | %.2f | %.2f |\n' "$(basename "$src")" "$(echo "$sorted" | sed -n 3p)" "$(echo "$sorted" | tail -1)"
done
