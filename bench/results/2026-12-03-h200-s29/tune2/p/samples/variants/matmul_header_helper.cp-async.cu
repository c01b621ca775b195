// matmul_header_helper.cu - fp32 C = A * B (row-major), a 64x64 block tile
// and K-tiles of 16, 256 threads of 4x4 outputs each, any M, N and K (the
// edges read as zero).  The copies are a template helper of a project
// header (tile_loaders.cuh), called with expressions (the block's corner
// of A and B, the rows and columns left) and with its SKEW template
// argument left to its default:
//   for (...) { tl_load_tile<float, BM, BK, 256>(As, A + ..., K, M - m0,
//               K - k0, tid); ...; __syncthreads(); COMPUTE;
//               __syncthreads(); }
//
// kpipe: PIPELINE.  The "inline" pass copies tl_load_tile's body from the
// header into the loop: src, rows_left and cols_left become locals
// initialised with the call's expressions, tile, ld and tid are replaced
// by the call's names, T, ROWS, COLS and NTHREADS by its template
// arguments and SKEW by its default.  The loop is then pipelined like a
// textbook one (cp.async: the guarded copy is a zero-filled cp.async; the
// copy loop's trip count depends on tid, so register staging does not
// apply).  The header is not edited.
#include "tile_loaders.cuh"
#include <cuda_pipeline.h>

template <int BM, int BN, int BK>
__global__ void matmul_header_helper(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][BM][BK];
    __shared__ float Bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    const int tr = tid / (BN / 4) * 4; // this thread's 4x4 outputs
    const int tc = tid % (BN / 4) * 4;
    float acc[4][4] = {};

    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            /* kpipe: tl_load_tile<float, BM, BK, 256> inlined here, so that its copies are pipelined with the loop */
            {
                const float *const src = A + (size_t)m0 * K + k0;
                const int rows_left = M - m0;
                const int cols_left = K - k0;
                for (int e = tid; e < BM * BK; e += 256) {
                    const int r = e / BK;
                    const int c = e % BK;
                    const bool kp_in_As = r < rows_left && c < cols_left;
                    const void *kp_src_As = kp_in_As ? (const void *)&src[r * K + c] : (const void *)src;
                    __pipeline_memcpy_async(&As[0][r][c], kp_src_As, 4, kp_in_As ? 0 : 4);
                }
            }
            /* kpipe: tl_load_tile<float, BK, BN, 256> inlined here, so that its copies are pipelined with the loop */
            {
                const float *const src = B + (size_t)k0 * N + n0;
                const int rows_left = K - k0;
                const int cols_left = N - n0;
                for (int e = tid; e < BK * BN; e += 256) {
                    const int r = e / BN;
                    const int c = e % BN;
                    const bool kp_in_Bs = r < rows_left && c < cols_left;
                    const void *kp_src_Bs = kp_in_Bs ? (const void *)&src[r * N + c] : (const void *)src;
                    __pipeline_memcpy_async(&Bs[0][r][c], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
                }
            }
        }
        __pipeline_commit();
        for (; k0 < K; k0 += BK) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + BK) < K) {
                /* kpipe: tl_load_tile<float, BM, BK, 256> inlined here, so that its copies are pipelined with the loop */
                {
                    const float *const src = A + (size_t)m0 * K + (k0 + BK);
                    const int rows_left = M - m0;
                    const int cols_left = K - (k0 + BK);
                    for (int e = tid; e < BM * BK; e += 256) {
                        const int r = e / BK;
                        const int c = e % BK;
                        const bool kp_in_As = r < rows_left && c < cols_left;
                        const void *kp_src_As = kp_in_As ? (const void *)&src[r * K + c] : (const void *)src;
                        __pipeline_memcpy_async(&As[kp_stage ^ 1][r][c], kp_src_As, 4, kp_in_As ? 0 : 4);
                    }
                }
                /* kpipe: tl_load_tile<float, BK, BN, 256> inlined here, so that its copies are pipelined with the loop */
                {
                    const float *const src = B + (size_t)(k0 + BK) * N + n0;
                    const int rows_left = K - (k0 + BK);
                    const int cols_left = N - n0;
                    for (int e = tid; e < BK * BN; e += 256) {
                        const int r = e / BN;
                        const int c = e % BN;
                        const bool kp_in_Bs = r < rows_left && c < cols_left;
                        const void *kp_src_Bs = kp_in_Bs ? (const void *)&src[r * N + c] : (const void *)src;
                        __pipeline_memcpy_async(&Bs[kp_stage ^ 1][r][c], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
                    }
                }
            }
            __pipeline_commit();

#pragma unroll
            for (int kk = 0; kk < BK; ++kk)
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        acc[i][j] += As[kp_stage][tr + i][kk] * Bs[kp_stage][kk][tc + j];
            kp_stage ^= 1;
        }
    }

    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            if (m0 + tr + i < M && n0 + tc + j < N)
                C[(size_t)(m0 + tr + i) * N + n0 + tc + j] = acc[i][j];
}

template __global__ void matmul_header_helper<64, 64, 16>(const float *__restrict__,
                                                          const float *__restrict__,
                                                          float *__restrict__, int, int, int);
