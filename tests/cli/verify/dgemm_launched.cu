// dgemm_launched.cu - a double-precision tiled GEMM with a host launcher and
// no launch description (tests/cli/verify.sh (g)): kpipe makes its own
// launches, block shape from the <<<>>> below, the int parameters one value
// V, the double scalars 1.5, the const double buffers `in` and C `inout`.
// Before `double` was a launch type this rewrite was unverified ("its
// parameter A has the type const double *__restrict, which kpipe cannot
// fill").
#include <cuda_runtime.h>

__global__ void dgemm_launched(const double *__restrict__ A, const double *__restrict__ B,
                               double *__restrict__ C, int M, int N, int K, double alpha)
{
    __shared__ double As[16][16];
    __shared__ double Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    double acc = 0.0;
    for (int k0 = 0; k0 < K; k0 += 16) {
        if (row < M && k0 + tx < K)
            As[ty][tx] = A[(size_t)row * K + k0 + tx];
        else
            As[ty][tx] = 0.0;
        if (k0 + ty < K && col < N)
            Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        else
            Bs[ty][tx] = 0.0;
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] += alpha * acc;
}

void launch_dgemm(const double *A, const double *B, double *C, int M, int N, int K, double alpha)
{
    dgemm_launched<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K, alpha);
}
