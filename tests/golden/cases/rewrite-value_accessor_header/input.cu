// A K-loop that reads its operands through a view declared in a project
// header (view.cuh): the accessors are expanded at the calls, in this file.
#include "view.cuh"

#define TILE 16

__global__ void view_from_header(View a, View b, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < a.cols(); k0 += TILE) {
        As[ty][tx] = a.at(row, k0 + tx);
        Bs[ty][tx] = b.at(k0 + ty, col);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
