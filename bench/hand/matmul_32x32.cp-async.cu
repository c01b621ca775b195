// matmul_32x32.cp-async.cu - hand-pipelined reference for
// samples/matmul_32x32.cu (same kernel name, signature and launch): two
// shared buffers filled with cp.async (__pipeline_memcpy_async, 4 bytes per
// thread per tile), one barrier per iteration, the next tile requested before
// the current one is multiplied.  Same arithmetic order as the original, so
// the results are bit-identical.
//
// Iteration i: wait for this thread's copies of tile i, barrier (tile i is
// visible to all and everyone has finished reading buffer cur^1 in iteration
// i-1), request tile i+1 into cur^1 if it exists, commit (a possibly empty
// group, so the wait counts stay exact), compute tile i from buffer cur.

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

__global__ void matmul_32x32(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][32][32];
    __shared__ float Bs[2][32][32];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty;
    const int col = blockIdx.x * 32 + tx;
    float acc = 0.0f;

    if (0 < K) {
        __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + tx],
                                sizeof(float));
        __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)ty * N + col],
                                sizeof(float));
    }
    __pipeline_commit();

    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += 32) {
        __pipeline_wait_prior(0);
        __syncthreads();

        const int k1 = k0 + 32;
        if (k1 < K) {
            __pipeline_memcpy_async(&As[cur ^ 1][ty][tx],
                                    &A[(size_t)row * K + k1 + tx],
                                    sizeof(float));
            __pipeline_memcpy_async(&Bs[cur ^ 1][ty][tx],
                                    &B[(size_t)(k1 + ty) * N + col],
                                    sizeof(float));
        }
        __pipeline_commit();

#pragma unroll
        for (int kk = 0; kk < 32; ++kk)
            acc += As[cur][ty][kk] * Bs[cur][kk][tx];
        cur ^= 1;
    }

    if (row < M)
        C[(size_t)row * N + col] = acc;
}
