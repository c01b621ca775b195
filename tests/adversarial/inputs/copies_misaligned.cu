// adversarial input: 16-byte copies of a 16-byte struct whose alignment is
// 4 bytes (struct Quad, four floats), into a tile declared after a 4-byte
// __shared__ int: the tile may start 4 bytes past a 16-byte boundary, and so
// may the global source.  A 16-byte cp.async needs both 16-byte aligned
// ("misaligned address" on an H200).
// Expected: rewritten (register staging); `--variant cp-async` refuses
// k_quad (kpipe-variant-unavailable, "whose alignment is 4 B"); the near
// misses k_quad16 (an __align__(16) struct) and k_float4 are rewritten with
// 16-byte cp.async.
#include <cuda_runtime.h>

struct Quad {
    float a, b, c, d;
};

struct __align__(16) Quad16 {
    float a, b, c, d;
};

__global__ void k_quad(const Quad *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ int flag;
    __shared__ Quad As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (tx == 0 && ty == 0)
        flag = 1;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].a * As[kk][tx].d + (float)flag;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

// near miss: the struct's alignment is its size
__global__ void k_quad16(const Quad16 *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ int flag;
    __shared__ Quad16 As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (tx == 0 && ty == 0)
        flag = 1;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].a * As[kk][tx].d + (float)flag;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}

// near miss: float4 (16-byte aligned)
__global__ void k_float4(const float4 *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ int flag;
    __shared__ float4 As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (tx == 0 && ty == 0)
        flag = 1;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk].x * As[kk][tx].w + (float)flag;
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}
