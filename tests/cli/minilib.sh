#!/usr/bin/env bash
# minilib.sh - a batch over a miniature library (tests/fixtures/minilib:
# a .cu with a K-loop of its own, a .cu whose only kernel is in a header that kpipe rewrites, a plain
# header without kernels, a .cu with nothing to pipeline):
#   - --out-dir holds every file the batch read, the .cu left unchanged
#     and the plain header included, so OUT builds on its own (nvcc -c of
#     each OUT .cu when nvcc is there; a SKIP line otherwise);
#   - two runs into two directories write the same files and print the
#     same output (no temporary directory name leaks into either), also
#     when the tools kpipe runs on copies in temporary directories (a
#     fake nvcc for the ptxas probe, a fake g++ for verification) fail and
#     name those copies.
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
check "the .cu with its own K-loop is rewritten" grep -q 'kp_stage' out1/gemm.cu
check "OUT holds nothing else" test "$(find out1 -type f | wc -l)" -eq 5
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ -x "$nvcc" ]; then
	for f in gemm.cu runner.cu scale.cu; do
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

# the tools kpipe runs on copies in temporary directories (nvcc for the
# ptxas probe, g++ for verification) name those copies in their errors:
# fakes that fail so, and two runs whose messages and comments must not
# differ (they named /tmp/kpipe-probe-XXXXXX/original.cu)
mkdir -p "$tmp/fake/bin"
cat >"$tmp/fake/bin/nvcc" <<'FAKE'
#!/bin/sh
for a in "$@"; do case "$a" in *.cu) f="$a" ;; esac; done
echo "$f(1): error: this fake nvcc rejects everything" >&2
exit 2
FAKE
cat >"$tmp/fake/g++" <<'FAKE'
#!/bin/sh
for a in "$@"; do case "$a" in *.cpp) f="$a" ;; esac; done
echo "$f:1:1: error: this fake g++ rejects everything" >&2
exit 1
FAKE
chmod +x "$tmp/fake/bin/nvcc" "$tmp/fake/g++"
for n in 3 4; do
	CUDA_HOME="$tmp/fake" KPIPE_VERIFY_CXX="$tmp/fake/g++" \
		"$kpipe" rewrite lib/src --out-dir "out$n" -j 2 >"$tmp/o$n" 2>"$tmp/e$n"
	sed 's/[0-9.]* s with -j.*//' "$tmp/e$n" >"$tmp/e${n}s"
done
check "failing tools: the comment names the probe's failure" \
	grep -q 'ptxas could not be asked (nvcc: .*kernels/tiled.cuh(1): error: this fake nvcc' out3/kernels/tiled.cuh
check "failing tools: the message names the verifier's failure" \
	grep -q 'kpipe-verify/original-main.cpp:1:1: error: this fake g++' "$tmp/e3"
check "failing tools: two runs, the same files" diff -r out3 out4
check "failing tools: two runs, the same stderr" cmp -s "$tmp/e3s" "$tmp/e4s"
check "failing tools: no temporary directory named" \
	sh -c "! grep -rqE 'kpipe-(probe|verify|format|batch)-' out3 '$tmp/e3' '$tmp/o3'"

kp_summary minilib
