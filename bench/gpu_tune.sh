#!/usr/bin/env bash
# gpu_tune.sh - `kpipe tune` on every eligible sample, on a machine with a
# GPU (issue 5), and `kpipe rewrite --validate --sanitize` on the three
# reference shapes (issue 4).  Writes under $OUT (default gpu-tune-out/):
#   tuned/NAME.tuned.cu   what tune wrote (the chosen variant or the original)
#   tune/NAME.json        tune's table (--format json), NAME.err its stderr
#   tune/summary.txt      one line per sample: exit code, seconds, choice
#   validate/NAME.txt     the rewrite --validate report
#   env.txt               date, GPU, kpipe and CUDA versions
# Rerun: bash bench/gpu_tune.sh [KPIPE]   (docs/benchmarks.md has the figures)
# PHASES="tune validate" (the default) selects the parts; SAMPLES="a b"
# restricts the tune phase to those samples; TUNE_ARGS="--no-sanitize" adds
# options to every tune call.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kpipe="${1:-$root/build/kpipe}"
out="${OUT:-$root/gpu-tune-out}"
# shellcheck source=bench/device_env.sh
source "$root/bench/device_env.sh" "$kpipe" || exit 1
mkdir -p "$out/tuned" "$out/tune" "$out/validate"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi -L 2>&1
	"$kpipe" --version
	echo "commit: ${KPIPE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} >"$out/env.txt"
cat "$out/env.txt"
phases="${PHASES:-tune validate}"
case " $phases " in *" tune "*) ;; *) false ;; esac && for spec in "$root"/samples/*.launch.json; do
	name=$(basename "$spec" .launch.json)
	case "$name" in refused_*) continue ;; esac
	if [ -n "${SAMPLES:-}" ]; then
		case " $SAMPLES " in *" $name "*) ;; *) continue ;; esac
	fi
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # TUNE_ARGS is a list of options
	"$kpipe" tune "$root/samples/$name.cu" -o "$out/tuned/$name.tuned.cu" --format json \
		${TUNE_ARGS:-} "${KPIPE_PARSE_ARGS[@]}" >"$out/tune/$name.json" 2>"$out/tune/$name.err"
	rc=$?
	t1=$(date +%s.%N)
	python3 - "$name" "$rc" "$t0" "$t1" "$out/tune/$name.json" <<'PY' | tee -a "$out/tune/summary.txt"
import json, sys
name, rc, t0, t1, path = sys.argv[1:]
try:
    d = json.load(open(path))
    choice = "%s %.3fx (fastest %s)" % (d["chosen"], d.get("speedup", 0) if d["chosen"] != "original" else 1.0,
                                        d.get("speedup", 0))
except Exception as e:
    choice = "no table (%s)" % e
print("%-26s rc=%s %6.1f s  %s" % (name, rc, float(t1) - float(t0), choice))
PY
done
case " $phases " in *" validate "*) ;; *) exit 0 ;; esac
for name in matmul_32x32 sgemm_128x128x8 wmma_fp16_64x64x32; do
	"$kpipe" rewrite "$root/samples/$name.cu" -o "$out/validate/$name.cu" --validate --sanitize \
		--sizes small,target "${KPIPE_PARSE_ARGS[@]}" >"$out/validate/$name.txt" 2>&1
	echo "rewrite --validate $name: exit $?" | tee -a "$out/validate/summary.txt"
done
