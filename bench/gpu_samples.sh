#!/usr/bin/env bash
# gpu_samples.sh - some samples on the GPU: for each NAME given, the
# original against every kpipe output OUTDIR/NAME.VARIANT.cu (written by
# bench/make_variants.sh), bit for bit at every size of its launch spec,
# compute-sanitizer memcheck, racecheck and synccheck at the small size,
# timed at the target size.  Reports in $OUT (or ./gpu-samples-out):
# NAME.md, NAME.json, summary.txt.  The variants find the samples' own
# headers (samples/*.cuh) through -I samples.  SAMPLES_DIR: another folder
# of kernels with launch descriptions (NAME.cu, NAME.launch.json).
#
#   bash bench/gpu_samples.sh OUTDIR NAME...
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 2 ] || {
	echo "usage: bench/gpu_samples.sh OUTDIR NAME..." >&2
	exit 2
}
dir=$1
shift
out="${OUT:-$PWD/gpu-samples-out}"
mkdir -p "$out"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi -L 2>&1
	echo "commit: ${KPIPE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} >"$out/summary.txt"
status=0
for name in "$@"; do
	vs=()
	for f in "$dir/$name".*.cu; do
		[ -e "$f" ] || continue
		v=${f#"$dir/$name".}
		vs+=(--variant "${v%.cu}=$f")
	done
	sd="${SAMPLES_DIR:-$root/samples}"
	python3 "$root/bench/gpu_bench.py" --spec "$sd/$name.launch.json" \
		--baseline "$sd/$name.cu" "${vs[@]}" --sanitize --no-hand --quiet \
		--nvcc-flags="-I$sd -I$root/samples" \
		--report "$out/$name.md" --json "$out/$name.json" >"$out/$name.log" 2>&1
	rc=$?
	echo "$name: gpu_bench exit $rc ($(( ${#vs[@]} / 2 )) variants)" >>"$out/summary.txt"
	[ $rc = 0 ] || status=1
done
cat "$out/summary.txt"
exit $status
