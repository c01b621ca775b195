// adversarial input: a K-loop in a __device__ function with two 16x16
// tiles of its own (2 KB), called by a kernel that already holds 46 KB of
// static shared memory: 48 KB in all, within the static limit; two
// buffers of the tiles make it 50 KB and the launch fails on the H200.
// Expected: every loop refused (kpipe-smem-over-limit) naming the caller
// 'hog' and the bytes; the input written unchanged.
#include <cuda_runtime.h>
#define T 16
__device__ float dot_tiles(const float *__restrict__ A, const float *__restrict__ B, int N,
                           int K, int row, int col)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    return acc;
}

__global__ void hog(const float *__restrict__ A, const float *__restrict__ B,
                    float *__restrict__ C, int N, int K)
{
    __shared__ float table[46 * 256]; /* 46 KB */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    for (int i = ty * T + tx; i < 46 * 256; i += T * T)
        table[i] = (float)i;
    __syncthreads();
    float v = dot_tiles(A, B, N, K, row, col);
    C[(size_t)row * N + col] = v + table[(row * 7 + col) % (46 * 256)];
}
