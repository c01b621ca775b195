// cpudiff bad case: the loop counter advanced in two places, the second
// by a macro of the compute phase, NEXT(k0) -> (k0)++.  kpipe read the
// macro's `++` from the tokens of its use, missed the write, and
// prefetched the tile at k0 + TILE - 1 instead of k0 + TILE.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#define TILE 16
#define NEXT(k) (k)++
__global__ void macro_step(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            __pipeline_memcpy_async(&As[0][ty][tx], &A[row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += TILE - 1) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + TILE - 1) < K) {
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &A[row * K + (k0 + TILE - 1) + tx], 4);
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], &B[((k0 + TILE - 1) + ty) * N + col], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < TILE; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            NEXT(k0);
            kp_stage ^= 1;
        }
    }
    C[row * N + col] = acc;
}
