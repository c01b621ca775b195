// cg_sync_count.cu - fp32 C = A * B (row-major), M, N, K multiples of 16,
// 16x16 tiles, the barrier at the top of the K-loop body written as
// `cg::this_thread_block().sync()` and the one between the copies and the
// compute phase as `__syncthreads_count(...)` whose count is dropped.
//
// kpipe: eligible.  A __syncthreads_count/_and/_or statement whose result
// is not used (and whose operand has no side effect) is a block barrier;
// one whose result the loop uses is refused (kpipe-extra-barrier).

#include <cooperative_groups.h>

#define TS 16

__global__ void cg_sync_count(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float sum = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TS) {
        cooperative_groups::this_thread_block().sync();
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads_count(As[ty][tx] != 0.0f);

        for (int kk = 0; kk < TS; ++kk)
            sum += As[ty][kk] * Bs[kk][tx];
    }

    C[(size_t)row * N + col] = sum;
}
