// cg_block_sync.cu - fp32 C = A * B (row-major) for arbitrary M, N, K,
// 16x16 tiles, one output per thread, whose barriers are written with
// cooperative groups: `block.sync()` after the copies and
// `cg::sync(block)` after the compute phase, `block` being
// cg::this_thread_block().
//
// kpipe: eligible.  Both calls are block barriers, exactly like
// __syncthreads(); the rewrite replaces them by its own __syncthreads().
// The copies are ternary-guarded, so cp.async zero-fills out of range.

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define TS 16

__global__ void cg_block_sync(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float sum = 0.0f;

    for (int t = 0; t < (K + TS - 1) / TS; ++t) {
        As[ty][tx] = (row < M && t * TS + tx < K) ? A[(size_t)row * K + t * TS + tx] : 0.0f;
        Bs[ty][tx] = (t * TS + ty < K && col < N) ? B[(size_t)(t * TS + ty) * N + col] : 0.0f;
        block.sync();

        for (int kk = 0; kk < TS; ++kk)
            sum += As[ty][kk] * Bs[kk][tx];
        cg::sync(block);
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = sum;
}
