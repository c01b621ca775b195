// dgemm_launched.wrong.cu - a WRONG cp.async rewrite of dgemm_launched.cu
// (tests/cli/verify.sh (g)): kpipe's output with every copy 4 bytes wide (a
// float's width) instead of 8, so half of each double tile element is never
// copied.  kpipe's own launches (no launch description) must catch it.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>

__global__ void dgemm_launched(const double *__restrict__ A, const double *__restrict__ B,
                               double *__restrict__ C, int M, int N, int K, double alpha)
{
    __shared__ double As[2][16][16];
    __shared__ double Bs[2][16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    double acc = 0.0;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            const bool kp_in_As = row < M && k0 + tx < K;
            const void *kp_src_As = kp_in_As ? (const void *)&A[(size_t)row * K + k0 + tx]
                                             : (const void *)A;
            __pipeline_memcpy_async(&As[0][ty][tx], kp_src_As, 4, kp_in_As ? 0 : 4);
            const bool kp_in_Bs = k0 + ty < K && col < N;
            const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)(k0 + ty) * N + col]
                                             : (const void *)B;
            __pipeline_memcpy_async(&Bs[0][ty][tx], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += 16) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + 16) < K) {
                const bool kp_in_As = row < M && (k0 + 16) + tx < K;
                const void *kp_src_As = kp_in_As ? (const void *)&A[(size_t)row * K + (k0 + 16) + tx]
                                                 : (const void *)A;
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], kp_src_As, 4, kp_in_As ? 0 : 4);
                const bool kp_in_Bs = (k0 + 16) + ty < K && col < N;
                const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)((k0 + 16) + ty) * N + col]
                                                 : (const void *)B;
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < 16; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage ^= 1;
        }
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] += alpha * acc;
}

void launch_dgemm(const double *A, const double *B, double *C, int M, int N, int K, double alpha)
{
    dgemm_launched<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K, alpha);
}
