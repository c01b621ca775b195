// remainder_tile.cu - fp32 C = A * B where K need not be a multiple of the
// tile: the K-loop handles the whole tiles, and after it one partial tile
// is loaded into the same shared arrays (every element the loop writes is
// written again, then a barrier) and computed.  Pipelined, the code after
// the loop uses stage 0 of each array, after a barrier that ends the
// pipelined loop (docs/design.md, "A tile refilled after the loop").
#define TILE 16

__global__ void matmul_rem(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    const int full = K / TILE * TILE;
    float acc = 0.0f;
    for (int k0 = 0; k0 < full; k0 += TILE) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (full < K) {
        As[ty][tx] = full + tx < K ? A[row * K + full + tx] : 0.0f;
        Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < K - full; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
    }
    C[row * N + col] = acc;
}
