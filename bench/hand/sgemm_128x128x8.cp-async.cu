// sgemm_128x128x8.cp-async.cu - hand-pipelined reference for
// samples/sgemm_128x128x8.cu (same kernel name, signature and launch).
// Two buffers of As[BK][BM] / Bs[BK][BN] filled with cp.async: four 4-byte
// copies of A (transposed on the way in, as in the original) and one 16-byte
// copy of B per thread per tile.  One barrier per iteration; the pointer
// bumps of the original are applied before each prefetch.  Bit-identical.

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

constexpr int BM = 128;
constexpr int BN = 128;
constexpr int BK = 8;
constexpr int TM = 8;
constexpr int TN = 8;
constexpr int NTHREADS = (BM / TM) * (BN / TN); // 256

// Requests the tile whose top-left corners are A and B into buffer `buf`.
__device__ __forceinline__ void request_tile(float (*As)[BM], float (*Bs)[BN],
                                             const float *A, const float *B,
                                             int N, int K, int tid)
{
#pragma unroll
    for (int i = 0; i < BM * BK / NTHREADS; ++i) {
        const int idx = tid + i * NTHREADS;
        __pipeline_memcpy_async(&As[idx % BK][idx / BK],
                                &A[(size_t)(idx / BK) * K + idx % BK],
                                sizeof(float));
    }
#pragma unroll
    for (int i = 0; i < BK * BN / (4 * NTHREADS); ++i) {
        const int idx = tid + i * NTHREADS;
        const int r = idx / (BN / 4);
        const int c = (idx % (BN / 4)) * 4;
        __pipeline_memcpy_async(&Bs[r][c], &B[(size_t)r * N + c],
                                sizeof(float4));
    }
}

__global__ void __launch_bounds__(NTHREADS)
sgemm_128x128x8(const float *__restrict__ A, const float *__restrict__ B,
                float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN);
    const int ty = tid / (BN / TN);

    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    if (0 < K)
        request_tile(As[0], Bs[0], A, B, N, K, tid);
    __pipeline_commit();

    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        A += BK;
        B += (size_t)BK * N;
        __pipeline_wait_prior(0);
        __syncthreads();
        if (k0 + BK < K)
            request_tile(As[cur ^ 1], Bs[cur ^ 1], A, B, N, K, tid);
        __pipeline_commit();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a[i] = As[cur][kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                b[j] = Bs[cur][kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        cur ^= 1;
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
