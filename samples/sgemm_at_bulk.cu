// sgemm_at_bulk.cu - fp32 C = A^T * B with A stored transposed (K x M,
// row-major) and B row-major (K x N): 128x128 output tile per block, k-slices
// of 8, a 128x8 thread block, each thread accumulating a 4x4 sub-tile.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)` whose body copies one
// element per thread into each 8x128 tile: both operands are read along
// their contiguous dimension, so a tile row is 128 consecutive floats (512
// bytes).  No bounds checks: M and N must be multiples of 128, K of 8.
//
// kpipe: eligible for every variant; the sample of the bulk-copy transform
// with long rows (--variant bulk, sm_90+: 16 bulk copies of 512 bytes per
// stage, spread over the block's warps).  Compute-bound: 128 FFMA per thread
// per tile.

#define BM 128
#define BN 128
#define BK 8

__global__ void __launch_bounds__(1024)
    sgemm_at_bulk(const float *__restrict__ At, const float *__restrict__ B,
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
        As[ty][tx] = At[(size_t)(k0 + ty) * M + bm + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + bn + tx];
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
            C[(size_t)(bm + r0 + i) * N + bn + c0 + j] = acc[i][j];
}
