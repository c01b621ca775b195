// tile_origin.cu - a tiled matrix product for any M, N, K whose load phase
// declares the tile's first column and its width (`const int k0 = t *
// TILE;`, `const int kw = min(TILE, K - k0);`), guards its copies with
// them and hands the width to the compute phase, which stops at it.
// 16x16 threads.
//
// kpipe: eligible.  k0 and kw are tile values, the second computed from
// the first: the rewrite declares both again at the top of the compute
// phase, for the tile it computes on.

#define TILE 16

__global__ void tile_origin(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        const int k0 = t * TILE;
        const int kw = min(TILE, K - k0);
        if (row < M && tx < kw)
            As[ty][tx] = A[row * K + k0 + tx];
        else
            As[ty][tx] = 0.0f;
        if (col < N && ty < kw)
            Bs[ty][tx] = B[(k0 + ty) * N + col];
        else
            Bs[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
