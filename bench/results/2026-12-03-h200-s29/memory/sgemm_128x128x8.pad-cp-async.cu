// sgemm_128x128x8.cu - fp32 C = A * B (row-major) with a 128x128 block tile,
// BK = 8, 256 threads per block and an 8x8 register tile per thread.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`.  The loads sit in small
// `#pragma unroll` loops with compile-time trip counts (BM*BK/NTHREADS = 4
// scalar copies of A, stored transposed as As[BK][BM]; BK*BN/(4*NTHREADS) = 1
// float4 copy of B).  The A and B pointers are bumped right after the loads
// (`A += BK; B += BK * N;`), before the first barrier.  M and N must be
// multiples of 128 and K a multiple of 8.
//
// Each thread owns rows ty + 16*i and columns tx + 16*j (i, j < 8) of the
// block tile, so that shared reads within a warp are broadcasts or hit
// consecutive banks and the output stores are coalesced.
//
// kpipe: eligible (reference shape 2).  Every element of As and Bs is
// rewritten each iteration by pure copies: cp.async applies (4-byte copies for
// A, 16-byte for B), and so does register staging (8 extra registers).

#include <cuda_runtime.h>
#include <cuda_pipeline.h>

constexpr int BM = 128;
constexpr int BN = 128;
constexpr int BK = 8;
constexpr int TM = 8;
constexpr int TN = 8;
constexpr int NTHREADS = (BM / TM) * (BN / TN); // 256

__global__ void __launch_bounds__(NTHREADS)
sgemm_128x128x8(const float *__restrict__ A, const float *__restrict__ B,
                float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][BK][BM + 4];
    __shared__ __align__(16) float Bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN); // 0..15
    const int ty = tid / (BN / TN); // 0..15

    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int k0 = 0;
        int kp_stage = 0;
        if (k0 < K) {
#pragma unroll
            for (int i = 0; i < BM * BK / NTHREADS; ++i) {
                const int idx = tid + i * NTHREADS;
                __pipeline_memcpy_async(&As[0][idx % BK][idx / BK], &A[(size_t)(idx / BK) * K + idx % BK], 4);
            }
#pragma unroll
            for (int i = 0; i < BK * BN / (4 * NTHREADS); ++i) {
                const int idx = tid + i * NTHREADS;
                const int r = idx / (BN / 4);
                const int c = (idx % (BN / 4)) * 4;
                __pipeline_memcpy_async(reinterpret_cast<float4 *>(&Bs[0][r][c]), reinterpret_cast<const float4 *>(&B[(size_t)r * N + c]), 16);
            }
        }
        __pipeline_commit();
        for (; k0 < K; k0 += BK) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((k0 + BK) < K) {
#pragma unroll
                for (int i = 0; i < BM * BK / NTHREADS; ++i) {
                    const int idx = tid + i * NTHREADS;
                    __pipeline_memcpy_async(&As[kp_stage ^ 1][idx % BK][idx / BK], &(A + BK)[(size_t)(idx / BK) * K + idx % BK], 4);
                }
#pragma unroll
                for (int i = 0; i < BK * BN / (4 * NTHREADS); ++i) {
                    const int idx = tid + i * NTHREADS;
                    const int r = idx / (BN / 4);
                    const int c = (idx % (BN / 4)) * 4;
                    __pipeline_memcpy_async(reinterpret_cast<float4 *>(&Bs[kp_stage ^ 1][r][c]), reinterpret_cast<const float4 *>(&(B + (size_t)BK * N)[(size_t)r * N + c]), 16);
                }
            }
            __pipeline_commit();

#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                float a[TM], b[TN];
#pragma unroll
                for (int i = 0; i < TM; ++i)
                    a[i] = As[kp_stage][kk][ty + 16 * i];
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    b[j] = Bs[kp_stage][kk][tx + 16 * j];
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j)
                        acc[i][j] += a[i] * b[j];
            }
            A += BK;
            B += (size_t)BK * N;
            kp_stage ^= 1;
        }
    }

    const int row0 = blockIdx.y * BM + ty;
    const int col0 = blockIdx.x * BN + tx;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            if (row0 + 16 * i < M)
                C[(size_t)(row0 + 16 * i) * N + col0 + 16 * j] = acc[i][j];
}
