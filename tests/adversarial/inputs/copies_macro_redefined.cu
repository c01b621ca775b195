// adversarial input: a macro the loop names is #undef'd and #define'd again
// between the load phase and the compute phase (ROW means ty in the loads,
// tx in the compute).  Register staging stores the next tile after the
// compute phase, where ROW is tx, and cp.async copies the first tile before
// the loop, where ROW is whatever was defined last: the moved copy would
// write another element than the original.
// Expected: the loop of k_redef refused (kpipe-macro-redefined); the near
// misses k_other (a macro the loop does not name is redefined inside it)
// and k_outside (ROW2 defined once, before the kernel) are rewritten.
#include <cuda_runtime.h>
#define T 16
#define ROW ty
#define ROW2 ty
__global__ void k_redef(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ROW][tx] = A[ty * K + k0 + tx];
        __syncthreads();
#undef ROW
#define ROW tx
        for (int kk = 0; kk < T; ++kk)
            acc += As[kk][ROW] * (float)(kk + 1);
        __syncthreads();
#undef ROW
#define ROW ty
    }
    C[ty * T + tx] = acc;
}
// near miss: UNUSED is not named by the loop
__global__ void k_other(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
#define UNUSED 1
        for (int kk = 0; kk < T; ++kk)
            acc += As[kk][tx];
        __syncthreads();
#undef UNUSED
    }
    C[ty * T + tx] = acc;
}
// near miss: one definition, before the kernel
__global__ void k_outside(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ROW2][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[kk][ROW2];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
