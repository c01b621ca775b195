// cpudiff bad case: a tile copy in a while loop of the load phase, run
// twice per tile.  Register staging gave it one register for both
// executions: the store after the math wrote the second row's value into
// both rows.
#include <cuda_runtime.h>
#define TILE 16
__global__ void while_copy(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    const int pair = blockIdx.y * TILE + ty / 2 * 2; // first of the two rows
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int i = 0;
        while (i < 2) {
            As[ty / 2 * 2 + i][tx] = A[(pair + i) * K + k0 + tx];
            i++;
        }
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
