#include <cuda_pipeline.h>
// kernel.cu - a 32x32 tiled product whose K-loop stops on `k0 != K`
// instead of `k0 < K` (written for the cpudiff tests; legal because K is a
// multiple of the tile).  A deeper pipeline that guards its prefetch of
// tile i+2 with `(k0 + 2 * 32) != K` fetches past the end of A and B on the
// last iteration.  M, N, K multiples of 32.
#define TILE 32

__global__ void ne_matmul(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[3][TILE][TILE];
    __shared__ float Bs[3][TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    // kpipe: cp.async, 3 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 != K) {
            __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        if ((k0 + TILE) != K) {
            __pipeline_memcpy_async(&As[1][ty][tx], &A[(size_t)row * K + (k0 + TILE) + tx], 4);
            __pipeline_memcpy_async(&Bs[1][ty][tx], &B[(size_t)((k0 + TILE) + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k0 != K; k0 += TILE) {
            __pipeline_wait_prior(1);
            __syncthreads();
            if ((k0 + 2 * (TILE)) != K) {
                __pipeline_memcpy_async(&As[(kp_stage + 2) % 3][ty][tx], &A[(size_t)row * K + (k0 + 2 * (TILE)) + tx], 4);
                __pipeline_memcpy_async(&Bs[(kp_stage + 2) % 3][ty][tx], &B[(size_t)((k0 + 2 * (TILE)) + ty) * N + col], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < TILE; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage = kp_stage == 2 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
    }
    C[(size_t)row * N + col] = acc;
}
