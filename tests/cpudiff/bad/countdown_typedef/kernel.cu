// countdown_u32.cu - fp32 C = A * B with 16x16 tiles, the K-loop counting
// down with an unsigned 32-bit counter spelled through a typedef
// (uint32_t): `for (uint32_t k = K; k > 0; k -= 16)`.  The 3- and 4-stage
// rings test whether tile k - 2 * 16 exists; in an unsigned counter that
// difference wraps around to a large value in the last iterations, so the
// test must be made tile by tile (k - 16 > 0 first).  kpipe once read the
// counter's signedness from the spelling "unsigned", missed uint32_t and
// prefetched past the start of A and B.
#include <stdint.h>

__global__ void countdown_u32(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[16][16];
    __shared__ float Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (uint32_t k = (uint32_t)K; k > 0; k -= 16) {
        const int k0 = (int)k - 16;
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
