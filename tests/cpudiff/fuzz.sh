#!/usr/bin/env bash
# fuzz.sh - CTest cpudiff.fuzz: generated K-loops (tests/cpudiff/gen_loops.py:
# tile sizes, counter forms, barrier placement, guards, copy loops, outer
# persistent and batch loops, shared arrays around the loop) are rewritten
# by $KPIPE with every variant, and each rewrite kpipe makes (exit 0) is run
# against its original on the CPU by cpudiff.py.  A mismatch is a wrong
# kernel written with exit 0 and fails the test; a refusal is fine (the
# test counts them).  Prints one line per case and variant, then
# "N passed, N failed, N skipped, N refused".
#
# CPUDIFF_FUZZ_SEED (default 1) and CPUDIFF_FUZZ_COUNT (default 16) pick the
# cases; CPUDIFF_JOBS the parallel checks.  For a long run:
#   CPUDIFF_FUZZ_SEED=7 CPUDIFF_FUZZ_COUNT=200 bash tests/cpudiff/fuzz.sh
set -euo pipefail
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
seed="${CPUDIFF_FUZZ_SEED:-1}"
count="${CPUDIFF_FUZZ_COUNT:-16}"
jobs="${CPUDIFF_JOBS:-$(nproc)}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gen" "$tmp/rw" "$tmp/log" "$tmp/cache"
start=$(date +%s)

python3 "$here/gen_loops.py" --out "$tmp/gen" --seed "$seed" --count "$count" >"$tmp/axes"

# shellcheck source=tests/cpudiff/lib.sh
source "$here/lib.sh"
: >"$tmp/pairs"
refused=0
fail=0
for src in "$tmp"/gen/*.cu; do
	name=$(basename "$src" .cu)
	for v in "${cpudiff_variants[@]}"; do
		rc=0
		cpudiff_rewrite "$kpipe" "$src" "$v" "$tmp/rw" "$tmp/log" || rc=$?
		tag=$cpudiff_tag
		out=$cpudiff_out
		if [ $rc -eq 1 ]; then
			refused=$((refused + 1))
			printf '%-8s %-22s refused: %s\n' "$name" "$tag" \
				"$(grep -o '\[kpipe-[a-z0-9-]*\]' "$tmp/log/$name.$tag.kpipe" | sort -u | tr '\n' ' ')"
			continue
		elif [ $rc -ne 0 ]; then
			printf '%-8s %-22s FAIL: kpipe rewrite failed (see its messages)\n' "$name" "$tag"
			{ sed 's/^/    /' "$tmp/log/$name.$tag.kpipe" | head -5; } || true
			fail=$((fail + 1))
			continue
		fi
		printf '%s\t%s\t%s\t%s\n' "$name" "$tag" "$src" "$out" >>"$tmp/pairs"
	done
done

export here tmp
check_one() {
	local name=$1 tag=$2 src=$3 out=$4 rc=0
	python3 "$here/cpudiff.py" "$src" "$out" --cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" --jobs 1 -q \
		--size tiny --size small --size odd --size empty \
		>"$tmp/log/$name.$tag.check" 2>&1 || rc=$?
	echo "$rc" >"$tmp/log/$name.$tag.rc"
}
export -f check_one
tr '\t\n' '\0\0' <"$tmp/pairs" | xargs -0 -r -n 4 -P "$jobs" bash -c 'check_one "$@"' _

pass=0
skip=0
while IFS=$'\t' read -r name tag src _; do
	log="$tmp/log/$name.$tag.check"
	rc=$(cat "$tmp/log/$name.$tag.rc" 2>/dev/null || echo 99)
	case "$rc" in
	0)
		printf '%-8s %-22s PASS\n' "$name" "$tag"
		pass=$((pass + 1))
		;;
	77)
		printf '%-8s %-22s %s\n' "$name" "$tag" "$(grep -m1 '^SKIP:' "$log" || echo 'SKIP: (no reason given)')"
		skip=$((skip + 1))
		;;
	*)
		printf '%-8s %-22s FAIL (cpudiff exit %s): %s\n' "$name" "$tag" "$rc" \
			"$(grep "^$name " "$tmp/axes" | cut -d' ' -f2-)"
		{ grep -v '^cpudiff: [^FE]' "$log" | head -12 | sed 's/^/    /'; } || true
		echo "    --- the generated kernel:"
		sed 's/^/    /' "$src"
		fail=$((fail + 1))
		;;
	esac
done <"$tmp/pairs"

echo "cpudiff.fuzz (seed $seed, $count cases): $pass passed, $fail failed, $skip skipped, $refused refused ($(($(date +%s) - start)) s)"
[ "$fail" -eq 0 ]
