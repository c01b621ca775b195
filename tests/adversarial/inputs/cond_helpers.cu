// adversarial input: __device__ helpers of the file called in a K-loop's
// condition (issue #34: `t < cdiv(K, T)`).  The rewrite evaluates the
// condition more than once per iteration, so a helper is accepted only when
// the effect analysis reads its body and finds no write, no barrier and no
// inline assembly: cdiv_loop (a pure helper) is pipelined; count_loop (the
// helper bumps a __device__ counter), sync_loop (a barrier inside) and
// nested_loop (a helper calling the barrier helper) are refused with
// kpipe-cond-side-effect, naming what the helper does (cond_helpers_asm.cu:
// inline assembly, which the CPU emulator could not build beside these);
// dependent_loop calls a method of a template parameter, which clang leaves
// unresolved: refused, the call named by its text.
// Expected: one loop of five pipelined and verified; the output compiles.
#include <cuda_runtime.h>
#define T 16

__device__ __forceinline__ int cdiv(int a, int b) { return (a + b - 1) / b; }

__device__ int calls;
__device__ int cdiv_count(int a, int b)
{
    calls++;
    return (a + b - 1) / b;
}

__device__ int cdiv_sync(int a, int b)
{
    __syncthreads();
    return (a + b - 1) / b;
}

__device__ int cdiv_nested(int a, int b) { return cdiv_sync(a, b); }


__global__ void cdiv_loop(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < cdiv(N, T); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void count_loop(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < cdiv_count(N, T); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void sync_loop(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < cdiv_sync(N, T); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void nested_loop(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < cdiv_nested(N, T); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

struct Tiles {
    int n;
    __device__ int count() const { return n / T; }
};

template <typename Shape>
__global__ void dependent_loop(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int N, Shape s)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < s.count(); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

void run(const float *A, const float *B, float *C, int N)
{
    dim3 grid(N / T, N / T), block(T, T);
    cdiv_loop<<<grid, block>>>(A, B, C, N);
    count_loop<<<grid, block>>>(A, B, C, N);
    sync_loop<<<grid, block>>>(A, B, C, N);
    nested_loop<<<grid, block>>>(A, B, C, N);
    dependent_loop<Tiles><<<grid, block>>>(A, B, C, N, Tiles{N});
}
