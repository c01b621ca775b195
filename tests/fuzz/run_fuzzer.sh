#!/usr/bin/env bash
# run_fuzzer.sh - a short libFuzzer run for CI: builds tests/fuzz/fuzz_rewrite.c
# with clang-19 (-fsanitize=fuzzer,address,undefined) in $KPIPE_BUILD_DIR/fuzz
# and fuzzes for KPIPE_FUZZ_SECONDS (default 60) through scripts/fuzz.sh.
# Prints "SKIP: ..." and exits 77 when clang-19 or its libFuzzer runtime is
# missing, and in a sanitizer build tree (the plain tree's run covers it, and
# CI would pay twice).  A crash fails the test; the input is left in
# $KPIPE_BUILD_DIR/fuzz/crashes/.
set -uo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
build="${KPIPE_BUILD_DIR:-$root/build}"
seconds="${KPIPE_FUZZ_SECONDS:-60}"
cc="${KPIPE_FUZZ_CC:-clang-19}"

if grep -q '^KPIPE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
	echo "SKIP: fuzzer: not run from the sanitizer build tree (the plain tree runs it)"
	exit 77
fi
if ! command -v "$cc" >/dev/null; then
	echo "SKIP: fuzzer: $cc not found"
	exit 77
fi
probe=$(mktemp -d "${TMPDIR:-/tmp}/kpipe-fuzzprobe.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
	echo "SKIP: fuzzer: $cc cannot link -fsanitize=fuzzer (no libFuzzer runtime)"
	sed 's/^/    /' "$probe/log" | head -5
	exit 77
fi

export CC="$cc"
export FUZZ_BUILD_DIR="$build/fuzz"
export FUZZ_CRASH_DIR="$build/fuzz/crashes"
# the suite's sanitizer options are for kpipe's own exit codes, not libFuzzer's
unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
if bash "$root/scripts/fuzz.sh" "$seconds"; then
	exit 0
fi
echo "FAIL: the fuzzer found a crash or could not run; see $FUZZ_BUILD_DIR/fuzz.log"
ls "$FUZZ_CRASH_DIR" 2>/dev/null | sed 's/^/    /'
exit 1
