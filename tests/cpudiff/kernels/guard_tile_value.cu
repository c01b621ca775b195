// guard_tile_value.cu - a tiled matrix product for any K whose copies are
// guarded without an else (`if (tx < kw) As[ty][tx] = ...;`) by the width
// of the tile, computed at the top of the load phase (`kw = min(T, K -
// t * T);`, C89 style), and whose compute phase reads only the columns the
// guard wrote (`k < kw`).  16x16 threads; M and N multiples of 16.
//
// kpipe: eligible.  `kw` is a tile value (analysis/tile_value.c): the
// guard and the compute's bound are the same value in each iteration, so
// the compute reads only elements the copies wrote (analysis/guard_cover.c)
// even though the guard changes on the last tile; the rewrite sets `kw`
// again at the top of the compute phase, and register staging's store,
// under the same guard, keeps the statement that sets the next tile's.

#define T 16

__global__ void guard_tile_value(const float *__restrict__ A, const float *__restrict__ B,
                                 float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int kw;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        kw = min(T, K - t * T);
        if (tx < kw)
            As[ty][tx] = A[row * K + t * T + tx];
        if (ty < kw)
            Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
