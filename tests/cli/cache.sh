#!/usr/bin/env bash
# cache.sh - the precompiled CUDA headers kept between runs
# (src/frontend/pch.c, docs/building.md "The header cache"):
#   - the first run builds pch-KEY.pch (and its empty pch-KEY.cu) in
#     $KPIPE_CACHE_DIR, else $XDG_CACHE_HOME/kpipe, else ~/.cache/kpipe;
#   - with the cache, analyze and rewrite print and write exactly what they
#     do without it (KPIPE_CACHE_DIR=off), and off writes no cache;
#   - --no-pch uses none;
#   - another -D is another header (the key is every parse argument);
#   - a header the cached one was built from changes: the change is seen;
#   - a header clang refuses (garbage in its place) is dropped, the run is
#     right all the same, and the next run builds it again;
#   - a cache that cannot be created (its parent a plain file) or a
#     file-size limit below the header's size: the run goes without;
#   - four kpipes on an empty cache side by side all succeed and agree;
#   - past 24 headers the least recently used are removed.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir cache
src="$root/samples/matmul_32x32.cu"
unset KPIPE_CACHE_DIR XDG_CACHE_HOME
npch() { find "$1" -name 'pch-*.pch' 2>/dev/null | wc -l; }

# the reference: no cache
KPIPE_CACHE_DIR=off HOME="$tmp/home-off" "$kpipe" analyze --format json "$src" >"$tmp/ref.json"
check "off: analyze exit 0" test $? -eq 0
KPIPE_CACHE_DIR=off HOME="$tmp/home-off" "$kpipe" rewrite "$src" -o "$tmp/ref.cu" 2>"$tmp/ref.err"
check "off: rewrite exit 0" test $? -eq 0
check "off: no cache written under HOME" test ! -e "$tmp/home-off/.cache/kpipe"

c="$tmp/c"
start=$(date +%s%N)
KPIPE_CACHE_DIR="$c" "$kpipe" analyze --format json "$src" >"$tmp/a1.json"
check "first run: exit 0" test $? -eq 0
first=$(($(date +%s%N) - start))
check "first run: one header built" test "$(npch "$c")" -eq 1
check "first run: its empty source beside it" bash -c "test -f \"\$(ls '$c'/pch-*.pch | sed 's/pch\$/cu/')\""
check "first run: the same analysis as without a cache" cmp -s "$tmp/a1.json" "$tmp/ref.json"
start=$(date +%s%N)
KPIPE_CACHE_DIR="$c" "$kpipe" analyze --format json "$src" >"$tmp/a2.json"
second=$(($(date +%s%N) - start))
check "second run: the same analysis" cmp -s "$tmp/a2.json" "$tmp/ref.json"
check "second run: still one header" test "$(npch "$c")" -eq 1
echo "analyze: $((first / 1000000)) ms building the header, $((second / 1000000)) ms with it"
KPIPE_CACHE_DIR="$c" "$kpipe" rewrite "$src" -o "$tmp/r.cu" 2>"$tmp/r.err"
check "rewrite: exit 0" test $? -eq 0
check "rewrite: the same output as without a cache" cmp -s "$tmp/r.cu" "$tmp/ref.cu"
check "rewrite: the same messages" cmp -s "$tmp/r.err" "$tmp/ref.err"
n=$(npch "$c")
KPIPE_CACHE_DIR="$c" "$kpipe" analyze "$src" -- -DKP_CACHE_TEST=1 >/dev/null
check "another -D: another header" test "$(npch "$c")" -eq $((n + 1))

# --no-pch: no cached header either
KPIPE_CACHE_DIR="$tmp/nopch" "$kpipe" rewrite --no-pch "$src" -o "$tmp/nopch.cu" 2>/dev/null
check "--no-pch: the same output" cmp -s "$tmp/nopch.cu" "$tmp/ref.cu"
check "--no-pch: no header cached" test "$(npch "$tmp/nopch")" -eq 0

# a header the cached one holds changes: clang notices, kpipe parses
# afresh and sees the change (here a -include'd header sets the tile size)
m="$tmp/mod"
mkdir -p "$m"
cat >"$m/k.cu" <<'K'
__global__ void mm(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
K
# (guarded: included again after a stale header, it would add nothing)
printf '#ifndef TILE_H\n#define TILE_H\n#define TS 16\n#endif\n' >"$m/tile.h"
KPIPE_CACHE_DIR="$m/c" "$kpipe" analyze --format json "$m/k.cu" -- -include "$m/tile.h" >"$m/a16.json"
check "included header: a header built with it" test "$(npch "$m/c")" -ge 1
check "included header: 16x16 tiles" grep -qE '"elements":[[:space:]]*256,' "$m/a16.json"
printf '#ifndef TILE_H\n#define TILE_H\n#define TS 32 /* changed */\n#endif\n' >"$m/tile.h"
touch -d '+1 minute' "$m/tile.h"
KPIPE_CACHE_DIR="$m/c" "$kpipe" analyze --format json "$m/k.cu" -- -include "$m/tile.h" >"$m/a32.json"
check "changed header: exit 0" test $? -eq 0
check "changed header: the stale header dropped" test "$(npch "$m/c")" -eq 0
check "changed header: 32x32 tiles seen" grep -qE '"elements":[[:space:]]*1024,' "$m/a32.json"
check "changed header: no 16x16 tile left" bash -c "! grep -qE '\"elements\":[[:space:]]*256,' '$m/a32.json'"

# where the cache lives without KPIPE_CACHE_DIR
XDG_CACHE_HOME="$tmp/xdg" "$kpipe" analyze "$src" >/dev/null
check "XDG_CACHE_HOME/kpipe" test "$(npch "$tmp/xdg/kpipe")" -ge 1
HOME="$tmp/home" "$kpipe" analyze "$src" >/dev/null
check "HOME/.cache/kpipe" test "$(npch "$tmp/home/.cache/kpipe")" -ge 1

# a header clang refuses
g="$tmp/g"
KPIPE_CACHE_DIR="$g" "$kpipe" analyze "$src" >/dev/null
h=$(ls "$g"/pch-*.pch)
echo "not a precompiled header" >"$h"
KPIPE_CACHE_DIR="$g" "$kpipe" analyze --format json "$src" >"$tmp/g.json" 2>"$tmp/g.err"
check "garbage header: exit 0" test $? -eq 0
check "garbage header: the same analysis" cmp -s "$tmp/g.json" "$tmp/ref.json"
check "garbage header: dropped" bash -c "! grep -qs 'not a precompiled header' '$h'"
KPIPE_CACHE_DIR="$g" "$kpipe" analyze "$src" >/dev/null
check "garbage header: built again" test -s "$h"

# no cache to be had
: >"$tmp/plain-file"
KPIPE_CACHE_DIR="$tmp/plain-file/sub" "$kpipe" rewrite "$src" -o "$tmp/nf.cu" 2>/dev/null
check "uncreatable cache: exit 0" test $? -eq 0
check "uncreatable cache: the same output" cmp -s "$tmp/nf.cu" "$tmp/ref.cu"
(
	ulimit -f 20000 # 10 MB: the output fits, the header (several MB) is refused
	KPIPE_CACHE_DIR="$tmp/small" "$kpipe" rewrite "$src" -o "$tmp/small.cu" 2>/dev/null
)
check "file-size limit: exit 0 and the same output" cmp -s "$tmp/small.cu" "$tmp/ref.cu"

# side by side on an empty cache
p="$tmp/par"
for i in 1 2 3 4; do
	KPIPE_CACHE_DIR="$p" "$kpipe" rewrite "$src" -o "$tmp/par$i.cu" 2>/dev/null &
done
wait
for i in 1 2 3 4; do
	check "side by side: run $i agrees" cmp -s "$tmp/par$i.cu" "$tmp/ref.cu"
done
check "side by side: no temporary file left" test "$(find "$p" -name '*.tmp.*' | wc -l)" -eq 0

# the least recently used go
l="$tmp/lru"
mkdir -p "$l"
for i in $(seq 1 30); do
	f="$l/pch-$(printf '%016x' "$i")"
	: >"$f.cu"
	echo stale >"$f.pch"
	touch -d "2020-01-01 00:00:$(printf '%02d' "$i")" "$f.pch"
done
KPIPE_CACHE_DIR="$l" "$kpipe" analyze "$src" >/dev/null
check "lru: 24 headers kept" test "$(npch "$l")" -eq 24
check "lru: the oldest removed with its source" test ! -e "$l/pch-0000000000000001.pch" -a ! -e "$l/pch-0000000000000001.cu"
check "lru: the newest stale one kept" test -e "$l/pch-000000000000001e.pch"
check "lru: the header just built kept" test "$(find "$l" -name 'pch-*.pch' -newer "$l/pch-000000000000001e.pch" | wc -l)" -eq 1
kp_summary
