#!/usr/bin/env bash
# guard_cache.sh - the re-parse guard's cache (src/rewrite/rewrite.c,
# docs/building.md "The guard cache"): a rewrite whose final text, parse
# arguments and included files were already guarded without an error is
# not parsed a second time.  The parses are counted with the test hook
# KPIPE_TEST_TRACE_PARSES=FILE (one line per parse: "full PATH", or "diags
# PATH" for the guard's).  On a copy of a sample that includes a project
# header (matmul_header_helper.cu, tile_loaders.cuh):
#   - the first run guards (one "diags" parse) and leaves one empty
#     guard/KEY; the second writes the same bytes and messages without it;
#   - KPIPE_TEST_BREAK_REWRITE=1 after a cached good run is still refused
#     (kpipe-rewrite-invalid, exit 0, the input unchanged), twice: a
#     refusal is never kept;
#   - the header touched (its time), then changed (its size): parsed again;
#   - an input with an error (outside the kernels, tolerated) keeps nothing;
#   - KPIPE_CACHE_DIR=off and --no-pch keep nothing;
#   - a batch (its precompiled header in a temporary folder, another each
#     run) hits on its second run and writes the same files.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir guard_cache
unset XDG_CACHE_HOME
w="$tmp/w"
mkdir -p "$w"
cp "$root/samples/matmul_header_helper.cu" "$root/samples/tile_loaders.cuh" "$w/"
src="$w/matmul_header_helper.cu"
c="$tmp/c"
trace="$tmp/trace"
# rw CACHE ARGS...: kpipe rewrite ARGS with that cache, its parses traced
rw() {
	local cache="$1"
	shift
	: >"$trace"
	KPIPE_CACHE_DIR="$cache" KPIPE_TEST_TRACE_PARSES="$trace" "$kpipe" rewrite "$@"
}
nparse() { awk -v k="$1" '$1 == k' "$trace" | wc -l; }
nguard() { find "$c/guard" -type f 2>/dev/null | wc -l; }

# the reference: no cache at all
rw off "$src" -o "$tmp/ref.cu" 2>"$tmp/ref.err"
check "off: exit 0" test $? -eq 0
check "off: rewritten" grep -q kp_stage "$tmp/ref.cu"
check "off: the guard parsed (one diags parse)" test "$(nparse diags)" -eq 1
full=$(nparse full)

# (1) the first run guards and keeps the verdict; the second reads it
rw "$c" "$src" -o "$tmp/1.cu" 2>"$tmp/1.err"
check "first: exit 0" test $? -eq 0
check "first: the output as without a cache" cmp -s "$tmp/1.cu" "$tmp/ref.cu"
check "first: the guard parsed" test "$(nparse diags)" -eq 1
check "first: one guard entry" test "$(nguard)" -eq 1
check "first: the entry is empty, named by a 32-digit key" \
	bash -c "test ! -s \"\$(ls '$c'/guard/*)\" && ls '$c/guard' | grep -qxE '[0-9a-f]{32}'"
rw "$c" "$src" -o "$tmp/2.cu" 2>"$tmp/2.err"
check "second: exit 0" test $? -eq 0
check "second: byte-identical output" cmp -s "$tmp/2.cu" "$tmp/1.cu"
check "second: the same messages" cmp -s "$tmp/2.err" "$tmp/1.err"
# (2) no second parse
check "second: no guard parse" test "$(nparse diags)" -eq 0
check "second: the other parses as before" test "$(nparse full)" -eq "$full"
check "second: still one entry" test "$(nguard)" -eq 1
check "no temporary file left" test "$(find "$c" -name '.kpipe-tmp-*' | wc -l)" -eq 0

# (3) a broken rewrite after a cached good run: still refused, every time
id="kpipe-rewrite-invalid"
msg="the rewritten code does not compile: line [0-9]* of the rewrite: use of undeclared identifier 'kpipe_test_break_rewrite'; nothing was rewritten \[$id\]"
for i in 1 2; do
	KPIPE_TEST_BREAK_REWRITE=1 rw "$c" "$src" -o "$tmp/b.cu" >"$tmp/out" 2>"$tmp/err"
	check "break $i: exit 0" test $? -eq 0
	check "break $i: the input unchanged" cmp -s "$tmp/b.cu" "$src"
	check "break $i: refused, quoting the new error" grep -q "^$src:[0-9]*:[0-9]*: warning: $msg\$" "$tmp/err"
	check "break $i: the guard parsed" test "$(nparse diags)" -eq 1
	check "break $i: the refusal not kept" test "$(nguard)" -eq 1
done
rw "$c" "$src" -o "$tmp/3.cu" 2>/dev/null
check "after the break: the good verdict still read" test "$(nparse diags)" -eq 0
check "after the break: the same output" cmp -s "$tmp/3.cu" "$tmp/ref.cu"

# (4) the included header touched, then changed: new keys
touch -d '+1 minute' "$w/tile_loaders.cuh"
rw "$c" "$src" -o "$tmp/4.cu" 2>/dev/null
check "header touched: parsed again" test "$(nparse diags)" -eq 1
check "header touched: a second entry" test "$(nguard)" -eq 2
check "header touched: the same output" cmp -s "$tmp/4.cu" "$tmp/ref.cu"
rw "$c" "$src" -o "$tmp/4.cu" 2>/dev/null
check "header touched: then read" test "$(nparse diags)" -eq 0
echo "// changed" >>"$w/tile_loaders.cuh"
touch -d '+1 minute' "$w/tile_loaders.cuh" # the size, the time kept
rw "$c" "$src" -o "$tmp/5.cu" 2>/dev/null
check "header changed: parsed again" test "$(nparse diags)" -eq 1
check "header changed: a third entry" test "$(nguard)" -eq 3

# an input with an error (host code, outside every kernel): never kept
cp "$root/samples/matmul_32x32.cu" "$w/host_err.cu"
printf '\nvoid kp_host_side(void) { kp_no_such_function(); }\n' >>"$w/host_err.cu"
he="$tmp/he"
for i in 1 2; do
	rw "$he" "$w/host_err.cu" -o "$tmp/he.cu" 2>"$tmp/err"
	check "input with an error $i: rewritten" grep -q kp_stage "$tmp/he.cu"
	check "input with an error $i: guarded" test "$(nparse diags)" -eq 1
done
check "input with an error: nothing kept, no guard folder made" test ! -e "$he/guard"

# KPIPE_CACHE_DIR=off and --no-pch: without
rw off "$src" -o "$tmp/6.cu" 2>/dev/null
check "off again: guarded" test "$(nparse diags)" -eq 1
np="$tmp/np"
for i in 1 2; do
	rw "$np" --no-pch "$src" -o "$tmp/7.cu" 2>/dev/null
	check "--no-pch $i: guarded" test "$(nparse diags)" -eq 1
	check "--no-pch $i: the same output" cmp -s "$tmp/7.cu" "$tmp/4.cu"
done
check "--no-pch: no guard folder" test ! -e "$np/guard"

# a batch: its precompiled header is another file each run
mkdir -p "$tmp/proj"
cp "$root/samples/matmul_32x32.cu" "$root/samples/matmul_guarded.cu" "$tmp/proj/"
bc="$tmp/bc"
rw "$bc" "$tmp/proj" --out-dir "$tmp/od1" -j 2 >/dev/null 2>&1
check "batch 1: exit 0" test $? -eq 0
check "batch 1: both guarded" test "$(nparse diags)" -eq 2
rw "$bc" "$tmp/proj" --out-dir "$tmp/od2" -j 2 >/dev/null 2>&1
check "batch 2: exit 0" test $? -eq 0
check "batch 2: no guard parse" test "$(nparse diags)" -eq 0
check "batch 2: the same files" diff -r "$tmp/od1" "$tmp/od2"
kp_summary
