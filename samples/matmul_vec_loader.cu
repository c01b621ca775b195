// matmul_vec_loader.cu - fp32 C = A * B (row-major), M and N multiples of
// 64, K a multiple of 16: a 64x64 block tile, K-tiles of 16, 256 threads
// of 4x4 outputs each.  Both tiles are copied as float4 vectors by a
// template helper of a project header (staged_loaders.cuh) whose copy
// loop is bounded by compile-time constants of the helper:
//   constexpr size_t UNITS{sizeof(float4) / sizeof(float)};
//   constexpr size_t VEC_COLS{COLS / UNITS};
//   for (size_t i{0U}; i < (ROWS * VEC_COLS + NT - 1U) / NT; ++i) ...
//
// kpipe: PIPELINE.  The "inline" pass copies the helper's body into the
// loop, its constants with it (declared inside the K-loop now).  A
// constant declared inside the loop (constexpr, or const with a value the
// compiler folds) is the same in every iteration, so the copy loop it
// bounds writes the same elements of every tile and the loop is
// pipelined.
#include "staged_loaders.cuh"

__global__ void matmul_vec_loader(float const *A, float const *B, float *C, size_t m, size_t n,
                                  size_t k)
{
    constexpr size_t NT{256U};
    __shared__ float As[64][16];
    __shared__ float Bs[16][64];

    size_t const tid{threadIdx.x};
    size_t const tr{tid / 16U * 4U}; // this thread's 4x4 outputs
    size_t const tc{tid % 16U * 4U};
    float acc[4][4] = {};

    for (size_t k0{0U}; k0 < k; k0 += 16U)
    {
        sl_load_vec4<64, 16, NT>(A, k, As, blockIdx.y * 64U, k0, tid);
        sl_load_vec4<16, 64, NT>(B, n, Bs, k0, blockIdx.x * 64U, tid);
        __syncthreads();

#pragma unroll
        for (size_t kk{0U}; kk < 16U; ++kk)
#pragma unroll
            for (size_t i{0U}; i < 4U; ++i)
#pragma unroll
                for (size_t j{0U}; j < 4U; ++j)
                    acc[i][j] += As[tr + i][kk] * Bs[kk][tc + j];
        __syncthreads();
    }

    for (size_t i{0U}; i < 4U; ++i)
        for (size_t j{0U}; j < 4U; ++j)
            C[(blockIdx.y * 64U + tr + i) * n + blockIdx.x * 64U + tc + j] = acc[i][j];
}
