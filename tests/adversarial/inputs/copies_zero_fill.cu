// adversarial input: the value a guarded copy stores when its guard fails
// is a call that only looks like a zero (make_far(), named like
// make_float4, returns 1e30f; make_float2(0.f, 1.f) is not all zeros): a
// zero-filling cp.async would store 0 instead.
// Expected: rewritten (register staging, which stores the call's value);
// `--variant cp-async` refuses k_far and k_half_zero
// (kpipe-variant-unavailable); the near misses k_zero4 (make_float4 of four
// zeros), k_float_ctor (float()) and k_half (__float2half(0.0f)) are
// rewritten with zero-filling cp.async.  cpudiff (copies_zero_fill.launch.json)
// shows the unfixed cp.async rewrite of k_far wrong.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__device__ float make_far() { return 1e30f; }

__global__ void k_far(const float *__restrict__ A, float *__restrict__ C, int N, int K)
{
    __shared__ float As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = k0 + tx < N ? A[(size_t)ty * K + k0 + tx] : make_far();
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc = fminf(acc, As[ty][kk]) + As[kk][tx];
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

__global__ void k_half_zero(const float2 *__restrict__ A, float *__restrict__ C, int N, int K)
{
    __shared__ float2 As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = k0 + tx < N ? A[(size_t)ty * K + k0 + tx] : make_float2(0.f, 1.f);
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].x + As[kk][tx].y;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

// near miss: four zeros
__global__ void k_zero4(const float4 *__restrict__ A, float *__restrict__ C, int N, int K)
{
    __shared__ float4 As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = k0 + tx < N ? A[(size_t)ty * K + k0 + tx] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].x + As[kk][tx].w;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

// near miss: a zero literal
__global__ void k_literal(const float *__restrict__ A, float *__restrict__ C, int N, int K)
{
    __shared__ float As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = k0 + tx < N ? A[(size_t)ty * K + k0 + tx] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk] * As[kk][tx];
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

// near miss: a half2 zero
__global__ void k_half2(const __half2 *__restrict__ A, float *__restrict__ C, int N, int K)
{
    __shared__ __half2 As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = k0 + tx < N ? A[(size_t)ty * K + k0 + tx] : __float2half2_rn(0.0f);
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += __low2float(As[ty][kk]);
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}
