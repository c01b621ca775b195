#!/usr/bin/env bash
# differential.sh - the GPU proof of every rewrite: kpipe rewrites every
# sample with each variant, then bench/run_gpu.sh runs original and
# rewrites on the same random inputs at every size (outputs poisoned,
# every element compared), times them and runs compute-sanitizer memcheck,
# racecheck and synccheck.  Needs a CUDA GPU: elsewhere it prints a SKIP
# line and exits 77, which CTest reports as skipped, never as passed.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
if ! kp_have_gpu; then
	echo "SKIP: no CUDA GPU on this machine (results from the H200 are in docs/benchmarks.md)"
	exit 77
fi
kp_tmpdir gpu-differential
bash "$root/bench/make_variants.sh" "$tmp/out" "$kpipe" >/dev/null
bash "$root/bench/run_gpu.sh" "$tmp/out/"
