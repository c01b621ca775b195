#!/usr/bin/env bash
# compdb.sh - compiler flags reach the parser: from compile_commands.json
# (-p DIR, and searched upward from the file when -p is omitted), after
# `--`, and as -D.  The fixture only compiles when CD_TILE is defined.
set -uo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
kpipe="${KPIPE:-$root/build/kpipe}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
