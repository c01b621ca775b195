#!/usr/bin/env bash
# bulk.sh - CTest cpudiff.bulk: samples.sh with the bulk-copy variant
# (sm_90+: bulk with 2, 3 and 8 stages, the last with its tiles in dynamic
# shared memory where they exceed 48 KB), every rewrite checked against its
# original on the CPU, where the emulator runs the mbarriers and bulk
# copies (docs/cpudiff.md), and the tensor-map form (tma, 2 and 3 stages)
# whose tensor maps it emulates too; the samples bulk does not apply to are listed
# as not rewritten; then the same over the kernels of
# tests/cpudiff/kernels/.  Fails as samples.sh does, and when a sample bulk
# must apply to (its two samples, the guarded and the half-precision ones,
# matmul_32x32, matmul_guarded) was not rewritten or not checked.
#
# CPUDIFF_SAMPLES, CPUDIFF_JOBS and CPUDIFF_SIZES as for samples.sh.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
export CPUDIFF_VARIANTS="bulk bulk:3 bulk:8 tma tma:3"
CPUDIFF_LABEL=cpudiff.bulk bash "$here/samples.sh" | tee "$tmp/out" || rc=$?
[ "$rc" -eq 77 ] && exit 77
# and the kernels of tests/cpudiff/kernels/ (barriers written with
# cooperative groups, a partial sum after the closing barrier, ...)
if [ -z "${CPUDIFF_DIR:-}" ]; then
	CPUDIFF_DIR="$here/kernels" CPUDIFF_LABEL="cpudiff.bulk (tests/cpudiff/kernels)" \
		bash "$here/samples.sh" || rc=$?
fi
for name in matmul_bulk_float sgemm_at_bulk sgemm_bulk_guarded wmma_bulk_half matmul_32x32 matmul_guarded; do
	if [ -n "${CPUDIFF_SAMPLES:-}" ] && [[ " $CPUDIFF_SAMPLES " != *" $name "* ]]; then
		continue
	fi
	for tag in bulk bulk-3stages bulk-8stages; do
		if ! grep -Eq "^$name +$tag +PASS" "$tmp/out"; then
			echo "FAIL: $name $tag: no passing check (bulk must apply to it)"
			rc=1
		fi
	done
done
# the tensor-map form where the kernel is launched in its sample (the last
# two fill their tiles by copy loops: src/analysis/copy_box.c)
for name in sgemm_tma_host wmma_tma_half matmul_32x32 matmul_cuda_sample_style wmma_loop_tma \
	sgemm_loop_tma; do
	if [ -n "${CPUDIFF_SAMPLES:-}" ] && [[ " $CPUDIFF_SAMPLES " != *" $name "* ]]; then
		continue
	fi
	for tag in tma tma-3stages; do
		if ! grep -Eq "^$name +$tag +PASS" "$tmp/out"; then
			echo "FAIL: $name $tag: no passing check (tma must apply to it)"
			rc=1
		fi
	done
done
exit "$rc"
