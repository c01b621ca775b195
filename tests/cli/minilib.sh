#!/usr/bin/env bash
# minilib.sh - a batch over a miniature library (tests/fixtures/minilib:
# a .cu with a K-loop of its own, a .cu whose only kernel is in a header that kpipe rewrites, a plain
# header without kernels, a .cu with nothing to pipeline):
#   - --out-dir holds every file the batch read, the .cu left unchanged
#     and the plain header included, so OUT builds on its own (nvcc -c of
#     each OUT .cu when nvcc is there; a SKIP line otherwise);
#   - quiet by default: a loop that is no K-loop gets a remark (shown with
#     -v), a K-loop refused a warning, each file one line, remarks counted;
#   - `kpipe analyze DIR` (and -p, -j, --exclude): every file, each as a
#     run on it alone says, in file order whatever -j is, one JSON document;
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
		# through the tests' nvcc cache (its key holds the quoted
		# headers): the sanitizer build's run compiles the same bytes
		check "nvcc -c OUT/$f" kp_nvcc_cached -c -arch=sm_80 -o "$tmp/${f%.cu}.o" "out1/$f"
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
	# (the suite's KPIPE_NO_PTXAS would keep the probe from running)
	env -u KPIPE_NO_PTXAS CUDA_HOME="$tmp/fake" KPIPE_VERIFY_CXX="$tmp/fake/g++" \
		"$kpipe" rewrite lib/src --out-dir "out$n" -j 2 >"$tmp/o$n" 2>"$tmp/e$n"
	sed 's/[0-9.]* s with -j.*//' "$tmp/e$n" >"$tmp/e${n}s"
done
check "failing tools: the comment names the probe's failure" \
	grep -q 'ptxas could not be asked (nvcc: .*kernels/tiled.cuh(1): error: this fake nvcc' out3/kernels/tiled.cuh
check "failing tools: the message names the verifier's failure" \
	grep -q '<verify>/original-main.cpp:1:1: error: this fake g++' "$tmp/e3"
check "failing tools: two runs, the same files" diff -r out3 out4
check "failing tools: two runs, the same stderr" cmp -s "$tmp/e3s" "$tmp/e4s"
check "failing tools: no temporary directory named" \
	sh -c "! grep -rqE 'kpipe-(probe|verify|format|batch)-' out3 '$tmp/e3' '$tmp/o3'"

# --- quiet by default ------------------------------------------------------
# transpose_shared.cu's loop is no K-loop (one statement, no barrier): a
# remark, shown only with -v; refused_smem_carry.cu's is a K-loop kpipe
# refused: a warning.  One line per file, the remarks counted at the end.
mkdir q
cp "$root/samples/transpose_shared.cu" "$root/samples/refused_smem_carry.cu" q/
"$kpipe" rewrite q --out-dir qout -j 2 >"$tmp/qo" 2>"$tmp/qe"
check "quiet: the K-loop refused is a warning" \
	grep -q '^q/refused_smem_carry.cu:[0-9:]* warning: .*\[kpipe-smem-carried\]' "$tmp/qe"
check "quiet: no warning for the loop that is no K-loop" sh -c "! grep -q 'transpose_shared.cu:[0-9:]* warning' '$tmp/qe'"
check "quiet: its remark not shown without -v" sh -c "! grep -q 'remark:' '$tmp/qe'"
check "quiet: one line per file" grep -q '^q/transpose_shared.cu: 0 of 1 loop pipelined; 1 loop left alone (not a K-loop, or pipelined already); 1 remark (-v shows it)$' "$tmp/qe"
check "quiet: the refused file's line" grep -q '^q/refused_smem_carry.cu: 0 of 1 loop pipelined; 1 K-loop refused; 1 warning$' "$tmp/qe"
check "quiet: the total counts the remarks" grep -q '^  1 remark not shown: -v shows them$' "$tmp/qe"
"$kpipe" rewrite q --out-dir qout2 -j 2 -v >"$tmp/qo" 2>"$tmp/qe"
check "-v: the remark shown" grep -q '^q/transpose_shared.cu:[0-9:]* remark: .*\[kpipe-no-barrier\]' "$tmp/qe"

# --- analyze over the tree ---------------------------------------------------
"$kpipe" analyze lib/src -j 1 >"$tmp/a1" 2>"$tmp/ae1"
check "analyze DIR: exit 0" test $? -eq 0
"$kpipe" analyze lib/src -j 2 >"$tmp/a2" 2>"$tmp/ae2"
check "analyze DIR -j 2: the same report as -j 1" cmp -s "$tmp/a1" "$tmp/a2"
check "analyze DIR -j 2: the same stderr as -j 1" cmp -s "$tmp/ae1" "$tmp/ae2"
check "analyze DIR: every .cu, in order" test "$(grep -oE '^lib/src/[a-z/]*\.cuh?( \(included from [a-z/.]*\))?:' "$tmp/a2" | tr '\n' ' ')" = \
	"lib/src/gemm.cu: lib/src/runner.cu: lib/src/kernels/tiled.cuh (included from lib/src/runner.cu): lib/src/scale.cu: "
for f in gemm runner scale; do
	"$kpipe" analyze "lib/src/$f.cu" >"$tmp/one" 2>/dev/null
	check "analyze DIR: $f.cu as alone" sh -c "grep -q \"^lib/src/$f.cu: \$(sed -n '1s/^[^:]*: //p' '$tmp/one')\" '$tmp/a2'"
done
"$kpipe" analyze lib/src -j 2 --format json >"$tmp/aj" 2>/dev/null
check "analyze DIR --format json: one document, every file" python3 -c "
import json
j = json.load(open('$tmp/aj'))
names = [(f['file'], f.get('included_from')) for f in j['files']]
assert names == [('lib/src/gemm.cu', None), ('lib/src/runner.cu', None),
                 ('lib/src/kernels/tiled.cuh', 'lib/src/runner.cu'), ('lib/src/scale.cu', None)], names
"
mkdir -p build
python3 - "$tmp" >build/compile_commands.json <<'PY'
import json, sys
t = sys.argv[1]
print(json.dumps([{"directory": t + "/lib/src", "file": t + "/lib/src/" + f,
                   "command": "nvcc -DMINI_FROM_DB=1 -c " + f} for f in ("gemm.cu", "scale.cu")]))
PY
"$kpipe" analyze -p build -j 2 >"$tmp/ap" 2>"$tmp/ape"
check "analyze -p: exit 0" test $? -eq 0
check "analyze -p: the database's files" test "$(grep -cE '^[^ ]*(gemm|scale)\.cu: ' "$tmp/ap")" -eq 2
check "analyze -p: only those" sh -c "! grep -q runner.cu '$tmp/ap'"
"$kpipe" analyze lib/src --exclude 'scale.cu' >"$tmp/ax" 2>/dev/null
check "analyze --exclude" sh -c "! grep -q scale.cu '$tmp/ax'"

kp_summary minilib
