#!/usr/bin/env bash
# pad.sh - CTest cpudiff.pad: the pad pass's rewrites (issue #20) run
# against their originals on the CPU by cpudiff.py: padded rows
# (`--pad-only`), XOR-swizzled columns (`--pad-only --swizzle`, and
# transpose_wide_tile's 48 KB tile, which no padding fits), each alone and
# followed by pipelining (`--pad [--swizzle] --variant ...`), on the samples
# whose shared tiles conflict (sgemm_128x128x8's transposed A tile: with
# --swizzle, As[kk][(ty + 16 * i) ^ ((kk & 7) << 2)]).  Every rewrite must
# have been padded or
# swizzled (its kpipe-padded or kpipe-swizzled note), and match.  Then the
# checker must catch a half-done swizzle: transpose_wide_tile with the
# swizzle of its store dropped (the read still swizzled) must fail.
# One line per pair, then "N passed, N failed".
set -uo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
kpipe="${KPIPE:-$root/build/kpipe}"
here="$root/tests/cpudiff"
if ! command -v g++ >/dev/null; then
	echo "SKIP: g++ not found"
	exit 77
fi
if [ ! -x "$kpipe" ]; then
	echo "FAIL: no kpipe binary at $kpipe"
	exit 1
fi
export KPIPE_NO_PTXAS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
start=$(date +%s)

# SAMPLE TAG NOTE-ID KPIPE-ARGS...: rewrite, expect the note, check
one() {
	local name=$1 tag=$2 id=$3
	shift 3
	local src="$root/samples/$name.cu" out="$tmp/$name.$tag.cu" rc=0
	if ! "$kpipe" rewrite "$@" "$src" -o "$out" 2>"$tmp/$name.$tag.kpipe" ||
		! grep -q "\[$id\]" "$tmp/$name.$tag.kpipe"; then
		printf '%-22s %-22s FAIL: no %s from kpipe rewrite %s\n' "$name" "$tag" "$id" "$*"
		sed 's/^/    /' "$tmp/$name.$tag.kpipe" | head -5
		fail=$((fail + 1))
		return
	fi
	python3 "$here/cpudiff.py" "$src" "$out" --cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/$name.$tag.check" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		printf '%-22s %-22s PASS %s\n' "$name" "$tag" "$(grep -o '[0-9]* runs of the rewrite match.*' "$tmp/$name.$tag.check")"
		pass=$((pass + 1))
	else
		printf '%-22s %-22s FAIL (cpudiff exit %s)\n' "$name" "$tag" "$rc"
		grep -v '^cpudiff: [^FE]' "$tmp/$name.$tag.check" | head -12 | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

one transpose_shared pad-only kpipe-padded --pad-only
one transpose_shared swizzle kpipe-swizzled --pad-only --swizzle
one transpose_wide_tile pad-only kpipe-swizzled --pad-only
one matmul_column_read pad-only kpipe-padded --pad-only
one matmul_column_read swizzle kpipe-swizzled --pad-only --swizzle
one matmul_column_read pad-cp-async kpipe-padded --pad --variant cp-async
one matmul_column_read swizzle-cp-async kpipe-swizzled --pad --swizzle --variant cp-async
one matmul_column_read swizzle-cp-async-3 kpipe-swizzled --pad --swizzle --variant cp-async --stages 3
one matmul_column_read swizzle-register kpipe-swizzled --pad --swizzle --variant register
one matmul_column_read swizzle-register-2bar kpipe-swizzled --pad --swizzle --variant register-2bar
one sgemm_128x128x8 swizzle-cp-async kpipe-swizzled --pad --swizzle --variant cp-async
one sgemm_128x128x8 swizzle-register kpipe-swizzled --pad --swizzle --variant register
one wmma_column_conflict pad-only kpipe-padded --pad-only
one wmma_column_conflict pad-cp-async kpipe-padded --pad --variant cp-async
# wmma: no swizzle reaches a fragment's rows; --swizzle pads
one wmma_column_conflict swizzle-register kpipe-padded --pad --swizzle --variant register

# a half-done swizzle is a wrong kernel, and the checker says so
w="$tmp/transpose_wide_tile.pad-only.cu"
if [ -s "$w" ]; then
	sed '0,/tile\[ty + j\]\[(tx + i) ^ ((ty + j) & 31)\]/s//tile[ty + j][tx + i]/' "$w" >"$tmp/half.cu"
	rc=0
	python3 "$here/cpudiff.py" "$root/samples/transpose_wide_tile.cu" "$tmp/half.cu" \
		--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/half.check" 2>&1 || rc=$?
	if ! cmp -s "$w" "$tmp/half.cu" && [ $rc -eq 1 ] && grep -q MISMATCH "$tmp/half.check"; then
		printf '%-22s %-22s PASS (caught: %s)\n' transpose_wide_tile half-swizzled "$(grep -o 'FAIL: .*' "$tmp/half.check")"
		pass=$((pass + 1))
	else
		printf '%-22s %-22s FAIL: the store left unswizzled was not caught (exit %s)\n' transpose_wide_tile half-swizzled "$rc"
		fail=$((fail + 1))
	fi
fi

echo "cpudiff.pad: $pass passed, $fail failed ($(($(date +%s) - start)) s)"
[ "$fail" -eq 0 ]
