// eff_helper_bound.cu - fp32 C = A * B, 16x16 tiles, whose tile count is
// computed by __device__ helpers of this file in the loop condition
// (`t < tiles_of(K)`, tiles_of calling cdiv, cdiv holding a loop of its
// own over locals).  The effect analysis reads their bodies: they write
// nothing but their own locals and hold no barrier, asm, warp operation
// or clock, so the condition may be evaluated a tile ahead and kpipe
// rewrites the loop (rules/cond_pure.c).  Before, it was refused: "the
// loop condition calls 'tiles_of', which may have a side effect"
// [kpipe-cond-side-effect].
#include <cuda_runtime.h>
#define TILE 16

__device__ __forceinline__ int cdiv(int a, int b)
{
    int q = 0;
    for (int r = a; r > 0; r -= b)
        ++q;
    return q;
}

__device__ int tiles_of(int k) { return cdiv(k, TILE); }

__global__ void eff_helper_bound(const float *__restrict__ A, const float *__restrict__ B,
                                 float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < tiles_of(K); ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M)
        C[row * N + col] = acc;
}
