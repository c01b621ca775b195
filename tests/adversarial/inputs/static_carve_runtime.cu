// adversarial input: a tile carved out of a static __shared__ byte array at
// an offset known only at run time (`smem + off`, a kernel parameter):
// kpipe cannot tell whether it overlaps the other carve-out (off = 0 makes
// the two one tile).
// Expected: refused with kpipe-static-carve ("not a constant"); the input
// written unchanged.
#include <cuda_runtime.h>
#define T 16
__global__ void carve_runtime(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int N, int K, int off)
{
    __shared__ __align__(16) char smem[2 * T * T * 4];
    float *As = reinterpret_cast<float *>(smem);
    float *Bs = reinterpret_cast<float *>(smem + off);
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
