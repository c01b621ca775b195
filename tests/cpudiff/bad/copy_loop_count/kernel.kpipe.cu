// cpudiff bad case: a copy loop whose count depends on the loop counter,
// for (i = tx; i < min(K - k0, TILE); ...): the last, partial K tile
// leaves elements out, which keep the previous tile in the original and a
// tile from two iterations back (or poison) in the rewrite kpipe emitted.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#define TILE 16
__global__ void copy_loop_count(const float *__restrict__ A, const float *__restrict__ B,
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
            for (int i = tx; i < min(K - k0, TILE); i += TILE)
                __pipeline_memcpy_async(&As[0][ty][i], &A[row * K + k0 + i], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], (k0 + ty < K) ? (const void *)&B[(k0 + ty) * N + col] : (const void *)B, 4, (k0 + ty < K) ? 0 : 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += TILE) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + TILE) < K) {
                for (int i = tx; i < min(K - (k0 + TILE), TILE); i += TILE)
                    __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][i], &A[row * K + (k0 + TILE) + i], 4);
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], ((k0 + TILE) + ty < K) ? (const void *)&B[((k0 + TILE) + ty) * N + col] : (const void *)B, 4, ((k0 + TILE) + ty < K) ? 0 : 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < TILE; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage ^= 1;
        }
    }
    C[row * N + col] = acc;
}
