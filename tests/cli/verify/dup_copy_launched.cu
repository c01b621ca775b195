// dup_copy_launched.cu - dup_copy.cu with a host launcher and no launch
// description (tests/cli/verify.sh): kpipe makes its own launches, block
// shape from the <<<>>> below, every int parameter set to one value V.
// Two copies into the same tile element in one load phase, the second
// overwriting the first: two cp.async copies land in either order.
#include <cuda_runtime.h>

__global__ void dup_copy(const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, int N, int K)
{
    __shared__ float As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.x * 16 + ty;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        As[ty][tx] = B[(size_t)row * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk] * (float)(kk + 1);
        __syncthreads();
    }
    C[(size_t)row * 16 + tx] = acc;
}

void launch_dup_copy(const float *A, const float *B, float *C, int N, int K)
{
    dup_copy<<<N / 16, dim3(16, 16)>>>(A, B, C, N, K);
}
