// transpose_naive.cu - out = transpose(in) for a rows x cols fp32 matrix,
// straight from global memory: each thread moves four elements of a 32x32
// tile.  Reads are coalesced (a warp reads 32 consecutive floats of a row);
// writes are not: a warp writes 32 floats a whole row of `out` apart, so
// each store touches 32 memory sectors.
//
// The first step of the transpose series of issue #20 (memory order):
// transpose_naive -> transpose_shared -> transpose_padded; the bench
// bench/transpose.sh compares them with a copy of the same bytes.
//
// kpipe: no K-loop, nothing to pipeline (refused: no candidate loop).
//
// Launch: 32x8 thread blocks, grid (cols / 32, rows / 32); rows and cols
// must be multiples of 32.  in is rows x cols, out is cols x rows, both
// row-major.

#include <cuda_runtime.h>

__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out,
                             int rows, int cols)
{
    const int x = blockIdx.x * 32 + threadIdx.x; /* column of in */
    const int y0 = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(size_t)x * rows + y0 + j] = in[(size_t)(y0 + j) * cols + x];
}
