// wmma_fp16_64x64x32.register.cu - hand-pipelined reference for
// samples/wmma_fp16_64x64x32.cu (same kernel name, signature and launch).
// Register staging: the next tile's four 16-byte vectors per thread (2 of A,
// 2 of B) are loaded into float4 registers before the current tile goes
// through the tensor cores and stored into the other buffer after it; one
// barrier per iteration.  Bit-identical.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int WM_BM = 64;
constexpr int WM_BN = 64;
constexpr int WM_BK = 32;
constexpr int WM_PAD = 8;
constexpr int WM_THREADS = 128;
constexpr int VA = WM_BM * WM_BK / 8 / WM_THREADS; // 2 vectors of A
constexpr int VB = WM_BK * WM_BN / 8 / WM_THREADS; // 2 vectors of B

__global__ void __launch_bounds__(WM_THREADS)
wmma_fp16_64x64x32(const half *__restrict__ A, const half *__restrict__ B,
                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) half As[2][WM_BM][WM_BK + WM_PAD];
    __shared__ __align__(32) half Bs[2][WM_BK][WM_BN + WM_PAD];

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / 2;
    const int wn = warp % 2;
    const int bm = blockIdx.y * WM_BM;
    const int bn = blockIdx.x * WM_BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    float4 ra[VA], rb[VB];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int i = 0; i < VA; ++i) {
            const int v = tid + i * WM_THREADS;
            const int r = v / (WM_BK / 8);
            const int c = (v % (WM_BK / 8)) * 8;
            ra[i] = *reinterpret_cast<const float4 *>(
                &A[(size_t)(bm + r) * K + k0 + c]);
        }
#pragma unroll
        for (int i = 0; i < VB; ++i) {
            const int v = tid + i * WM_THREADS;
            const int r = v / (WM_BN / 8);
            const int c = (v % (WM_BN / 8)) * 8;
            rb[i] = *reinterpret_cast<const float4 *>(
                &B[(size_t)(k0 + r) * N + bn + c]);
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int i = 0; i < VA; ++i) {
            const int v = tid + i * WM_THREADS;
            *reinterpret_cast<float4 *>(
                &As[buf][v / (WM_BK / 8)][(v % (WM_BK / 8)) * 8]) = ra[i];
        }
#pragma unroll
        for (int i = 0; i < VB; ++i) {
            const int v = tid + i * WM_THREADS;
            *reinterpret_cast<float4 *>(
                &Bs[buf][v / (WM_BN / 8)][(v % (WM_BN / 8)) * 8]) = rb[i];
        }
    };

    if (0 < K) {
        fetch(0);
        stash(0);
    }
    __syncthreads();

    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += WM_BK) {
        const bool has_next = k0 + WM_BK < K;
        if (has_next)
            fetch(k0 + WM_BK);

#pragma unroll
        for (int kk = 0; kk < WM_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>
                fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>
                fb[2];
#pragma unroll
            for (int i = 0; i < 2; ++i)
                wmma::load_matrix_sync(fa[i], &As[cur][wm * 32 + i * 16][kk],
                                       WM_BK + WM_PAD);
#pragma unroll
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(fb[j], &Bs[cur][kk][wn * 32 + j * 16],
                                       WM_BN + WM_PAD);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }

        if (has_next)
            stash(cur ^ 1);
        __syncthreads();
        cur ^= 1;
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
