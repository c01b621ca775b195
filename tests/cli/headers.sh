#!/usr/bin/env bash
# headers.sh - kernels defined in project headers (tests/fixtures/headers):
# analysed and rewritten through the .cu that includes them, chosen by
# --header-filter (default: under the input's directory tree; never a
# system header); -i, --diff, --out-dir, --export-fixes and the JSON
# report cover the header; -o and stdout refuse with a usage error and
# write nothing; a batch rewrites a header once however many files include
# it; the re-parse guard checks a rewritten header; the #include a rewrite
# adds goes below #pragma once and include guards.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir headers
fresh() { # a clean copy of the fixture project in $tmp/w
	rm -rf "$tmp/w"
	cp -r "$root/tests/fixtures/headers" "$tmp/w"
}
flags=(-- -isystem "$tmp/w/proj/vendor" -I "$tmp/w/outside")

# --- analyze --------------------------------------------------------------
fresh
cd "$tmp/w/proj/src" || exit 1
"$kpipe" analyze runner.cu "${flags[@]}" >"$tmp/out" 2>"$tmp/err"
check "analyze: exit 0" test $? -eq 0
check "analyze: tiled.cuh included from runner.cu" \
	grep -q '^kernels/tiled.cuh (included from runner.cu): 1 kernel, 1 candidate loop' "$tmp/out"
check "analyze: instantiation from the .cu" grep -q 'sgemm_tiled<TS> (line 7), instantiated as <32>' "$tmp/out"
check "analyze: loop position in the header" grep -q 'loop 1 at kernels/tiled.cuh:15:2  \[eligible\]' "$tmp/out"
check "analyze: rowdot.cuh analysed" grep -q '^kernels/rowdot.cuh (included from runner.cu)' "$tmp/out"
check "analyze: a system header (-isystem) never" sh -c "! grep -q vendor_tiled '$tmp/out'"
check "analyze: a header outside the tree not by default" sh -c "! grep -q ext_tiled '$tmp/out'"

"$kpipe" analyze runner.cu --header-filter 'outside/' "${flags[@]}" >"$tmp/out" 2>&1
check "--header-filter REGEX: only what it matches" grep -q 'ext_gemm.cuh (included from runner.cu)' "$tmp/out"
check "--header-filter REGEX: tiled.cuh left out" sh -c "! grep -q tiled.cuh '$tmp/out'"
"$kpipe" analyze runner.cu --header-filter '' "${flags[@]}" >"$tmp/out" 2>&1
check "--header-filter '': no header, nothing to analyse (exit 1)" test $? -eq 1
check "--header-filter '': only the main file" test "$(grep -c 'candidate loop' "$tmp/out")" = 1
"$kpipe" analyze runner.cu --header-filter '(' >"$tmp/out" 2>&1
check "--header-filter with a bad regex: usage error" test $? -eq 2
check "--header-filter with a bad regex: says so" grep -q "invalid regular expression '('" "$tmp/out"

"$kpipe" analyze runner.cu --format json "${flags[@]}" >"$tmp/out.json" 2>/dev/null
check "analyze --format json: included_from" python3 -c "
import json, sys
j = json.load(open('$tmp/out.json'))
f = {x['file']: x for x in j['files']}
assert f['kernels/tiled.cuh']['included_from'] == 'runner.cu', f
assert f['kernels/tiled.cuh']['kernels'][0]['instantiations'] == ['32']
assert 'included_from' not in f['runner.cu']
"

# --- rewrite, one file ----------------------------------------------------
cp kernels/tiled.cuh "$tmp/tiled.orig"
"$kpipe" rewrite runner.cu "${flags[@]}" >"$tmp/out" 2>"$tmp/err"
check "stdout with a header edit: usage error (exit 2)" test $? -eq 2
check "stdout with a header edit: nothing on stdout" test ! -s "$tmp/out"
check "stdout with a header edit: names the header and the options" \
	grep -q "changes kernels/rowdot.cuh and other headers too.*use -i, --diff or --out-dir DIR" "$tmp/err"
"$kpipe" rewrite runner.cu -o "$tmp/o.cu" "${flags[@]}" 2>"$tmp/err"
check "-o with a header edit: exit 2" test $? -eq 2
check "-o with a header edit: nothing written" test ! -e "$tmp/o.cu"
check "-o with a header edit: header untouched" cmp -s kernels/tiled.cuh "$tmp/tiled.orig"

"$kpipe" rewrite runner.cu --diff "${flags[@]}" >"$tmp/d.patch" 2>"$tmp/err"
check "--diff: exit 0" test $? -eq 0
check "--diff: a hunk for each header" test "$(grep -c '^+++ b/kernels/' "$tmp/d.patch")" = 2
check "--diff: runner.cu unchanged, no hunk" sh -c "! grep -q '^+++ b/runner.cu' '$tmp/d.patch'"
check "--diff: applies with patch -p1" patch -p1 --dry-run -s <"$tmp/d.patch"

"$kpipe" rewrite runner.cu --dry-run "${flags[@]}" >"$tmp/out" 2>&1
check "--dry-run: exit 1 (would change)" test $? -eq 1
check "--dry-run: the header would change" grep -q '^kernels/tiled.cuh: would pipeline 1 of 1 loop' "$tmp/out"

"$kpipe" rewrite runner.cu --export-fixes "$tmp/f.yaml" --format json "${flags[@]}" >"$tmp/r.json" 2>/dev/null
check "--export-fixes: replacements in the header" grep -q "FilePath: *\"$tmp/w/proj/src/kernels/tiled.cuh\"" "$tmp/f.yaml"
check "--format json: a result per header" python3 -c "
import json
j = json.load(open('$tmp/r.json'))
f = {x['path']: x for x in j['files']}
assert f['kernels/tiled.cuh']['status'] == 'pipelined', f
assert f['kernels/tiled.cuh']['included_from'] == 'runner.cu'
assert f['runner.cu']['status'] == 'unchanged', f['runner.cu']
"

"$kpipe" rewrite runner.cu -i --backup-suffix .orig "${flags[@]}" 2>"$tmp/err"
check "-i: exit 0" test $? -eq 0
check "-i: backup of the header" cmp -s kernels/tiled.cuh.orig "$tmp/tiled.orig"
check "-i: header rewritten" grep -q '__shared__ float As\[2\]\[TS\]\[TS\];' kernels/tiled.cuh
check "-i: runner.cu itself unchanged, no backup" test ! -e runner.cu.orig
"$kpipe" rewrite runner.cu --diff "${flags[@]}" >"$tmp/again" 2>"$tmp/err"
check "-i twice: second run finds it already pipelined" grep -q 'kernels/tiled.cuh:.*kpipe-already-pipelined' "$tmp/err"
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
	nv="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
	"$nv" -std=c++17 -arch=sm_90 -c runner.cu -I ../vendor -I ../../outside -o "$tmp/r.o" 2>"$tmp/nverr"
	check "nvcc compiles the runner with the rewritten headers" test $? -eq 0
else
	echo "SKIP: nvcc not found: the rewritten headers are not compiled"
fi

# --variant cp-async: the include goes below #pragma once / the guard
fresh
cd "$tmp/w/proj/src" || exit 1
"$kpipe" rewrite runner.cu -i --variant cp-async "${flags[@]}" 2>"$tmp/err"
check "cp-async -i: exit 0" test $? -eq 0
check "cp-async: include below #pragma once" \
	test "$(sed -n 4,5p kernels/tiled.cuh | tr '\n' '|')" = "#pragma once|#include <cuda_pipeline.h>|"
check "cp-async: include below the include guard" \
	test "$(sed -n 6,8p kernels/rowdot.cuh | tr '\n' '|')" = "#ifndef ROWDOT_CUH|#define ROWDOT_CUH|#include <cuda_pipeline.h>|"

# the re-parse guard checks the translation unit with the new header
fresh
cd "$tmp/w/proj/src" || exit 1
KPIPE_TEST_BREAK_REWRITE=1 "$kpipe" rewrite runner.cu --diff "${flags[@]}" >"$tmp/out" 2>"$tmp/err"
check "guard: a header rewrite that does not compile is refused" \
	grep -q "^kernels/.*warning: the rewritten code does not compile: line [0-9]* of the rewrite: use of undeclared identifier 'kpipe_test_break_rewrite'.*kpipe-rewrite-invalid" "$tmp/err"
check "guard: nothing printed for the refused header" sh -c "! grep -q '^+++' '$tmp/out'"

"$kpipe" rewrite runner.cu -i --validate "${flags[@]}" 2>"$tmp/err"
check "--validate with a header edit: usage error" test $? -eq 2
check "--validate with a header edit: header untouched" cmp -s kernels/tiled.cuh "$tmp/tiled.orig"

# --- batch ----------------------------------------------------------------
fresh
cd "$tmp/w" || exit 1
"$kpipe" rewrite proj --exclude 'vendor/*' --out-dir "$tmp/out1" -v "${flags[@]}" >"$tmp/out" 2>"$tmp/err"
check "batch --out-dir: exit 0" test $? -eq 0
check "batch --out-dir: every file read, each under its place (not the excluded vendor/)" \
	test "$(cd "$tmp/out1" && find . -type f | sort | tr '\n' ' ')" = "./src/bench.cu ./src/kernels/rowdot.cuh ./src/kernels/tiled.cuh ./src/runner.cu "
check "batch: tiled.cuh handled once (through bench.cu, the first file)" \
	test "$(grep -c 'proj/src/kernels/tiled.cuh:15:2: note: pipelined' "$tmp/err")" = 1
check "batch: later includers say so with -v" grep -q 'tiled.cuh: note: already handled through an earlier file' "$tmp/err"
check "batch: the header instantiated from bench.cu (<16>)" grep -q 'As\[2\]\[TS\]\[TS\]' "$tmp/out1/src/kernels/tiled.cuh"
check "batch: summary counts each header once" \
	grep -q 'kpipe rewrite: 4 files: 2 rewritten, 2 unchanged, 0 refused, 0 failed' "$tmp/err"

"$kpipe" rewrite proj --exclude 'vendor/*' --diff "${flags[@]}" >"$tmp/d2.patch" 2>/dev/null
check "batch --diff: one hunk per header" test "$(grep -c '^+++ ' "$tmp/d2.patch")" = 2
check "batch --diff: applies" patch -p1 --dry-run -s <"$tmp/d2.patch"

"$kpipe" rewrite proj --exclude 'vendor/*' -i "${flags[@]}" 2>/dev/null
check "batch -i: header rewritten in place" grep -q 'As\[2\]\[TS\]\[TS\]' proj/src/kernels/tiled.cuh
check "batch -i: same as --out-dir" cmp -s proj/src/kernels/tiled.cuh "$tmp/out1/src/kernels/tiled.cuh"

fresh
cd "$tmp/w" || exit 1
"$kpipe" rewrite proj/src/runner.cu proj/src/bench.cu --dry-run --shard 0/1 "${flags[@]}" >"$tmp/out" 2>"$tmp/err"
check "batch --shard: headers reached through .cu files are not rewritten, and it says so" \
	grep -q 'note: 2 project headers with kernels reached through these files are not rewritten' "$tmp/err"
check "batch --shard: nothing would change" grep -q '^kpipe rewrite: 2 files: 0 would change' "$tmp/err"
"$kpipe" rewrite proj --exclude 'vendor/*' --exclude 'tiled.cuh' --dry-run "${flags[@]}" >"$tmp/out" 2>"$tmp/err"
check "batch --exclude: an excluded header is not rewritten through a .cu either" \
	sh -c "! grep -q tiled.cuh '$tmp/out' && grep -q 'rowdot.cuh: would pipeline' '$tmp/out'"

kp_summary
