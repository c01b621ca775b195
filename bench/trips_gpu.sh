#!/usr/bin/env bash
# trips_gpu.sh - does a short K-loop explain a loss? (issue 35).  kNN-CUDA's
# three distance kernels lose with every variant kpipe writes (0.94x-0.96x
# on the H100, 2026-12-07) at their descriptions' target size, where the
# K-loop runs D / 16 = 8 times and each SM already holds 64 warps.  This
# times them again with the loop 8 times longer (D = 1024) and the same
# work per launch (R / 8), so that only the trip count changes.  On the GPU
# machine, carrying gpu-heldout/ (bench/heldout_gpu.py prepare):
#
#   OUT=DIR [BUILD_ROOT=/tmp/kp-trips] bash bench/trips_gpu.sh
#
# BUILD_ROOT must not hold builds of the default sizes (heldout_gpu.py
# reuses a run's build, description included: a first run on 2026-12-08
# timed the 8-trip loop twice); the script empties it.  Result
# (2026-12-08, H100): every version loses as much with 64 trips as with 8
# (docs/benchmarks.md).
#
# It edits the target size of the prepared copies' descriptions in place
# (gpu-heldout/orig/knn_*.launch.json, git-ignored) and writes the reports
# to $OUT/long/.  Run `heldout_gpu.py prepare` again to restore them.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:?OUT names the folder for the reports}"
build_root="${BUILD_ROOT:-/tmp/kp-trips}"
case "$build_root" in
/tmp/kp-heldout | /tmp/kp-heldout/) echo "trips_gpu.sh: BUILD_ROOT holds the default sizes' builds" >&2; exit 2 ;;
esac
rm -rf "$build_root"
for spec in "$root"/gpu-heldout/orig/knn_*.launch.json; do
	python3 - "$spec" <<'PY' || exit 2
import json, sys
p = sys.argv[1]
d = json.load(open(p))
t = d["sizes"]["target"]
if t.get("D") != 1024:
    t["R"] = t["R"] // 8
    t["D"] = 1024
json.dump(d, open(p, "w"), indent=1)
print(p, "target", t)
PY
done
python3 "$root/bench/heldout_gpu.py" run --out "$out/long" --no-sanitize --parallel 1 \
	--only knn_ --sizes target --build-root "$build_root"
