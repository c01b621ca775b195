// adversarial input: a macro with a side effect on the loop counter,
// NUDGE(k0) in the compute phase.
// Expected: refused (kpipe-loop-shape: the counter is updated twice).  kpipe
// before the operators of macro expansions were read by their kind missed
// the `++` and rewrote the loop.
#include <cuda_runtime.h>
#define NUDGE(k) (++(k))
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
        if (acc > 1e30f)
            NUDGE(k0);
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
