// matmul_vec_helpers.cu - fp32 C = A * B^T (A is M x K, B is N x K, both
// row-major), a 64x64 block tile and K-tiles of 16, 16x16 threads of 4x4
// outputs each; M and N multiples of 64, K a multiple of 16.  Each tile
// row is copied as float4s through two one-line helpers of a project
// header (tile_loaders.cuh), the store's argument the load's call, and
// the loop's barrier stands at the top of its body:
//   for (...) { __syncthreads();
//               for (r ...) tl_st4(&As[r][c], tl_ld4(a + r * K + k0 + c));
//               __syncthreads(); COMPUTE; }
//
// kpipe: PIPELINE.  The "inline" pass copies tl_st4's body into the copy
// loop, p replaced by the tile address `(&As[r][c])`, v a local
// initialised with tl_ld4's expression (`return *(const float4 *)p;` with
// p replaced by the call's argument).  Each copy is then one 16-byte
// global load stored to the tile, and the loop is pipelined with
// cp.async.  The header is not edited.
#include "tile_loaders.cuh"
#include <cuda_pipeline.h>

__global__ void matmul_vec_helpers(const float *__restrict__ A, const float *__restrict__ B,
                                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[4][64][16];
    __shared__ float Bs[4][64][16];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int t = ty * 16 + tx;
    const float *a = A + (size_t)blockIdx.y * 64 * K;
    const float *b = B + (size_t)blockIdx.x * 64 * K;
    float acc[4][4] = {};

    // kpipe: cp.async, 4 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
            for (int r = t / 4; r < 64; r += 64) {
                /* kpipe: tl_st4 inlined here, so that its copies are pipelined with the loop */
                {
                  __pipeline_memcpy_async(reinterpret_cast<float4 *>((&As[0][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((a + (size_t)r * K + k0 + 4 * (t % 4)))), 16);
                }
                /* kpipe: tl_st4 inlined here, so that its copies are pipelined with the loop */
                {
                  __pipeline_memcpy_async(reinterpret_cast<float4 *>((&Bs[0][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((b + (size_t)r * K + k0 + 4 * (t % 4)))), 16);
                }
            }
        }
        __pipeline_commit();
        if ((k0 + 16) < K) {
            for (int r = t / 4; r < 64; r += 64) {
                {
                  __pipeline_memcpy_async(reinterpret_cast<float4 *>((&As[1][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((a + (size_t)r * K + (k0 + 16) + 4 * (t % 4)))), 16);
                }
                {
                  __pipeline_memcpy_async(reinterpret_cast<float4 *>((&Bs[1][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((b + (size_t)r * K + (k0 + 16) + 4 * (t % 4)))), 16);
                }
            }
        }
        __pipeline_commit();
        if ((k0 + 32) < K) {
            for (int r = t / 4; r < 64; r += 64) {
                {
                  __pipeline_memcpy_async(reinterpret_cast<float4 *>((&As[2][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((a + (size_t)r * K + (k0 + 32) + 4 * (t % 4)))), 16);
                }
                {
                  __pipeline_memcpy_async(reinterpret_cast<float4 *>((&Bs[2][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((b + (size_t)r * K + (k0 + 32) + 4 * (t % 4)))), 16);
                }
            }
        }
        __pipeline_commit();
        for (; k0 < K; k0 += 16) {
            __pipeline_wait_prior(2);
            __syncthreads();
            if ((k0 + 48) < K) {
                for (int r = t / 4; r < 64; r += 64) {
                    /* kpipe: tl_st4 inlined here, so that its copies are pipelined with the loop */
                    {
                      __pipeline_memcpy_async(reinterpret_cast<float4 *>((&As[(kp_stage + 3) % 4][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((a + (size_t)r * K + (k0 + 48) + 4 * (t % 4)))), 16);
                    }
                    /* kpipe: tl_st4 inlined here, so that its copies are pipelined with the loop */
                    {
                      __pipeline_memcpy_async(reinterpret_cast<float4 *>((&Bs[(kp_stage + 3) % 4][r][4 * (t % 4)])), &(*reinterpret_cast<const float4 *>((b + (size_t)r * K + (k0 + 48) + 4 * (t % 4)))), 16);
                    }
                }
            }
            __pipeline_commit();

            for (int kk = 0; kk < 16; ++kk)
                for (int i = 0; i < 4; ++i)
                    for (int j = 0; j < 4; ++j)
                        acc[i][j] += As[kp_stage][ty * 4 + i][kk] * Bs[kp_stage][tx * 4 + j][kk];
            kp_stage = kp_stage == 3 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
    }

    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            C[(size_t)(blockIdx.y * 64 + ty * 4 + i) * N + blockIdx.x * 64 + tx * 4 + j] =
                acc[i][j];
}
