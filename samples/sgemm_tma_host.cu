// sgemm_tma_host.cu - fp32 C = A^T * B for any M, N, K, with A stored
// transposed (K x M, row-major) and B row-major (K x N), and the host
// function a library exports that launches it: 64x64 output tile per block,
// k-slices of 16, a 64x16 thread block, each thread accumulating a 2x2
// sub-tile; the copies and the output store are guarded.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)` whose body copies one
// element per thread into each 16x64 tile (`cond ? X[i] : 0.0f`); a tile
// row is 64 consecutive floats (256 bytes), a tile 4 KB.
//
// kpipe: eligible for every variant.  The sample of the tensor-map form
// (--variant tma, sm_90+): the kernel is launched in this file, so kpipe
// can write a launcher that makes a CUtensorMap of At and of B and passes
// them; the launch in sgemm_tma_host() then calls that launcher.  A tile
// whose guard holds for all of it and whose box lies in its matrix is one
// tensor copy; the edge tiles take the guarded copies.

#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16

__global__ void __launch_bounds__(1024)
    sgemm_at64(const float *__restrict__ At, const float *__restrict__ B, float *__restrict__ C,
               int M, int N, int K)
{
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * BN + tx;
    const int r0 = (tid / 32) * 2; // this thread's 2 rows of the output tile
    const int c0 = (tid % 32) * 2; // and its 2 columns
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;
    float acc[2][2] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
        As[ty][tx] = (k0 + ty < K && bm + tx < M) ? At[(size_t)(k0 + ty) * M + bm + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && bn + tx < N) ? B[(size_t)(k0 + ty) * N + bn + tx] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float a0 = As[kk][r0], a1 = As[kk][r0 + 1];
            const float b0 = Bs[kk][c0], b1 = Bs[kk][c0 + 1];
            acc[0][0] = fmaf(a0, b0, acc[0][0]);
            acc[0][1] = fmaf(a0, b1, acc[0][1]);
            acc[1][0] = fmaf(a1, b0, acc[1][0]);
            acc[1][1] = fmaf(a1, b1, acc[1][1]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            if (bm + r0 + i < M && bn + c0 + j < N)
                C[(size_t)(bm + r0 + i) * N + bn + c0 + j] = acc[i][j];
}

// What the library exports: C = A^T * B on `stream`.
cudaError_t sgemm_tma_host(const float *At, const float *B, float *C, int M, int N, int K,
                           cudaStream_t stream)
{
    const dim3 block(BN, BK);
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_at64<<<grid, block, 0, stream>>>(At, B, C, M, N, K);
    return cudaGetLastError();
}
