// near miss of launch_device_caller.cu: the same __device__ K-loop (2 KB
// of tiles) called by a kernel that holds 8 KB of static shared memory:
// two buffers of the tiles make 12 KB in all.
// Expected: rewritten; the output compiles.
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
    __shared__ float table[8 * 256]; /* 8 KB */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    for (int i = ty * T + tx; i < 8 * 256; i += T * T)
        table[i] = (float)i;
    __syncthreads();
    float v = dot_tiles(A, B, N, K, row, col);
    C[(size_t)row * N + col] = v + table[(row * 7 + col) % (8 * 256)];
}
