// adversarial input: tile copies whose source pointer points into shared
// memory (`const float *hp = &H[0][0];` with H __shared__), in a kernel and
// in a __device__ function whose caller hands it a shared array.  cp.async,
// cp.async.bulk and the tensor copy read global memory only, and __ldca
// (register-ca) is a global load: kpipe must prove a copy's source global
// before it uses any of them.
// Expected: rewritten (register staging); `--variant cp-async` refuses
// k_shared_src and tile_from (kpipe-variant-unavailable, "not proven to
// point to global memory"); the near misses k_param_math, k_device_var,
// k_choose and tile_global (a __device__ function every caller hands global
// memory) are rewritten with cp.async.
#include <cuda_runtime.h>

__device__ float G_tab[1 << 20];

__global__ void k_shared_src(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float H[32][32];
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    H[ty][tx] = A[ty * 32 + tx] * 2.0f;
    __syncthreads();
    const float *hp = &H[0][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        Bs[ty][tx] = hp[ty * 32 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

// the tile loop of a __device__ function: its source is what the caller passes
__device__ void tile_from(const float *__restrict__ src, const float *__restrict__ A, float *C, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        Bs[ty][tx] = src[ty * 32 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

__global__ void k_calls_with_shared(const float *__restrict__ A, float *C, int K)
{
    __shared__ float S[32 * 32];
    S[threadIdx.y * 32 + threadIdx.x] = A[threadIdx.y * 32 + threadIdx.x] + 1.0f;
    __syncthreads();
    tile_from(S, A, C, K);
}

// near miss: every caller hands global memory
__device__ void tile_global(const float *src, const float *__restrict__ A, float *C, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        Bs[ty][tx] = src[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

__global__ void k_calls_with_global(const float *__restrict__ A, const float *B, float *C, int K)
{
    tile_global(B + blockIdx.x * 32, A, C, K);
}

// near miss: arithmetic on a kernel parameter
__global__ void k_param_math(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const float *ap = A + (size_t)blockIdx.y * 32 * K;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = ap[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

// near miss: a pointer to a __device__ array
__global__ void k_device_var(float *__restrict__ C, int K)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const float *gp = &G_tab[blockIdx.x * 1024];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = gp[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

// near miss: a choice between two kernel parameters
__global__ void k_choose(const float *A, const float *B, float *__restrict__ C, int K, int which)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const float *p = which ? A : B;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = p[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}
