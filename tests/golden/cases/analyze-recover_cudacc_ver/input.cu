// Code that tests the nvcc version macros.  Expected: __CUDACC_VER_MAJOR__
// and friends are defined from the toolkit (no #error), mm analysed.
#include <cuda_runtime.h>
#if __CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10 != CUDART_VERSION
#error "the version macros disagree with the toolkit's CUDART_VERSION"
#endif
#if !defined(__CUDACC_VER_BUILD__)
#error "no __CUDACC_VER_BUILD__"
#endif
#if !defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ < 11
#error "needs CUDA 11 or later"
#endif
#define T 16
__global__ void mm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
