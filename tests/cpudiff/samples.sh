#!/usr/bin/env bash
# samples.sh - CTest cpudiff.samples: every eligible sample (launch spec
# `eligible` not false) is rewritten by $KPIPE with every variant kpipe
# offers (cp-async, register, register-ca, register-2bar, cp-async with
# --stages 3 and 4), and each rewrite is checked against the original on
# the CPU by cpudiff.py (schedules forward, reverse, 3 random; cp.async
# copies landing at the wait and at issue; every size of the spec but
# `target`).  One line per sample and variant, then
# "N passed, N failed, N skipped, N not rewritten".  Skips (constructs the
# emulator cannot run) print "SKIP: reason" and never count as passes; a
# variant kpipe declines for a sample (exit 1, no output) is listed as not
# rewritten.  Any failure, or a sample kpipe should pipeline but does not
# for the default variant, fails the test.
#
# CPUDIFF_SAMPLES="a b" limits the samples, CPUDIFF_JOBS the parallel checks
# (default: the number of cores), CPUDIFF_SIZES="tiny,small" the sizes,
# CPUDIFF_DIR another folder of kernels with launch specs (kernels.sh).
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
jobs="${CPUDIFF_JOBS:-$(nproc)}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cache" "$tmp/rw" "$tmp/log"

size_args=()
if [ -n "${CPUDIFF_SIZES:-}" ]; then
	IFS=, read -r -a sz <<<"$CPUDIFF_SIZES"
	for s in "${sz[@]}"; do size_args+=(--size "$s"); done
fi

# shellcheck source=tests/cpudiff/lib.sh
source "$here/lib.sh"
start=$(date +%s)
: >"$tmp/pairs"
notrew=0
fail=0
for src in "${CPUDIFF_DIR:-$root/samples}"/*.cu; do
	name=$(basename "$src" .cu)
	if [ -n "${CPUDIFF_SAMPLES:-}" ] && [[ " $CPUDIFF_SAMPLES " != *" $name "* ]]; then
		continue
	fi
	spec="${src%.cu}.launch.json"
	[ -f "$spec" ] || continue
	# the spec's eligible flag and the variants that do not apply: one
	# python3 (CI time: this loop runs in cpudiff.samples, .kernels, .bulk)
	read -r eligible unavailable < <(python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
print(d.get('eligible', True), ' '.join(d.get('variants_unavailable', [])))" "$spec")
	[ "$eligible" = "True" ] || continue
	for v in "${cpudiff_variants[@]}"; do
		rc=0
		cpudiff_rewrite "$kpipe" "$src" "$v" "$tmp/rw" "$tmp/log" || rc=$?
		tag=$cpudiff_tag
		out=$cpudiff_out
		if [ $rc -eq 1 ]; then
			printf '%-28s %-22s not rewritten: %s\n' "$name" "$tag" \
				"$(grep -o '\[kpipe-[a-z0-9-]*\]' "$tmp/log/$name.$tag.kpipe" | sort -u | tr '\n' ' ')"
			notrew=$((notrew + 1))
			if [ "$v" = "cp-async" ] && [[ " $unavailable " != *" cp-async "* ]]; then
				echo "FAIL: $name is eligible but kpipe did not rewrite it with --variant cp-async"
				fail=$((fail + 1))
			fi
			continue
		elif [ $rc -ne 0 ]; then
			printf '%-28s %-22s FAIL: kpipe rewrite failed\n' "$name" "$tag"
			{ sed 's/^/    /' "$tmp/log/$name.$tag.kpipe" | head -5; } || true
			fail=$((fail + 1))
			continue
		fi
		printf '%s\t%s\t%s\t%s\n' "$name" "$tag" "$src" "$out" >>"$tmp/pairs"
	done
done

# The checks, $jobs at a time; each writes its log and exit status.
export here tmp
export CPUDIFF_SIZE_ARGS="${size_args[*]:-}"
check_one() {
	local name=$1 tag=$2 src=$3 out=$4 rc=0
	# shellcheck disable=SC2086 # the size options are words on purpose
	python3 "$here/cpudiff.py" "$src" "$out" --cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" --jobs 1 -q $CPUDIFF_SIZE_ARGS \
		>"$tmp/log/$name.$tag.check" 2>&1 || rc=$?
	echo "$rc" >"$tmp/log/$name.$tag.rc"
}
export -f check_one
tr '\t\n' '\0\0' <"$tmp/pairs" | xargs -0 -r -n 4 -P "$jobs" bash -c 'check_one "$@"' _

pass=0
skip=0
while IFS=$'\t' read -r name tag _ _; do
	log="$tmp/log/$name.$tag.check"
	rc=$(cat "$tmp/log/$name.$tag.rc" 2>/dev/null || echo 99)
	case "$rc" in
	0)
		printf '%-28s %-22s PASS %s\n' "$name" "$tag" "$(grep -o '[0-9]* runs of the rewrite match.*' "$log" || true)"
		pass=$((pass + 1))
		;;
	77)
		printf '%-28s %-22s %s\n' "$name" "$tag" "$(grep -m1 '^SKIP:' "$log" || echo 'SKIP: (no reason given)')"
		skip=$((skip + 1))
		;;
	*)
		printf '%-28s %-22s FAIL (cpudiff exit %s)\n' "$name" "$tag" "$rc"
		{ grep -v '^cpudiff: [^FE]' "$log" | head -12 | sed 's/^/    /'; } || true
		fail=$((fail + 1))
		;;
	esac
done <"$tmp/pairs"

echo "${CPUDIFF_LABEL:-cpudiff.samples}: $pass passed, $fail failed, $skip skipped, $notrew not rewritten ($(($(date +%s) - start)) s)"
[ "$fail" -eq 0 ]
