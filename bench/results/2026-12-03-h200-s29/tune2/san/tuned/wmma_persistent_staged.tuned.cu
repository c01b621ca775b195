// wmma_persistent_staged.cu - D = alpha * A * B + beta * C on tensor cores
// (nvcuda::wmma, fp16 inputs, fp32 accumulation and output), with a
// persistent grid: each block walks the 32x32 output tiles with a
// grid-stride loop.  A is MxK and B is KxN, row-major half; C is MxN
// row-major float, read and overwritten in place.  4 warps (128 threads)
// arranged 2x2, each warp owning one 16x16 fragment of the output tile.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += WP_BK)`, the textbook one:
// one 16-byte vector of A and one of B per thread (a float4 reinterpretation
// of 8 halfs), a barrier, two 16x16x16 mma steps, a barrier.  It is nested
// in the output-tile loop, which has barriers of its own: after the K-loop
// the warps stage their accumulators through the shared array Cs so that
// the epilogue (scaling by alpha, adding beta * C) reads and writes C in
// whole rows.  The leading barrier of the epilogue keeps a fast warp from
// overwriting Cs while a slow one still reads the previous output tile's.
// M and N must be multiples of 32, K a multiple of 32.
//
// kpipe: the output-tile loop is not a K-loop (it encloses one); the K-loop
// is eligible.  Pure 16-byte copies: cp.async 16B, or register staging with
// 2 float4 registers.  The pipelined loop restarts its prologue for every
// output tile and ends with a barrier (docs/design.md, "What follows the
// loop"); Cs is not a tile and keeps one buffer.

#include <cuda_fp16.h>
#include <mma.h>
#include <cuda_pipeline.h>

using namespace nvcuda;

constexpr int WP_BM = 32;
constexpr int WP_BN = 32;
constexpr int WP_BK = 32;
constexpr int WP_PAD = 8;
constexpr int WP_THREADS = 128;

__global__ void __launch_bounds__(WP_THREADS)
wmma_persistent_staged(const half *__restrict__ A, const half *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K,
                       float alpha, float beta)
{
    __shared__ __align__(32) half As[4][WP_BM][WP_BK + WP_PAD];
    __shared__ __align__(32) half Bs[4][WP_BK][WP_BN + WP_PAD];
    __shared__ __align__(32) float Cs[WP_BM][WP_BN + 4];

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / 2; // warp row in the 2x2 grid of warps
    const int wn = warp % 2; // warp column
    const int tilesN = N / WP_BN;
    const int numTiles = (M / WP_BM) * tilesN;
    // the one A vector and the one B vector this thread copies per K-tile
    const int ar = tid / (WP_BK / 8), ac = (tid % (WP_BK / 8)) * 8;
    const int br = tid / (WP_BN / 8), bc = (tid % (WP_BN / 8)) * 8;

    for (int tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
        const int bm = (tile / tilesN) * WP_BM;
        const int bn = (tile % tilesN) * WP_BN;

        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);

        // kpipe: cp.async, 4 stages: requested with --variant cp-async
        {
            int k0 = 0;
            int kp_stage = 0;
            if (k0 < K) {
                __pipeline_memcpy_async(reinterpret_cast<float4 *>(&As[0][ar][ac]), reinterpret_cast<const float4 *>(
                        &A[(size_t)(bm + ar) * K + k0 + ac]), 16);
                __pipeline_memcpy_async(reinterpret_cast<float4 *>(&Bs[0][br][bc]), reinterpret_cast<const float4 *>(
                        &B[(size_t)(k0 + br) * N + bn + bc]), 16);
            }
            __pipeline_commit();
            if ((k0 + WP_BK) < K) {
                __pipeline_memcpy_async(reinterpret_cast<float4 *>(&As[1][ar][ac]), reinterpret_cast<const float4 *>(
                        &A[(size_t)(bm + ar) * K + (k0 + WP_BK) + ac]), 16);
                __pipeline_memcpy_async(reinterpret_cast<float4 *>(&Bs[1][br][bc]), reinterpret_cast<const float4 *>(
                        &B[(size_t)((k0 + WP_BK) + br) * N + bn + bc]), 16);
            }
            __pipeline_commit();
            if ((k0 + 2 * (WP_BK)) < K) {
                __pipeline_memcpy_async(reinterpret_cast<float4 *>(&As[2][ar][ac]), reinterpret_cast<const float4 *>(
                        &A[(size_t)(bm + ar) * K + (k0 + 2 * (WP_BK)) + ac]), 16);
                __pipeline_memcpy_async(reinterpret_cast<float4 *>(&Bs[2][br][bc]), reinterpret_cast<const float4 *>(
                        &B[(size_t)((k0 + 2 * (WP_BK)) + br) * N + bn + bc]), 16);
            }
            __pipeline_commit();
            for (; k0 < K; k0 += WP_BK) {
                __pipeline_wait_prior(2);
                __syncthreads();
                if ((k0 + 3 * (WP_BK)) < K) {
                    __pipeline_memcpy_async(reinterpret_cast<float4 *>(&As[(kp_stage + 3) % 4][ar][ac]), reinterpret_cast<const float4 *>(
                            &A[(size_t)(bm + ar) * K + (k0 + 3 * (WP_BK)) + ac]), 16);
                    __pipeline_memcpy_async(reinterpret_cast<float4 *>(&Bs[(kp_stage + 3) % 4][br][bc]), reinterpret_cast<const float4 *>(
                            &B[(size_t)((k0 + 3 * (WP_BK)) + br) * N + bn + bc]), 16);
                }
                __pipeline_commit();

#pragma unroll
                for (int kk = 0; kk < WP_BK; kk += 16) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, half,
                                   wmma::row_major>
                        fa;
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, half,
                                   wmma::row_major>
                        fb;
                    wmma::load_matrix_sync(fa, &As[kp_stage][wm * 16][kk], WP_BK + WP_PAD);
                    wmma::load_matrix_sync(fb, &Bs[kp_stage][kk][wn * 16], WP_BN + WP_PAD);
                    wmma::mma_sync(acc, fa, fb, acc);
                }
                kp_stage = kp_stage == 3 ? 0 : kp_stage + 1;
            }
            __pipeline_wait_prior(0);
            __syncthreads(); // kpipe: the loop is nested in another loop
        }

        // epilogue: the accumulators through shared memory, then whole rows
        __syncthreads();
        wmma::store_matrix_sync(&Cs[wm * 16][wn * 16], acc, WP_BN + 4,
                                wmma::mem_row_major);
        __syncthreads();
        for (int i = tid; i < WP_BM * WP_BN; i += WP_THREADS) {
            const int r = i / WP_BN, c = i % WP_BN;
            float *d = &C[(size_t)(bm + r) * N + bn + c];
            *d = alpha * Cs[r][c] + beta * *d;
        }
    }
}

// Host-side launcher: a fixed number of blocks, capped by the work.
cudaError_t launch_wmma_persistent_staged(const half *A, const half *B,
                                          float *C, int M, int N, int K,
                                          float alpha, float beta, int blocks,
                                          cudaStream_t stream)
{
    if (M % WP_BM != 0 || N % WP_BN != 0 || K % WP_BK != 0 || blocks <= 0)
        return cudaErrorInvalidValue;
    wmma_persistent_staged<<<blocks, WP_THREADS, 0, stream>>>(A, B, C, M, N,
                                                              K, alpha, beta);
    return cudaGetLastError();
}
