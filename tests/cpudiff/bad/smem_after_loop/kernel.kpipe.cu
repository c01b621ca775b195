#include <cuda_pipeline.h>
// kernel.cu - a weighted tiled product followed by a per-row correction
// (written for the cpudiff tests).  The compute phase of the K-loop reads a
// small shared weight vector sc[] that is not a tile; after the loop the
// same shared array is reused for per-row offsets, so the code after the
// loop writes sc[] while, without a barrier after the loop, slower threads
// may still be reading the weights.
//   C[r][c] = sum_k A[r][k] * B[k][c] * w[k % 16] + bias[r]
// M, N, K multiples of 16.
#define TS 16

__global__ void weighted_matmul(const float *__restrict__ A, const float *__restrict__ B,
                                const float *__restrict__ w, const float *__restrict__ bias,
                                float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TS][TS];
    __shared__ float Bs[2][TS][TS];
    __shared__ float sc[TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;

    if (ty == 0)
        sc[tx] = w[tx];
    __syncthreads();

    float acc = 0.0f;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            __pipeline_memcpy_async(&As[0][ty][tx], &A[(size_t)row * K + k0 + tx], 4);
            __pipeline_memcpy_async(&Bs[0][ty][tx], &B[(size_t)(k0 + ty) * N + col], 4);
        }
        __pipeline_commit();
        for (; k0 < K; k0 += TS) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + TS) < K) {
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], &A[(size_t)row * K + (k0 + TS) + tx], 4);
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], &B[(size_t)((k0 + TS) + ty) * N + col], 4);
            }
            __pipeline_commit();
            for (int kk = 0; kk < TS; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx] * sc[kk];
            kp_stage ^= 1;
        }
    }

    // reuse sc for the row offsets of this block
    if (tx == 0)
        sc[ty] = bias[row];
    __syncthreads();
    C[(size_t)row * N + col] = acc + sc[ty];
}
