// matmul_column_read.cu - fp32 C = A * B (row-major), 32x32 shared tiles,
// 32x32 thread blocks, one output element per thread; a textbook K-loop
// whose inner product reads the A tile by column across a warp.
//
// Thread (tx, ty) computes C[by*32 + tx][bx*32 + ty]: the row follows
// threadIdx.x.  The tiles are loaded the usual way (As[ty][tx], coalesced,
// conflict-free), so the inner product reads As[tx][kk]: the 32 threads of
// a warp read 32 floats that are 32 floats apart, all in one bank - a
// 32-way shared-memory bank conflict on every A operand (Bs[kk][ty] is one
// address for the warp: a broadcast).  Declaring As[32][33] (one float of
// padding per row) puts the 32 rows in 32 different banks; kpipe's --pad
// pass (issue #20) is meant to do that.  The stores to C are uncoalesced
// too, but happen once per thread.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += 32)`, two plain tile
// copies, a barrier, 32 multiply-adds, a barrier.  M, N and K must be
// multiples of 32.
//
// kpipe: eligible (reference shape 1), both cp.async and register staging.

#include <cuda_runtime.h>

__global__ void matmul_column_read(const float *__restrict__ A,
                                   const float *__restrict__ B,
                                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int load_row = blockIdx.y * 32 + ty; /* the A row this thread loads */
    const int load_col = blockIdx.x * 32 + tx; /* the B column it loads */
    const int row = blockIdx.y * 32 + tx;      /* the C element it computes */
    const int col = blockIdx.x * 32 + ty;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx ^ (ty & 31)] = A[(size_t)load_row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + load_col];
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < 32; ++kk)
            acc += As[tx][kk ^ (tx & 31)] * Bs[kk][ty];
        __syncthreads();
    }

    if (row < M)
        C[(size_t)row * N + col] = acc;
}
