// adversarial input: the compute writes global memory that other threads
// read after the loop (part_sums: each thread stores its running sum into
// a __restrict__ buffer no load reads, and after the loop each thread
// reads its neighbour's).  The original's closing barrier orders the last
// iteration's stores before those reads; kpipe 0.1's pipelined loop ended
// without a barrier (cpudiff: a race, the rewrite differs from the
// original).  Expected: rewritten, with a __syncthreads() after the
// pipelined loop whose comment names the store.
#include <cuda_runtime.h>
#define T 16

__global__ void part_sums(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, float *__restrict__ P, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        P[row * N + col] = acc;
        __syncthreads();
    }
    C[row * N + col] = acc + P[row * N + (blockIdx.x * T + (tx + 1) % T)];
}
