// eff_pure_bound.cu - fp32 C = A * B, 16x16 tiles, whose tile count is
// written with CUDA math calls in the loop condition
// (`t < ceilf(K / (float)TILE)` and a `min` bound) and whose compute calls
// fminf / floorf / __float2int_rn.  Those are the toolkit's pure functions
// (analysis/pure.h: the callee clang resolves is declared in the CUDA
// headers), so the condition may be evaluated a tile ahead: kpipe
// rewrites the loop.  Before, it was refused: "the loop condition calls
// 'ceilf', which may have a side effect" [kpipe-cond-side-effect].
#include <cuda_runtime.h>
#define TILE 16

__global__ void eff_pure_bound(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < ceilf(K / (float)TILE) && t < min((K + TILE - 1) / TILE, 1 << 20);
         ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        acc = fminf(acc, 1.0e30f) + floorf(0.25f) + (float)__float2int_rn(0.25f);
        __syncthreads();
    }
    if (row < M)
        C[row * N + col] = acc;
}
