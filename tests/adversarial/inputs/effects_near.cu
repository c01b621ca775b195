// adversarial input: near misses of the effects_* inputs, which must still
// be pipelined: the condition reads the bound through a const reference
// (const_ref_bound), the compute calls a pure __device__ helper of the file
// (pure_helper), a pointer to a local is only read (read_ptr), the compute
// stores into a __restrict__ output that no load reads and nothing reads
// after the loop (restrict_out), a per-tile declaration the loop never
// changes moves before the loop (canon_const), a reference to the load
// pointer is bumped after the closing barrier and the loads read through
// it (ref_bump_read: an induction variable the rewrite advances; no
// variant copies through a reference, so the plan leaves it alone), the
// compute writes a __device__ array while the tiles load through
// const __restrict__ pointers (device_array_restrict).
// Expected: every loop but ref_bump_read rewritten, none refused by the
// effect rules; the output compiles.
#include <cuda_runtime.h>
#define T 16

__global__ void const_ref_bound(const float *__restrict__ A, const float *__restrict__ B,
                                float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int lim = K;
    const int &extent = lim;
    for (int k0 = 0; k0 < extent; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__device__ float madd(float a, float b, float c)
{
    float t = a * b;
    return fmaf(1.0f, t, c);
}

__global__ void pure_helper(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc = madd(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void read_ptr(const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    const int lim = K;
    const int *plim = &lim;
    for (int k0 = 0; k0 < *plim; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void restrict_out(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        C[row * N + col] = acc;
        __syncthreads();
    }
}

__global__ void canon_const(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        float scale = 0.5f;
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx] * scale;
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void ref_bump_read(const float *__restrict__ A, const float *__restrict__ B,
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
        As[ty][tx] = ra[tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
        ra += T;
    }
    C[row * N + col] = acc;
}

__device__ float g_trace[4096];

__global__ void device_array_restrict(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        g_trace[(row * N + col) % 4096] = acc;
        __syncthreads();
    }
    C[row * N + col] = acc;
}
