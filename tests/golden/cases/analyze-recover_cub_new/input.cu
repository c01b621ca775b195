// CUB block loads construct items with placement new in device code: clang
// accepts it with its CUDA wrapper of <new>, which kpipe now puts on the
// include path.  Expected: both kernels analysed, the K-loop of mm eligible.
#include <cub/block/block_load.cuh>
#define T 16
__global__ void striped_sum(const int *in, int *out)
{
    int items[4];
    cub::LoadDirectWarpStriped(threadIdx.x, in + blockIdx.x * 128, items);
    out[blockIdx.x * 32 + threadIdx.x] = items[0] + items[1] + items[2] + items[3];
}
__global__ void mm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
