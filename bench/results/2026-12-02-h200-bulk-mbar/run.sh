#!/usr/bin/env bash
# run.sh - the device run of bulk-mbar (issue #19), after prepare.sh: for
# each sample, every version checked against the original at every size of
# its launch spec and timed at `target` (bench/gpu_bench.py: median of 21
# launches after 3 warm-ups), then the bulk and bulk-mbar versions (and
# bulk-mbar-nofallback) checked again under compute-sanitizer memcheck,
# racecheck and synccheck at every size; the SASS of the sm_90 bulk-mbar
# builds of two samples.  Reports into $OUT (NAME.md, NAME.json, NAME.log,
# NAME.sanitize.*, *.sass, env.txt).
#
#   OUT=DIR bash bench/results/2026-12-02-h200-bulk-mbar/run.sh [SAMPLE...]
set -uo pipefail
cd "$(dirname "$0")/../../.."
G=build-h-empty-gpu
R="${OUT:-/tmp/res}"
mkdir -p "$R"
{
	echo "tree: $(pwd) head $(git rev-parse --short HEAD 2>/dev/null), variants of $(cat $G/COMMIT)"
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
	nvcc --version | tail -2
	compute-sanitizer --version | head -2
} >"$R/env.txt" 2>&1
cat "$R/env.txt"
samples=("$@")
[ ${#samples[@]} -gt 0 ] || samples=(sgemm_at_bulk matmul_bulk_float matmul_32x32 matmul_cuda_sample_style
	sgemm_bulk_guarded wmma_bulk_half matmul_guarded)
for n in "${samples[@]}"; do
	vs=()
	bs=()
	for f in $G/out/$n.*.cu; do
		v=${f#$G/out/$n.}
		v=${v%.cu}
		case $v in *-nofallback) ;; *) vs+=(--variant "$v=$f") ;; esac
		case $v in bulk*) bs+=(--variant "$v=$f") ;; esac
	done
	timeout 300 python3 bench/gpu_bench.py --spec $G/samples/$n.launch.json --baseline $G/samples/$n.cu "${vs[@]}" \
		--no-hand --quiet --jobs 16 --arch sm_90 --report "$R/$n.md" --json "$R/$n.json" >"$R/$n.log" 2>&1
	echo "$n check+time: exit $?"
	timeout 300 python3 bench/gpu_bench.py --spec $G/samples/$n.launch.json --baseline $G/samples/$n.cu "${bs[@]}" \
		--no-hand --quiet --jobs 16 --arch sm_90 --no-time --sanitize --sanitize-jobs 8 \
		--sanitize-size tiny,small,even,odd,empty \
		--report "$R/$n.sanitize.md" --json "$R/$n.sanitize.json" >"$R/$n.sanitize.log" 2>&1
	echo "$n check+sanitize (bulk versions): exit $?"
done
for n in sgemm_at_bulk sgemm_bulk_guarded; do
	[ -f $G/out/$n.bulk-mbar.cu ] && nvcc -arch=sm_90 -cubin -o /tmp/b.cubin $G/out/$n.bulk-mbar.cu &&
		cuobjdump -sass /tmp/b.cubin >"$R/$n.bulk-mbar.sm90.sass"
done
for f in "$R"/*.md; do
	echo "== $f"
	sed -n '/^| version/,$p' "$f"
done
