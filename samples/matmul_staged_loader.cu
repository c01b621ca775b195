// matmul_staged_loader.cu - C = alpha * A * B + beta * C (row-major) for
// any M, N and K, a 32x32 block of 32x32 threads, one output each, K-tiles
// of 32.  Both tiles are filled by a template helper of a project header
// (staged_loaders.cuh) whose copies go through a zero-initialised
// temporary set only inside the matrix:
//   for (size_t t{0U}; t < tiles; ++t) {
//       sl_load_guarded<T, BY, BK, NUM_THREADS>(A, lda, As, ...);
//       sl_load_guarded<T, BK, BX, NUM_THREADS>(B, ldb, Bs, ...);
//       __syncthreads(); COMPUTE; __syncthreads(); }
// where the helper's copy loop is
//   for (size_t i{0U}; i < (ROWS * COLS + NT - 1U) / NT; ++i) {
//       ...; T v{static_cast<T>(0)}; if (inside) { v = src[...]; }
//       tile[r][c] = v; }
// and NUM_THREADS is `constexpr size_t NUM_THREADS{BX * BY};`.
//
// kpipe: PIPELINE.  The "inline" pass copies the helper's body into the
// loop; in the inlined code the temporary is the canon pass's guarded
// temporary, which the inline pass's trial writes as the guarded copy
// `tile[r][c] = (inside) ? src[...] : static_cast<T>(0);` (note
// kpipe-inlined saying both).  The braced initialisers are values, so the
// copy loops have a compile-time trip count and register staging applies.
#include "staged_loaders.cuh"

template <typename T, size_t BX, size_t BY, size_t BK>
__global__ void matmul_staged_loader(size_t m, size_t n, size_t k, T alpha, T const *A,
                                     size_t lda, T const *B, size_t ldb, T beta, T *C, size_t ldc)
{
    constexpr size_t NUM_THREADS{BX * BY};
    size_t const tid{threadIdx.y * blockDim.x + threadIdx.x};
    size_t const row{blockIdx.y * BY + threadIdx.y};
    size_t const col{blockIdx.x * BX + threadIdx.x};

    __shared__ T As[BY][BK];
    __shared__ T Bs[BK][BX];

    size_t const tiles{(k + BK - 1U) / BK};
    T sum{static_cast<T>(0)};
    for (size_t t{0U}; t < tiles; ++t)
    {
        sl_load_guarded<T, BY, BK, NUM_THREADS>(A, lda, As, blockIdx.y * BY, t * BK, m, k, tid);
        sl_load_guarded<T, BK, BX, NUM_THREADS>(B, ldb, Bs, t * BK, blockIdx.x * BX, k, n, tid);
        __syncthreads();

#pragma unroll
        for (size_t kk{0U}; kk < BK; ++kk)
        {
            sum += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n)
    {
        C[row * ldc + col] = alpha * sum + beta * C[row * ldc + col];
    }
}

template __global__ void matmul_staged_loader<float, 32, 32, 32>(size_t, size_t, size_t, float,
                                                                 float const *, size_t,
                                                                 float const *, size_t, float,
                                                                 float *, size_t);
template __global__ void matmul_staged_loader<double, 32, 32, 32>(size_t, size_t, size_t, double,
                                                                  double const *, size_t,
                                                                  double const *, size_t, double,
                                                                  double *, size_t);
