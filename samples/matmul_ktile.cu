// matmul_ktile.cu - fp32 C = A * B (row-major), a 32x32 output tile per
// block, blockDim = (32, 32), one output per thread; the depth of the K tile
// is a template parameter: `template <int BK>`, BK a multiple of 32.  Each
// thread copies BK / 32 elements of each tile in a loop of constant trip
// count.  Two explicit instantiations, <32> and <64>, share the launch
// geometry, so one launch description names both (its "template_args" is a
// list) and `kpipe tune` measures the file's variants on both.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`, shared arrays sized by
// the template parameter.  M and N must be multiples of 32, K of 64 (a whole
// number of tiles for both instantiations).
//
// kpipe: eligible for every instantiation.

#include <cuda_runtime.h>

template <int BK>
__global__ void matmul_ktile(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    static_assert(BK % 32 == 0, "each thread copies whole elements of every row");
    __shared__ float As[32][BK];
    __shared__ float Bs[BK][32];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty;
    const int col = blockIdx.x * 32 + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < BK / 32; ++i) {
            As[ty][tx + 32 * i] = A[(size_t)row * K + k0 + tx + 32 * i];
            Bs[ty + 32 * i][tx] = B[(size_t)(k0 + ty + 32 * i) * N + col];
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}

template __global__ void matmul_ktile<32>(const float *, const float *, float *, int, int, int);
template __global__ void matmul_ktile<64>(const float *, const float *, float *, int, int, int);
