#!/usr/bin/env bash
# gpu_pad.sh - does `--variant auto`'s padding pay?  For every sample whose
# default rewrite pads a tile (kpipe-padded), the rewrite as auto writes it
# (padded) against `--no-pad`, and cp-async and register staging each with
# and without --pad; and LeetCUDA's wmma HGEMM kernels (the block given
# as their binding launches them) with the same versions, beside the
# author's own double-buffered, padded kernel of the same tiles.  All
# checked bit for bit against the original at every size, sanitized, and
# timed at 4096^3 on the GPU (bench/gpu_samples.sh, bench/gpu_headers.sh).
#
#   PREPARE=1 bash bench/gpu_pad.sh KPIPE LEETCUDA_DIR
#       here: gpu-pad/ (the samples' versions) and gpu-pad-headers/
#       (LeetCUDA's), both git-ignored; nothing of LeetCUDA is committed.
#   bash bench/gpu_pad.sh
#       on the GPU machine: $OUT/samples/, $OUT/headers/, $OUT/all.tgz.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pad_dir="$root/gpu-pad"
hdr_dir="$root/gpu-pad-headers"
versions="auto auto-nopad cp-async cp-async-pad register register-pad"

if [ -n "${PREPARE:-}" ]; then
	kpipe="${1:?usage: PREPARE=1 bash bench/gpu_pad.sh KPIPE LEETCUDA_DIR}"
	lc="${2:?usage: PREPARE=1 bash bench/gpu_pad.sh KPIPE LEETCUDA_DIR}"
	rm -rf "$pad_dir"
	mkdir -p "$pad_dir"
	names=()
	for src in "$root"/samples/*.cu; do
		name=$(basename "$src" .cu)
		"$kpipe" rewrite "$src" -o /dev/null 2>"$pad_dir/probe.log"
		grep -q '\[kpipe-padded\]' "$pad_dir/probe.log" || continue
		names+=("$name")
		for v in $versions; do
			args=()
			case "$v" in
			*-nopad) args=(--variant "${v%-nopad}" --no-pad) ;;
			*-pad) args=(--variant "${v%-pad}" --pad) ;;
			*) args=(--variant "$v") ;;
			esac
			"$kpipe" rewrite "${args[@]}" "$src" -o "$pad_dir/$name.$v.cu" 2>"$pad_dir/$name.$v.log"
			# a refusal writes the input unchanged: no file
			if cmp -s "$src" "$pad_dir/$name.$v.cu"; then rm -f "$pad_dir/$name.$v.cu"; fi
		done
	done
	rm -f "$pad_dir/probe.log"
	echo "${names[*]}" >"$pad_dir/NAMES"
	echo "samples: ${names[*]}"
	rm -rf "$hdr_dir"
	HEADERS_DIR="$hdr_dir" ONLY='leetcuda_hgemm_wmma' HEADERS_BLOCK=1 \
		VARIANTS="$versions cp-async-s3 cp-async-s3-pad cp-async-s4 cp-async-s4-pad" \
		PREPARE=1 bash "$root/bench/gpu_headers.sh" /nonexistent /nonexistent "$lc" "$kpipe" || exit 1
	# the author's own pipelined kernel of warp2x4's tiles (double
	# buffers, cp.async, rows padded by 8 halfs), launched in place of
	# the textbook kernel through a pointer of the same name
	d="$hdr_dir/leetcuda_hgemm_wmma_warp2x4"
	cat >"$d/yard-author.cu" <<'EOF'
#include <cstdint>
#define hgemm_wmma_m16n16k16_mma4x2_warp2x4_kernel kp_textbook_renamed
#include "orig/hgemm_wmma.cu"
#undef hgemm_wmma_m16n16k16_mma4x2_warp2x4_kernel
template <int A, int B, int C, int D, int E, int F, int G>
static void (*const hgemm_wmma_m16n16k16_mma4x2_warp2x4_kernel)(half *, half *, half *, int, int, int) =
    hgemm_wmma_m16n16k16_mma4x2_warp2x4_dbuf_async_kernel<A, B, C, D, E, F, G, 8>;
EOF
	ls "$hdr_dir"/*/
	exit 0
fi

out="${OUT:-$root/gpu-pad-out}"
mkdir -p "$out/samples" "$out/headers"
status=0
# shellcheck disable=SC2046 # the names, split
OUT="$out/samples" bash "$root/bench/gpu_samples.sh" "$pad_dir" $(cat "$pad_dir/NAMES") || status=1
OUT="$out/headers" HEADERS_DIR="$hdr_dir" bash "$root/bench/gpu_headers.sh" || status=1
tar -C "$out" -czf "$out/../gpu-pad.tgz" samples headers && mv "$out/../gpu-pad.tgz" "$out/all.tgz"
exit $status
