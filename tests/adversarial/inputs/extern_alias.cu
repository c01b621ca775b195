// adversarial input: two tiles carved out of extern shared memory at the
// same offset, spelled two ways (`sm + T * T` and `&sm[T * T]` are the
// same address; kpipe compares the offsets, not the spelling of the
// initialisers).  Pipelined, cp.async would land both copies in one place
// in any order.
// Expected: refused with kpipe-dynamic-smem naming both carve-outs;
// nothing written.
#include <cuda_runtime.h>
#define T 16
__global__ void alias(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int N, int K)
{
    extern __shared__ float sm[];
    float *As = sm + T * T;
    float *Bs = &sm[T * T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty * T + tx] = A[ty * K + k0 + tx];
        Bs[ty * T + tx] = B[(k0 + ty) * N + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty * T + kk] * Bs[kk * T + tx];
        __syncthreads();
    }
    C[ty * N + tx] = acc;
}
