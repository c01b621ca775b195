#!/usr/bin/env bash
# probe_cache.sh - ptxas's reports kept between runs (src/validate/probe.c,
# docs/tune.md "The probe cache"):
#   - a second analyze of the same file reads the kept reports: the same
#     output, no new report in <cache>/probe; with the reports altered (250
#     registers) the output shows the altered count, so they are read;
#   - rewrite after analyze reuses analyze's reports;
#   - a header the file includes changes (size or time): the reports are
#     not reused (the key hashes every included file's path, size, time);
#   - another -D: another key; KPIPE_CACHE_DIR=off keeps nothing.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
unset KPIPE_NO_PTXAS
kp_tmpdir probe-cache
nlogs() { find "$1/probe" -name '*.log' 2>/dev/null | wc -l; }

# a compute-heavy sample (auto asks ptxas) that includes a header of ours
mkdir -p "$tmp/src"
cp "$root/samples/int8_dp4a.cu" "$tmp/src/k.cu"
printf '#define KP_PROBE_CACHE_HEADER 1\n' >"$tmp/src/extra.h"
sed -i '0,/^#include/s//#include "extra.h"\n#include/' "$tmp/src/k.cu"
c="$tmp/cache"
export KPIPE_CACHE_DIR="$c"
"$kpipe" analyze "$tmp/src/k.cu" >"$tmp/a1.txt" 2>&1
check "first analyze: exit 0 or 1" test $? -le 1
check "first analyze: ptxas was asked" grep -q 'ptxas' "$tmp/a1.txt"
n1=$(nlogs "$c")
check "first analyze: reports kept" test "$n1" -ge 1

"$kpipe" analyze "$tmp/src/k.cu" >"$tmp/a2.txt" 2>&1
check "second analyze: the same output" cmp -s "$tmp/a1.txt" "$tmp/a2.txt"
check "second analyze: no new report" test "$(nlogs "$c")" -eq "$n1"
# the reports are what the second run reads: altered, its output follows
cp -r "$c" "$tmp/altered"
for f in "$tmp/altered"/probe/*.log; do sed -i 's/Used \([0-9]*\) registers/Used 250 registers/' "$f"; done
KPIPE_CACHE_DIR="$tmp/altered" "$kpipe" analyze "$tmp/src/k.cu" >"$tmp/a3.txt" 2>&1
check "altered reports: their register count is the one shown" grep -q '250 registers' "$tmp/a3.txt"
check "the real count is not 250" bash -c "! grep -q '250 registers' '$tmp/a1.txt'"

"$kpipe" rewrite --no-verify "$tmp/src/k.cu" -o "$tmp/r1.cu" 2>"$tmp/r1.err"
check "rewrite after analyze: exit 0" test $? -eq 0
n2=$(nlogs "$c")
KPIPE_CACHE_DIR=off "$kpipe" rewrite --no-verify "$tmp/src/k.cu" -o "$tmp/r0.cu" 2>"$tmp/r0.err"
check "rewrite: the same output as without the cache" cmp -s "$tmp/r1.cu" "$tmp/r0.cu"
check "rewrite: the same messages as without the cache" cmp -s "$tmp/r1.err" "$tmp/r0.err"

# the header changes: new keys
sleep 1
printf '#define KP_PROBE_CACHE_HEADER 2\n' >"$tmp/src/extra.h"
"$kpipe" analyze "$tmp/src/k.cu" >/dev/null 2>&1
check "a changed header: new reports" test "$(nlogs "$c")" -gt "$n2"
n3=$(nlogs "$c")
"$kpipe" analyze "$tmp/src/k.cu" -- -DKP_OTHER=1 >/dev/null 2>&1
check "another -D: new reports" test "$(nlogs "$c")" -gt "$n3"
KPIPE_CACHE_DIR=off "$kpipe" analyze "$tmp/src/k.cu" >/dev/null 2>&1
check "off: no probe folder" test ! -e "off/probe"
kp_summary
