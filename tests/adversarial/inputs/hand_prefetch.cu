// adversarial input: K-loops pipelined by hand through registers, the way
// cuda-convnet2's *Preload kernels are written (our own kernels): each
// tile is stored from registers that the loop refills from global memory
// for the next tile, after the store, and that are filled before the loop.
// h_prefetch (refilled in the compute phase) and h_prefetch_early
// (refilled in the load phase, after the stores) are pipelined already:
// one kpipe-already-pipelined remark each.  Near misses that stay
// refused for the dependence: the registers are never filled before the
// loop (h_no_prologue), are refilled from the math, not from memory
// (h_from_math), only one of the two tiles is staged by hand (h_mixed).
// Expected: h_prefetch and h_prefetch_early remarks (already pipelined);
// the three near misses warnings [kpipe-load-depends-on-compute];
// nothing written.
#include <cuda_runtime.h>
#define T 16
__global__ void h_prefetch(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float aPre = A[row * K + tx];
    float bPre = B[ty * N + col];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = aPre;
        Bs[ty][tx] = bPre;
        __syncthreads();
        if (k0 + T < K) {
            aPre = A[row * K + k0 + T + tx];
            bPre = B[(k0 + T + ty) * N + col];
        }
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void h_prefetch_early(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float pre[2];
    pre[0] = A[row * K + tx];
    pre[1] = B[ty * N + col];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = pre[0];
        Bs[ty][tx] = pre[1];
        const int kn = k0 + T < K ? k0 + T : k0;
        pre[0] = A[row * K + kn + tx];
        pre[1] = B[(kn + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void h_no_prologue(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float aPre = 0.0f, bPre = 0.0f;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = aPre;
        Bs[ty][tx] = bPre;
        __syncthreads();
        aPre = A[row * K + k0 + tx];
        bPre = B[(k0 + ty) * N + col];
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void h_from_math(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float aPre = A[row * K + tx];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = aPre;
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        aPre = acc;
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void h_mixed(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float aPre = A[row * K + tx];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = aPre;
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        if (k0 + T < K)
            aPre = A[row * K + k0 + T + tx];
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
