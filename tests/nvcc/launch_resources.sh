#!/usr/bin/env bash
# launch_resources.sh - the launch-level checks that need nvcc (issue 31):
# a 1024-thread kernel without __launch_bounds__ that register staging
# takes from 64 to 74 registers is refused (kpipe-registers-over-limit)
# with ptxas's numbers, with --variant register-2bar and with auto; with
# __launch_bounds__(1024) it is rewritten; without ptxas a note (-v) says
# the check did not run.  A rewrite nvcc rejects (an `#ifdef __NVCC__`
# static_assert libclang never sees) stops the output: exit 3, nothing
# written, nvcc's error printed (kpipe-compiler-error).
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
unset KPIPE_NO_PTXAS
kp_tmpdir launch-resources

# 18 accumulators, one float4 copy of each tile per thread, 32x32 threads:
# ptxas 12.x gives the original 64 registers and register-2bar's rewrite 74
cat >"$tmp/heavy.cu" <<'CU'
#include <cuda_runtime.h>
#define ACC 18
__global__ void heavy(const float4 *__restrict__ A, const float4 *__restrict__ B,
                      float *__restrict__ C, int N, int K)
{
    __shared__ float4 As[32][32];
    __shared__ float4 Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i)
        acc[i] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)(blockIdx.y * 32 + ty) * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + blockIdx.x * 32 + tx];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 32; ++kk) {
            float4 b = Bs[kk][tx];
#pragma unroll
            for (int i = 0; i < ACC; ++i) {
                float4 a = As[i][kk];
                acc[i] += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < ACC; ++i)
        C[(size_t)(blockIdx.y * 32 + ty) * N + blockIdx.x * 32 + tx + i] = acc[i];
}

void run(const float4 *A, const float4 *B, float *C, int N, int K)
{
    heavy<<<dim3(N / 32, N / 32), dim3(32, 32)>>>(A, B, C, N, K);
}
CU
# nvcc through the tests' cache (tests/nvcc_cached.sh): the sanitizer
# build's run compiles the same bytes (CI time)
regs() { kp_nvcc_cached -arch=sm_90 -c "$1" -o /dev/null -Xptxas -v 2>&1 | grep -o 'Used [0-9]* registers' | head -1 | grep -o '[0-9]*'; }
orig_regs=$(regs "$tmp/heavy.cu")
"$kpipe" rewrite -v --no-ptxas --variant register-2bar "$tmp/heavy.cu" -o "$tmp/heavy.guess.cu" 2>"$tmp/guess.err"
rw_regs=$(regs "$tmp/heavy.guess.cu")
echo "ptxas: original $orig_regs registers, register-2bar rewrite $rw_regs"
if [ "${orig_regs:-0}" -le 64 ] && [ "${rw_regs:-0}" -gt 64 ]; then
	rm -f "$tmp/heavy.out.cu"
	"$kpipe" rewrite --variant register-2bar "$tmp/heavy.cu" -o "$tmp/heavy.out.cu" 2>"$tmp/heavy.err"
	check "register-2bar: refused with ptxas's numbers" grep -q \
		"the rewrite takes 'heavy' from $orig_regs to $rw_regs registers per thread (ptxas), and with 1024 threads per block (launch at line 35) and no __launch_bounds__ a block may use at most 64.*\[kpipe-registers-over-limit\]" "$tmp/heavy.err"
	check "register-2bar: the input written unchanged" cmp -s "$tmp/heavy.out.cu" "$tmp/heavy.cu"
	"$kpipe" rewrite --variant auto "$tmp/heavy.cu" -o "$tmp/heavy.auto.cu" 2>"$tmp/heavy.auto.err"
	check "auto: no register form past 64 registers" bash -c \
		"! grep -q 'pipelined with register' '$tmp/heavy.auto.err' || ! grep -q kp_reg '$tmp/heavy.auto.cu'"
else
	echo "SKIP: this ptxas gives $orig_regs -> $rw_regs registers, not across 64"
fi
check "--no-ptxas -v: rewritten, a note says the registers were not checked" grep -q \
	"note: registers per thread not checked: .*ptxas was not asked.*\[kpipe-registers-over-limit\]" "$tmp/guess.err"
sed 's/__global__ void heavy/__global__ void __launch_bounds__(1024) heavy/' "$tmp/heavy.cu" >"$tmp/bounded.cu"
"$kpipe" rewrite --variant register-2bar "$tmp/bounded.cu" -o "$tmp/bounded.out.cu" 2>"$tmp/bounded.err"
check "__launch_bounds__(1024): rewritten" grep -q kp_reg "$tmp/bounded.out.cu"
check "__launch_bounds__(1024): the rewrite compiles" kp_nvcc_cached -arch=sm_90 -c "$tmp/bounded.out.cu" -o "$tmp/b.o"

# a rewrite nvcc rejects and libclang does not see: nothing written, exit 3
# (the compute loop halved, 4 FLOP/B: auto's pick has two buffers of the
# tiles, which the assertion rejects; at 8 FLOP/B, with the threads of
# the file's launch, auto keeps one buffer, register-2bar)
python3 - "$root/samples/matmul_32x32.cu" "$tmp/assert.cu" <<'PY'
import sys
src = open(sys.argv[1]).read()
old = "    if (row < M)\n        C[(size_t)row * N + col] = acc;"
assert old in src
new = ("#ifdef __NVCC__\n    static_assert(sizeof(As) == 32 * 32 * sizeof(float), \"one tile\");\n"
       "#endif\n" + old)
loop = "for (int kk = 0; kk < 32; ++kk)"
assert loop in src
src = src.replace(loop, "for (int kk = 0; kk < 16; ++kk)")
open(sys.argv[2], "w").write(src.replace(old, new))
PY
for v in auto register; do
	rm -f "$tmp/assert.$v.cu"
	"$kpipe" rewrite --variant "$v" "$tmp/assert.cu" -o "$tmp/assert.$v.cu" 2>"$tmp/assert.$v.err"
	rc=$?
	check "compile error ($v): exit 3" test "$rc" = 3
	check "compile error ($v): nothing written" test ! -e "$tmp/assert.$v.cu"
	check "compile error ($v): nvcc's error printed" grep -q \
		"error: a compiler run kpipe made for this loop failed, so nothing is written: nvcc: .*static assertion failed.*\[kpipe-compiler-error\]" "$tmp/assert.$v.err"
done
# the same file without the assertion is rewritten
"$kpipe" rewrite "$root/samples/matmul_32x32.cu" -o "$tmp/plain.cu" 2>/dev/null
check "near miss: matmul_32x32 rewritten" grep -q kp_ "$tmp/plain.cu"

kp_summary launch_resources
