#!/usr/bin/env bash
# smem_one_buffer.sh - a loop whose tiles fit the 48 KB static
# shared-memory limit once but not twice (two float[64][64] tiles, the
# golden case tests/golden/cases/analyze-smem_one_buffer): register-2bar
# keeps one buffer, so --variant register-2bar and --variant auto rewrite
# it and the result compiles with nvcc for sm_80 and sm_90; cp.async and
# two-buffer register staging are refused with kpipe-smem-over-limit.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
kpipe="${KPIPE:-$root/build/kpipe}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ ! -x "$nvcc" ]; then
	echo "SKIP: nvcc not found"
	exit 77
fi
src="$root/tests/golden/cases/analyze-smem_one_buffer/kernel.cu"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

for v in auto register-2bar; do
	out="$tmp/$v.cu"
	if ! "$kpipe" rewrite --variant "$v" "$src" -o "$out" 2>"$tmp/err"; then
		bad "$v: rewrite failed: $(head -c 300 "$tmp/err")"
		continue
	fi
	if grep -q "// kpipe: register staging, 1 buffer, 2 barriers" "$out"; then ok; else bad "$v: not the one-buffer form"; fi
	for arch in sm_80 sm_90; do
		if "$nvcc" -arch=$arch -c -o "$tmp/o.o" "$out" 2>"$tmp/nv"; then
			ok
		else
			bad "$v $arch: nvcc failed: $(head -c 400 "$tmp/nv")"
		fi
	done
done
for v in cp-async register register-ca; do
	"$kpipe" rewrite --variant "$v" "$src" -o "$tmp/$v.cu" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ ! -e "$tmp/$v.cu" ] && grep -q '2 stages need 65536 B.*\[kpipe-smem-over-limit\]' "$tmp/err"; then
		ok
	else
		bad "$v: expected kpipe-smem-over-limit (rc=$rc): $(head -c 300 "$tmp/err")"
	fi
done
# the original compiles: 32 KB of static shared memory
if "$nvcc" -arch=sm_90 -c -o "$tmp/o.o" "$src" 2>"$tmp/nv"; then ok; else bad "the original does not compile: $(head -c 300 "$tmp/nv")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
