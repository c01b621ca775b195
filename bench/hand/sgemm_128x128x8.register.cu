// sgemm_128x128x8.register.cu - hand-pipelined reference for
// samples/sgemm_128x128x8.cu (same kernel name, signature and launch).
// Register staging: the next tile is loaded into 4 + 4 registers (four A
// scalars, one float4 of B) before the current tile is multiplied, then
// stored into the other shared buffer; one barrier per iteration.
// Bit-identical.  Expect more registers than the original (the guide saw 134
// and one block per SM instead of two).

#include <cuda_runtime.h>

constexpr int BM = 128;
constexpr int BN = 128;
constexpr int BK = 8;
constexpr int TM = 8;
constexpr int TN = 8;
constexpr int NTHREADS = (BM / TM) * (BN / TN); // 256
constexpr int A_PER_THREAD = BM * BK / NTHREADS;        // 4 floats
constexpr int B_PER_THREAD = BK * BN / (4 * NTHREADS);  // 1 float4

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

    float ra[A_PER_THREAD];
    float4 rb[B_PER_THREAD];

    if (0 < K) {
#pragma unroll
        for (int i = 0; i < A_PER_THREAD; ++i) {
            const int idx = tid + i * NTHREADS;
            As[0][idx % BK][idx / BK] = A[(size_t)(idx / BK) * K + idx % BK];
        }
#pragma unroll
        for (int i = 0; i < B_PER_THREAD; ++i) {
            const int idx = tid + i * NTHREADS;
            const int r = idx / (BN / 4);
            const int c = (idx % (BN / 4)) * 4;
            *reinterpret_cast<float4 *>(&Bs[0][r][c]) =
                *reinterpret_cast<const float4 *>(&B[(size_t)r * N + c]);
        }
    }
    __syncthreads();

    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        A += BK;
        B += (size_t)BK * N;
        const bool has_next = k0 + BK < K;
        if (has_next) {
#pragma unroll
            for (int i = 0; i < A_PER_THREAD; ++i) {
                const int idx = tid + i * NTHREADS;
                ra[i] = A[(size_t)(idx / BK) * K + idx % BK];
            }
#pragma unroll
            for (int i = 0; i < B_PER_THREAD; ++i) {
                const int idx = tid + i * NTHREADS;
                const int r = idx / (BN / 4);
                const int c = (idx % (BN / 4)) * 4;
                rb[i] = *reinterpret_cast<const float4 *>(&B[(size_t)r * N + c]);
            }
        }

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

        if (has_next) {
#pragma unroll
            for (int i = 0; i < A_PER_THREAD; ++i) {
                const int idx = tid + i * NTHREADS;
                As[cur ^ 1][idx % BK][idx / BK] = ra[i];
            }
#pragma unroll
            for (int i = 0; i < B_PER_THREAD; ++i) {
                const int idx = tid + i * NTHREADS;
                const int r = idx / (BN / 4);
                const int c = (idx % (BN / 4)) * 4;
                *reinterpret_cast<float4 *>(&Bs[cur ^ 1][r][c]) = rb[i];
            }
        }
        __syncthreads();
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
