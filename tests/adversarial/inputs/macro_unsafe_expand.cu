// adversarial input: tile macros kpipe expands, or must not.  In m_write
// the macro hides a write of the loaded tile in the compute phase
// (expanded, the loop is still refused); in m_str the macro stringifies
// its argument, which kpipe does not expand.
// Expected: both loops refused (kpipe-macro-array, with a
// kpipe-inline-refused remark that names the reason); nothing written.
#include <cstdio>
#include <cuda_runtime.h>
#define T 16
#define BUMP(i, j) As[i][j] += 1.0f
#define AT_LOGGED(i, j) (printf(#i), As[i][j])
__global__ void m_write(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        BUMP(tx, ty);
        acc += As[ty][tx];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
__global__ void m_str(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        acc += AT_LOGGED(tx, ty);
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
