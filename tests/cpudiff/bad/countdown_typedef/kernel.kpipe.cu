// countdown_u32.cu - fp32 C = A * B with 16x16 tiles, the K-loop counting
// down with an unsigned 32-bit counter spelled through a typedef
// (uint32_t): `for (uint32_t k = K; k > 0; k -= 16)`.  The 3- and 4-stage
// rings test whether tile k - 2 * 16 exists; in an unsigned counter that
// difference wraps around to a large value in the last iterations, so the
// test must be made tile by tile (k - 16 > 0 first).  kpipe once read the
// counter's signedness from the spelling "unsigned", missed uint32_t and
// prefetched past the start of A and B.
#include <stdint.h>
#include <cuda_pipeline.h>

__global__ void countdown_u32(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[3][16][16];
    __shared__ float Bs[3][16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    // kpipe: cp.async, 3 stages: requested with --variant cp-async
    {
        uint32_t k = (uint32_t)K;
        int kp_stage = 0;
        if (k > 0) {
            const int k0 = (int)k - 16;
            __pipeline_memcpy_async(&As[0][ty][tx], &A[row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        if ((k - 16) > 0) {
            const int k0 = (int)(k - 16) - 16;
            __pipeline_memcpy_async(&As[1][ty][tx], &A[row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[1][ty][tx], &B[(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k > 0; k -= 16) {
            __pipeline_wait_prior(1);
            __syncthreads();
            if ((k - 32) > 0) {
                const int k0 = (int)(k - 32) - 16;
                __pipeline_memcpy_async(&As[(kp_stage + 2) % 3][ty][tx], &A[row * K + k0 + tx], 4);
                __pipeline_memcpy_async(&Bs[(kp_stage + 2) % 3][ty][tx], &B[(k0 + ty) * N + col], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < 16; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage = kp_stage == 2 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
    }
    C[row * N + col] = acc;
}
