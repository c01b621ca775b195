// sgemm_bulk_guarded.cu - fp32 C = A^T * B for any M, N, K, with A stored
// transposed (K x M, row-major) and B row-major (K x N): 128x128 output tile
// per block, k-slices of 8, a 128x8 thread block, each thread accumulating a
// 4x4 sub-tile; the output store is guarded.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)` whose body copies one
// element per thread into each 8x128 tile through a guard that stores zero
// outside the matrix (`cond ? X[i] : 0.0f`), so edge tiles along M, N and
// K are partial.  A tile row is 128 consecutive floats (512 bytes).
//
// kpipe: eligible for every variant; the guarded sample of the bulk-copy
// transform (--variant bulk, sm_90+): a tile whose guard holds
// for all of it (tested at its corners) is bulk-copied when its rows are
// 16-byte aligned (M and N multiples of 4), and every other tile -- the
// last K slice when K % 8 != 0, the blocks on the M and N edges, every tile
// when M or N is odd -- is filled by the guarded copies.  cp.async uses
// zero-fill.  Compute-bound: 128 FFMA per thread per tile.

#define BM 128
#define BN 128
#define BK 8

__global__ void __launch_bounds__(1024)
    sgemm_bulk_guarded(const float *__restrict__ At, const float *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * BM + tx;
    const int r0 = (tid / 32) * 4; // this thread's 4 rows of the tile
    const int c0 = (tid % 32) * 4; // and its 4 columns
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;
    float acc[4][4] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
        As[ty][tx] = (k0 + ty < K && bm + tx < M) ? At[(size_t)(k0 + ty) * M + bm + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && bn + tx < N) ? B[(size_t)(k0 + ty) * N + bn + tx] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                a[i] = As[kk][r0 + i];
                b[i] = Bs[kk][c0 + i];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (bm + r0 + i < M && bn + c0 + j < N)
                C[(size_t)(bm + r0 + i) * N + bn + c0 + j] = acc[i][j];
}
