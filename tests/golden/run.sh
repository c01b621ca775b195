#!/usr/bin/env bash
# tests/golden/run.sh - golden tests: run kpipe on each case, compare with
# what was blessed.
#
# A case is a folder tests/golden/cases/NAME/ holding
#   args             one line: kpipe's arguments, shell-style quoting allowed;
#                    @SRC@ stands for the repository ($KPIPE_SOURCE_DIR)
#   stdin            optional: fed to kpipe (otherwise /dev/null)
#   expected.stdout  required
#   expected.stderr  optional: when absent, stderr is not compared
#   expected.rc      optional: the exit status, default 0
# kpipe runs from the repository root. In its output the repository's
# absolute path is replaced by @SRC@, so expectations hold in any checkout.
#
# Usage:
#   tests/golden/run.sh [GLOB...]     run the cases whose name matches a glob
#   UPDATE=1 tests/golden/run.sh ...  bless: rewrite the expected files
#                                     (expected.stderr only where it exists,
#                                     or for a new case; expected.rc when it
#                                     exists or the status is not 0)
# Environment: KPIPE (default build/kpipe), KPIPE_SOURCE_DIR (default: this
# checkout), GOLDEN_TIMEOUT seconds per case (default 300).
# Prints PASS/FAIL per case, the diff on failure, and "N passed, N failed";
# exits 1 on any failure, 77 (skipped) when there are no cases at all.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${KPIPE_SOURCE_DIR:=$(cd "$here/../.." && pwd)}"
: "${KPIPE:=$KPIPE_SOURCE_DIR/build/kpipe}"
: "${GOLDEN_TIMEOUT:=300}"
cases_dir="$here/cases"
update="${UPDATE:-0}"

case "$KPIPE" in
/*) ;;
*) KPIPE="$PWD/$KPIPE" ;;
esac
if [ ! -x "$KPIPE" ]; then
	echo "error: kpipe binary '$KPIPE' not found (build first, or set KPIPE)" >&2
	exit 2
fi

names=()
for d in "$cases_dir"/*/; do
	[ -d "$d" ] || continue
	name="$(basename "$d")"
	if [ $# -gt 0 ]; then
		hit=0
		for pat in "$@"; do
			# shellcheck disable=SC2053 # the glob match is the point
			[[ "$name" == $pat ]] && hit=1
		done
		[ "$hit" = 1 ] || continue
	fi
	names+=("$name")
done
if [ ${#names[@]} -eq 0 ]; then
	if [ $# -gt 0 ]; then
		echo "error: no golden case matches '$*'" >&2
		exit 1
	fi
	echo "SKIP: no golden cases in $cases_dir"
	exit 77
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/kpipe-golden.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Replace the checkout's absolute path with @SRC@ (perl: no escaping trouble
# with whatever characters the path holds).
normalize() {
	SRC="$KPIPE_SOURCE_DIR" perl -pe 's/\Q$ENV{SRC}\E/\@SRC\@/g' "$1"
}

passed=0
failed=0
failures=()
for name in "${names[@]}"; do
	dir="$cases_dir/$name"
	out="$work/$name"
	mkdir -p "$out"
	msgs=()

	if [ ! -f "$dir/args" ]; then
		echo "FAIL $name"
		echo "  missing $dir/args"
		failed=$((failed + 1))
		failures+=("$name")
		continue
	fi
	line="$(head -n 1 "$dir/args")"
	line="${line//@SRC@/$KPIPE_SOURCE_DIR}"
	argv=()
	if [[ "$line" =~ [^[:space:]] ]]; then
		# xargs splits like the shell (quotes, backslashes) without expanding
		# anything, so an args file can never run a command.
		if ! printf '%s' "$line" | xargs printf '%s\0' >"$out/argv" 2>"$out/argv.err"; then
			echo "FAIL $name"
			echo "  cannot split args: $(cat "$out/argv.err")"
			failed=$((failed + 1))
			failures+=("$name")
			continue
		fi
		mapfile -d '' argv <"$out/argv"
	fi
	stdin=/dev/null
	[ -f "$dir/stdin" ] && stdin="$dir/stdin"

	(cd "$KPIPE_SOURCE_DIR" && timeout "$GOLDEN_TIMEOUT" "$KPIPE" "${argv[@]}") \
		<"$stdin" >"$out/raw.stdout" 2>"$out/raw.stderr"
	rc=$?
	normalize "$out/raw.stdout" >"$out/stdout"
	normalize "$out/raw.stderr" >"$out/stderr"
	echo "$rc" >"$out/rc"

	if [ "$update" = 1 ]; then
		new=0
		[ -f "$dir/expected.stdout" ] || new=1
		cp "$out/stdout" "$dir/expected.stdout"
		if [ -f "$dir/expected.stderr" ] || [ "$new" = 1 ]; then
			cp "$out/stderr" "$dir/expected.stderr"
		fi
		if [ -f "$dir/expected.rc" ] || [ "$rc" != 0 ]; then
			echo "$rc" >"$dir/expected.rc"
		fi
		echo "BLESS $name (rc $rc)"
		passed=$((passed + 1))
		continue
	fi

	if [ "$rc" = 124 ]; then
		msgs+=("timed out after ${GOLDEN_TIMEOUT}s")
	fi
	want_rc=0
	[ -f "$dir/expected.rc" ] && want_rc="$(tr -d '[:space:]' <"$dir/expected.rc")"
	if [ "$rc" != "$want_rc" ]; then
		msgs+=("exit status $rc, expected $want_rc")
	fi
	diffs=""
	if [ -f "$dir/expected.stdout" ]; then
		if ! d="$(diff -u --label expected.stdout --label actual.stdout "$dir/expected.stdout" "$out/stdout")"; then
			diffs+="$d"$'\n'
		fi
	else
		msgs+=("missing expected.stdout (bless with: UPDATE=1 tests/golden/run.sh '$name')")
	fi
	if [ -f "$dir/expected.stderr" ]; then
		if ! d="$(diff -u --label expected.stderr --label actual.stderr "$dir/expected.stderr" "$out/stderr")"; then
			diffs+="$d"$'\n'
		fi
	fi

	if [ ${#msgs[@]} -eq 0 ] && [ -z "$diffs" ]; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		echo "  command: kpipe $(head -n 1 "$dir/args")"
		for m in "${msgs[@]}"; do
			echo "  $m"
		done
		if [ -n "$diffs" ]; then
			printf '%s' "$diffs"
		fi
		if [ "$rc" != "$want_rc" ] && [ ! -f "$dir/expected.stderr" ] && [ -s "$out/stderr" ]; then
			echo "  stderr:"
			sed 's/^/    /' "$out/stderr"
		fi
		failed=$((failed + 1))
		failures+=("$name")
	fi
done

if [ "$failed" -gt 0 ]; then
	echo "failed cases: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
