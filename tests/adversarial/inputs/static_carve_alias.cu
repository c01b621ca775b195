// adversarial input: two tiles carved out of one static __shared__ byte
// array at the same byte offset, spelled two ways (`smem + 1024` and
// `&smem[256 * 4]`): the carve-outs overlap.  Repeating the array per stage
// would keep them overlapping, and cp.async would land both copies in one
// place in any order.
// Expected: refused with kpipe-static-carve naming both carve-outs and the
// offset; the input written unchanged.
#include <cuda_runtime.h>
#define T 16
__global__ void carve_alias(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N, int K)
{
    __shared__ __align__(16) char smem[3 * T * T * 4];
    float *As = reinterpret_cast<float *>(smem + 1024);
    float *Bs = (float *)&smem[256 * 4];
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
