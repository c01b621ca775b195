// adversarial input: declarations of the load phase that the compute uses
// and changes, so that each tile must start from the initial value: a
// scale changed through a reference (ref_scale), a per-tile array of
// partial sums (tile_parts, `float part[2] = {0.0f};`).  kpipe 0.1's canon
// pass moved both before the loop as "never changed" and the loop was
// pipelined (cpudiff: both differ from the original).  Expected: every
// loop refused, a kpipe-canon-refused remark saying the declaration is
// changed in the loop; nothing written.
#include <cuda_runtime.h>
#define T 16

__global__ void ref_scale(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        float scale = 1.0f;
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        float &s = scale;
        for (int kk = 0; kk < T; ++kk) {
            acc += As[ty][kk] * Bs[kk][tx] * s;
            s *= 0.5f;
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void tile_parts(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        float part[2] = {0.0f};
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            part[kk & 1] += As[ty][kk] * Bs[kk][tx];
        acc += part[0] * part[1];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
