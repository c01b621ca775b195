#!/usr/bin/env bash
# minilib.sh - a batch over a miniature library (tests/fixtures/minilib:
# a .cu whose only kernel is in a header that kpipe rewrites, a plain
# header without kernels, a .cu with nothing to pipeline):
#   - --out-dir holds every file the batch read, the .cu left unchanged
#     and the plain header included, so OUT builds on its own (nvcc -c of
#     each OUT .cu when nvcc is there; a SKIP line otherwise);
#   - two runs into two directories write the same files and print the
#     same output (no temporary directory name leaks into either).
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir minilib
cp -r "$root/tests/fixtures/minilib" "$tmp/lib"
cd "$tmp" || exit 1

# --- --out-dir holds every file ------------------------------------------
"$kpipe" rewrite lib/src --out-dir out1 -j 2 >"$tmp/o1" 2>"$tmp/e1"
check "batch: exit 0" test $? -eq 0
check "the header kernel is rewritten" grep -q 'kp_stage' out1/kernels/tiled.cuh
check "the unchanged .cu whose header was rewritten is in OUT" \
	cmp -s lib/src/runner.cu out1/runner.cu
check "the unchanged .cu without a K-loop is in OUT" cmp -s lib/src/scale.cu out1/scale.cu
check "a plain header (no kernel, not an input) is in OUT" \
	cmp -s lib/src/util/dims.h out1/util/dims.h
check "OUT holds nothing else" test "$(find out1 -type f | wc -l)" -eq 4
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ -x "$nvcc" ]; then
	for f in runner.cu scale.cu; do
		check "nvcc -c OUT/$f" "$nvcc" -c -arch=sm_80 -o "$tmp/${f%.cu}.o" "out1/$f"
	done
else
	echo "SKIP: nvcc not found: OUT's .cu files not compiled"
fi
# a dry run or a report writes nothing
"$kpipe" rewrite lib/src --dry-run >/dev/null 2>&1
check "--dry-run: no OUT" test ! -e out0

# --- the same run twice: the same bytes ----------------------------------
"$kpipe" rewrite lib/src --out-dir out2 -j 2 >"$tmp/o2" 2>"$tmp/e2"
check "two runs: the same files" diff -r out1 out2
check "two runs: the same stdout" cmp -s "$tmp/o1" "$tmp/o2"
sed 's/[0-9.]* s with -j.*//' "$tmp/e1" >"$tmp/e1s"
sed 's/[0-9.]* s with -j.*//' "$tmp/e2" >"$tmp/e2s"
check "two runs: the same stderr (less the time)" cmp -s "$tmp/e1s" "$tmp/e2s"

kp_summary minilib
