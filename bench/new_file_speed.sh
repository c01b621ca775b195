#!/usr/bin/env bash
# new_file_speed.sh - the table "A new file with those warm" of
# docs/benchmarks.md (issue 33, "Batch speed"): CPU seconds (user+system,
# children included) of `nvcc -c` of a sample and of kpipe `rewrite` of it
# in a cache that holds the CUDA headers' and the emulator's precompiled
# headers (samples/matmul_guarded.cu rewritten first in the same cache),
# by default, --no-verify (ptxas asked), --no-verify again (ptxas's reports
# kept) and --no-verify --no-ptxas; each column a new cache.
#
#   bash bench/new_file_speed.sh [KPIPE] [SAMPLE...]
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kpipe="${1:-$root/build/kpipe}"
shift || true
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
unset KPIPE_NO_PTXAS KPIPE_VERIFY_CACHE
cpu() {
	/usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null 2>&1
	read -r u s <"$tmp/t"
	echo "$u + $s" | bc
}
# warm DIR: a cache holding the precompiled headers
warm() { KPIPE_CACHE_DIR="$1" "$kpipe" rewrite "$root/samples/matmul_guarded.cu" -o "$tmp/w.cu" >/dev/null 2>&1; }
echo "| file | nvcc -c | rewrite (default) | --no-verify, ptxas asked | --no-verify, ptxas's reports kept | --no-verify --no-ptxas |"
echo "|---|---|---|---|---|---|"
[ $# -gt 0 ] || set -- matmul_32x32 matmul_template sgemm_128x128x8
for s in "$@"; do
	f="$root/samples/$s.cu"
	a=$(cpu "$nvcc" -arch=sm_90 -c "$f" -o "$tmp/o.o")
	for k in 1 2 3; do
		rm -rf "$tmp/c$k"
		warm "$tmp/c$k"
	done
	b=$(KPIPE_CACHE_DIR="$tmp/c1" cpu "$kpipe" rewrite "$f" -o "$tmp/o.cu")
	c=$(KPIPE_CACHE_DIR="$tmp/c2" cpu "$kpipe" rewrite --no-verify "$f" -o "$tmp/o.cu")
	d=$(KPIPE_CACHE_DIR="$tmp/c2" cpu "$kpipe" rewrite --no-verify "$f" -o "$tmp/o.cu")
	e=$(KPIPE_CACHE_DIR="$tmp/c3" cpu "$kpipe" rewrite --no-verify --no-ptxas "$f" -o "$tmp/o.cu")
	echo "| $s | $a | $b | $c | $d | $e |"
done
