// wmma_fp16_64x64x32.cu - C = A * B with fp16 inputs and fp32 accumulation on
// tensor cores through nvcuda::wmma.  A is MxK and B is KxN, both row-major
// half; C is MxN row-major float.  Block tile 64x64x32, 4 warps (128 threads)
// arranged 2x2, each warp owning a 32x32 piece of C (2x2 fragments 16x16x16).
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`; the tiles are copied
// with 16-byte vectors (a float4 reinterpretation of 8 halfs) inside
// constant-trip `#pragma unroll` loops (2 vectors of A and 2 of B per
// thread).  Shared rows are padded by 8 halfs against bank conflicts; the
// arrays are declared __align__(32) because wmma::load_matrix_sync wants
// 256-bit aligned fragment pointers (which also satisfies the 16-byte
// alignment of the vector copies).  M and N must be multiples of 64, K a
// multiple of 32.
//
// kpipe: eligible (reference shape 3).  Pure 16-byte copies: cp.async 16B,
// or register staging with 4 float4 registers.  Double buffering takes the
// static shared memory from 9.5 KB to 19 KB.

#include <cuda_fp16.h>
#include <mma.h>
#include <cuda_pipeline.h>

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
    __shared__ __align__(32) half As[4][WM_BM][WM_BK + WM_PAD];
    __shared__ __align__(32) half Bs[4][WM_BK][WM_BN + WM_PAD];

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

    // kpipe: cp.async, 4 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
#pragma unroll
            for (int i = 0; i < WM_BM * WM_BK / 8 / WM_THREADS; ++i) {
                const int v = tid + i * WM_THREADS;
                const int r = v / (WM_BK / 8);
                const int c = (v % (WM_BK / 8)) * 8;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&As[0][r][c]), &*reinterpret_cast<const float4 *>(
                        &A[(size_t)(bm + r) * K + k0 + c]), 16);
            }
#pragma unroll
            for (int i = 0; i < WM_BK * WM_BN / 8 / WM_THREADS; ++i) {
                const int v = tid + i * WM_THREADS;
                const int r = v / (WM_BN / 8);
                const int c = (v % (WM_BN / 8)) * 8;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Bs[0][r][c]), &*reinterpret_cast<const float4 *>(
                        &B[(size_t)(k0 + r) * N + bn + c]), 16);
            }
        }
        __pipeline_commit();
        if ((k0 + WM_BK) < K) {
#pragma unroll
            for (int i = 0; i < WM_BM * WM_BK / 8 / WM_THREADS; ++i) {
                const int v = tid + i * WM_THREADS;
                const int r = v / (WM_BK / 8);
                const int c = (v % (WM_BK / 8)) * 8;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&As[1][r][c]), &*reinterpret_cast<const float4 *>(
                        &A[(size_t)(bm + r) * K + (k0 + WM_BK) + c]), 16);
            }
#pragma unroll
            for (int i = 0; i < WM_BK * WM_BN / 8 / WM_THREADS; ++i) {
                const int v = tid + i * WM_THREADS;
                const int r = v / (WM_BN / 8);
                const int c = (v % (WM_BN / 8)) * 8;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Bs[1][r][c]), &*reinterpret_cast<const float4 *>(
                        &B[(size_t)((k0 + WM_BK) + r) * N + bn + c]), 16);
            }
        }
        __pipeline_commit();
        if ((k0 + 2 * (WM_BK)) < K) {
#pragma unroll
            for (int i = 0; i < WM_BM * WM_BK / 8 / WM_THREADS; ++i) {
                const int v = tid + i * WM_THREADS;
                const int r = v / (WM_BK / 8);
                const int c = (v % (WM_BK / 8)) * 8;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&As[2][r][c]), &*reinterpret_cast<const float4 *>(
                        &A[(size_t)(bm + r) * K + (k0 + 2 * (WM_BK)) + c]), 16);
            }
#pragma unroll
            for (int i = 0; i < WM_BK * WM_BN / 8 / WM_THREADS; ++i) {
                const int v = tid + i * WM_THREADS;
                const int r = v / (WM_BN / 8);
                const int c = (v % (WM_BN / 8)) * 8;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Bs[2][r][c]), &*reinterpret_cast<const float4 *>(
                        &B[(size_t)((k0 + 2 * (WM_BK)) + r) * N + bn + c]), 16);
            }
        }
        __pipeline_commit();
        for (; k0 < K; k0 += WM_BK) {
            __pipeline_wait_prior(2);
            __syncthreads();
            if ((k0 + 3 * (WM_BK)) < K) {
#pragma unroll
                for (int i = 0; i < WM_BM * WM_BK / 8 / WM_THREADS; ++i) {
                    const int v = tid + i * WM_THREADS;
                    const int r = v / (WM_BK / 8);
                    const int c = (v % (WM_BK / 8)) * 8;
                    __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&As[(kp_stage + 3) % 4][r][c]), &*reinterpret_cast<const float4 *>(
                            &A[(size_t)(bm + r) * K + (k0 + 3 * (WM_BK)) + c]), 16);
                }
#pragma unroll
                for (int i = 0; i < WM_BK * WM_BN / 8 / WM_THREADS; ++i) {
                    const int v = tid + i * WM_THREADS;
                    const int r = v / (WM_BN / 8);
                    const int c = (v % (WM_BN / 8)) * 8;
                    __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Bs[(kp_stage + 3) % 4][r][c]), &*reinterpret_cast<const float4 *>(
                            &B[(size_t)((k0 + 3 * (WM_BK)) + r) * N + bn + c]), 16);
                }
            }
            __pipeline_commit();

#pragma unroll
            for (int kk = 0; kk < WM_BK; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>
                    fa[2];
                wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>
                    fb[2];
#pragma unroll
                for (int i = 0; i < 2; ++i)
                    wmma::load_matrix_sync(fa[i], &As[kp_stage][wm * 32 + i * 16][kk],
                                           WM_BK + WM_PAD);
#pragma unroll
                for (int j = 0; j < 2; ++j)
                    wmma::load_matrix_sync(fb[j], &Bs[kp_stage][kk][wn * 32 + j * 16],
                                           WM_BN + WM_PAD);
#pragma unroll
                for (int i = 0; i < 2; ++i)
#pragma unroll
                    for (int j = 0; j < 2; ++j)
                        wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
            }
            kp_stage = kp_stage == 3 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
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
