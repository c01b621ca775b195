// transpose_wide_tile.cu - out = transpose(in) for a rows x cols fp32
// matrix, each block moving a 128 x 96 tile through shared memory: the
// whole 48 KB a block may declare statically.  256 threads (32 x 8) read
// the tile row by row (coalesced), then write its columns as rows of out
// (coalesced too), 48 elements each.
//
// The write phase reads tile[tx + i][ty + j]: the 32 lanes of a warp read
// one column, rows 96 floats (384 bytes) apart, all in bank (ty + j) % 32:
// a 32-way shared-memory bank conflict on every read.  transpose_padded.cu
// fixes the same conflict with one float of padding per row, but here
// `float tile[128][97]` would take 49,664 bytes, over the 48 KB static
// limit: the kernel would no longer compile.  An XOR swizzle of the column
// index, tile[r][c ^ (r & 31)], puts the 32 rows' elements in 32 different
// banks at no cost in memory; `kpipe rewrite --pad-only` writes it (issue
// #20: "an XOR swizzle where padding cannot").
//
// kpipe: no K-loop, nothing to pipeline (refused: no candidate loop).
//
// Launch: 32x8 thread blocks, grid (cols / 96, rows / 128); rows must be a
// multiple of 128 and cols of 96.  in is rows x cols, out is cols x rows,
// both row-major.

#include <cuda_runtime.h>

#define TW_ROWS 128 /* rows of in per tile */
#define TW_COLS 96  /* columns of in per tile */

__global__ void transpose_wide_tile(const float *__restrict__ in, float *__restrict__ out,
                                    int rows, int cols)
{
    __shared__ float tile[TW_ROWS][TW_COLS];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TW_ROWS, col0 = blockIdx.x * TW_COLS;

    /* row r of the tile is row row0 + r of in: 32 consecutive floats per warp */
    for (int j = 0; j < TW_ROWS; j += 8)
        for (int i = 0; i < TW_COLS; i += 32)
            tile[ty + j][(tx + i) ^ ((ty + j) & 31)] = in[(size_t)(row0 + ty + j) * cols + col0 + tx + i];
    __syncthreads();

    /* column c of the tile is row col0 + c of out */
    for (int j = 0; j < TW_COLS; j += 8)
        for (int i = 0; i < TW_ROWS; i += 32)
            out[(size_t)(col0 + ty + j) * rows + row0 + tx + i] = tile[tx + i][(ty + j) ^ ((tx + i) & 31)];
}
