// matmul_guard_temp.cu - C = A * B (row-major) for any M, N and K, with
// 32x16 and 16x32 shared tiles, a 16x16 thread block and a 2x2 block of
// outputs per thread.  The tiles are filled by copy loops over a flattened
// thread index, and each copy goes through a temporary that starts at zero
// and is set only when the element lies inside the matrix, the idiom of
// several public GEMM tutorials:
//
//     T v{static_cast<T>(0)};
//     if (gr < M && gc < K) {
//         v = A[(size_t)gr * K + gc];
//     }
//     As[r][c] = v;
//
// (the B copy writes it `T w = T(0); if (...) w = B[...];`).  The analysis
// does not read that as a copy: the stored value is a register set under a
// condition, not a load.
//
// kpipe: PIPELINE.  The "canon" pass writes each such copy as the guarded
// copy `As[r][c] = (gr < M && gc < K) ? A[...] : static_cast<T>(0);`, which
// it is, element for element; the pipeline pass then pipelines the loop
// (register staging, or cp.async with zero-fill).
#include <cuda_pipeline.h>

template <typename T, int BM, int BN, int BK, int NT>
__global__ void matmul_guard_temp(const T *__restrict__ A, const T *__restrict__ B,
                                  T *__restrict__ C, int M, int N, int K)
{
    __shared__ T As[3][BM][BK];
    __shared__ T Bs[3][BK][BN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * 16 + tx;
    T acc[2][2] = {};

    // kpipe: cp.async, 3 stages: requested with --variant cp-async
    {
        int kt = 0;
        int kp_stage = 0;
        if (kt < (K + BK - 1) / BK) {
            // A: BM x BK elements, NT at a time
#pragma unroll
            for (int i = 0; i < BM * BK / NT; ++i) {
                const int idx = tid + i * NT;
                const int r = idx / BK, c = idx % BK;
                const int gr = blockIdx.y * BM + r, gc = kt * BK + c;
                static_assert(BM * BK % NT == 0, "whole copy rounds");
                const bool kp_in_As = (gr < M && gc < K);
                const void *kp_src_As = kp_in_As ? (const void *)&A[(size_t)gr * K + gc]
                                                 : (const void *)A;
                __pipeline_memcpy_async(&As[0][r][c], kp_src_As, 4, kp_in_As ? 0 : 4);
            }
            // B: BK x BN elements
#pragma unroll
            for (int i = 0; i < BK * BN / NT; ++i) {
                const int idx = tid + i * NT;
                const int r = idx / BN, c = idx % BN;
                const int gr = kt * BK + r, gc = blockIdx.x * BN + c;
                const bool kp_in_Bs = (gr < K && gc < N);
                const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)gr * N + gc]
                                                 : (const void *)B;
                __pipeline_memcpy_async(&Bs[0][r][c], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
            }
        }
        __pipeline_commit();
        if ((kt + 1) < (K + BK - 1) / BK) {
#pragma unroll
            for (int i = 0; i < BM * BK / NT; ++i) {
                const int idx = tid + i * NT;
                const int r = idx / BK, c = idx % BK;
                const int gr = blockIdx.y * BM + r, gc = (kt + 1) * BK + c;
                static_assert(BM * BK % NT == 0, "whole copy rounds");
                const bool kp_in_As = (gr < M && gc < K);
                const void *kp_src_As = kp_in_As ? (const void *)&A[(size_t)gr * K + gc]
                                                 : (const void *)A;
                __pipeline_memcpy_async(&As[1][r][c], kp_src_As, 4, kp_in_As ? 0 : 4);
            }
#pragma unroll
            for (int i = 0; i < BK * BN / NT; ++i) {
                const int idx = tid + i * NT;
                const int r = idx / BN, c = idx % BN;
                const int gr = (kt + 1) * BK + r, gc = blockIdx.x * BN + c;
                const bool kp_in_Bs = (gr < K && gc < N);
                const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)gr * N + gc]
                                                 : (const void *)B;
                __pipeline_memcpy_async(&Bs[1][r][c], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
            }
        }
        __pipeline_commit();
        for (; kt < (K + BK - 1) / BK; ++kt) {
            __pipeline_wait_prior(1);
            __syncthreads();
            if ((kt + 2) < (K + BK - 1) / BK) {
                // A: BM x BK elements, NT at a time
#pragma unroll
                for (int i = 0; i < BM * BK / NT; ++i) {
                    const int idx = tid + i * NT;
                    const int r = idx / BK, c = idx % BK;
                    const int gr = blockIdx.y * BM + r, gc = (kt + 2) * BK + c;
                    static_assert(BM * BK % NT == 0, "whole copy rounds");
                    const bool kp_in_As = (gr < M && gc < K);
                    const void *kp_src_As = kp_in_As ? (const void *)&A[(size_t)gr * K + gc]
                                                     : (const void *)A;
                    __pipeline_memcpy_async(&As[(kp_stage + 2) % 3][r][c], kp_src_As, 4, kp_in_As ? 0 : 4);
                }
                // B: BK x BN elements
#pragma unroll
                for (int i = 0; i < BK * BN / NT; ++i) {
                    const int idx = tid + i * NT;
                    const int r = idx / BN, c = idx % BN;
                    const int gr = (kt + 2) * BK + r, gc = blockIdx.x * BN + c;
                    const bool kp_in_Bs = (gr < K && gc < N);
                    const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)gr * N + gc]
                                                     : (const void *)B;
                    __pipeline_memcpy_async(&Bs[(kp_stage + 2) % 3][r][c], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
                }
            }
            __pipeline_commit();

#pragma unroll
            for (int kk = 0; kk < BK; ++kk)
                for (int i = 0; i < 2; ++i)
                    for (int j = 0; j < 2; ++j)
                        acc[i][j] += As[kp_stage][ty * 2 + i][kk] * Bs[kp_stage][kk][tx * 2 + j];
            kp_stage = kp_stage == 2 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
    }

    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const int row = blockIdx.y * BM + ty * 2 + i;
            const int col = blockIdx.x * BN + tx * 2 + j;
            if (row < M && col < N)
                C[(size_t)row * N + col] = acc[i][j];
        }
}

template __global__ void matmul_guard_temp<float, 32, 32, 16, 256>(const float *__restrict__,
                                                                   const float *__restrict__,
                                                                   float *__restrict__, int, int,
                                                                   int);
