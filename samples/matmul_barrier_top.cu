// matmul_barrier_top.cu - fp32 C = A * B (row-major), 32x32 block tile with
// BK = 16, 32x16 threads, each thread computing two outputs (rows ty and
// ty + 16 of column tx).
//
// K-loop shape: the barrier that protects the tiles from being overwritten
// sits at the TOP of the body instead of the bottom:
//   for (...) { __syncthreads(); LOAD; __syncthreads(); COMPUTE }
// The A tile (32x16) is copied through a flattened thread index whose row
// and column are computed once, before the loop.  M and N must be multiples
// of 32, K a multiple of 16.
//
// kpipe: eligible.  The leading barrier plays the role of the usual trailing
// one (the first iteration's copy of it is redundant but harmless).

#define BT_BM 32
#define BT_BN 32
#define BT_BK 16

__global__ void matmul_barrier_top(const float *__restrict__ A,
                                   const float *__restrict__ B,
                                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[BT_BM][BT_BK];
    __shared__ float Bs[BT_BK][BT_BN];

    const int tx = threadIdx.x; // 0..31
    const int ty = threadIdx.y; // 0..15
    const int tid = ty * BT_BN + tx;
    const int ar = tid / BT_BK; // row of the A element this thread copies
    const int ac = tid % BT_BK; // and its column
    const int bm = blockIdx.y * BT_BM;
    const int bn = blockIdx.x * BT_BN;

    float acc0 = 0.0f;
    float acc1 = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BT_BK) {
        __syncthreads();
        As[ar][ac] = A[(size_t)(bm + ar) * K + k0 + ac];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + bn + tx];
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BT_BK; ++kk) {
            const float b = Bs[kk][tx];
            acc0 += As[ty][kk] * b;
            acc1 += As[ty + 16][kk] * b;
        }
    }

    if (bm + ty + 16 < M) {
        C[(size_t)(bm + ty) * N + bn + tx] = acc0;
        C[(size_t)(bm + ty + 16) * N + bn + tx] = acc1;
    }
}
