// matmul_32x32.oob.cu - deliberately broken version of samples/matmul_32x32.cu
// for the bench self-test: stores far out of bounds: an illegal address that kills the CUDA context.

#include <cuda_runtime.h>

__global__ void matmul_32x32(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty;
    const int col = blockIdx.x * 32 + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M)
        C[(size_t)row * N + col + (1ull << 40)] = acc;
}
