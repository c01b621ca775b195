// hgemm_wmma_template.cu - C = A * B in fp16 on tensor cores through
// nvcuda::wmma, written the way PyTorch-extension tutorials write it: a
// kernel template whose tile sizes are template parameters, 16-byte copies
// through a reinterpret_cast macro, and a host launcher that spells the
// block size as a constexpr and a `dim3 block(THREADS)` variable.  A is MxK,
// B is KxN, C is MxN, all row-major half; the accumulators are half too.
//
// Block tile 128x128x16 with 8 warps (256 threads) arranged 4x2; each warp
// owns 32x64 of C (2x4 fragments of 16x16x16).  The shared tiles are
// unpadded: a row of sa is 16 halfs (32 bytes) and a row of sb 128 halfs
// (256 bytes).  A wmma::load_matrix_sync reads a 16x16 half fragment as
// ldmatrix does, 8 rows of 16 bytes per phase: the 8 rows of sa fall on 4
// groups of banks (a 2-way conflict) and the 8 rows of sb on one group (an
// 8-way conflict).  Padding the rows by 8 halfs (16 bytes) removes both
// and keeps every fragment pointer 32-byte aligned.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`: one 16-byte vector of
// A and one of B per thread, a barrier, the fragment loads and the mma, a
// barrier.  M and N must be multiples of 128, K a multiple of 16.
//
// kpipe: eligible.  Pure 16-byte copies: cp.async 16B, or register staging
// with 2 float4 registers.  The bank analysis needs the block shape from
// the launcher (256 threads) and the instantiation's template arguments.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define HW_VEC16(v) (reinterpret_cast<float4 *>(&(v))[0])

template <int FM = 16, int FN = 16, int FK = 16, int WARPS_M = 4, int WARPS_N = 2,
          int FRAGS_M = 2, int FRAGS_N = 4>
__global__ void hgemm_wmma_template(half *A, half *B, half *C, int M, int N, int K)
{
    constexpr int BM = FM * WARPS_M * FRAGS_M; // 128
    constexpr int BN = FN * WARPS_N * FRAGS_N; // 128
    constexpr int BK = FK;                     // 16
    __shared__ half sa[BM][BK], sb[BK][BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / WARPS_N; // 0..3
    const int wn = warp % WARPS_N; // 0..1
    // sa: 128 rows of 16 halfs, two 8-half vectors per row
    const int a_row = tid / 2, a_col = (tid % 2) * 8;
    // sb: 16 rows of 128 halfs, sixteen 8-half vectors per row
    const int b_row = tid / 16, b_col = (tid % 16) * 8;
    const int ga_row = blockIdx.y * BM + a_row;
    const int gb_col = blockIdx.x * BN + b_col;

    wmma::fragment<wmma::accumulator, FM, FN, FK, half> acc[FRAGS_M][FRAGS_N];
#pragma unroll
    for (int i = 0; i < FRAGS_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAGS_N; ++j)
            wmma::fill_fragment(acc[i][j], 0.0);

    for (int k0 = 0; k0 < K; k0 += BK) {
        HW_VEC16(sa[a_row][a_col]) = HW_VEC16(A[ga_row * K + k0 + a_col]);
        HW_VEC16(sb[b_row][b_col]) = HW_VEC16(B[(k0 + b_row) * N + gb_col]);
        __syncthreads();

        wmma::fragment<wmma::matrix_a, FM, FN, FK, half, wmma::row_major> fa[FRAGS_M];
        wmma::fragment<wmma::matrix_b, FM, FN, FK, half, wmma::row_major> fb[FRAGS_N];
#pragma unroll
        for (int i = 0; i < FRAGS_M; ++i)
            wmma::load_matrix_sync(fa[i], &sa[wm * FM * FRAGS_M + i * FM][0], BK);
#pragma unroll
        for (int j = 0; j < FRAGS_N; ++j)
            wmma::load_matrix_sync(fb[j], &sb[0][wn * FN * FRAGS_N + j * FN], BN);
#pragma unroll
        for (int i = 0; i < FRAGS_M; ++i)
#pragma unroll
            for (int j = 0; j < FRAGS_N; ++j)
                wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < FRAGS_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAGS_N; ++j) {
            const int row = blockIdx.y * BM + wm * FM * FRAGS_M + i * FM;
            const int col = blockIdx.x * BN + wn * FN * FRAGS_N + j * FN;
            wmma::store_matrix_sync(C + row * N + col, acc[i][j], N, wmma::mem_row_major);
        }
}

void hgemm_wmma_template_launch(half *A, half *B, half *C, int M, int N, int K)
{
    constexpr int FM = 16, FN = 16, FK = 16;
    constexpr int WARPS_M = 4, WARPS_N = 2, FRAGS_M = 2, FRAGS_N = 4;
    constexpr int THREADS = WARPS_M * WARPS_N * 32; // 256
    dim3 block(THREADS);
    dim3 grid(N / (FN * WARPS_N * FRAGS_N), M / (FM * WARPS_M * FRAGS_M));
    hgemm_wmma_template<FM, FN, FK, WARPS_M, WARPS_N, FRAGS_M, FRAGS_N>
        <<<grid, block>>>(A, B, C, M, N, K);
}
