#!/usr/bin/env bash
# bulk.sh - the bulk-copy transform's output compiles: the bulk samples
# (matmul_bulk_float, sgemm_at_bulk, the guarded sgemm_bulk_guarded, the
# half-precision wmma_bulk_half) and matmul_guarded rewritten with
# --variant bulk (2, 3 and 8 stages; sgemm_at_bulk's 8 stages put the
# tiles in dynamic shared memory) build with nvcc for sm_90 and sm_100
# with no new warning, and the PTX holds the bulk copy and the mbarrier
# wait; for sm_80 the loop is refused (kpipe-bulk-unavailable): the file is
# written unchanged, exit 0, and exit 1 with --Werror.
# Two nvcc runs per job (the originals' warnings are the baseline), through
# the tests' nvcc cache.  Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir nvcc-bulk

# nvcc through the tests' cache (tests/nvcc_cached.sh): the originals are
# compiled once per architecture, not once per job, and the sanitizer
# build's run, whose rewrites are the plain build's byte for byte, compiles
# nothing (CI time)
warnings() { # file arch -> warnings without file/line prefixes
	kp_nvcc_cached -arch="$2" -c -o "$tmp/w.o" "$1" 2>&1 | grep -i warning | sed 's/^[^:]*([0-9]*): //' | sort
}
for job in "matmul_bulk_float 2 sm_90" "sgemm_at_bulk 3 sm_100" \
	"matmul_bulk_float 3 sm_100" "sgemm_at_bulk 8 sm_90" \
	"sgemm_bulk_guarded 2 sm_90" "sgemm_bulk_guarded 8 sm_100" \
	"wmma_bulk_half 3 sm_100" "wmma_bulk_half 2 sm_90" "matmul_guarded 3 sm_90"; do
	read -r name stages arch <<<"$job"
	src="$root/samples/$name.cu"
	out="$tmp/$name.bulk.cu"
	name="$name, $stages stages"
	if ! "$kpipe" rewrite --variant bulk --stages "$stages" --arch sm_90 "$src" -o "$out" 2>"$tmp/err" ||
		cmp -s "$src" "$out"; then
		bad "$name: rewrite failed: $(head -c 300 "$tmp/err")"
		continue
	fi
	# one compile to PTX (the instructions), one to an object (ptxas)
	if kp_nvcc_cached -arch="$arch" -ptx -o "$tmp/o.ptx" "$out" 2>"$tmp/nv"; then
		check "$name $arch: cp.async.bulk in the PTX" grep -q 'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes' "$tmp/o.ptx"
		check "$name $arch: mbarrier wait in the PTX" grep -q 'mbarrier.try_wait.parity.shared::cta.b64' "$tmp/o.ptx"
	else
		bad "$name $arch: nvcc -ptx failed: $(head -c 400 "$tmp/nv")"
	fi
	other=$([ "$arch" = sm_90 ] && echo sm_100 || echo sm_90)
	wsrc=$(warnings "$src" "$other")
	rm -f "$tmp/w.o"
	wout=$(warnings "$out" "$other")
	if [ -s "$tmp/w.o" ]; then ok; else bad "$name $other: nvcc built no object"; fi
	if [ "$wout" = "$wsrc" ]; then ok; else bad "$name $other: new nvcc warnings: $(echo "$wout" | head -3)"; fi
done
# the tensor-map form, where the kernel is launched in its sample: the PTX
# holds the tensor copy, the host code the launcher and its driver lookup
for job in "sgemm_tma_host 2 sm_90" "sgemm_tma_host 4 sm_100" "matmul_32x32 3 sm_90" "wmma_tma_half 3 sm_90" \
	"matmul_cuda_sample_style 2 sm_100" "wmma_loop_tma 2 sm_90" "sgemm_loop_tma 3 sm_90"; do
	read -r name stages arch <<<"$job"
	src="$root/samples/$name.cu"
	out="$tmp/$name.tma.cu"
	name="$name tma, $stages stages"
	if ! "$kpipe" rewrite --variant tma --stages "$stages" --arch sm_90 "$src" -o "$out" 2>"$tmp/err" ||
		cmp -s "$src" "$out"; then
		bad "$name: rewrite failed: $(head -c 300 "$tmp/err")"
		continue
	fi
	if kp_nvcc_cached -arch="$arch" -ptx -o "$tmp/o.ptx" "$out" 2>"$tmp/nv"; then
		check "$name $arch: cp.async.bulk.tensor in the PTX" grep -q 'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes' "$tmp/o.ptx"
	else
		bad "$name $arch: nvcc -ptx failed: $(head -c 400 "$tmp/nv")"
	fi
	check "$name: the launcher calls the driver's encoder" grep -q 'cuTensorMapEncodeTiled' "$out"
	wsrc=$(warnings "$src" "$arch")
	rm -f "$tmp/w.o"
	wout=$(warnings "$out" "$arch")
	if [ -s "$tmp/w.o" ]; then ok; else bad "$name $arch: nvcc built no object"; fi
	if [ "$wout" = "$wsrc" ]; then ok; else bad "$name $arch: new nvcc warnings: $(echo "$wout" | head -3)"; fi
done
# validate pairs the kernel whose parameters the tensor-map form changed
# (another mangled name) with the original and finds the tensor copies
"$kpipe" rewrite --variant tma --arch sm_90 "$root/samples/sgemm_tma_host.cu" -o "$tmp/v.cu" 2>/dev/null
"$kpipe" validate "$root/samples/sgemm_tma_host.cu" "$tmp/v.cu" --arch sm_90 --sizes tiny >"$tmp/val" 2>&1
check "tma validate: step 1 compares the kernel" grep -q '^step 1  resources  PASSED: 1 kernel compared' "$tmp/val"
if grep -q '^step 2  sass       SKIPPED' "$tmp/val"; then
	echo "NOTE: no cuobjdump/nvdisasm: the SASS of the tensor-map form is not checked"
else
	check "tma validate: UTMALDG in the main loop" grep -q 'UTMALDG' "$tmp/val"
fi
rm -f "$tmp/r.cu"
"$kpipe" rewrite --variant bulk --arch sm_80 "$root/samples/matmul_bulk_float.cu" -o "$tmp/r.cu" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$root/samples/matmul_bulk_float.cu" "$tmp/r.cu" &&
	grep -q 'needs sm_90 or newer \[kpipe-bulk-unavailable\]' "$tmp/err"; then ok; else
	bad "sm_80: expected a kpipe-bulk-unavailable refusal, the file unchanged (rc=$rc): $(head -c 300 "$tmp/err")"
fi
"$kpipe" rewrite --Werror --variant bulk --arch sm_80 "$root/samples/matmul_bulk_float.cu" -o "$tmp/r.cu" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ]; then ok; else bad "sm_80 with --Werror: exit $rc, expected 1"; fi
kp_summary bulk
