#!/usr/bin/env bash
# hdrloops.sh - K-loops in templated __device__ functions of project
# headers with no kernel (tests/fixtures/mylib: include/mylib/*.cuh, thin
# __global__ wrappers in src/gemm_s.cu and src/gemm_d.cu instantiating
# them with float and double and other tile sizes, a template wrapper in
# src/gemm_t.cu, a compile database
# with -I): reached through the .cu that includes them, with its callers
# and instantiations; rewritten by a single-file rewrite and, once, by a
# batch over the tree (exit 0, never 3 for a header that has no kernel or
# is not self-contained); verified on the CPU through the .cu's kernels;
# a load helper of the header inlined (one of another header is not, and
# says why); the output builds with nvcc -c.
# Near misses: an instantiation whose caller holds 41 KB of shared memory
# (tests/cli/hdrloops/gemm_big.cu), or whose launch in the .cu passes
# 46 000 B of dynamic shared memory, with which the doubled tiles do not
# fit: refused through that file with the reason; a batch that also holds
# gemm_big.cu leaves the header as written, naming the file and reason.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir hdrloops
here="$root/tests/cli/hdrloops"
fresh() { # a clean copy of the library in $tmp/lib, its database in build/
	rm -rf "$tmp/lib" "$tmp/out"
	cp -r "$root/tests/fixtures/mylib" "$tmp/lib"
	mkdir -p "$tmp/lib/build"
	sed "s#@ROOT@#$tmp/lib#g" "$tmp/lib/compile_commands.json.in" >"$tmp/lib/build/compile_commands.json"
	rm "$tmp/lib/compile_commands.json.in"
}
hdr=include/mylib/gemm_device.cuh

# --- analyze: the __device__ function, its callers and instantiations -----
fresh
cd "$tmp/lib" || exit 1
"$kpipe" analyze src/gemm_s.cu --header-filter 'mylib/' -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "analyze gemm_s.cu: exit 0" test $? -eq 0
check "analyze gemm_s.cu: the header reached through the .cu" \
	grep -q "^$hdr (included from src/gemm_s.cu): 0 kernels, 1 __device__ function with __shared__ arrays, 1 candidate loop" "$tmp/o"
check "analyze gemm_s.cu: caller and instantiation" \
	grep -q '^__device__ function gemm_device<T, BM, BK> (line 17), called from sgemm_kernel, instantiated as <float, 16, 16>$' "$tmp/o"
check "analyze gemm_s.cu: the header's loop eligible" grep -q "loop 1 at $hdr:29:2  \[eligible\]" "$tmp/o"
check "analyze gemm_s.cu: cp.async proven through the caller's pointers" grep -q '^    cp.async: possible$' "$tmp/o"
"$kpipe" analyze src/gemm_d.cu --header-filter 'mylib/' -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "analyze gemm_d.cu: double, 8x8 tiles" \
	grep -q '^__device__ function gemm_device<T, BM, BK> (line 17), called from dgemm_kernel, instantiated as <double, 8, 8>$' "$tmp/o"
check "analyze gemm_d.cu: epilogue.cuh (no K-loop) not listed" sh -c "! grep -q epilogue '$tmp/o'"
"$kpipe" analyze src/gemm_t.cu --header-filter 'mylib/' -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "analyze gemm_t.cu: called from a kernel template, instantiated through it" \
	grep -q '^__device__ function gemm_device<T, BM, BK> (line 17), called from gemm_kernel, instantiated as <float, 16, 16>$' "$tmp/o"
"$kpipe" analyze src/gemm_s.cu --format json --header-filter 'mylib/' -- -Iinclude >"$tmp/o.json" 2>/dev/null
check "analyze --format json: device_function, called_from, included_from" python3 -c "
import json
j = json.load(open('$tmp/o.json'))
f = {x['file']: x for x in j['files']}
h = f['$hdr']
assert h['included_from'] == 'src/gemm_s.cu', h
k = h['kernels'][0]
assert k.get('device_function') and k['called_from'] == 'sgemm_kernel', k
assert k['instantiations'] == ['float, 16, 16'], k
"

# --- rewrite, one file ----------------------------------------------------
"$kpipe" rewrite src/gemm_s.cu --header-filter 'mylib/' -i -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "rewrite gemm_s.cu -i: exit 0" test $? -eq 0
check "rewrite gemm_s.cu -i: the header's loop rewritten" grep -q 'As\[kp_stage\]\[ty\]\[kk\]' $hdr
check "rewrite gemm_s.cu -i: the .cu unchanged" cmp -s src/gemm_s.cu "$root/tests/fixtures/mylib/src/gemm_s.cu"
check "rewrite gemm_s.cu -i: load helper of the header inlined" \
	grep -q 'gemm_staged.cuh:31:2: note: kpipe inlined the load helper .load_tile<T, BM, BK>.' "$tmp/e"
check "rewrite gemm_s.cu -i: gemm_staged.cuh rewritten" grep -q kp_stage include/mylib/gemm_staged.cuh
if command -v "${KPIPE_VERIFY_CXX:-g++}" >/dev/null; then
	check "rewrite gemm_s.cu -i: verified through sgemm_kernel (no kpipe-unverified)" \
		sh -c "! grep -q 'kpipe-unverified\|kpipe-verify-failed' '$tmp/e'"
	# a wrong rewrite of the header is caught through the .cu's kernel
	fresh
	cd "$tmp/lib" || exit 1
	KPIPE_VERIFY_SUBSTITUTE="$here/gemm_device.wrong.cuh" "$kpipe" rewrite src/gemm_s.cu \
		--header-filter 'mylib/' -i -- -Iinclude >"$tmp/o" 2>"$tmp/e"
	check "wrong header rewrite: kpipe-verify-failed through sgemm_kernel" \
		grep -q "^$hdr:29:2: warning: the rewrite differs from the original on the CPU emulator: kernel sgemm_kernel, .*\[kpipe-verify-failed\]" "$tmp/e"
	check "wrong header rewrite: the header left as it was" \
		cmp -s $hdr "$root/tests/fixtures/mylib/$hdr"
	KPIPE_VERIFY_SUBSTITUTE="$here/gemm_device.wrong.cuh" "$kpipe" rewrite src/gemm_s.cu \
		--header-filter 'mylib/' --dry-run --export-fixes "$tmp/f.yaml" -- -Iinclude >/dev/null 2>&1
	check "wrong header rewrite: --export-fixes exports none of its replacements" \
		sh -c "grep -q kpipe-verify-failed '$tmp/f.yaml' && ! grep -q ReplacementText '$tmp/f.yaml'"
else
	echo "SKIP: no g++: the CPU verification of the header is not checked"
fi
# the load helper moved to another header: not inlined, and the remark says why
fresh
cd "$tmp/lib" || exit 1
python3 - <<'PY'
s = open('include/mylib/gemm_staged.cuh').read()
i = s.index('template <typename T, int BM, int BK>\nMYLIB_DEVICE void load_tile')
j = s.index('template <typename T, int BM, int BK>\nMYLIB_DEVICE void gemm_staged')
open('include/mylib/load.cuh', 'w').write('#pragma once\nnamespace mylib {\n' + s[i:j] + '}\n')
open('include/mylib/gemm_staged.cuh', 'w').write(s[:i].replace('#pragma once\n', '#pragma once\n#include "load.cuh"\n') + s[j:])
PY
"$kpipe" rewrite src/gemm_s.cu --header-filter 'mylib/' --dry-run -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "load helper in another header: not inlined, says why" \
	grep -q "gemm_staged.cuh:25:2: remark: the load helper 'load_tile<T, BM, BK>' is not inlined: it is defined in another file than the kernel's header \[kpipe-inline-refused\]" "$tmp/e"
"$kpipe" rewrite src/gemm_d.cu --header-filter 'mylib/' --dry-run -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "rewrite gemm_d.cu --dry-run: the header would change (exit 1)" test $? -eq 1
check "rewrite gemm_d.cu --dry-run: says so" grep -q "^$hdr: would pipeline 1 of 1 loop" "$tmp/o"

# --- batch over the tree --------------------------------------------------
fresh
cd "$tmp/lib" || exit 1
"$kpipe" rewrite . -p build --out-dir "$tmp/out" -j 2 -v --format json >"$tmp/r.json" 2>"$tmp/e"
rc=$?
check "batch: exit 0 (not 3)" test $rc -eq 0
check "batch: no error" sh -c "! grep -q ': error: ' '$tmp/e'"
check "batch: a header with no K-loop, not self-contained, reached through a .cu" \
	grep -q '^include/mylib/epilogue.cuh: note: not analysed on its own: included by src/gemm_d.cu' "$tmp/e"
check "batch: the header rewritten once, through the first .cu" python3 -c "
import json
j = json.load(open('$tmp/r.json'))
h = [f for f in j['files'] if f['path'] == '$hdr']
assert len(h) == 1 and h[0]['included_from'] == 'src/gemm_d.cu', h
assert h[0]['pipelined'] == 1, h
e = [f for f in j['files'] if f['path'] == 'include/mylib/epilogue.cuh']
assert len(e) == 1 and e[0]['status'] != 'error', e
"
check "batch: the header in OUT, rewritten" grep -q kp_stage "$tmp/out/$hdr"
check "batch: the header itself untouched" cmp -s $hdr "$root/tests/fixtures/mylib/$hdr"
check "batch: epilogue.cuh in OUT as it was" \
	cmp -s "$tmp/out/include/mylib/epilogue.cuh" include/mylib/epilogue.cuh
if [ -x /usr/local/cuda/bin/nvcc ]; then
	# the output tree: the inputs, with OUT's files over them
	rm -rf "$tmp/built"
	cp -r "$tmp/lib" "$tmp/built"
	cp -r "$tmp/out/." "$tmp/built/"
	for f in gemm_s gemm_d gemm_t; do
		check "batch output: nvcc -c src/$f.cu" /usr/local/cuda/bin/nvcc -arch=sm_80 -c \
			-I"$tmp/built/include" "$tmp/built/src/$f.cu" -o "$tmp/built/$f.o"
	done
else
	echo "SKIP: /usr/local/cuda/bin/nvcc not found: the batch output is not compiled"
fi

# --- near miss: an instantiation with which the doubled tiles do not fit ----
fresh
cd "$tmp/lib" || exit 1
cp "$here/gemm_big.cu" src/gemm_big.cu
"$kpipe" rewrite src/gemm_big.cu --header-filter 'mylib/' --dry-run -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "near miss, one file: the header's loop refused with the reason" \
	grep -q "^$hdr:29:2: warning: the K-loop is in the __device__ function 'gemm_device': its caller 'dgemm_scaled_kernel' (line 13) holds 41600 B of static shared memory of its own .*over the 49152 B static limit.*\[kpipe-smem-over-limit\]" "$tmp/e"
check "near miss, one file: the header would not change" sh -c "! grep -q 'gemm_device.cuh: would' '$tmp/o'"
# a caller launched with 46 000 B of dynamic shared memory in the .cu: with
# the doubled tiles of the header the launch would fail
sed 's|sgemm_kernel<<<dim3(N / 16, M / 16), 256>>>|sgemm_kernel<<<dim3(N / 16, M / 16), 256, 46000>>>|' \
	src/gemm_s.cu >src/gemm_dyn.cu
"$kpipe" rewrite src/gemm_dyn.cu --header-filter 'mylib/' --dry-run -- -Iinclude >"$tmp/o" 2>"$tmp/e"
check "near miss, dynamic shared memory of the .cu's launch: refused with the reason" \
	grep -q "^$hdr:29:2: warning: the launch at src/gemm_dyn.cu:26 passes 46000 B of dynamic shared memory, and its caller 'sgemm_kernel' .*over the 49152 B static limit.*\[kpipe-smem-over-limit\]" "$tmp/e"
rm src/gemm_dyn.cu
# as the last file of a batch: the earlier files' rewrite does not hold for it
mv src/gemm_big.cu src/gemm_z.cu
"$kpipe" rewrite . --out-dir "$tmp/out" -- -I"$tmp/lib/include" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "near miss, batch: exit 0 or 1 (a refusal), not 3" test $rc -le 1
check "near miss, batch: counted as refused" grep -q '^  pipelined: 1 (register 1)$' "$tmp/e"
check "near miss, batch: the header left as written, naming the file and the reason" \
	grep -q "^$hdr: warning: not rewritten: src/gemm_z.cu instantiates its kernels otherwise .*(there, line 29: the K-loop is in the __device__ function 'gemm_device': its caller 'dgemm_scaled_kernel' .*\[kpipe-smem-over-limit\]; 1 loop left as written) \[kpipe-variant-unavailable\]$" "$tmp/e"
# OUT holds every file read (batch.md), the header as it was
check "near miss, batch: the header in OUT is the original" cmp -s "$tmp/out/$hdr" "$hdr"
check "near miss, batch: gemm_staged.cuh still rewritten" grep -q kp_stage "$tmp/out/include/mylib/gemm_staged.cuh"

kp_summary
