#!/usr/bin/env bash
# test.sh - everything CI runs: install what is missing, build twice (plain
# in build/, ASan+UBSan in build-asan/), run the whole CTest suite in each.
#
#   bash scripts/test.sh              # both builds
#   bash scripts/test.sh --no-asan    # the plain build only (quicker)
#   bash scripts/test.sh -L unit      # extra arguments go to ctest (-L, -R, -E ...)
#
# Keeps going after a failure so both builds report, then exits non-zero if
# any build or test failed. The last line sums both runs up:
# "total: N passed, N failed, N skipped".
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
asan=1
ctest_args=()
for a in "$@"; do
	case "$a" in
	--no-asan) asan=0 ;;
	*) ctest_args+=("$a") ;;
	esac
done
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

bash scripts/setup.sh || {
	echo "test.sh: setup failed" >&2
	exit 1
}

status=0
total_pass=0
total_fail=0
total_skip=0

# run_suite NAME DIR BUILD-ARGS...: build, then ctest; tallies the results.
run_suite() {
	local name="$1" dir="$2"
	shift 2
	echo "=== $name build ($dir)"
	if ! bash scripts/build.sh "$@"; then
		echo "test.sh: $name build failed" >&2
		status=1
		total_fail=$((total_fail + 1))
		return
	fi
	echo "=== $name tests"
	local log="$dir/ctest.log"
	local extra=()
	if [ "$name" = asan ]; then
		# The tests labelled plain-only (tests/CMakeLists.txt) spend their
		# time in nvcc or g++ on kpipe's outputs, the plain build's
		# outputs byte for byte, or do not run kpipe (layout): they find
		# nothing ASan could.  CI time.
		extra=(-LE plain-only)
		echo "[asan] not run here (plain-only, the same outputs as the plain build):" \
			"$(cd "$dir" && ctest -N -L plain-only | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')"
	fi
	(cd "$dir" && ctest --output-on-failure --timeout 1500 -j "$jobs" "${extra[@]}" "${ctest_args[@]}") 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || status=1
	# Skipped tests say why on their own output ("SKIP: ..."); show it.
	if [ -f "$dir/Testing/Temporary/LastTest.log" ]; then
		grep -h '^SKIP: ' "$dir/Testing/Temporary/LastTest.log" | sort -u | sed "s/^/[$name] /" || true
	fi
	# A failed test's own "FAIL: ..." lines, at the end where a cut log
	# still shows them.
	if [ "$rc" != 0 ] && [ -f "$dir/Testing/Temporary/LastTest.log" ]; then
		grep -h '^FAIL' "$dir/Testing/Temporary/LastTest.log" | head -n 40 | sed "s/^/[$name] /" || true
	fi
	local line n_fail n_total n_skip
	line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)"
	if [ -z "$line" ]; then
		echo "test.sh: $name: ctest printed no summary" >&2
		status=1
		total_fail=$((total_fail + 1))
		return
	fi
	n_fail="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")"
	n_total="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")"
	n_skip="$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)' "$log" || true)"
	total_fail=$((total_fail + n_fail))
	total_skip=$((total_skip + n_skip))
	total_pass=$((total_pass + n_total - n_fail - n_skip))
}

run_suite plain build
if [ "$asan" = 1 ]; then
	run_suite asan build-asan --asan
fi

echo
if [ "$status" = 0 ] && [ "$total_fail" = 0 ]; then
	echo "test.sh: all good"
else
	echo "test.sh: FAILED"
	status=1
fi
echo "total: $total_pass passed, $total_fail failed, $total_skip skipped"
exit "$status"
