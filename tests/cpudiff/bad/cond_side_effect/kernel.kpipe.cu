#include <cuda_pipeline.h>
// kernel.cu - a K-loop whose condition counts its own evaluations
// (written for the cpudiff tests): `k0 < K && it++ < 3` stops after three
// tiles.  The old rewrite copied the condition into the prologue guard,
// the loop and the prefetch guard, so `it` advanced two or three times per
// tile and the loop stopped early.  M, N, K multiples of 16.
#define TS 16

__global__ void capped_matmul(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TS][TS];
    __shared__ float Bs[2][TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    int it = 0;
    float acc = 0.0f;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K && it++ < 3) {
            __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k0 < K && it++ < 3; k0 += TS) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + TS) < K && it++ < 3) {
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &A[(size_t)row * K + (k0 + TS) + tx], 4);
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], &B[(size_t)((k0 + TS) + ty) * N + col], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < TS; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage ^= 1;
        }
    }
    C[(size_t)row * N + col] = acc;
}
