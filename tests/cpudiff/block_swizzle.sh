#!/usr/bin/env bash
# block_swizzle.sh - CTest cpudiff.block_swizzle: `rewrite --block-swizzle`
# (issue 35) run against the originals on the CPU by cpudiff.py, composed
# with pipelining variants and padding.  The samples and G are chosen so
# that the remap is not the identity at the launch descriptions' sizes:
# grids of 2x3, 3x3, 3x4 and 3x5 blocks with groups of 2 or 3 rows (a
# last group with fewer rows) and of 8 (one group shorter than G).  Every
# rewrite must carry the kpipe-block-swizzled note and match the original
# bit for bit: the launch description is used without its tolerance (each
# tile's arithmetic is the original's, only the block computing it moves).  Then the checker must catch a remap that is not a
# permutation: the rows of a group taken modulo 2 instead of its height
# (two blocks compute the same tile, one tile is left unwritten).
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

# SAMPLE TAG KPIPE-ARGS...: rewrite (verified by kpipe itself too), expect
# the note, check with cpudiff.py
one() {
	local name=$1 tag=$2
	shift 2
	local src="$root/samples/$name.cu" out="$tmp/$name.$tag.cu" rc=0
	if ! "$kpipe" rewrite "$@" "$src" -o "$out" 2>"$tmp/$name.$tag.kpipe" ||
		! grep -q '\[kpipe-block-swizzled\]' "$tmp/$name.$tag.kpipe" ||
		grep -q 'kpipe-verify-failed\|kpipe-unverified' "$tmp/$name.$tag.kpipe"; then
		printf '%-22s %-26s FAIL: kpipe rewrite %s: no kpipe-block-swizzled, or not verified\n' "$name" "$tag" "$*"
		sed 's/^/    /' "$tmp/$name.$tag.kpipe" | head -5
		fail=$((fail + 1))
		return
	fi
	local spec="$tmp/$name.exact.launch.json"
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); s.pop("tolerance", None); json.dump(s, open(sys.argv[2], "w"))' \
		"$root/samples/$name.launch.json" "$spec"
	python3 "$here/cpudiff.py" "$src" "$out" --spec "$spec" --cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/$name.$tag.check" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		printf '%-22s %-26s PASS %s\n' "$name" "$tag" "$(grep -o '[0-9]* runs of the rewrite match.*' "$tmp/$name.$tag.check")"
		pass=$((pass + 1))
	else
		printf '%-22s %-26s FAIL (cpudiff exit %s)\n' "$name" "$tag" "$rc"
		grep -v '^cpudiff: [^FE]' "$tmp/$name.$tag.check" | head -12 | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

one matmul_32x32 swz2-cp-async --block-swizzle=2 --variant cp-async
one matmul_32x32 swz2-register --block-swizzle=2 --variant register
one dgemm_tiled swz3-cp-async-s3 --block-swizzle=3 --variant cp-async --stages 3
one dgemm_tiled swz8-register-2bar --block-swizzle --variant register-2bar
one matmul_tilecount swz2-auto --block-swizzle=2
one sgemm_tma_host swz2-cp-async --block-swizzle=2 --variant cp-async
one knn_dist_blocks swz3-register --block-swizzle=3 --variant register
one transpose_shared swz2-pad-only --block-swizzle=2 --pad-only

# a remap that is not a permutation is a wrong kernel, and the checker says so
w="$tmp/matmul_32x32.swz2-cp-async.cu"
if [ -s "$w" ]; then
	sed 's/kp_swz_id % kp_swz_n % kp_swz_h)/kp_swz_id % kp_swz_n % 2u)/' "$w" >"$tmp/bad.cu"
	rc=0
	python3 "$here/cpudiff.py" "$root/samples/matmul_32x32.cu" "$tmp/bad.cu" \
		--spec "$tmp/matmul_32x32.exact.launch.json" --cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/bad.check" 2>&1 || rc=$?
	if ! cmp -s "$w" "$tmp/bad.cu" && [ $rc -eq 1 ] && grep -q 'FAIL' "$tmp/bad.check"; then
		printf '%-22s %-26s PASS (caught: %s)\n' matmul_32x32 not-a-permutation "$(grep -o 'FAIL: .*' "$tmp/bad.check")"
		pass=$((pass + 1))
	else
		printf '%-22s %-26s FAIL: the broken remap was not caught (exit %s)\n' matmul_32x32 not-a-permutation "$rc"
		fail=$((fail + 1))
	fi
fi

echo "cpudiff.block_swizzle: $pass passed, $fail failed ($(($(date +%s) - start)) s)"
[ "$fail" -eq 0 ]
