// dup_copy.cu - a red-team K-loop for the verifier (tests/cli/verify.sh):
// two copies into the same tile element in one load phase, the second
// overwriting the first (As[ty][tx] = A[..]; As[ty][tx] = B[..]).  The
// original's tile holds B's value; two cp.async copies into one element
// land in either order.
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
