#!/usr/bin/env bash
# compdb.sh - compiler flags reach the parser: from compile_commands.json
# (-p DIR, and searched upward from the file when -p is omitted), after
# `--`, and as -D.  The fixture only compiles when CD_TILE is defined.
# nvcc command lines are translated (response files, nvcc spellings, the
# target architecture, nvcc-only options dropped; src/compdb.c), and -v
# says what was kept and dropped.  Last, a real CMake project
# (tests/fixtures/compdb/cmake): configured with CMake and nvcc, then
# analysed and rewritten through its database; without cmake or nvcc
# those checks print "SKIP: ..." and are not counted.
set -uo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
kpipe="${KPIPE:-$root/build/kpipe}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tmp=$(cd "$tmp" && pwd -P) # kpipe names databases by their real path
pass=0
fail=0
check() { # description, then a command that must succeed
	local what="$1"
	shift
	if "$@"; then pass=$((pass + 1)); else
		fail=$((fail + 1))
		echo "FAIL: $what"
	fi
}
mkdir -p "$tmp/proj/src" "$tmp/proj/build"
cp "$root/tests/fixtures/compdb/needs_define.cu" "$tmp/proj/src/"
f="$tmp/proj/src/needs_define.cu"

"$kpipe" analyze "$f" >"$tmp/out" 2>"$tmp/err"
check "no flags: parse error exit 3" test $? -eq 3
check "no flags: file:line:col: error" grep -q "needs_define.cu:6:25: error: use of undeclared identifier 'CD_TILE'" "$tmp/err"

cat >"$tmp/proj/build/compile_commands.json" <<JSON
[{"directory": "$tmp/proj/build", "file": "$tmp/proj/src/needs_define.cu",
  "arguments": ["nvcc", "-DCD_TILE=16", "-I../include", "-c", "../src/needs_define.cu"]}]
JSON
cp "$tmp/proj/build/compile_commands.json" "$tmp/proj/cc.json"

"$kpipe" analyze --threads 256 -p "$tmp/proj/build" "$f" >"$tmp/out" 2>"$tmp/err"
check "-p: exit 0" test $? -eq 0
check "-p: CD_TILE resolved to 16" grep -q "float As\[CD_TILE\]\[CD_TILE\]  256 elements, 1024 B" "$tmp/out"

# searched upward: proj/build/compile_commands.json is found from proj/src
"$kpipe" analyze "$f" >"$tmp/out" 2>"$tmp/err"
check "upward search: exit 0" test $? -eq 0
check "upward search: CD_TILE=16" grep -q "256 elements, 1024 B" "$tmp/out"

rm "$tmp/proj/build/compile_commands.json"
"$kpipe" analyze "$f" -- -DCD_TILE=8 >"$tmp/out" 2>"$tmp/err"
check "after --: exit 0" test $? -eq 0
check "after --: CD_TILE=8" grep -q "64 elements, 256 B" "$tmp/out"

"$kpipe" analyze -DCD_TILE=32 "$f" >"$tmp/out" 2>"$tmp/err"
check "-D: exit 0" test $? -eq 0
check "-D: CD_TILE=32" grep -q "1024 elements, 4096 B" "$tmp/out"

cp "$tmp/proj/cc.json" "$tmp/proj/build/compile_commands.json"
"$kpipe" rewrite -p "$tmp/proj/build" "$f" -o "$tmp/out.cu" 2>"$tmp/err"
check "rewrite with -p: exit 0" test $? -eq 0
check "rewrite with -p: double-buffered" grep -q "As\[2\]\[CD_TILE\]\[CD_TILE\]" "$tmp/out.cu"

# --- nvcc command lines ---------------------------------------------------------
# a response file (nvcc's --options-file, relative to "directory", with
# quoting), nvcc spellings, two -gencode (the lower target binds), and
# options clang does not know
printf '%s\n' '--define-macro "CD_TILE=16" -I ../include' '-Xcompiler -Wall' >"$tmp/proj/build/flags.rsp"
cat >"$tmp/proj/build/compile_commands.json" <<JSON
[{"directory": "$tmp/proj/build", "file": "$tmp/proj/src/needs_define.cu",
  "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler --options-file flags.rsp -gencode arch=compute_86,code=sm_86 --generate-code=arch=compute_80,code=[compute_80,sm_80] --use_fast_math --expt-relaxed-constexpr -rdc=true -Xptxas -v -x cu -c ../src/needs_define.cu -o k.o"}]
JSON
"$kpipe" analyze -v -p "$tmp/proj/build" "$f" >"$tmp/out" 2>"$tmp/err"
check "nvcc db: exit 0" test $? -eq 0
check "nvcc db: CD_TILE=16 from the response file" grep -q "256 elements, 1024 B" "$tmp/out"
check "nvcc db: targets sm_80 and sm_86 (the lower parses and binds the budget), said so" \
	grep -q "(targets sm_80,sm_86, from compile_commands.json)" "$tmp/out"
check "nvcc db: budget on sm_80" grep -q "shared-memory budget on sm_80" "$tmp/out"
check "nvcc db -v: database and kept flags" grep -qF \
	"kpipe: flags for $f from $tmp/proj/build/compile_commands.json: -DCD_TILE=16 -I$tmp/proj/build/../include -fgpu-rdc; dropped: " "$tmp/err"
check "nvcc db -v: dropped flags" grep -qF \
	"dropped: -forward-unknown-to-host-compiler -Xcompiler -Wall --use_fast_math --expt-relaxed-constexpr -Xptxas -v -x cu -c ../src/needs_define.cu -o k.o; targets: compute_86 sm_86 compute_80 sm_80 (target sm_80)" "$tmp/err"
"$kpipe" analyze --arch sm_90 -p "$tmp/proj/build" "$f" >"$tmp/out" 2>"$tmp/err"
check "nvcc db, --arch sm_90: --arch wins" grep -q "(target sm_90)$" "$tmp/out"
"$kpipe" analyze --format json -p "$tmp/proj/build" "$f" >"$tmp/out" 2>"$tmp/err"
check "nvcc db, json: the file's arch" grep -q '"arch":	"sm_80"' "$tmp/out"
"$kpipe" analyze -p "$tmp/proj/build" "$f" -- -UCD_TILE -DCD_TILE=4 >"$tmp/out" 2>"$tmp/err"
check "nvcc db: the user's flags come after the database's" grep -q "16 elements, 64 B" "$tmp/out"
"$kpipe" rewrite -v -p "$tmp/proj/build" "$f" -o "$tmp/out.cu" 2>"$tmp/err"
check "nvcc db, rewrite: exit 0" test $? -eq 0
check "nvcc db, rewrite: double-buffered" grep -q "As\[2\]\[CD_TILE\]\[CD_TILE\]" "$tmp/out.cu"
check "nvcc db, rewrite -v: the flags line" grep -qF "kpipe: flags for $f from $tmp/proj/build/compile_commands.json: -DCD_TILE=16" "$tmp/err"
# a missing response file is reported, not fatal; a target kpipe does not
# know (its table starts at sm_50) is a warning
sed -i 's/flags.rsp/missing.rsp -DCD_TILE=4/; s/-gencode arch=compute_86,code=sm_86 --generate-code=arch=compute_80,code=\[compute_80,sm_80\]/-arch=sm_30/' \
	"$tmp/proj/build/compile_commands.json"
"$kpipe" analyze -v -p "$tmp/proj/build" "$f" >"$tmp/out" 2>"$tmp/err"
check "missing rsp: exit 0" test $? -eq 0
check "missing rsp: the other flags kept" grep -q "16 elements, 64 B" "$tmp/out"
check "missing rsp: reported" grep -qF "dropped: --options-file missing.rsp (cannot read: No such file or directory) " "$tmp/err"
check "sm_30: warned" grep -qF "warning: $f: target sm_30 of compile_commands.json is not in kpipe's table; analysing for sm_90" "$tmp/err"
check "sm_30: target sm_90" grep -q "(target sm_90)$" "$tmp/out"
rm "$tmp/proj/build/compile_commands.json" "$tmp/proj/build/flags.rsp"

# nvcc options after -- (they used to reach clang and stop the parse)
"$kpipe" analyze -v "$f" -- --expt-relaxed-constexpr -rdc=true -Xcompiler -fopenmp -DCD_TILE=8 -arch=sm_86 \
	>"$tmp/out" 2>"$tmp/err"
check "nvcc after --: exit 0" test $? -eq 0
check "nvcc after --: CD_TILE=8" grep -q "64 elements, 256 B" "$tmp/out"
check "nvcc after --: -arch=sm_86 is the target" grep -q "(target sm_86)$" "$tmp/out"
check "nvcc after -- -v: kept and dropped" grep -qxF \
	"kpipe: compiler arguments: -fgpu-rdc -DCD_TILE=8; dropped: --expt-relaxed-constexpr -Xcompiler -fopenmp; targets: sm_86" "$tmp/err"

# --- a real CMake project ---------------------------------------------------------
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if ! command -v cmake >/dev/null; then
	echo "SKIP: cmake not installed: the CMake project was not checked"
elif [ ! -x "$nvcc" ]; then
	echo "SKIP: nvcc not found: CMake cannot configure a CUDA project, not checked"
else
	p="$tmp/cmk"
	cp -r "$root/tests/fixtures/compdb/cmake" "$p"
	k="$p/src/cmk.cu"
	cmake -S "$p" -B "$p/build" -DCMAKE_CUDA_COMPILER="$nvcc" >"$tmp/cmake.log" 2>&1
	check "cmake: configures" test $? -eq 0
	check "cmake: wrote compile_commands.json" test -s "$p/build/compile_commands.json"
	"$kpipe" analyze -v -p "$p/build" "$k" >"$tmp/out" 2>"$tmp/err"
	check "cmake, analyze -p: exit 0" test $? -eq 0
	check "cmake, analyze -p: CMK_TILE from the included header" \
		grep -q "float As\[CMK_TILE\]\[CMK_TILE\]  256 elements, 1024 B" "$tmp/out"
	check "cmake, analyze -p: target sm_80 from the database" \
		grep -q "(target sm_80, from compile_commands.json)" "$tmp/out"
	check "cmake, analyze -p: budget on sm_80" grep -q "shared-memory budget on sm_80" "$tmp/out"
	check "cmake, analyze -v: the include directory kept" \
		grep -qF "kpipe: flags for $k from $p/build/compile_commands.json: -I$p/inc" "$tmp/err"
	check "cmake, analyze -v: nvcc's options dropped" grep -qE \
		"dropped: .*--use_fast_math .*--expt-relaxed-constexpr .*-x cu -c $k -o " "$tmp/err"
	# found upward from the file, as without CMake
	"$kpipe" analyze "$k" >"$tmp/out" 2>"$tmp/err"
	check "cmake, analyze (search): target sm_80" grep -q "(target sm_80, from compile_commands.json)" "$tmp/out"
	"$kpipe" rewrite -v -p "$p/build" --out-dir "$tmp/cmk_out" >"$tmp/out" 2>"$tmp/err"
	check "cmake, rewrite -p (batch): exit 0" test $? -eq 0
	check "cmake, rewrite -p (batch): double-buffered" \
		grep -q "As\[2\]\[CMK_TILE\]\[CMK_TILE\]" "$tmp/cmk_out/cmk.cu"
	check "cmake, rewrite -p -v (batch): the flags line" \
		grep -qF "kpipe: flags for $k from $p/build/compile_commands.json: -I$p/inc" "$tmp/err"
	"$kpipe" rewrite -p "$p/build" "$k" -o "$tmp/cmk1.cu" 2>"$tmp/err"
	check "cmake, rewrite -p FILE: exit 0" test $? -eq 0
	check "cmake, rewrite -p FILE: same as the batch" cmp -s "$tmp/cmk1.cu" "$tmp/cmk_out/cmk.cu"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
