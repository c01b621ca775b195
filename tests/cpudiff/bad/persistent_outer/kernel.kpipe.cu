#include <cuda_pipeline.h>
// kernel.cu - a persistent-block tiled matrix product (written for the
// cpudiff tests): each block walks the 16x16 output tiles
// tile = blockIdx.x, blockIdx.x + gridDim.x, ... and runs a full K-loop for
// each, so the K-loop sits inside an outer loop whose next iteration loads
// the shared tiles again.  C (MxN) = A (MxK) * B (KxN), all row-major,
// M, N, K multiples of 16.
#define TS 16

__global__ void persistent_matmul(const float *__restrict__ A, const float *__restrict__ B,
                                  float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TS][TS];
    __shared__ float Bs[2][TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tilesN = N / TS;
    const int numTiles = (M / TS) * tilesN;

    for (int tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
        const int row = (tile / tilesN) * TS + ty;
        const int col = (tile % tilesN) * TS + tx;
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
                    acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
                kp_stage ^= 1;
            }
        }
        C[(size_t)row * N + col] = acc;
    }
}
