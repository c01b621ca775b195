// cpudiff bad case: the loop counter advanced in two places, the second
// by a macro of the compute phase, NEXT(k0) -> (k0)++.  kpipe read the
// macro's `++` from the tokens of its use, missed the write, and
// prefetched the tile at k0 + TILE - 1 instead of k0 + TILE.
#include <cuda_runtime.h>
#define TILE 16
#define NEXT(k) (k)++
__global__ void macro_step(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE - 1) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        NEXT(k0);
        __syncthreads();
    }
    C[row * N + col] = acc;
}
