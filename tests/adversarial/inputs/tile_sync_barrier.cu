// adversarial input: the closing barrier of a tiled matmul written as a
// tile's sync, `cg::tiled_partition<32>(block).sync()`, which synchronises
// 32 threads, not the 256 of the block.
// Expected: refused with kpipe-no-barrier, whose message names the tile's
// sync (it must not be taken for the block barrier: the next iteration's
// copies would overwrite tiles other warps still read).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define TS 16

__global__ void tile_sync_barrier(const float *__restrict__ A, const float *__restrict__ B,
                                  float *__restrict__ C, int N, int K)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float sum = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        block.sync();
        for (int kk = 0; kk < TS; ++kk)
            sum += As[ty][kk] * Bs[kk][tx];
        cg::tiled_partition<32>(block).sync();
    }
    C[(size_t)row * N + col] = sum;
}
