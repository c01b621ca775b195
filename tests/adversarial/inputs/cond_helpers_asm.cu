// adversarial input: K-loop conditions that write no memory yet are no
// functions of their operands (a clock read by asm volatile, __shfl_sync,
// clock64, a volatile read, in helpers or directly): evaluated again a tile
// ahead they return another value (cond_helpers.cu has the others).
// Expected: all five refused with kpipe-cond-side-effect, naming the cause.
#include <cuda_runtime.h>
#define T 16

__device__ int cdiv_asm(int a, int b)
{
    int r;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(r));
    return (a + b - 1) / b + (r & 0);
}

__global__ void asm_loop(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < cdiv_asm(N, T); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}


// A warp shuffle and a clock write no memory, so the effect sets hold
// nothing for them, but neither is a function of its operands: refused,
// naming the call.
__device__ int bound_shfl(int n) { return __shfl_sync(0xffffffffu, n, 0) / T; }
__device__ long long bound_clock(int n) { return n / T + (clock64() & 0); }

__global__ void shfl_loop(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < bound_shfl(N); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void clock_loop(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < bound_clock(N); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

// A volatile read writes no memory either, but another block or the host
// may change what it reads between the condition's evaluations (a flag, a
// count): refused, directly in the condition and inside a helper.
__device__ int bound_volatile(const int *p) { return *(volatile const int *)p / T; }

__global__ void volatile_loop(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, const int *P, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < *(volatile const int *)P / T; ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void volatile_helper_loop(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, const int *P, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < bound_volatile(P); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
