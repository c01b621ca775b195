#!/usr/bin/env bash
# device run for the bulk transform: every variant checked and timed, the
# bulk ones (and bulk-nofallback, which traps if the plain-copy fallback
# ever runs) checked at every size under memcheck/racecheck/synccheck, the
# SASS of two bulk builds.  Results tarred into $OUT.
set -uo pipefail
G=build-h-bulk-gpu
cd "$(dirname "$0")/.."
R=/tmp/res; mkdir -p $R
{
	echo "tree: $(pwd) branch $(git rev-parse --abbrev-ref HEAD 2>/dev/null) head $(git rev-parse --short HEAD 2>/dev/null)"
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
	nvcc --version | tail -2
	compute-sanitizer --version | head -2
	cat $G/COMMIT
} > $R/env.txt 2>&1
cat $R/env.txt
for n in sgemm_at_bulk matmul_bulk_float matmul_32x32 matmul_cuda_sample_style; do
	vs=(); bs=()
	for f in $G/out/$n.*.cu; do
		v=${f#$G/out/$n.}; v=${v%.cu}
		case $v in bulk-nofallback) ;; *) vs+=(--variant "$v=$f");; esac
		case $v in bulk*) bs+=(--variant "$v=$f");; esac
	done
	timeout 150 python3 bench/gpu_bench.py --spec $G/samples/$n.launch.json --baseline $G/samples/$n.cu "${vs[@]}" \
		--no-hand --quiet --jobs 16 --arch sm_90 --report $R/$n.md --json $R/$n.json > $R/$n.log 2>&1
	echo "$n check+time: exit $?"
	timeout 150 python3 bench/gpu_bench.py --spec $G/samples/$n.launch.json --baseline $G/samples/$n.cu "${bs[@]}" \
		--no-hand --quiet --jobs 16 --arch sm_90 --no-time --sanitize --sanitize-jobs 8 \
		--report $R/$n.sanitize.md --json $R/$n.sanitize.json > $R/$n.sanitize.log 2>&1
	echo "$n check+sanitize (bulk variants): exit $?"
done
for n in matmul_bulk_float sgemm_at_bulk; do
	nvcc -arch=sm_90 -cubin -o /tmp/b.cubin $G/out/$n.bulk.cu && cuobjdump -sass /tmp/b.cubin > $R/$n.bulk.sm90.sass
done
tar czf $OUT/results.tgz -C $R .
for f in $R/*.md; do echo "== $f"; sed -n '/^| version/,$p' $f; done
