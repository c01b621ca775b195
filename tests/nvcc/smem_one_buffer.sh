#!/usr/bin/env bash
# smem_one_buffer.sh - a loop whose tiles fit the 48 KB static
# shared-memory limit once but not twice (two float[64][64] tiles, the
# golden case tests/golden/cases/analyze-smem_one_buffer): register-2bar
# keeps one buffer, so --variant register-2bar rewrites it and the result
# compiles with nvcc for sm_80 and sm_90.  auto (the file has the launch),
# cp.async and
# two-buffer register staging (and 3 and 4 stages) move the tiles to
# dynamic shared memory: the file's launch is edited to pass the bytes and
# raise the opt-in attribute, and the whole file (kernel and host code)
# compiles.  4 stages on sm_86 (99 KB opt-in) are refused with
# kpipe-smem-over-limit.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
src="$root/tests/golden/cases/analyze-smem_one_buffer/kernel.cu"
kp_tmpdir nvcc-smem1

for v in register-2bar; do
	out="$tmp/$v.cu"
	if ! "$kpipe" rewrite --variant "$v" "$src" -o "$out" 2>"$tmp/err"; then
		bad "$v: rewrite failed: $(head -c 300 "$tmp/err")"
		continue
	fi
	if grep -q "// kpipe: register staging, 1 buffer, 2 barriers" "$out"; then ok; else bad "$v: not the one-buffer form"; fi
	if kp_nvcc_both "$out"; then
		ok
	else
		bad "$v: nvcc (sm_80, sm_90) failed: $(head -c 400 "$tmp/nv")"
	fi
done
for v in "auto" "cp-async" "register" "register-ca" "cp-async --stages 3" "cp-async --stages 4"; do
	out="$tmp/dyn.cu"
	rm -f "$out"
	# shellcheck disable=SC2086
	if ! "$kpipe" rewrite --variant $v "$src" -o "$out" 2>"$tmp/err"; then
		bad "$v: rewrite failed: $(head -c 300 "$tmp/err")"
		continue
	fi
	if grep -q 'extern __shared__ __align__(16) unsigned char kp_dsmem\[\];' "$out" &&
		grep -q 'float (&As)\[[0-9]\]\[BM\]\[BK\] = \*reinterpret_cast<float (\*)\[[0-9]\]\[BM\]\[BK\]>(kp_dsmem + 0);' "$out" &&
		grep -q 'dim3(32, 32), (cudaFuncSetAttribute(mm_big_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, [0-9]*), [0-9]*)>>>' "$out" &&
		grep -q '^// kpipe-launch: dynamic_smem(mm_big_tiles) = [0-9]*$' "$out"; then
		ok
	else
		bad "$v: not the dynamic form: $(grep -n 'kp_dsmem\|<<<' "$out" | head -c 400)"
	fi
	if kp_nvcc_both "$out"; then
		ok
	else
		bad "$v: nvcc (sm_80, sm_90) failed: $(head -c 400 "$tmp/nv")"
	fi
done
"$kpipe" rewrite --stages 4 --arch sm_86 "$src" -o "$tmp/s4.cu" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$tmp/s4.cu" "$src" && grep -q '4 stages need 131072 B.*opt-in limit of sm_86 \[kpipe-smem-over-limit\]' "$tmp/err"; then
	ok
else
	bad "sm_86 4 stages: expected kpipe-smem-over-limit (rc=$rc): $(head -c 300 "$tmp/err")"
fi
# the original compiles: 32 KB of static shared memory
if "$nvcc" -arch=sm_90 -c -o "$tmp/o.o" "$src" 2>"$tmp/nv"; then ok; else bad "the original does not compile: $(head -c 300 "$tmp/nv")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
