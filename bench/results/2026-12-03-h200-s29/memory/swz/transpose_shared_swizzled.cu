// transpose_shared_swizzled.cu - out = transpose(in) for a rows x cols fp32 matrix
// through a 32x32 shared tile, so that both the global reads and the
// global writes are coalesced.  The tile is `float tile[32][32]`: the
// write phase reads it by column (tile[threadIdx.x][...]), 32 threads of a
// warp 32 floats apart, all in the same shared-memory bank: a 32-way bank
// conflict on every such load.  transpose_padded.cu fixes that.
//
// Step 2 of the transpose series of issue #20 (see transpose_naive.cu).
//
// kpipe: no K-loop, nothing to pipeline (refused: no candidate loop).
//
// Launch: 32x8 thread blocks, grid (cols / 32, rows / 32); rows and cols
// must be multiples of 32.  in is rows x cols, out is cols x rows, both
// row-major.

#include <cuda_runtime.h>

__global__ void transpose_shared_swizzled(const float *__restrict__ in, float *__restrict__ out,
                             int rows, int cols)
{
    __shared__ float tile[32][32];

    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x ^ ((threadIdx.y + j) & 31)] = in[(size_t)(y + j) * cols + x];
    __syncthreads();

    /* the transposed block: rows of out are columns of the tile */
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][(threadIdx.y + j) ^ (threadIdx.x & 31)];
}
