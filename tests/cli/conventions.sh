#!/usr/bin/env bash
# conventions.sh - the conventions people know (#18): per-command help
# (kpipe help CMD, CMD --help, CMD -h; the overview; a bare kpipe), every
# option a command takes listed in its help, one error format
# ("kpipe: error:", FILE: without a position, never FILE:0:0:), ranges in
# out-of-range messages, --opt=value and -p=DIR, options that would be
# ignored refused as usage errors, --no-comment, a batch's progress line
# on a terminal and -v's per-file lines, and "// kpipe: ignore" in JSON.
# Inputs: samples/.  Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir conventions
cd "$root" || exit 1
sample=samples/matmul_32x32.cu

# --- help --------------------------------------------------------------------
"$kpipe" --help >"$tmp/overview" 2>"$tmp/e"
check "--help: exit 0, stderr empty" test $? -eq 0 -a ! -s "$tmp/e"
for c in analyze rewrite tune validate version help; do
	check "--help lists '$c'" grep -qE "^  $c +" "$tmp/overview"
done
for c in analyze rewrite tune validate; do
	for form in "help $c" "$c --help" "$c -h"; do
		# shellcheck disable=SC2086 # $form is two words
		"$kpipe" $form >"$tmp/h" 2>"$tmp/e"
		check "kpipe $form: exit 0, stderr empty" test $? -eq 0 -a ! -s "$tmp/e"
		check "kpipe $form: that command's usage" grep -q "^usage: kpipe $c " "$tmp/h"
		check "kpipe $form: examples" grep -q "^examples" "$tmp/h"
		check "kpipe $form: not the overview" test "$(grep -c '^  tune ' "$tmp/h")" -eq 0
	done
done
# every option a command accepts is in its help
for c in analyze rewrite tune; do
	"$kpipe" help $c >"$tmp/h"
	# the options the command accepts, as its parser's table lists them
	# (kpipe --list-options: the first column; cli.registry checks the
	# aliases, the man page and the completions)
	opts=$("$kpipe" --list-options "$c" | cut -f1 | grep -vx -- --help)
	check "$c: its option list was found" test -n "$opts"
	for o in $opts; do
		check "kpipe help $c: lists $o" grep -qE -- "(^| )$o([ ,=]|$)" "$tmp/h"
	done
done
"$kpipe" >"$tmp/o" 2>"$tmp/e"
check "bare kpipe: exit 2" test $? -eq 2
check "bare kpipe: a short usage on stderr" grep -q '^usage: kpipe' "$tmp/e"
check "bare kpipe: short" test "$(wc -l <"$tmp/e")" -le 8
check "bare kpipe: stdout empty" test ! -s "$tmp/o"
"$kpipe" help frobnicate >"$tmp/o" 2>"$tmp/e"
check "help of an unknown command: exit 2" test $? -eq 2
check "help of an unknown command: kpipe: error:" grep -q "^kpipe: error: unknown command 'frobnicate'" "$tmp/e"

# --- errors ------------------------------------------------------------------
expect_usage() { # WHAT MESSAGE ARGS...: exit 2 and MESSAGE on stderr
	local what="$1" msg="$2"
	shift 2
	"$kpipe" "$@" >"$tmp/o" 2>"$tmp/e"
	check "$what: exit 2" test $? -eq 2
	check "$what: '$msg'" grep -qF -- "$msg" "$tmp/e"
	check "$what: no 'kpipe CMD: error'" test "$(grep -cE '^kpipe [a-z]+: error' "$tmp/e")" -eq 0
}
expect_usage "--stages 9" "kpipe: error: invalid value '9' for '--stages' (2..8)" rewrite --stages 9 "$sample"
expect_usage "-j0" "kpipe: error: invalid value '0' for '-j' (1..1024)" rewrite -j0 samples
expect_usage "--threads=0" "kpipe: error: invalid value '0' for '--threads' (1..4096)" analyze --threads=0 "$sample"
expect_usage "--shard 3/3" "(I/N with 0 <= I < N)" rewrite --shard 3/3 samples --dry-run
expect_usage "unknown option" "kpipe: error: unknown option '--frob'" analyze --frob "$sample"
expect_usage "validate: one file" "kpipe: error: expected two files" validate "$sample"
# options that would be ignored
cp "$sample" "$tmp/k.cu"
expect_usage "--backup-suffix without -i" "kpipe: error: --backup-suffix names the copy -i keeps" \
	rewrite --backup-suffix .orig "$tmp/k.cu" -o "$tmp/out.cu"
expect_usage "--assume-filename with a file" "kpipe: error: --assume-filename names the buffer read from stdin" \
	rewrite --assume-filename x.cu "$tmp/k.cu"
expect_usage "-i --dry-run" "kpipe: error: --dry-run writes nothing" rewrite -i --dry-run "$tmp/k.cu"
expect_usage "--sarif-all without sarif" "kpipe: error: --sarif-all goes with --format sarif" \
	rewrite --sarif-all "$tmp/k.cu"
check "refused options: the input is untouched" cmp -s "$tmp/k.cu" "$sample"
check "refused options: nothing written" test ! -e "$tmp/out.cu" -a ! -e "$tmp/k.cu.orig"
# a diagnostic without a position names the file, never FILE:0:0
"$kpipe" rewrite "$sample" --kernel no_such_kernel >/dev/null 2>"$tmp/e"
check "no position: 'FILE: warning:'" grep -q "^$sample: warning: .*\[kpipe-no-such-kernel\]" "$tmp/e"
check "no position: never :0:0:" test "$(grep -c ':0:0:' "$tmp/e")" -eq 0

# --- --opt=value and -p=DIR ----------------------------------------------------
"$kpipe" analyze -p="$tmp" --kernel=matmul_32x32 --stages=3 --arch=sm_80 "$sample" >"$tmp/a" 2>"$tmp/e"
check "-p=DIR --kernel=K --stages=3 --arch=sm_80: exit 0" test $? -eq 0
check "--arch=sm_80 taken" grep -q 'sm_80' "$tmp/a"
"$kpipe" rewrite -o="$tmp/eq.cu" "$sample" 2>/dev/null
check "-o=OUT writes OUT" test -s "$tmp/eq.cu"

# --- --no-comment ----------------------------------------------------------------
strip() { grep -vE '^ *(// kpipe:|/\* kpipe: .*\*/$)' "$1" | sed 's| *// kpipe:.*||'; }
count() { grep -cE '(//|/\*) kpipe:' "$1"; }
# register staging, cp.async with 3 stages and its exit barrier, an inlined helper
for args in "$sample" "--stages 3 samples/matmul_guarded.cu" "samples/matmul_load_helper.cu"; do
	f=${args##* }
	# shellcheck disable=SC2086 # $args is several words
	"$kpipe" rewrite $args >"$tmp/with.cu" 2>/dev/null
	# shellcheck disable=SC2086
	"$kpipe" rewrite --no-comment $args >"$tmp/without.cu" 2>/dev/null
	check "--no-comment ($args): only the source's own kpipe comments" \
		test "$(count "$tmp/without.cu")" -eq "$(count "$f")"
	check "--no-comment ($args): some were left out" test "$(count "$tmp/with.cu")" -gt "$(count "$f")"
	check "--no-comment ($args): the code is the same" cmp -s <(strip "$tmp/with.cu") <(strip "$tmp/without.cu")
done

# --- a batch's progress -------------------------------------------------------------
mkdir -p "$tmp/proj"
cp "$sample" samples/matmul_guarded.cu samples/refused_smem_carry.cu "$tmp/proj/"
"$kpipe" rewrite "$tmp/proj" --dry-run -v >/dev/null 2>"$tmp/e"
check "-v: a line per file" test "$(grep -cE '^kpipe rewrite: \[[1-3]/3\] ' "$tmp/e")" -eq 3
check "-v: the outcome" grep -qE '^kpipe rewrite: \[[1-3]/3\] .*refused_smem_carry.cu: refused ' "$tmp/e"
check "not a terminal: no status line" test "$(grep -c $'\r' "$tmp/e")" -eq 0
if command -v script >/dev/null; then
	# The run under a pseudo-terminal failed once in CI under ASan only and never
	# here: when the summary is missing, show what came back (and script's exit
	# status) and try once more, so the log names the cause.
	for attempt in 1 2; do
		TERM=xterm script -qec "'$kpipe' rewrite '$tmp/proj' --dry-run -j 1" /dev/null >"$tmp/tty" 2>&1
		rc=$?
		grep -q 'kpipe rewrite: 3 files: 2 would change' "$tmp/tty" && break
		echo "NOTE: terminal run $attempt: script exited $rc; its output (cat -v, first 30 lines):"
		cat -v "$tmp/tty" | head -30 | sed 's/^/NOTE:   /'
	done
	check "terminal: a status line with files done/total" grep -q $'kpipe rewrite: [12]/3 files' "$tmp/tty"
	check "terminal: the line is erased" grep -q $'\r\033\\[K' "$tmp/tty"
	check "terminal: the summary at the end" grep -q 'kpipe rewrite: 3 files: 2 would change' "$tmp/tty"
else
	echo "SKIP: script (util-linux) not installed: the terminal status line is not checked"
fi

# --- // kpipe: ignore in JSON --------------------------------------------------------
sed 's|^\(    for (int k0 = 0;.*\)$|\1 // kpipe: ignore kpipe-smem-carried|' samples/refused_smem_carry.cu >"$tmp/carry.cu"
"$kpipe" rewrite --format json "$tmp/carry.cu" >"$tmp/j" 2>"$tmp/e"
check "ignore: stderr empty" test ! -s "$tmp/e"
check "ignore: JSON marks it suppressed" grep -q '"suppressed":[[:space:]]*true' "$tmp/j"

kp_summary conventions
