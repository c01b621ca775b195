// transpose_shared.cu - transpose_shared.cu with the tile padded to
// `float tile[32][33]`: one unused float per row shifts each row by one
// bank, so the column read of the write phase (32 threads, one per row)
// hits 32 different banks and the 32-way conflict is gone.  Global
// accesses are the same coalesced ones as transpose_shared.
//
// Step 3 of the transpose series of issue #20 (see transpose_naive.cu).
//
// kpipe: no K-loop, nothing to pipeline (refused: no candidate loop).
//
// Launch: 32x8 thread blocks, grid (cols / 32, rows / 32); rows and cols
// must be multiples of 32.  in is rows x cols, out is cols x rows, both
// row-major.

#include <cuda_runtime.h>

__global__ void transpose_shared(const float *__restrict__ in, float *__restrict__ out,
                             int rows, int cols)
{
    __shared__ float tile[32][33];

    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();

    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
