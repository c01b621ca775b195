// adversarial input: the compute writes global memory that the next tile's
// loads or the loop condition read, in ways a store through a parameter
// would not show: the condition reads a bound the compute writes
// (cond_global, `k0 < lim[b]`), a __noinline__ helper writes a __device__
// offset the load's address reads (helper_device), the compute stores
// through a struct member pointing into the loaded array (member_store),
// an inline-PTX st.global into the next A tile (ptx_store), a __device__
// array written while the tiles load through a pointer that is not
// __restrict__ (device_array: the host may pass the array's address).
// kpipe 0.1 rewrote all five (cpudiff: cond_global and member_store differ
// from the original).  Expected: every loop refused, kpipe-memory-order
// or kpipe-unknown-effect naming the write and the reader; nothing
// written.
#include <cuda_runtime.h>
#define T 16

__global__ void cond_global(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int *lim, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    const int b = blockIdx.y * gridDim.x + blockIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < lim[b]; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (tx == 0 && ty == 0 && lim[b] < K)
            lim[b] += T;
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__device__ int g_off[64];

__device__ __noinline__ void set_off(int b, int v) { g_off[b] = v; }

__global__ void helper_device(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    const int b = blockIdx.x % 64;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + (k0 + g_off[b] + tx) % K];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (tx == 0 && ty == 0)
            set_off(b, k0 % 3);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

struct View {
    float *p;
    int ld;
};

__global__ void member_store(float *A, const float *__restrict__ B, float *__restrict__ C, int M,
                             int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    View v;
    v.p = A;
    v.ld = K;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (blockIdx.x == 0 && k0 + T < K)
            v.p[row * v.ld + k0 + T + tx] *= 0.5f;
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void ptx_store(float *A, const float *__restrict__ B, float *__restrict__ C, int M,
                          int N, int K)
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
        if (blockIdx.x == 0 && k0 + T < K)
            asm volatile("st.global.cs.f32 [%0], %1;" ::"l"(A + row * K + k0 + T + tx), "f"(acc));
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__device__ float g_scratch[4096];

__global__ void device_array(const float *A, const float *B, float *__restrict__ C, int M, int N,
                             int K)
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
        if (blockIdx.x == 0 && k0 + T < K)
            g_scratch[(row * K + k0 + T + tx) % 4096] = acc;
        __syncthreads();
    }
    C[row * N + col] = acc;
}
