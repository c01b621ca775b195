// dup_copy_launched.cu - dup_copy.cu with a host launcher and no launch
// description (tests/cli/verify.sh): kpipe makes its own launches, block
// shape from the <<<>>> below, every int parameter set to one value V.
// Two copies into the same tile element in one load phase, the second
// overwriting the first: two cp.async copies land in either order.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>

__global__ void dup_copy(const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, int N, int K)
{
    __shared__ float As[2][16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.x * 16 + ty;
    float acc = 0.0f;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&As[0][ty][tx], &B[(size_t)row * K + k0 + tx], 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += 16) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + 16) < K) {
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &A[(size_t)row * K + (k0 + 16) + tx], 4);
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &B[(size_t)row * K + (k0 + 16) + tx], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < 16; ++kk)
                acc += As[kp_stage][ty][kk] * (float)(kk + 1);
            kp_stage ^= 1;
        }
    }
    C[(size_t)row * 16 + tx] = acc;
}

void launch_dup_copy(const float *A, const float *B, float *C, int N, int K)
{
    dup_copy<<<N / 16, dim3(16, 16)>>>(A, B, C, N, K);
}
