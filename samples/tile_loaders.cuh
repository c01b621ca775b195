// tile_loaders.cuh - load helpers shared by two samples
// (matmul_header_helper.cu, matmul_vec_helpers.cu), kept in a project
// header the way tiled GEMM projects factor their global-to-shared copies
// out of the kernels.  kpipe never edits this file: its rewrite copies a
// helper's body into the kernel that calls it.
#ifndef KP_SAMPLE_TILE_LOADERS_CUH
#define KP_SAMPLE_TILE_LOADERS_CUH

// the value an element past the matrix's edge reads as
#define TL_ZERO 0.0f

// Copies the ROWS x COLS block of a row-major matrix whose top-left
// element is src[0] (leading dimension ld) into tile, the NTHREADS threads
// of a block taking every NTHREADS-th element from tid on; an element at
// or past (rows_left, cols_left) reads as TL_ZERO.  SKEW pads the tile's
// rows; callers that do not pad leave it to its default.
template <typename T, int ROWS, int COLS, int NTHREADS, int SKEW = 0>
__device__ void tl_load_tile(T tile[ROWS][COLS + SKEW], const T *src, int ld, int rows_left,
                             int cols_left, int tid)
{
    for (int e = tid; e < ROWS * COLS; e += NTHREADS) {
        const int r = e / COLS;
        const int c = e % COLS;
        tile[r][c] = r < rows_left && c < cols_left ? src[r * ld + c] : static_cast<T>(TL_ZERO);
    }
}

// Four floats at p (16-byte aligned) from global memory, and into shared
// memory.
__device__ inline float4 tl_ld4(const float *p) { return *reinterpret_cast<const float4 *>(p); }
__device__ inline void tl_st4(float *p, float4 v) { *reinterpret_cast<float4 *>(p) = v; }

#endif
