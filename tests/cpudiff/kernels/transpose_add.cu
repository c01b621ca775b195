// transpose_add.cu - Z = alpha * X + Y^T through a padded 32x17 tile, the
// shape of a BLAS geam/transpose kernel: C89 scratch indices `r, s`
// declared before the K-loop and assigned in both phases, loops under
// `#pragma unroll`, and the copy guarded on both dimensions without an
// else (`if (r < m)`, `if (s + q < n)`) where the compute reads the tile
// transposed under conditions that bound each subscript by the same
// amount (`r + p < n`, `s + q < m`).  Ragged m and n leave the tail of the
// last tiles unwritten and unread (docs/design.md, "Guarded copies without
// else").
#define TB 32
#define TX 16
#define TY 8

__global__ void transpose_add(int m, int n, float alpha, const float *__restrict__ X, int ldx,
                              const float *__restrict__ Y, int ldy, float *__restrict__ Z,
                              int ldz)
{
    __shared__ float sY[TB][TX + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x * TB;
    int by = blockIdx.y * TB;
    int r, s;
    X += by + tx + (bx + ty) * ldx;
    Y += bx + tx + (by + ty) * ldy;
    Z += by + tx + (bx + ty) * ldz;
#pragma unroll
    for (int t = 0; t < TB / TX; ++t) {
        r = bx + tx + t * TX;
        s = by + ty;
        if (r < m) {
#pragma unroll
            for (int q = 0; q < TB; q += TY) {
                if (s + q < n) {
                    sY[ty + q][tx] = Y[q * ldy];
                }
            }
        }
        __syncthreads();
        r = by + tx;
        s = bx + ty + t * TX;
#pragma unroll
        for (int p = 0; p < TB; p += TX) {
            if (r + p < n) {
#pragma unroll
                for (int q = 0; q < TX; q += TY) {
                    if (s + q < m) {
                        Z[p + q * ldz] = alpha * X[p + q * ldx] + sY[tx + p][ty + q];
                    }
                }
            }
        }
        __syncthreads();
        X += TX * ldx;
        Y += TX;
        Z += TX * ldz;
    }
}
