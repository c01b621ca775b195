// last_tile_read.cu - fp32 C = A * B over whole tiles, a partial tile
// refilled under `if (full < K)` only, and after both the tile the block
// saw last written out (L: the last tile of A, or the partial one): when K
// is a multiple of the tile, the code after the loop reads the loop's last
// tile without any refill.  Pipelined, that tile is in the stage the last
// iteration computed on, not in stage 0: the uses after the loop index
// that stage (docs/design.md, "A tile read after the loop"); with stage 0
// L differs whenever the number of whole tiles is even.
#define TILE 16

__global__ void last_tile_read(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, float *__restrict__ L, int M, int N,
                               int K)
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
        if (full + tx < K)
            As[ty][tx] = A[row * K + full + tx];
        else
            As[ty][tx] = 0.0f;
        Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < K - full; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
    }
    C[row * N + col] = acc;
    if (K > 0)
        L[row * N + col] = As[tx][ty] + Bs[ty][tx];
}
