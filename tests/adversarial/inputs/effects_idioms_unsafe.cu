// adversarial input: near misses of the pure-function table, the const and
// template-parameter arguments, the typedef'd element types, the null
// statement after a barrier macro and the warp operations (issue #34), each
// really unsafe: a user `min` of the file whose body changes the bound it is
// handed (user_min_writes_bound), a user `fmaxf` overload that stores into
// memory the tile loads read (user_fmaxf_stores), an operator< of the file
// that takes a non-const reference, found by a comparison in a template
// (dep_compare_mutating), a non-const array handed to a helper that writes
// it while the loads read it (nonconst_arg_written), const dropped by a
// const_cast on the way to a helper that writes (const_cast_written), a
// `typedef double real;` tile filled from floats (typedef_converts: cp.async
// refused, register staging still fine), a statement after the closing
// barrier macro that is no bump (stmt_after_sync_macro), a shuffle in the
// compute phase feeding the next tile's load index (shuffle_feeds_index), a
// template parameter handed to a dependent helper next to a variable it takes
// by reference, the next tile's offset (tparam_next_to_ref).
// Expected: every loop but typedef_converts refused, typedef_converts
// rewritten by register staging only; the output compiles.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#define T 16
#define SYNC_THREADS __syncthreads();

__device__ int min(int a, int b, int *lim)
{
    *lim -= 1;
    return a < b ? a : b;
}

__global__ void user_min_writes_bound(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int lim = K / T;
    for (int t = 0; t < min(K / T, 1 << 20, &lim) && t < lim; ++t) {
        As[ty][tx] = A[row * K + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__device__ float fmaxf(float a, float b, float *trace)
{
    trace[0] = a;
    return a > b ? a : b;
}

__global__ void user_fmaxf_stores(float *A, const float *__restrict__ B, float *__restrict__ C,
                                  int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < K / T; ++t) {
        As[ty][tx] = A[row * K + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        acc = fmaxf(acc, 0.0f, A + row * K + t * T + T);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

struct Clamp {
    float v;
};
__device__ bool operator<(float &a, const Clamp &b)
{
    a = a < b.v ? a : b.v;
    return true;
}

template <typename U>
__global__ void dep_compare_mutating(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int N, int K, U cap)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    float kf = (float)K;
    for (int t = 0; t * T < kf; ++t) {
        As[ty][tx] = A[row * K + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        if (kf < cap)
            acc += 1.0f;
        __syncthreads();
    }
    C[row * N + col] = acc;
}
template __global__ void dep_compare_mutating<Clamp>(const float *, const float *, float *, int,
                                                     int, Clamp);

__device__ void shift(int *o) { o[0] += T; }

__global__ void nonconst_arg_written(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int off[1] = {0};
    for (int t = 0; t < K / T; ++t) {
        As[ty][tx] = A[row * K + off[0] + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        shift(off);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void const_cast_written(const float *__restrict__ A, const float *__restrict__ B,
                                   float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int off[1] = {0};
    const int *view = off;
    for (int t = 0; t < K / T; ++t) {
        As[ty][tx] = A[row * K + view[0] + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        shift(const_cast<int *>(view));
        __syncthreads();
    }
    C[row * N + col] = acc;
}

typedef double real;

__global__ void typedef_converts(const float *__restrict__ A, const float *__restrict__ B,
                                 real *__restrict__ C, int N, int K)
{
    __shared__ real As[T][T];
    __shared__ real Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    real acc = 0.0;
    for (int t = 0; t < K / T; ++t) {
        As[ty][tx] = A[row * K + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void stmt_after_sync_macro(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < K / T; ++t) {
        As[ty][tx] = A[row * K + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        SYNC_THREADS;
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        SYNC_THREADS;
        acc *= 0.5f;
    }
    C[row * N + col] = acc;
}

__global__ void shuffle_feeds_index(const float *__restrict__ A, const float *__restrict__ B,
                                    float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int base = 0;
    for (int t = 0; t < K / T; ++t) {
        As[ty][tx] = A[row * K + base + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        base = __shfl_sync(0xffffffffu, base + T, 0);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

template <int S, typename U> __device__ void advance(U &x) { x += S; }

template <int BK>
__global__ void tparam_next_to_ref(const float *__restrict__ A, const float *__restrict__ B,
                                   float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int koff = 0;
    for (int t = 0; t < K / BK; ++t) {
        As[ty][tx] = A[row * K + koff + tx];
        Bs[ty][tx] = B[(t * BK + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        advance<BK>(koff);
        __syncthreads();
    }
    C[row * N + col] = acc;
}
template __global__ void tparam_next_to_ref<16>(const float *, const float *, float *, int, int);
