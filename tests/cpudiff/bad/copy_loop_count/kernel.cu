// cpudiff bad case: a copy loop whose count depends on the loop counter,
// for (i = tx; i < min(K - k0, TILE); ...): the last, partial K tile
// leaves elements out, which keep the previous tile in the original and a
// tile from two iterations back (or poison) in the rewrite kpipe emitted.
#include <cuda_runtime.h>
#define TILE 16
__global__ void copy_loop_count(const float *__restrict__ A, const float *__restrict__ B,
                                float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        for (int i = tx; i < min(K - k0, TILE); i += TILE)
            As[ty][i] = A[row * K + k0 + i];
        if (k0 + ty < K)
            Bs[ty][tx] = B[(k0 + ty) * N + col];
        else
            Bs[ty][tx] = 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
