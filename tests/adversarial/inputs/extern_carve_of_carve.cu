// adversarial input: a tile carved out of another carve-out (`float *Bs =
// As + 8;`), which overlaps it: the offset is relative to a pointer kpipe
// did not take as a carve-out of the array, so it cannot tell the two
// apart.
// Expected: refused (the write through Bs is no copy into a tile kpipe
// can place, or the carve-outs are reported); nothing written.
#include <cuda_runtime.h>
#define T 16
__global__ void carve2(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int N, int K)
{
    extern __shared__ float sm[];
    float *As = sm;
    float *Bs = As + 8;
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
