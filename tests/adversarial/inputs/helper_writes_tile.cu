// adversarial input: compute helpers handed a loaded tile.  scale_row takes
// a reference to non-const and writes the tile it reads; grab, a template
// helper called from a template kernel, is a dependent call whose
// parameters kpipe cannot see (it writes too).  A helper taking a reference
// to const only reads (samples/matmul_compute_helper.cu is rewritten).
// Expected: both loops refused with kpipe-compute-writes-tile naming the
// helper; nothing written.
#include <cuda_runtime.h>
#define T 16
__device__ __forceinline__ float scale_row(float (&a)[T][T], int r, int c)
{
    a[r][c] *= 2.0f;
    return a[r][c];
}
template <int TT> __device__ float grab(float *a, int r)
{
    const float v = a[r];
    a[r] = 0.0f;
    return v;
}
__global__ void w1(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        acc += scale_row(As, ty, tx);
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
template <int TT>
__global__ void w2(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float Xs[TT * TT];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TT) {
        Xs[ty * TT + tx] = A[ty * K + k0 + tx];
        __syncthreads();
        acc += grab<TT>(Xs, (ty * TT + tx + 1) % (TT * TT));
        __syncthreads();
    }
    C[ty * TT + tx] = acc;
}
template __global__ void w2<16>(const float *__restrict__, float *__restrict__, int);
