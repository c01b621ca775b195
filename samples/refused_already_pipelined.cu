// refused_already_pipelined.cu - fp32 C = A * B (row-major), 16x16 tiles, one
// output per thread, already double-buffered by hand with the cp.async
// primitives of <cuda_pipeline.h>: tile t+1 is requested into the other
// buffer while tile t is being multiplied.
//
// K-loop shape: `for (int t = 0; t < ntiles; ++t)` whose body issues
// __pipeline_memcpy_async for the next tile, __pipeline_commit(),
// __pipeline_wait_prior(1), a barrier, the compute on buffer t & 1, and a
// closing barrier.  M, N and K must be multiples of 16.
//
// kpipe: REFUSE (already pipelined).  The loop already contains cp.async,
// commit and wait; it must be reported as such and left untouched.

#include <cuda_pipeline.h>

#define AP_TILE 16

__global__ void matmul_already_pipelined(const float *__restrict__ A,
                                         const float *__restrict__ B,
                                         float *__restrict__ C, int M, int N,
                                         int K)
{
    __shared__ float As[2][AP_TILE][AP_TILE];
    __shared__ float Bs[2][AP_TILE][AP_TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * AP_TILE + ty;
    const int col = blockIdx.x * AP_TILE + tx;
    const int ntiles = K / AP_TILE;
    float acc = 0.0f;

    if (ntiles > 0) {
        __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + tx],
                                sizeof(float));
        __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)ty * N + col],
                                sizeof(float));
    }
    __pipeline_commit();

    for (int t = 0; t < ntiles; ++t) {
        const int nxt = (t + 1) & 1;
        if (t + 1 < ntiles) {
            const int k1 = (t + 1) * AP_TILE;
            __pipeline_memcpy_async(&As[nxt][ty][tx],
                                    &A[(size_t)row * K + k1 + tx],
                                    sizeof(float));
            __pipeline_memcpy_async(&Bs[nxt][ty][tx],
                                    &B[(size_t)(k1 + ty) * N + col],
                                    sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();

        const int cur = t & 1;
#pragma unroll
        for (int kk = 0; kk < AP_TILE; ++kk)
            acc += As[cur][ty][kk] * Bs[cur][kk][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
