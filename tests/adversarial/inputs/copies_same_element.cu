// adversarial input: two copies of one load phase into the same tile
// element (the second overwrites the first), and a copy loop whose counter
// the target does not name.  As cp.async they become two asynchronous
// copies into one element that complete in no defined order (on an H200,
// 1,047,748 of 1,048,576 outputs wrong).
// Expected: rewritten (register staging); `--variant cp-async` refuses
// k_twice and k_loop_same (kpipe-variant-unavailable, "not proven to write
// different elements" / "each trip writes the same element"); the near
// misses k_halves (rows ty and ty + 16), k_flat (a flat index and the same
// plus 512), k_vec (float4 columns 0 and 4) and k_rows_loop (a copy loop
// over rows) are rewritten with cp.async.
#include <cuda_runtime.h>

__global__ void k_twice(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int K)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        As[ty][tx] = B[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

__global__ void k_loop_same(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = 0; i < 2; ++i)
            As[ty][tx] = A[(size_t)(ty + i) * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

// near miss: two halves of the tile
__global__ void k_halves(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y; // 32 x 16 threads
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        As[ty + 16][tx] = A[(size_t)(ty + 16) * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] + As[ty + 16][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

// near miss: a flat tile, the second copy 512 elements further
__global__ void k_flat(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[1024];
    const int t = threadIdx.x; // 512 threads
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[t] = A[(size_t)k0 * 32 + t];
        As[t + 512] = A[(size_t)k0 * 32 + t + 512];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[(t % 32) * 32 + kk];
        __syncthreads();
    }
    C[t] = acc;
}

// near miss: float4 copies four floats apart
__global__ void k_vec(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y; // 4 x 32 threads
    const int c = tx * 8;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        *reinterpret_cast<float4 *>(&As[ty][c]) =
            *reinterpret_cast<const float4 *>(&A[(size_t)ty * K + k0 + c]);
        *reinterpret_cast<float4 *>(&As[ty][c + 4]) =
            *reinterpret_cast<const float4 *>(&A[(size_t)ty * K + k0 + c + 4]);
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}

// near miss: a copy loop over rows
__global__ void k_rows_loop(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y; // 32 x 8 threads
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = 0; i < 4; ++i)
            As[ty + 8 * i][tx] = A[(size_t)(ty + 8 * i) * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 32 + tx] = acc;
}
