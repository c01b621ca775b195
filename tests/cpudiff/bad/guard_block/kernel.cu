// cpudiff bad case: a block of tile copies under a condition on the loop
// counter, with no else.  Where it fails (the last, partial K tile) the
// original keeps the previous tile's elements; the rewrite kpipe emitted
// kept those of two tiles back (or poison in the buffer never filled).
#include <cuda_runtime.h>
#define TILE 16
__global__ void guard_block(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        if (k0 + tx < K && k0 + ty < K) {
            As[ty][tx] = A[row * K + k0 + tx];
            Bs[ty][tx] = B[(k0 + ty) * N + col];
        }
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
