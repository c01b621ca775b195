#!/usr/bin/env bash
# swz_gpu.sh - the block-swizzle versions of bench/families.sh's families
# (kpipe rewrite --block-swizzle) against the versions they were made from,
# the authors' kernels and cuBLAS: bit-for-bit checks at every size and the
# time at 4096^3, without compute-sanitizer, in one short GPU call (the
# whole families run, sanitizer included, takes several minutes).
#
#   bash bench/swz_gpu.sh prepare [REGEX]
#       here, after bench/families.sh PREPARE=1: gpu-swz/NAME/ for each
#       family whose name matches REGEX (default: every family with a
#       -swz version) holds the textbook kernel, each V-swz, its V, and the
#       yardsticks (YARDS=REGEX: those whose name matches, default all)
#   OUT=DIR bash bench/swz_gpu.sh run
#       on the GPU machine, carrying gpu-swz: bench/gpu_headers.sh on it,
#       every family built at once first; DIR/NAME.{md,json,log} and
#       DIR/all.tgz
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/gpu-swz"
case "${1:-}" in
prepare)
	re=${2:-.}
	rm -rf "$work"
	mkdir -p "$work"
	for d in "$root"/gpu-families/*/; do
		name=$(basename "$d")
		grep -qE "$re" <<<"$name" || continue
		compgen -G "$d*-swz.cu" >/dev/null || continue
		cp -r "$d" "$work/$name"
		for f in "$work/$name"/*.cu; do
			v=$(basename "$f" .cu)
			case "$v" in
			yard-*)
				grep -qE "${YARDS:-.}" <<<"${v#yard-}" || rm -f "$f"
				continue
				;;
			kernel | *-swz) continue ;;
			esac
			[ -f "$work/$name/$v-swz.cu" ] || rm -f "$f"
		done
		echo "$name: $(cd "$work/$name" && ls ./*.cu | xargs -n1 basename | tr '\n' ' ')"
	done
	;;
run)
	OUT="${OUT:-$root/gpu-swz-out}" HEADERS_DIR="$work" SANITIZE=0 PARALLEL_BUILD=1 \
		GPU_BENCH_ARGS="--nvcc-flags=-lcublas ${GPU_BENCH_ARGS:-}" bash "$root/bench/gpu_headers.sh"
	;;
*)
	sed -n '2,16s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac
