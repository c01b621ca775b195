#include <cuda_pipeline.h>
// kernel.cu - a 16x16 tiled product whose A index hides the loop counter
// inside a macro (written for the cpudiff tests): AIDX(r, c) expands to
// `r * K + k0 + c`, so the load `As[ty][tx] = A[AIDX(row, tx)]` depends on
// k0 without naming it.  A prefetch that advances only the counters it can
// see reloads the current tile.  M, N, K multiples of 16.
#define TS 16
#define AIDX(r, c) ((size_t)(r) * K + k0 + (c))

__global__ void macro_matmul(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TS][TS];
    __shared__ float Bs[2][TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            __pipeline_memcpy_async(&As[0][ty][tx], &A[AIDX(row, tx)], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += TS) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + TS) < K) {
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &A[AIDX(row, tx)], 4);
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
