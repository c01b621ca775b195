#!/usr/bin/env bash
# fuzz.sh - build and run kpipe's libFuzzer target (tests/fuzz/fuzz_rewrite.c).
#
#   bash scripts/fuzz.sh            # fuzz for 600 seconds
#   bash scripts/fuzz.sh 60         # fuzz for 60 seconds
#   bash scripts/fuzz.sh 60 -seed=1 # extra arguments go to libFuzzer
#
# Configures build-fuzz/ with CC=clang-19 -DKPIPE_FUZZ=ON (ASan+UBSan and
# -fsanitize=fuzzer), builds fuzz_rewrite, and fuzzes from the seed corpus
# (samples/*.cu, tests/fixtures/cu/*.cu, tests/fuzz/regressions/*); new
# inputs go to build-fuzz/corpus/, which later runs start from. A crash, a
# hang (30 s on one input), a leak or a sanitizer report is written to
# tests/fuzz/crashes/ and the script exits 1; after a fix, move the input
# to tests/fuzz/regressions/ (tests/fuzz/run_regressions.sh replays it).
# Environment: CC (default clang-19), FUZZ_BUILD_DIR (default build-fuzz),
# FUZZ_CRASH_DIR (default tests/fuzz/crashes), JOBS (build width, default 1).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-600}"
shift || true
case "$seconds" in
'' | *[!0-9]*)
	echo "fuzz.sh: SECONDS must be a number, not '$seconds'" >&2
	exit 2
	;;
esac
cc="${CC:-clang-19}"
dir="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
crashes="${FUZZ_CRASH_DIR:-$root/tests/fuzz/crashes}"
mkdir -p "$dir" "$crashes"

if ! CC="$cc" cmake -S "$root" -B "$dir" -DKPIPE_FUZZ=ON -DBUILD_TESTING=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$dir/configure.log" 2>&1; then
	cat "$dir/configure.log" >&2
	echo "fuzz.sh: configure failed (is $cc installed, with libFuzzer?)" >&2
	exit 2
fi
cmake --build "$dir" --target fuzz_rewrite -j "${JOBS:-1}" >"$dir/build.log" 2>&1 || {
	cat "$dir/build.log" >&2
	echo "fuzz.sh: build failed" >&2
	exit 2
}

# seeds: the samples, the fixtures, the golden cases' own inputs (the
# wrong-code classes: outer loops, chained conditions, ...), the inputs the
# CPU differential checker keeps, and every input that once crashed
seed="$dir/seed"
rm -rf "$seed"
mkdir -p "$seed" "$dir/corpus"
cp "$root"/samples/*.cu "$root"/tests/fixtures/cu/*.cu "$seed"/
for f in "$root"/tests/golden/cases/*/input.cu "$root"/tests/cpudiff/bad/*/kernel.cu; do
	[ -f "$f" ] && cp "$f" "$seed/$(basename "$(dirname "$f")").cu"
done
if compgen -G "$root/tests/fuzz/regressions/*" >/dev/null; then
	cp "$root"/tests/fuzz/regressions/* "$seed"/
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/cmake/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log="$dir/fuzz.log"
echo "fuzz.sh: fuzzing for $seconds s (log: $log)"
set +e
"$dir/fuzz_rewrite" "$dir/corpus" "$seed" \
	-max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -max_len=16384 \
	-close_fd_mask=3 -print_final_stats=1 -error_exitcode=86 -timeout_exitcode=87 \
	-artifact_prefix="$crashes/" "$@" >"$log" 2>&1
rc=$?
set -e
grep -E '^(stat::|Done|#[0-9]+ +DONE)' "$log" || true
if [ "$rc" != 0 ]; then
	tail -n 60 "$log" >&2
	echo "fuzz.sh: FAILED (libFuzzer exit $rc): the input is in $crashes/" >&2
	exit 1
fi
echo "fuzz.sh: no crash in $seconds s; corpus $(ls "$dir/corpus" | wc -l) inputs"
