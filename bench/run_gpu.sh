#!/usr/bin/env bash
# run_gpu.sh - the whole GPU sweep: every eligible sample, every kpipe output
# OUTDIR/NAME.VARIANT.cu, the hand-pipelined references in bench/hand and the
# naive references in bench/ref; correctness at every size, timing at the
# target size, compute-sanitizer at the small size.  Prints the markdown
# report; with $OUT set (the device machine), also writes $OUT/report.md and
# $OUT/results.json.  Extra arguments go to gpu_bench.py.
#
#   bench/run_gpu.sh OUTDIR [gpu_bench options]
#   bench/run_gpu.sh out/ --no-ref --sizes tiny,small,target
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: bench/run_gpu.sh OUTDIR [gpu_bench options]" >&2
    exit 2
fi
outdir=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)

dest=${OUT:-}
extra=()
if [ -n "$dest" ]; then
    mkdir -p "$dest"
    extra=(--report "$dest/report.md" --json "$dest/results.json")
fi

export PYTHONUNBUFFERED=1
exec python3 "$root/bench/gpu_bench.py" --all "$outdir" --sanitize "${extra[@]}" "$@"
