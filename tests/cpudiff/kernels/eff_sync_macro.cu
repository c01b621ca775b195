// eff_sync_macro.cu - fp32 C = A * B, 16x16 tiles, whose barriers are a
// macro that ends in its own semicolon, used with another:
// `#define SYNC_THREADS __syncthreads();` written `SYNC_THREADS;`.  The
// extra `;` is a null statement after the barrier; kpipe took it for a
// statement after the closing barrier: "statement after the closing
// barrier is not a pointer or counter bump" [kpipe-loop-shape].  A null
// statement is now no phase's, and the loop is rewritten.
#include <cuda_runtime.h>
#define TILE 16
#define SYNC_THREADS __syncthreads();

__global__ void eff_sync_macro(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K / TILE; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        SYNC_THREADS;
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        SYNC_THREADS;
    }
    if (row < M)
        C[row * N + col] = acc;
}
