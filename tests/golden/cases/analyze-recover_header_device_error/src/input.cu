// The kernel's file includes ../lib/wrap.h, a project header outside the
// input's folder whose host code does not compile here (a missing library).
// Expected (near miss): the error is in a __device__ function of the header,
// which a kernel may call: the file does not compile (exit 3).
#include "../lib/wrap.h"
#define T 16
__global__ void __launch_bounds__(256) mm(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x % T, ty = threadIdx.x / T;
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
