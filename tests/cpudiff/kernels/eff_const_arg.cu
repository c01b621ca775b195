// eff_const_arg.cu - fp32 C = A * B, 16x16 tiles, whose compute hands the
// tiles and a const array of weights to __device__ helpers whose
// parameters are pointers to const spelled through a typedef (`crow`) or
// as `float const *`: clang's parameter types say the helpers cannot write
// through them.  kpipe read the spellings and took the calls for writes:
// "the compute phase writes the loaded tile 'As'"
// [kpipe-compute-writes-tile].  Now rewritten.
#include <cuda_runtime.h>
#define TILE 16
typedef const float (*crow)[TILE];

__device__ float row_dot(crow a, float const *b, int r, int c)
{
    float s = 0.0f;
    for (int k = 0; k < TILE; ++k)
        s += a[r][k] * b[k * TILE + c];
    return s;
}

__device__ float weigh(float const *w, int i) { return w[i & 3]; }

__global__ void eff_const_arg(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE * TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    const float wt[4] = {1.0f, 0.5f, 0.25f, 0.125f};
    float acc = 0.0f;
    for (int t = 0; t < K / TILE; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty * TILE + tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        acc += row_dot(As, Bs, ty, tx) * weigh(wt, t);
        __syncthreads();
    }
    if (row < M)
        C[row * N + col] = acc;
}
