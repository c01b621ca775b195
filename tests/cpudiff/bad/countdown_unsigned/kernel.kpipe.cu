#include <cuda_pipeline.h>
// kernel.cu - a count-down K-loop over an unsigned counter (written for the
// cpudiff tests).  With 4 stages the old guard of tile i+3 was
// `(k - 3 * 16) > 0u`, which wraps to a huge value when fewer than three
// tiles are left: the prefetch read past the end of A and B.
#define TS 16

__global__ void down_matmul(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[4][TS][TS];
    __shared__ float Bs[4][TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    // kpipe: cp.async, 4 stages: requested with --variant cp-async
    {
        unsigned k = (unsigned)K;
        int kp_stage = 0;
        if (k > 0u) {
            const int k0 = K - (int)k;
            __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        if ((k - TS) > 0u) {
            const int k0 = K - (int)(k - TS);
            __pipeline_memcpy_async(&As[1][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[1][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        if ((k - 2 * (TS)) > 0u) {
            const int k0 = K - (int)(k - 2 * (TS));
            __pipeline_memcpy_async(&As[2][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[2][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k > 0u; k -= TS) {
            __pipeline_wait_prior(2);
            __syncthreads();
            if ((k - 3 * (TS)) > 0u) {
                const int k0 = K - (int)(k - 3 * (TS));
                __pipeline_memcpy_async(&As[(kp_stage + 3) % 4][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
                __pipeline_memcpy_async(&Bs[(kp_stage + 3) % 4][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < TS; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage = kp_stage == 3 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
    }
    C[(size_t)row * N + col] = acc;
}
