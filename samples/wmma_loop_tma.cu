// wmma_loop_tma.cu - samples/wmma_fp16_64x64x32.cu (fp16 wmma, fp32
// accumulation, 64x64x32 block tile, 4 warps, rows padded by 8 halfs) with
// the host function a library exports that launches it.  C = A * B, A MxK
// and B KxN row-major half, C MxN row-major float; M and N multiples of 64,
// K a multiple of 32.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`; each tile is filled
// by a copy loop strided by the block (`v = tid + i * 128`, 16-byte
// vectors, 2 trips), which over the 128 threads writes every element of
// the tile's first 32 (As) or 64 (Bs) columns once, from one 64x32 (32x64)
// box of A (B).
//
// kpipe: eligible for every variant.  The sample of the tensor-map form
// for copy loops (--variant tma, sm_90+): kpipe proves, element by element
// over the block, that each copy loop fills one box (src/analysis/
// copy_box.c) and replaces it by one tensor copy per tile; the box is as
// wide as the padded row (the padding columns, which nothing else writes,
// get the next global columns, or zeros past the end of the row).

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int WM_BM = 64;
constexpr int WM_BN = 64;
constexpr int WM_BK = 32;
constexpr int WM_PAD = 8;
constexpr int WM_THREADS = 128;

__global__ void __launch_bounds__(WM_THREADS)
wmma_loop_tma(const half *__restrict__ A, const half *__restrict__ B,
                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) half As[WM_BM][WM_BK + WM_PAD];
    __shared__ __align__(32) half Bs[WM_BK][WM_BN + WM_PAD];

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / 2; // warp row in the 2x2 grid of warps
    const int wn = warp % 2; // warp column
    const int bm = blockIdx.y * WM_BM;
    const int bn = blockIdx.x * WM_BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += WM_BK) {
#pragma unroll
        for (int i = 0; i < WM_BM * WM_BK / 8 / WM_THREADS; ++i) {
            const int v = tid + i * WM_THREADS;
            const int r = v / (WM_BK / 8);
            const int c = (v % (WM_BK / 8)) * 8;
            *reinterpret_cast<float4 *>(&As[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &A[(size_t)(bm + r) * K + k0 + c]);
        }
#pragma unroll
        for (int i = 0; i < WM_BK * WM_BN / 8 / WM_THREADS; ++i) {
            const int v = tid + i * WM_THREADS;
            const int r = v / (WM_BN / 8);
            const int c = (v % (WM_BN / 8)) * 8;
            *reinterpret_cast<float4 *>(&Bs[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &B[(size_t)(k0 + r) * N + bn + c]);
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < WM_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>
                fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>
                fb[2];
#pragma unroll
            for (int i = 0; i < 2; ++i)
                wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk],
                                       WM_BK + WM_PAD);
#pragma unroll
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(fb[j], &Bs[kk][wn * 32 + j * 16],
                                       WM_BN + WM_PAD);
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

// What the library exports: C = A * B on `stream`.
cudaError_t hgemm_loop_tma(const half *A, const half *B, float *C, int M, int N, int K,
                           cudaStream_t stream)
{
    wmma_loop_tma<<<dim3(N / WM_BN, M / WM_BM), WM_THREADS, 0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}
