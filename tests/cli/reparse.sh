#!/usr/bin/env bash
# reparse.sh - the re-parse guard (docs/design.md, "The re-parse guard"):
# kpipe parses its output again before writing it and refuses a file whose
# rewrite has an error the input did not have (kpipe-rewrite-invalid),
# keeping the input unchanged, on every output path.
#   - With the test-only hook KPIPE_TEST_BREAK_REWRITE=1 (a statement naming
#     an undeclared identifier appended to the first rewritten loop): -o,
#     stdout, stdin, -i (with a backup suffix), --diff, --dry-run,
#     --format json, --export-fixes, --out-dir and -i over a directory
#     write no rewritten code: as for a file with nothing pipelined, -o,
#     stdout, stdin and --out-dir get the input unchanged, -i and --diff
#     nothing, exit 0 (1 with --Werror); the warning quotes the new error
#     with its line.
#   - Without it: a real case that used to produce code that does not
#     compile (the address of the loop counter taken in the load phase) is
#     refused, and a correct rewrite still goes through.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir reparse
same() { cmp -s "$1" "$2"; }
cd "$root" || exit 1
src=samples/matmul_32x32.cu
id="kpipe-rewrite-invalid"
msg="the rewritten code does not compile: line [0-9]* of the rewrite: use of undeclared identifier 'kpipe_test_break_rewrite'; nothing was rewritten \[$id\]"
brk() { KPIPE_TEST_BREAK_REWRITE=1 "$kpipe" "$@"; }

# -o: the input unchanged, the refusal at the loop (27:5)
brk rewrite "$src" -o "$tmp/o.cu" >"$tmp/out" 2>"$tmp/err"
check "-o: exit 0" test $? -eq 0
check "-o: the input unchanged" same "$tmp/o.cu" "$src"
check "-o: the warning at the loop, quoting the new error" grep -q "^$src:27:5: warning: $msg\$" "$tmp/err"
check "-o: one diagnostic only" test "$(wc -l <"$tmp/err")" -eq 1
check "-o: stdout empty" test ! -s "$tmp/out"

# stdout
brk rewrite "$src" >"$tmp/out" 2>"$tmp/err"
check "stdout: exit 0" test $? -eq 0
check "stdout: the input unchanged" same "$tmp/out" "$src"
check "stdout: warning" grep -q "\[$id\]" "$tmp/err"
brk rewrite "$src" --Werror >"$tmp/out" 2>"$tmp/err"
check "stdout --Werror: exit 1" test $? -eq 1

# stdin: the buffer comes back unchanged, as for nothing to pipeline
brk rewrite - --assume-filename k.cu <"$src" >"$tmp/out" 2>"$tmp/err"
check "stdin: exit 0" test $? -eq 0
check "stdin: the buffer back unchanged" same "$tmp/out" "$src"
check "stdin: the warning names the assumed file" grep -q "^k.cu:27:5: warning: .*\[$id\]" "$tmp/err"

# -i with a backup: the input untouched, no backup made
cp "$src" "$tmp/k.cu"
brk rewrite -i --backup-suffix=.orig "$tmp/k.cu" >"$tmp/out" 2>"$tmp/err"
check "-i: exit 0" test $? -eq 0
check "-i: input unchanged" same "$tmp/k.cu" "$src"
check "-i: no backup" test ! -e "$tmp/k.cu.orig"

# --diff
brk rewrite --diff "$src" >"$tmp/out" 2>"$tmp/err"
check "--diff: exit 0" test $? -eq 0
check "--diff: no diff" test ! -s "$tmp/out"

# --dry-run: nothing would change
brk rewrite --dry-run "$src" >"$tmp/out" 2>"$tmp/err"
check "--dry-run: exit 0 (nothing would change)" test $? -eq 0
check "--dry-run: nothing to pipeline" grep -qx "$src: nothing to pipeline" "$tmp/out"

# --format json: the file refused, counted by reason, no variant
brk rewrite --format json --dry-run "$src" >"$tmp/json" 2>"$tmp/err"
check "json: refused by kpipe-rewrite-invalid" python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))['files'][0]
assert f['status'] == 'refused' and f['pipelined'] == 0 and f['refused'] == 1, f
assert f['refused_by_reason'] == {'$id': 1} and f['pipelined_by_variant'] == {}, f
# (notes apart: kpipe-registers-over-limit says when ptxas was not asked)
d = [x for x in f['diagnostics'] if x['level'] != 'note']
assert [x['id'] for x in d] == ['$id'] and d[0]['line'] == 27, d
" "$tmp/json"

# --export-fixes: the warning, no replacement
brk rewrite "$src" --export-fixes "$tmp/fx.yaml" >"$tmp/out" 2>"$tmp/err"
check "--export-fixes: exit 0" test $? -eq 0
check "--export-fixes: the refusal exported" grep -q "DiagnosticName:  \"$id\"" "$tmp/fx.yaml"
check "--export-fixes: no replacement" bash -c "! grep -q 'ReplacementText' '$tmp/fx.yaml'"

# a batch (with its precompiled header): --out-dir gets the inputs as they
# were, -i changes nothing
mkdir -p "$tmp/proj"
cp samples/matmul_32x32.cu samples/matmul_guarded.cu "$tmp/proj/"
cp -r "$tmp/proj" "$tmp/orig"
brk rewrite "$tmp/proj" --out-dir "$tmp/od" -j 2 >"$tmp/out" 2>"$tmp/err"
check "--out-dir: exit 0" test $? -eq 0
check "--out-dir: the inputs unchanged" diff -r "$tmp/od" "$tmp/orig"
check "--out-dir: both refused" test "$(grep -c "\[$id\]" "$tmp/err")" -eq 2
check "--out-dir: summary" grep -q "refused:   2 ($id 2)" "$tmp/err"
brk rewrite -i "$tmp/proj" -j 2 >"$tmp/out" 2>"$tmp/err"
check "-i dir: exit 0" test $? -eq 0
check "-i dir: inputs unchanged" diff -r "$tmp/proj" "$tmp/orig"

# the hook off ("0") changes nothing
KPIPE_TEST_BREAK_REWRITE=0 "$kpipe" rewrite "$src" -o "$tmp/ok.cu" 2>"$tmp/err"
check "hook 0: exit 0" test $? -eq 0
check "hook 0: written" grep -q kp_stage "$tmp/ok.cu"

# a real case: &k0 in the load phase became &(k0 + TILE)
fx=tests/fixtures/cu/reparse_addr_of_counter.cu
for v in register cp-async; do
	"$kpipe" rewrite --variant "$v" "$fx" -o "$tmp/addr.cu" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "addr_of_counter $v: exit 0" test $rc -eq 0
	check "addr_of_counter $v: the input unchanged" same "$tmp/addr.cu" "$fx"
	check "addr_of_counter $v: refused by the guard (or earlier, by the analysis)" \
		grep -q "warning: .*\[kpipe-" "$tmp/err"
	if grep -q "\[$id\]" "$tmp/err"; then
		check "addr_of_counter $v: the error quoted" grep -q "cannot take the address of an rvalue" "$tmp/err"
	fi
done

kp_summary
