// sgemm_loop_tma.cu - fp32 C = A * B (row-major) with the 128x128x8 block
// tile of samples/sgemm_128x128x8.cu (256 threads, an 8x8 register tile
// per thread), written so that each tile is one box of its matrix: As is
// kept as A lays it out (As[BM][BK], not transposed), both tiles are filled
// by copy loops of float4 vectors strided by the block, the matrices are
// indexed from the kernel's parameters (no pointer bumps), and the host
// function a library exports launches the kernel.  M and N must be
// multiples of 128 and K a multiple of 8.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`; the copy loops
// (`for (i = 0; i < BM * BK / (4 * NTHREADS); ++i)`, idx = tid + i *
// NTHREADS) write, over the 256 threads, every element of As (a 128x8 box
// of A) and of Bs (an 8x128 box of B) once.
//
// kpipe: eligible for every variant.  The sample of the tensor-map form
// for copy loops of fp32 vectors (--variant tma, sm_90+): kpipe proves,
// element by element over the block, that each copy loop fills one box
// (src/analysis/copy_box.c) and replaces it by one tensor copy per tile.

#include <cuda_runtime.h>

constexpr int SL_BM = 128;
constexpr int SL_BN = 128;
constexpr int SL_BK = 8;
constexpr int SL_TM = 8;
constexpr int SL_TN = 8;
constexpr int SL_THREADS = (SL_BM / SL_TM) * (SL_BN / SL_TN); // 256

__global__ void __launch_bounds__(SL_THREADS)
sgemm_loop_tma(const float *__restrict__ A, const float *__restrict__ B,
               float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[SL_BM][SL_BK];
    __shared__ __align__(16) float Bs[SL_BK][SL_BN];

    const int tid = threadIdx.x;
    const int tx = tid % (SL_BN / SL_TN); // 0..15
    const int ty = tid / (SL_BN / SL_TN); // 0..15
    const int bm = blockIdx.y * SL_BM;
    const int bn = blockIdx.x * SL_BN;

    float acc[SL_TM][SL_TN];
#pragma unroll
    for (int i = 0; i < SL_TM; ++i)
#pragma unroll
        for (int j = 0; j < SL_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += SL_BK) {
#pragma unroll
        for (int i = 0; i < SL_BM * SL_BK / (4 * SL_THREADS); ++i) {
            const int idx = tid + i * SL_THREADS;
            const int r = idx / (SL_BK / 4);
            const int c = (idx % (SL_BK / 4)) * 4;
            *reinterpret_cast<float4 *>(&As[r][c]) =
                *reinterpret_cast<const float4 *>(&A[(size_t)(bm + r) * K + k0 + c]);
        }
#pragma unroll
        for (int i = 0; i < SL_BK * SL_BN / (4 * SL_THREADS); ++i) {
            const int idx = tid + i * SL_THREADS;
            const int r = idx / (SL_BN / 4);
            const int c = (idx % (SL_BN / 4)) * 4;
            *reinterpret_cast<float4 *>(&Bs[r][c]) =
                *reinterpret_cast<const float4 *>(&B[(size_t)(k0 + r) * N + bn + c]);
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < SL_BK; ++kk) {
            float a[SL_TM], b[SL_TN];
#pragma unroll
            for (int i = 0; i < SL_TM; ++i)
                a[i] = As[ty + 16 * i][kk];
#pragma unroll
            for (int j = 0; j < SL_TN; ++j)
                b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < SL_TM; ++i)
#pragma unroll
                for (int j = 0; j < SL_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < SL_TM; ++i)
#pragma unroll
        for (int j = 0; j < SL_TN; ++j)
            C[(size_t)(bm + ty + 16 * i) * N + bn + tx + 16 * j] = acc[i][j];
}

// What the library exports: C = A * B on `stream`.
cudaError_t sgemm_loop(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    sgemm_loop_tma<<<dim3(N / SL_BN, M / SL_BM), SL_THREADS, 0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}
