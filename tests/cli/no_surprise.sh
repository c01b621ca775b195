#!/usr/bin/env bash
# no_surprise.sh - "never surprise, never lose work" (#18):
#   - --out-dir equal to an input directory, inside one (also spelled
#     with ".." or through a symbolic link, and not existing yet), or equal
#     to the inputs' own directory (`rewrite f.cu --out-dir .`) is a usage
#     error (exit 2) and nothing is written;
#   - --diff of an absolute or ../ path names the file relative to its git
#     work tree, and `git apply --check` takes it;
#   - a batch whose stdout is closed (`| head -1`) stops, exits 141 and
#     leaves no kpipe-batch-* directory; SIGTERM prints one line saying how
#     far it got and leaves none either;
#   - --timeout: a file that hangs (test hook KPIPE_TEST_HANG) is reported
#     as failed with the reason, nothing is written for it, exit 3.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir surprise
sample="$root/samples/matmul_32x32.cu"

# --- --out-dir among the inputs -------------------------------------------
p="$tmp/p"
mkdir -p "$p/src/a"
cp "$sample" "$p/src/a/k.cu"
cp "$sample" "$p/src/k2.cu"
ln -s "$p/src" "$p/link"
cp -r "$p" "$tmp/p.orig"
for args in "src --out-dir src" "src --out-dir src/out" "src --out-dir ./src/../src/new/deep" \
	"src --out-dir link/x" "link --out-dir src/y" "src/a/k.cu --out-dir src/a" \
	"src/a/k.cu src/k2.cu --out-dir src"; do
	# shellcheck disable=SC2086 # the arguments are words
	(cd "$p" && "$kpipe" rewrite $args) >"$tmp/o" 2>"$tmp/e"
	rc=$?
	check "out-dir ($args): exit 2 (got $rc)" test "$rc" -eq 2
	check "out-dir ($args): says why" grep -q "error: --out-dir '.*' \(is\|lies inside\) the input" "$tmp/e"
	check "out-dir ($args): nothing written" diff -r --no-dereference "$p" "$tmp/p.orig"
done
(cd "$p/src/a" && "$kpipe" rewrite k.cu --out-dir .) >"$tmp/o" 2>"$tmp/e"
check "rewrite k.cu --out-dir . (would overwrite k.cu): exit 2" test $? -eq 2
check "rewrite k.cu --out-dir .: the input unchanged" cmp -s "$p/src/a/k.cu" "$sample"
# outside the inputs is fine, and so is a directory below a file's own
(cd "$p" && "$kpipe" rewrite src/a/k.cu --out-dir src/a/out) >/dev/null 2>&1
check "out-dir below a file input's directory: exit 0" test $? -eq 0
rm -rf "$p/src/a/out"

# --- --diff paths, git apply ----------------------------------------------
if command -v git >/dev/null; then
	r="$tmp/repo"
	mkdir -p "$r/sub/deeper" "$tmp/elsewhere"
	cp "$sample" "$r/sub/k.cu"
	git -C "$r" init -q
	(cd "$tmp/elsewhere" && "$kpipe" rewrite --diff "$r/sub/k.cu") >"$tmp/abs.patch" 2>"$tmp/e"
	check "diff of an absolute path: exit 0" test $? -eq 0
	check "diff of an absolute path: a/sub/k.cu" grep -qx -- '--- a/sub/k.cu' "$tmp/abs.patch"
	check "diff of an absolute path: git apply --check" git -C "$r" apply --check "$tmp/abs.patch"
	(cd "$r/sub/deeper" && "$kpipe" rewrite --diff ../k.cu) >"$tmp/up.patch" 2>"$tmp/e"
	check "diff of ../k.cu: b/sub/k.cu" grep -qx -- '+++ b/sub/k.cu' "$tmp/up.patch"
	check "diff of ../k.cu: git apply --check (at the top, as for git diff)" \
		git -C "$r" apply --check "$tmp/up.patch"
	(cd "$r" && "$kpipe" rewrite --diff sub) >"$tmp/dir.patch" 2>"$tmp/e"
	check "batch diff: git apply" git -C "$r" apply "$tmp/dir.patch"
	check "batch diff: applied, the file is pipelined" grep -q kp_stage "$r/sub/k.cu"
else
	echo "SKIP: git not found: the --diff checks"
fi

# --- a batch stopped: closed stdout, SIGTERM ------------------------------
b="$tmp/b"
mkdir -p "$b/src" "$b/tmp"
for n in 1 2 3 4 5 6; do cp "$sample" "$b/src/k$n.cu"; done
(cd "$b" && TMPDIR="$b/tmp" "$kpipe" rewrite src --dry-run -j 2 2>"$tmp/e" | head -1 >"$tmp/o"
	echo "${PIPESTATUS[0]}" >"$tmp/rc")
check "closed stdout: the first line came" grep -q 'would pipeline' "$tmp/o"
check "closed stdout: exit 141 (got $(cat "$tmp/rc"))" test "$(cat "$tmp/rc")" -eq 141
check "closed stdout: no kpipe-batch-* left" bash -c "! ls -A '$b/tmp' | grep -q '^kpipe-batch-'"
check "closed stdout: silent" test ! -s "$tmp/e"
(cd "$b" && exec env TMPDIR="$b/tmp" "$kpipe" rewrite src --out-dir "$tmp/bo" -j 2) >/dev/null 2>"$tmp/e" &
pid=$!
for _ in $(seq 600); do
	ls -A "$b/tmp" | grep -q '^kpipe-batch-' && break
	sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
rc=$?
check "SIGTERM: exit 143 (got $rc)" test "$rc" -eq 143
check "SIGTERM: one line says how far it got" \
	grep -qE '^kpipe: interrupted by SIGTERM: [0-9] of 6 files done; nothing partial written$' "$tmp/e"
check "SIGTERM: no kpipe-batch-* left" bash -c "! ls -A '$b/tmp' | grep -q '^kpipe-batch-'"
check "SIGTERM: no temporary file left" bash -c "! find '$tmp' -name '.kpipe-tmp-*' | grep -q ."

# --- --timeout ----------------------------------------------------------------
mkdir -p "$tmp/t"
cp "$sample" "$tmp/t/hang.cu"
KPIPE_TEST_HANG=hang.cu "$kpipe" rewrite "$tmp/t/hang.cu" --out-dir "$tmp/to" --timeout 1 >/dev/null 2>"$tmp/e"
check "timeout: exit 3" test $? -eq 3
check "timeout: the reason" grep -q "hang.cu: error: gave up on this file after 1 s (--timeout); nothing was written for it" "$tmp/e"
check "timeout: nothing written" test ! -e "$tmp/to/hang.cu"
"$kpipe" rewrite "$sample" --timeout 5 >/dev/null 2>"$tmp/e"
check "timeout with one file: usage error" test $? -eq 2
"$kpipe" rewrite "$tmp/t" --out-dir "$tmp/to" --timeout x >/dev/null 2>"$tmp/e"
check "timeout x: usage error" test $? -eq 2

kp_summary no_surprise
