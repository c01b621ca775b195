// staged_loaders.cuh - load helpers shared by two samples
// (matmul_staged_loader.cu, matmul_vec_loader.cu), written the way some
// GEMM tutorials write theirs: size_t counters with braced initialisers,
// copy loops of (ROWS * COLS + NT - 1) / NT rounds over a flattened thread
// index, a value that starts at zero and is loaded only inside the
// matrix, and compile-time constants of the helper bounding the copy loop.
// kpipe never edits this file: its rewrite copies a helper's body into the
// kernel that calls it.
#ifndef KP_SAMPLE_STAGED_LOADERS_CUH
#define KP_SAMPLE_STAGED_LOADERS_CUH

#include <cstddef>

// Copies the ROWS x COLS block at (row0, col0) of the rows x cols
// row-major matrix src (leading dimension ld) into tile, NT threads of
// the block taking every NT-th element from tid on; an element outside
// the matrix reads as zero.
template <typename T, size_t ROWS, size_t COLS, size_t NT>
__device__ void sl_load_guarded(T const *src, size_t ld, T tile[ROWS][COLS], size_t row0,
                                size_t col0, size_t rows, size_t cols, size_t tid)
{
    static_assert(ROWS * COLS % NT == 0U, "whole copy rounds");
#pragma unroll
    for (size_t i{0U}; i < (ROWS * COLS + NT - 1U) / NT; ++i)
    {
        size_t const r{(tid + i * NT) / COLS};
        size_t const c{(tid + i * NT) % COLS};
        // zero unless the element lies inside the matrix
        T v{static_cast<T>(0)};
        if (row0 + r < rows && col0 + c < cols)
        {
            v = src[(row0 + r) * ld + col0 + c];
        }
        tile[r][c] = v;
    }
}

// Copies the ROWS x COLS block at (row0, col0) of src into tile as float4
// vectors, NT threads taking every NT-th vector from tid on.  No bounds:
// the caller's matrices have rows and columns in whole blocks.
template <size_t ROWS, size_t COLS, size_t NT>
__device__ void sl_load_vec4(float const *src, size_t ld, float tile[ROWS][COLS], size_t row0,
                             size_t col0, size_t tid)
{
    constexpr size_t UNITS{sizeof(float4) / sizeof(float)};
    constexpr size_t VEC_COLS{COLS / UNITS};
    static_assert(COLS % UNITS == 0U, "whole vectors per row");
    static_assert(ROWS * VEC_COLS % NT == 0U, "whole copy rounds");
#pragma unroll
    for (size_t i{0U}; i < (ROWS * VEC_COLS + NT - 1U) / NT; ++i)
    {
        size_t const r{(tid + i * NT) / VEC_COLS};
        size_t const c{(tid + i * NT) % VEC_COLS * UNITS};
        *reinterpret_cast<float4 *>(&tile[r][c]) =
            *reinterpret_cast<float4 const *>(&src[(row0 + r) * ld + col0 + c]);
    }
}

#endif
