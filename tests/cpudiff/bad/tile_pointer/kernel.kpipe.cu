#include <cuda_pipeline.h>
// kernel.cu - the compute reads its A tile through a pointer taken before
// the loop (written for the cpudiff tests).  Doubling the tile left the
// pointer on buffer 0, so every odd tile was computed from stale data.
#define TS 16

__global__ void ptr_matmul(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TS][TS];
    __shared__ float Bs[2][TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    const float *arow = (const float *)As + ty * TS;
    float acc = 0.0f;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += TS) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + TS) < K) {
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &A[(size_t)row * K + (k0 + TS) + tx], 4);
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], &B[(size_t)((k0 + TS) + ty) * N + col], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < TS; ++kk)
                acc += arow[kk] * Bs[kp_stage][kk][tx];
            kp_stage ^= 1;
        }
    }
    C[(size_t)row * N + col] = acc;
}
