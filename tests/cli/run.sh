#!/usr/bin/env bash
# tests/cli/run.sh - the command line's contract: exit codes, --help,
# --version, and how errors are reported.
#
# kpipe's exit codes (the CLI defines them; these tests hold it to them):
#   0  success
#   1  nothing to do / refused (check, --dry-run: something would change)
#   2  usage error (unknown option or command, bad arguments)
#   3  input or parse error (missing file, libclang could not parse)
#   4  validation failed
#   5  a required tool is missing (nvcc, cuobjdump)
#   6  validation incomplete
#
# Adding a test: write a function named test_<what>; it runs kpipe with
# `kp ARGS...` (optionally `kp_stdin FILE ARGS...`), then checks the result
# with the expect_* helpers below. Every test_* function runs, in the order
# written, from the repository root.
#
# Usage: tests/cli/run.sh [GLOB...]   (runs the tests whose name matches)
# Environment: KPIPE (default build/kpipe), KPIPE_SOURCE_DIR.
# Prints PASS/FAIL per test and "N passed, N failed"; exits 1 on a failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${KPIPE_SOURCE_DIR:=$(cd "$here/../.." && pwd)}"
: "${KPIPE:=$KPIPE_SOURCE_DIR/build/kpipe}"
case "$KPIPE" in
/*) ;;
*) KPIPE="$PWD/$KPIPE" ;;
esac
if [ ! -x "$KPIPE" ]; then
	echo "error: kpipe binary '$KPIPE' not found (build first, or set KPIPE)" >&2
	exit 2
fi

# shellcheck disable=SC2034 # not every code has a test yet
readonly EX_OK=0 EX_NOTHING=1 EX_USAGE=2 EX_INPUT=3 EX_VALIDATION=4 EX_NOTOOL=5 EX_INCOMPLETE=6

work="$(mktemp -d "${TMPDIR:-/tmp}/kpipe-cli.XXXXXX")"
trap 'rm -rf "$work"' EXIT
OUT="$work/stdout"
ERR="$work/stderr"
RC=0
CMD=""
problems=()

# --- helpers -------------------------------------------------------------

# kp ARGS...: run kpipe from the repository root; stdout in $OUT, stderr in
# $ERR, status in $RC.
kp() {
	kp_stdin /dev/null "$@"
}

# kp_stdin FILE ARGS...: the same, with FILE on standard input.
kp_stdin() {
	local in="$1"
	shift
	CMD="kpipe $*"
	(cd "$KPIPE_SOURCE_DIR" && timeout 300 "$KPIPE" "$@") <"$in" >"$OUT" 2>"$ERR"
	RC=$?
}

fail() {
	problems+=("$*")
}

expect_rc() {
	[ "$RC" = "$1" ] || fail "$CMD: exit status $RC, expected $1"
}

expect_stdout_contains() {
	grep -qF -- "$1" "$OUT" || fail "$CMD: stdout lacks '$1'"
}

expect_stderr_contains() {
	grep -qF -- "$1" "$ERR" || fail "$CMD: stderr lacks '$1'"
}

# Case-insensitive extended regex.
expect_stdout_matches() {
	grep -qEi -- "$1" "$OUT" || fail "$CMD: stdout does not match /$1/i"
}

expect_stderr_matches() {
	grep -qEi -- "$1" "$ERR" || fail "$CMD: stderr does not match /$1/i"
}

expect_stdout_empty() {
	[ ! -s "$OUT" ] || fail "$CMD: stdout not empty"
}

expect_stderr_empty() {
	[ ! -s "$ERR" ] || fail "$CMD: stderr not empty"
}

# --- tests ---------------------------------------------------------------

test_help() {
	kp --help
	expect_rc $EX_OK
	expect_stdout_matches 'usage'
	expect_stdout_contains 'kpipe'
	expect_stderr_empty
}

test_version() {
	kp --version
	expect_rc $EX_OK
	expect_stdout_contains 'kpipe'
	expect_stdout_contains 'libclang'
	expect_stdout_contains 'CUDA'
	expect_stderr_empty
}

test_unknown_option() {
	kp --no-such-option
	expect_rc $EX_USAGE
	expect_stderr_contains 'error:'
	expect_stderr_contains 'no-such-option'
	expect_stdout_empty
}

test_unknown_command() {
	kp frobnicate
	expect_rc $EX_USAGE
	expect_stderr_contains 'error:'
	expect_stderr_contains 'frobnicate'
	expect_stdout_empty
}

test_missing_file() {
	kp analyze no/such/file.cu
	expect_rc $EX_INPUT
	expect_stderr_contains 'error: '
	expect_stderr_contains 'no/such/file.cu'
	expect_stdout_empty
}

# --- runner --------------------------------------------------------------

passed=0
failed=0
failures=()
# The test_* functions in the order this file defines them.
for t in $(grep -oE '^test_[A-Za-z0-9_]+\(\)' "${BASH_SOURCE[0]}" | tr -d '()'); do
	name="${t#test_}"
	if [ $# -gt 0 ]; then
		hit=0
		for pat in "$@"; do
			# shellcheck disable=SC2053 # the glob match is the point
			[[ "$name" == $pat ]] && hit=1
		done
		[ "$hit" = 1 ] || continue
	fi
	problems=()
	"$t"
	if [ ${#problems[@]} -eq 0 ]; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		for p in "${problems[@]}"; do
			echo "  $p"
		done
		if [ -s "$ERR" ]; then
			echo "  stderr:"
			head -n 20 "$ERR" | sed 's/^/    /'
		fi
		failed=$((failed + 1))
		failures+=("$name")
	fi
done

if [ "$failed" -gt 0 ]; then
	echo "failed tests: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
