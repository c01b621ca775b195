#!/usr/bin/env bash
# multiarch.sh - a project that builds several targets (issue 33, "Every
# target the project builds"; docs/design.md, "Several targets").  The
# fixture tests/fixtures/multiarch/sgemm_vec4.cu through a compile database
# listing -gencode for sm_52, 61, 70, 75, 80 and 90: analyze shows the plan
# per target (text and JSON), rewrite writes cp.async under
# `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800` and register staging
# in the #else, and each branch runs against the original on the CPU
# (cpudiff: the emulator compiles the #if branch; the #else is checked with
# the guard turned into `#if 0`).  Near misses: a single target, targets all
# at or above sm_80, all below, a CMake-style --cuda-gpu-arch list, and
# --arch A,B.  A loop no form pipelines below sm_80 keeps its text there
# (tests/cpudiff/kernels/older_as_written.cu: the #else branches are the
# source).  Last, nvcc -c of the rewrite for every listed target this
# nvcc builds; the others (CUDA 13 dropped sm_52 to sm_70) print "SKIP: ...",
# and without nvcc those checks are skipped the same way.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir multiarch
tmp=$(cd "$tmp" && pwd -P) # kpipe names databases by their real path
fx="$root/tests/fixtures/multiarch"
mkdir -p "$tmp/proj/src" "$tmp/proj/build"
cp "$fx/sgemm_vec4.cu" "$fx/sgemm_vec4.launch.json" "$tmp/proj/src/"
f="$tmp/proj/src/sgemm_vec4.cu"
gencode='"-gencode", "arch=compute_52,code=sm_52", "-gencode", "arch=compute_61,code=sm_61",
  "-gencode", "arch=compute_70,code=sm_70", "-gencode", "arch=compute_75,code=sm_75",
  "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=[sm_90,compute_90]"'
db() { # the database of the build folder, with these target arguments
	cat >"$tmp/proj/build/compile_commands.json" <<JSON
[{"directory": "$tmp/proj/build", "file": "$f",
  "arguments": ["nvcc", $1, "-c", "../src/sgemm_vec4.cu"]}]
JSON
}
db "$gencode"

# analyze: the plan per target
"$kpipe" analyze --no-ptxas -p "$tmp/proj/build" "$f" >"$tmp/an" 2>"$tmp/an.err"
check "analyze: exit 0" test $? -eq 0
check "analyze: the targets of the database" \
	grep -q "(targets sm_52,sm_61,sm_70,sm_75,sm_80,sm_90, from compile_commands.json)" "$tmp/an"
check "analyze: one source, split at sm_80" grep -q "one source, #if __CUDA_ARCH__ >= 800: cp-async" "$tmp/an"
for t in sm_52 sm_61 sm_70 sm_75; do
	check "analyze: $t register staging" grep -Eq "^      $t +register, 2 stages +16384 B" "$tmp/an"
done
for t in sm_80 sm_90; do
	check "analyze: $t cp.async" grep -Eq "^      $t +cp-async, 2 stages +16384 B" "$tmp/an"
done
check "analyze: sm_52 has no opt-in" grep -Eq "^      sm_52 .*opt-in 48 KB per block" "$tmp/an"

"$kpipe" analyze --no-ptxas --format json -p "$tmp/proj/build" "$f" >"$tmp/an.json" 2>/dev/null
check "analyze json: targets, split_cc, variants" python3 - "$tmp/an.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fl = d["files"][0]
assert fl["targets"] == ["sm_52", "sm_61", "sm_70", "sm_75", "sm_80", "sm_90"], fl["targets"]
loop = fl["kernels"][0]["loops"][0]
assert loop["split_cc"] == 80
got = {t["name"]: (t["variant"], t["stages"], t["smem_bytes"], t["smem_optin_limit"]) for t in loop["targets"]}
assert got["sm_52"] == ("register", 2, 16384, 49152), got
assert got["sm_75"] == ("register", 2, 16384, 65536), got
assert got["sm_80"][0] == "cp-async" and got["sm_90"][0] == "cp-async", got
PY

# rewrite: both loops under one guard
"$kpipe" rewrite --no-ptxas -p "$tmp/proj/build" "$f" -o "$tmp/rw.cu" 2>"$tmp/rw.err"
check "rewrite: exit 0" test $? -eq 0
check "rewrite: the guard" grep -qx "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800" "$tmp/rw.cu"
check "rewrite: one #else, one #endif" test "$(grep -c '^#else$' "$tmp/rw.cu")$(grep -c '^#endif$' "$tmp/rw.cu")" = 11
check "rewrite: cp.async above" grep -q "__pipeline_memcpy_async" "$tmp/rw.cu"
check "rewrite: register staging below" grep -q "float4 kp_reg0\[1\]" "$tmp/rw.cu"
check "rewrite: doubled tiles declared once" test "$(grep -c '__shared__ __align__(16) float As\[2\]\[TILE\]\[TILE\];' "$tmp/rw.cu")" = 1
check "rewrite: verified, no warning" test ! -s "$tmp/rw.err"
# the #else alone: the guard as `#if 0`
sed 's/^#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800$/#if 0/' "$tmp/rw.cu" >"$tmp/rw_older.cu"
check "older branch: no cp.async left" grep -q "^#if 0$" "$tmp/rw_older.cu"

# cpudiff's builds and runs in the tests' cache (KPIPE_CPUDIFF_CACHE, by
# content): the emulator's header compiled once for the three checks, and
# the sanitizer tree's run, whose rewrites are the plain tree's, builds
# and runs nothing again (CI time)
cpudiff() { # WHAT FILE: the rewrite FILE against the original on the CPU
	bash "$root/tests/cpudiff/cpudiff.sh" "$f" "$2" --spec "$tmp/proj/src/sgemm_vec4.launch.json" \
		--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cpudiff-cache}" \
		>"$tmp/cd.out" 2>&1
	local rc=$?
	if [ $rc -eq 77 ]; then
		echo "SKIP: cpudiff of $1: $(grep -m1 SKIP "$tmp/cd.out")"
	elif [ $rc -eq 0 ]; then ok; else
		bad "cpudiff of $1 (exit $rc)"
		tail -5 "$tmp/cd.out"
	fi
}
cpudiff "the #if branch (sm_80 and newer; the emulator's __CUDA_ARCH__ is 900)" "$tmp/rw.cu"
cpudiff "the #else branch (before sm_80)" "$tmp/rw_older.cu"
# a wrong #else (its stage never flips) is only seen with the guard turned off
awk '/^#else$/ { e = 1 } /^#endif$/ { e = 0 } !(e && /kp_stage \^= 1;/)' "$tmp/rw.cu" >"$tmp/bad.cu"
sed 's/^#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800$/#if 0/' "$tmp/bad.cu" >"$tmp/bad_older.cu"
bash "$root/tests/cpudiff/cpudiff.sh" "$f" "$tmp/bad_older.cu" --spec "$tmp/proj/src/sgemm_vec4.launch.json" \
	--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cpudiff-cache}" >"$tmp/cd.out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then echo "SKIP: cpudiff of a wrong #else: $(grep -m1 SKIP "$tmp/cd.out")"; else
	check "cpudiff catches a wrong #else branch (exit 1)" test $rc -eq 1
fi

# a batch over the source folder: each file gets its entry's targets
"$kpipe" rewrite --no-ptxas --no-verify -p "$tmp/proj/build" "$tmp/proj/src" --out-dir "$tmp/out" >/dev/null 2>&1
check "batch: exit 0" test $? -eq 0
check "batch: split" grep -qx "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800" "$tmp/out/sgemm_vec4.cu"

# near misses: one loop, no guard
plain() { # WHAT, then kpipe's arguments: a rewrite without a guard
	local what="$1"
	shift
	"$kpipe" rewrite --no-ptxas --no-verify "$@" -o "$tmp/one.cu" 2>/dev/null
	check "$what: exit 0" test $? -eq 0
	check "$what: no guard" test "$(grep -c '^#if !defined(__CUDA_ARCH__)' "$tmp/one.cu")" = 0
}
plain "--arch sm_90" --arch sm_90 "$f"
"$kpipe" rewrite --no-ptxas --no-verify --arch sm_90 "$root/tests/fixtures/multiarch/sgemm_vec4.cu" -o "$tmp/a.cu" 2>/dev/null
"$kpipe" rewrite --no-ptxas --no-verify "$root/tests/fixtures/multiarch/sgemm_vec4.cu" -o "$tmp/b.cu" 2>/dev/null
check "--arch sm_90 is the default" cmp -s "$tmp/a.cu" "$tmp/b.cu"
db '"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"'
plain "sm_80 and sm_90" -p "$tmp/proj/build" "$f"
check "sm_80 and sm_90: cp.async" grep -q "__pipeline_memcpy_async" "$tmp/one.cu"
db '"-gencode", "arch=compute_70,code=sm_70", "-gencode", "arch=compute_75,code=sm_75"'
plain "sm_70 and sm_75" -p "$tmp/proj/build" "$f"
check "sm_70 and sm_75: register staging only" test "$(grep -c "__pipeline" "$tmp/one.cu")" = 0
"$kpipe" rewrite --no-ptxas --no-verify --variant cp-async -p "$tmp/proj/build" "$f" -o "$tmp/one.cu" 2>"$tmp/err"
check "sm_70 and sm_75, --variant cp-async: refused, as for sm_75 alone" \
	grep -q "cp.async was requested but cp.async needs sm_80 or newer \[kpipe-variant-unavailable\]" "$tmp/err"

# CMake's CUDA_ARCHITECTURES "70;80;90" through clang, and --arch A,B
db '"--cuda-gpu-arch=sm_70", "--cuda-gpu-arch=sm_80", "--cuda-gpu-arch=sm_90"'
"$kpipe" rewrite --no-ptxas --no-verify -p "$tmp/proj/build" "$f" -o "$tmp/c.cu" 2>/dev/null
check "--cuda-gpu-arch 70;80;90: split" grep -qx "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800" "$tmp/c.cu"
"$kpipe" rewrite --no-ptxas --no-verify --arch sm_61,sm_90 "$root/tests/fixtures/multiarch/sgemm_vec4.cu" -o "$tmp/d.cu" 2>/dev/null
check "--arch sm_61,sm_90: split" grep -qx "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800" "$tmp/d.cu"
"$kpipe" rewrite --arch sm_61,sm_30 "$f" >/dev/null 2>"$tmp/err"
check "--arch with an unknown target: usage error" test $? -eq 2
check "--arch with an unknown target: named" grep -q "unknown target 'sm_30'" "$tmp/err"

# the older targets as written: no form applies below sm_80 (copy loops
# strided by the block), cp.async above; each branch declares its tiles
k="$root/tests/cpudiff/kernels/older_as_written.cu"
"$kpipe" rewrite --no-ptxas --arch sm_75,sm_80 "$k" -o "$tmp/asis.cu" 2>"$tmp/asis.err"
check "as written below: exit 0" test $? -eq 0
check "as written below: verified, no warning" test ! -s "$tmp/asis.err"
check "as written below: three guards (two declarations, the loop)" \
	test "$(grep -c '^#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800$' "$tmp/asis.cu")" = 3
check "as written below: the doubled tile above" grep -q '^    __shared__ float As\[2\]\[T\]\[T\];$' "$tmp/asis.cu"
check "as written below: the tile as written below" grep -q '^    __shared__ float As\[T\]\[T\];$' "$tmp/asis.cu"
sed -e '/^#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800$/,/^#else$/d' -e '/^#endif$/d' \
	"$tmp/asis.cu" | grep -v '^#include <cuda_pipeline.h>$' >"$tmp/asis_else.cu"
check "as written below: the #else branches are the source" cmp -s "$k" "$tmp/asis_else.cu"
"$kpipe" analyze --no-ptxas --arch sm_75,sm_80 "$k" >"$tmp/asis.an" 2>&1
check "as written below: analyze says so" grep -q "#else: the loop as written: no variant applies" "$tmp/asis.an"
check "as written below: sm_75's row" grep -Eq "^      sm_75 +as written +2112 B" "$tmp/asis.an"
"$kpipe" analyze --no-ptxas --arch sm_75,sm_80 --format json "$k" >"$tmp/asis.json" 2>/dev/null
check "as written below: JSON" python3 - "$tmp/asis.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["files"][0]["kernels"][0]["loops"][0]
assert l["plan"]["variant"] == "cp-async" and l["plan"]["as_written_below"] == 80, l["plan"]
t = {x["name"]: x for x in l["targets"]}
assert t["sm_75"]["variant"] is None and t["sm_75"]["as_written"] is True, t
assert t["sm_80"]["variant"] == "cp-async", t
PY

# nvcc -c of the rewrite for each listed target this nvcc builds
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ ! -x "$nvcc" ]; then
	echo "SKIP: nvcc not found: the rewrite is not compiled for sm_52 ... sm_90"
else
	archs=$("$nvcc" --list-gpu-arch 2>/dev/null)
	ver=$("$nvcc" --version | grep -o 'release [0-9.]*')
	for cc in 52 61 70 75 80 90; do
		if ! grep -qx "compute_$cc" <<<"$archs"; then
			echo "SKIP: nvcc ($ver) does not build sm_$cc"
			continue
		fi
		# through the tests' nvcc cache: the sanitizer build's run
		# compiles the plain build's rewrite, the same bytes (CI time)
		check "nvcc -c for sm_$cc" kp_nvcc_cached -c -arch=sm_$cc -o "$tmp/sm_$cc.o" "$tmp/rw.cu"
	done
	for cc in 75 80; do
		check "nvcc -c for sm_$cc, the older targets as written" \
			kp_nvcc_cached -c -arch=sm_$cc -o "$tmp/asis_$cc.o" "$tmp/asis.cu"
	done
fi
kp_summary multiarch
