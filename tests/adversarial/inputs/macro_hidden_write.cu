// adversarial input: a macro of the compute phase stores into a tile passed
// to it as an argument, CLEAR(As); the store is the macro's `=`.
// Expected: refused (kpipe-compute-writes-tile).  kpipe before the
// operators of macro expansions were read by their kind did not see the
// store and rewrote the loop: the prefetched tile was cleared.
#include <cuda_runtime.h>
#define CLEAR(tile) tile[ty][tx] = 0.0f
__global__ void mm(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        CLEAR(As);
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
