#!/usr/bin/env bash
# tma_gpu.sh - issue #19's tensor-map form on the H200, in one call: the
# samples whose kernel is launched in their own file, each with the best
# cp.async ring, bulk and tma with 2, 3 and 4 stages (bench/bulk_profile.sh:
# every version checked bit for bit at every size of its launch description,
# compute-sanitizer memcheck, racecheck and synccheck at every size, timed
# at the target size, one Nsight Compute profile each), then every standard
# variant of the samples named in $SAMPLES (bench/pending_gpu.sh samples:
# auto's choice among them).
#
#   OUT=DIR bash bench/tma_gpu.sh
#
# TMA_SAMPLES="NAME:STAGES ..." replaces the default list (NAME's best
# cp.async ring has STAGES stages: wmma_loop_tma is wmma_fp16_64x64x32,
# whose best is 4, with a launcher; sgemm_loop_tma and wmma_loop_tma fill
# their tiles by copy loops, the tensor-map form of issue #35).
#
# Writes DIR/prof/ (bulk_profile.sh's report: summary.md, NAME.md/json/log,
# the ncu tables) and DIR/samples/ (gpu_samples.sh's reports).  The build
# directories are removed (they hold the compiled variants).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 2
out="${OUT:-$root/tma-gpu-out}"
mkdir -p "$out/prof"
status=0
OUT="$out/prof" SANITIZE=1 SANITIZE_SIZES=tiny,small,even,odd,empty \
	BULK="bulk tma tma-s3:--stages=3 tma-s4:--stages=4" \
	bash bench/bulk_profile.sh ${TMA_SAMPLES:-sgemm_tma_host:2 wmma_tma_half:2 matmul_32x32:4 matmul_cuda_sample_style:2 wmma_loop_tma:4 sgemm_loop_tma:3} \
	>"$out/prof/summary.md" 2>&1 || status=1
echo "bulk_profile: exit $status"
if [ -n "${SAMPLES:-}" ]; then
	OUT="$out" bash bench/pending_gpu.sh samples >"$out/samples.log" 2>&1 || status=1
	echo "samples: $(tail -1 "$out/samples.log")"
fi
rm -rf "$out"/prof/build-* "$out"/samples/build* 2>/dev/null
exit "$status"
