// adversarial input: a block of tile copies under a condition on the loop
// counter, with no else: where it fails the tiles keep the previous tile.
// Expected: refused (kpipe-partial-tile-write).  kpipe checked only a lone
// copy under such an if and rewrote this loop: with two buffers the
// elements kept a tile from two iterations back.
#include <cuda_runtime.h>
__global__ void mm(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        if (k0 + tx < K && k0 + ty < K) {
            As[ty][tx] = A[(size_t)row * K + k0 + tx];
            Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        }
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
