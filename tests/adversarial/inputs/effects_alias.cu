// adversarial input: the loop bound or the load pointers change through a
// reference or a pointer, which a direct write would show: the compute
// writes the bound through a reference (ref_bound) or through a pointer to
// it (ptr_bound), a helper takes the load pointer as `const float *&` and
// advances it (helper_advance), a reference to the load pointer is bumped
// after the closing barrier (ref_bump).  kpipe 0.1 rewrote all four (the
// next tile's condition and addresses are read a tile ahead, before the
// write; cpudiff: ref_bound and ref_bump differ from the original).
// Expected: every loop refused with kpipe-load-depends-on-compute, the
// message naming the variable, the alias or the call, and the reader;
// nothing written.
#include <cuda_runtime.h>
#define T 16

__global__ void ref_bound(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int lim = T;
    int &extent = lim;
    for (int k0 = 0; k0 < lim; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (extent < K)
            extent += T;
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void ptr_bound(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int lim = T;
    int *const plim = &lim;
    for (int k0 = 0; k0 < lim; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (*plim < K)
            *plim += T;
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__device__ void advance(const float *&p, int n) { p += n; }

__global__ void helper_advance(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    const float *pa = A + row * K;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = pa[tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        advance(pa, T);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void ref_bump(const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    const float *pa = A + row * K;
    const float *&ra = pa;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = pa[tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
        ra += T;
    }
    C[row * N + col] = acc;
}
