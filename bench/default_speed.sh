#!/usr/bin/env bash
# default_speed.sh - the CPU a default `kpipe rewrite` spends on a file it
# has not seen (issue 33: "the default rewrite at most 0.3x of nvcc -c"),
# against `nvcc -arch=sm_90 -c` of the same file, for one or more kpipe
# builds side by side:
#
#   bash bench/default_speed.sh [-r ROUNDS] KPIPE [KPIPE...] -- SAMPLE...
#
# "Not seen": each run gets a copy of a cache folder that holds what any
# earlier use leaves behind (the precompiled CUDA headers for the default
# flags, the CPU emulator's files, precompiled header and runtime object,
# made by a rewrite of samples/sgemm_128x128x8.cu) but nothing of the
# file itself (no ptxas answer, no verified executable or result).  The
# default is what a user gets: ptxas asked about busy loops, the rewrite
# verified on the CPU emulator.  Prints one line per run (sample, build,
# wall s, user s, system s) and the mean CPU (user + system) per sample
# and build; the builds' outputs are compared byte for byte.
set -uo pipefail
rounds=3
if [ "${1:-}" = -r ]; then
	rounds=$2
	shift 2
fi
builds=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	builds+=("$(readlink -f "$1")")
	shift
done
[ "${1:-}" = -- ] && shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
samples=("$@")
[ ${#samples[@]} -gt 0 ] || samples=(matmul_32x32 matmul_template matmul_guarded sgemm_128x128x8)
[ ${#builds[@]} -gt 0 ] || builds=("$root/build/kpipe")
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
unset KPIPE_NO_PTXAS KPIPE_VERIFY_CACHE KPIPE_CACHE_DIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a template cache per build: headers and emulator, nothing of any sample
for i in "${!builds[@]}"; do
	KPIPE_CACHE_DIR="$tmp/tmpl$i" "${builds[$i]}" rewrite "$root/samples/sgemm_128x128x8.cu" -o /dev/null 2>/dev/null
	rm -rf "$tmp/tmpl$i/probe" "$tmp/tmpl$i/guard"
	find "$tmp/tmpl$i/verify" \( -name 'x-*' -o -name 'r-*' \) -exec rm -rf {} + 2>/dev/null
done
for ((r = 1; r <= rounds; r++)); do
	for s in "${samples[@]}"; do
		src="$root/samples/$s.cu"
		[ -f "$src" ] || { echo "default_speed.sh: no sample $src (name samples without .cu)" >&2; exit 2; }
		for i in "${!builds[@]}"; do
			rm -rf "$tmp/run"
			cp -r "$tmp/tmpl$i" "$tmp/run"
			KPIPE_CACHE_DIR="$tmp/run" /usr/bin/time -f "$s kpipe$i %e %U %S" \
				"${builds[$i]}" rewrite "$src" -o "$tmp/out$i.cu" 2>&1 >/dev/null | tail -n 1
		done
		/usr/bin/time -f "$s nvcc %e %U %S" "$nvcc" -arch=sm_90 -c "$src" -o "$tmp/o.o" 2>&1 | tail -n 1
		for i in "${!builds[@]}"; do
			cmp -s "$tmp/out0.cu" "$tmp/out$i.cu" || echo "$s: build $i writes another rewrite than build 0"
		done
	done
done | tee "$tmp/log"
echo
for i in "${!builds[@]}"; do echo "kpipe$i: ${builds[$i]}"; done
awk '$2 ~ /^(kpipe[0-9]+|nvcc)$/ { c[$1 " " $2] += $4 + $5; n[$1 " " $2]++ }
END { for (k in c) printf "%-36s mean CPU %.2f s\n", k, c[k] / n[k] }' "$tmp/log" | sort
