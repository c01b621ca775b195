// cpudiff bad case: a tile copy in a while loop of the load phase, run
// twice per tile.  Register staging gave it one register for both
// executions: the store after the math wrote the second row's value into
// both rows.
#include <cuda_runtime.h>
#define TILE 16
__global__ void while_copy(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    const int pair = blockIdx.y * TILE + ty / 2 * 2; // first of the two rows
    float acc = 0.0f;
    // kpipe: register staging, 2 buffers: requested with --variant register
    {
        int k0 = 0;
        int kp_stage = 0;
        float kp_reg0[1] = {};
        float kp_reg1[1] = {};
        if (k0 < K) {
            int i = 0;
            while (i < 2) {
                As[0][ty / 2 * 2 + i][tx] = A[(pair + i) * K + k0 + tx];
                i++;
            }
            Bs[0][ty][tx] = B[(k0 + ty) * N + col];
        }
        __syncthreads();
        for (; k0 < K; k0 += TILE) {
            const bool kp_has_next = (k0 + TILE) < K;
            if (kp_has_next) {
                int i = 0;
                while (i < 2) {
                    kp_reg0[0] = A[(pair + i) * K + (k0 + TILE) + tx];
                    i++;
                }
                kp_reg1[0] = B[((k0 + TILE) + ty) * N + col];
                __syncwarp();
            }
            for (int kk = 0; kk < TILE; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            {
                int i = 0;
                while (i < 2) {
                    As[kp_stage ^ 1][ty / 2 * 2 + i][tx] = kp_reg0[0];
                    i++;
                }
                Bs[kp_stage ^ 1][ty][tx] = kp_reg1[0];
            }
            __syncthreads();
            kp_stage ^= 1;
        }
    }
    C[row * N + col] = acc;
}
