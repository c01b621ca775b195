// cpudiff bad case: a block of tile copies under a condition on the loop
// counter, with no else.  Where it fails (the last, partial K tile) the
// original keeps the previous tile's elements; the rewrite kpipe emitted
// kept those of two tiles back (or poison in the buffer never filled).
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#define TILE 16
__global__ void guard_block(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N, int K)
{
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            if (k0 + tx < K && k0 + ty < K) {
                __pipeline_memcpy_async(&As[0][ty][tx], &A[row * K + k0 + tx], 4);
                __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(k0 + ty) * N + col], 4);
            }
        }
        __pipeline_commit();
        for (; k0 < K; k0 += TILE) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + TILE) < K) {
                if ((k0 + TILE) + tx < K && (k0 + TILE) + ty < K) {
                    __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &A[row * K + (k0 + TILE) + tx], 4);
                    __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], &B[((k0 + TILE) + ty) * N + col], 4);
                }
            }
            __pipeline_commit();
            for (int kk = 0; kk < TILE; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage ^= 1;
        }
    }
    C[row * N + col] = acc;
}
