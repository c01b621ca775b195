// wmma_column_conflict without __launch_bounds__, launch or launch
// description: no block shape.  Expected: the two wmma fragment loads are
// still analysed (their banks follow the row stride), 8-way each.
// wmma_column_conflict.cu - C = A * B with fp16 inputs and fp32 accumulation
// on tensor cores through nvcuda::wmma, with shared tiles whose rows are
// exactly 64 halfs (128 bytes): unpadded.  A is MxK and B is KxN, both
// row-major half; C is MxN row-major float.  Block tile 64x64x64, 4 warps
// (128 threads) arranged 2x2, each warp owning a 32x32 piece of C (2x2
// fragments 16x16x16).
//
// A wmma::load_matrix_sync of a 16x16 half fragment reads it as ldmatrix
// does: 8 rows of 16 bytes per phase.  With 128-byte rows the 8 rows of a
// phase all start in the same 4 banks: an 8-way shared-memory bank
// conflict on every fragment load of As and Bs.  Rows of 72 halfs (144
// bytes) put the 8 rows in 8 different groups of 4 banks, and every
// fragment pointer stays 32-byte aligned because fragments start at rows
// that are multiples of 16 (16 x 144 = 72 x 32).  kpipe's --pad pass
// (issue #20) is meant to find that padding and move the leading
// dimensions, spelled as the bounds, with it.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += WC_BK)`; the tiles are
// copied with 16-byte vectors (a float4 reinterpretation of 8 halfs) inside
// constant-trip `#pragma unroll` loops (4 vectors of A and 4 of B per
// thread; 8 lanes write one 128-byte row: no conflict).  M and N must be
// multiples of 64, K a multiple of 64.
//
// kpipe: eligible (reference shape 3).  Pure 16-byte copies: cp.async 16B,
// or register staging with 8 float4 registers.  Double buffering takes the
// static shared memory from 16 KB to 32 KB (36 KB padded).

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int WC_BM = 64;
constexpr int WC_BN = 64;
constexpr int WC_BK = 64;
constexpr int WC_THREADS = 128;

__global__ void 
wmma_column_conflict(const half *__restrict__ A, const half *__restrict__ B,
                     float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) half As[WC_BM][WC_BK];
    __shared__ __align__(32) half Bs[WC_BK][WC_BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / 2; // warp row in the 2x2 grid of warps
    const int wn = warp % 2; // warp column
    const int bm = blockIdx.y * WC_BM;
    const int bn = blockIdx.x * WC_BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += WC_BK) {
#pragma unroll
        for (int i = 0; i < WC_BM * WC_BK / 8 / WC_THREADS; ++i) {
            const int v = tid + i * WC_THREADS;
            const int r = v / (WC_BK / 8);
            const int c = (v % (WC_BK / 8)) * 8;
            *reinterpret_cast<float4 *>(&As[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &A[(size_t)(bm + r) * K + k0 + c]);
        }
#pragma unroll
        for (int i = 0; i < WC_BK * WC_BN / 8 / WC_THREADS; ++i) {
            const int v = tid + i * WC_THREADS;
            const int r = v / (WC_BN / 8);
            const int c = (v % (WC_BN / 8)) * 8;
            *reinterpret_cast<float4 *>(&Bs[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &B[(size_t)(k0 + r) * N + bn + c]);
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < WC_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>
                fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>
                fb[2];
#pragma unroll
            for (int i = 0; i < 2; ++i)
                wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk],
                                       WC_BK);
#pragma unroll
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(fb[j], &Bs[kk][wn * 32 + j * 16],
                                       WC_BN);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    if (bm < M && bn < N) {
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j)
                wmma::store_matrix_sync(
                    &C[(size_t)(bm + wm * 32 + i * 16) * N + bn + wn * 32 +
                       j * 16],
                    acc[i][j], N, wmma::mem_row_major);
    }
}
