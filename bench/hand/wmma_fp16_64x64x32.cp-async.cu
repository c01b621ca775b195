// wmma_fp16_64x64x32.cp-async.cu - hand-pipelined reference for
// samples/wmma_fp16_64x64x32.cu (same kernel name, signature and launch).
// Two buffers of the padded As/Bs tiles (19 KB of static shared memory),
// filled with 16-byte cp.async copies (2 of A and 2 of B per thread per
// tile); one barrier per iteration; the next tile is requested before the
// current one goes through the tensor cores.  Same mma order: bit-identical.

#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

using namespace nvcuda;

constexpr int WM_BM = 64;
constexpr int WM_BN = 64;
constexpr int WM_BK = 32;
constexpr int WM_PAD = 8;
constexpr int WM_THREADS = 128;

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

    // Requests tile k0 into buffer buf: 16-byte copies, 8 halfs each.
    auto request = [&](int buf, int k0) {
#pragma unroll
        for (int i = 0; i < WM_BM * WM_BK / 8 / WM_THREADS; ++i) {
            const int v = tid + i * WM_THREADS;
            const int r = v / (WM_BK / 8);
            const int c = (v % (WM_BK / 8)) * 8;
            __pipeline_memcpy_async(&As[buf][r][c],
                                    &A[(size_t)(bm + r) * K + k0 + c],
                                    sizeof(float4));
        }
#pragma unroll
        for (int i = 0; i < WM_BK * WM_BN / 8 / WM_THREADS; ++i) {
            const int v = tid + i * WM_THREADS;
            const int r = v / (WM_BN / 8);
            const int c = (v % (WM_BN / 8)) * 8;
            __pipeline_memcpy_async(&Bs[buf][r][c],
                                    &B[(size_t)(k0 + r) * N + bn + c],
                                    sizeof(float4));
        }
    };

    if (0 < K)
        request(0, 0);
    __pipeline_commit();

    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += WM_BK) {
        __pipeline_wait_prior(0);
        __syncthreads();
        if (k0 + WM_BK < K)
            request(cur ^ 1, k0 + WM_BK);
        __pipeline_commit();

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
