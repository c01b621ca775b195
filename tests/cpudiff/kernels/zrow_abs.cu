// zrow_abs.cu - the 1-norm of each row of a complex double matrix
// (column-major, leading dimension lda), in the style of a BLAS library's
// norm kernels (kpipe's own kernel).  A 32x4 block sums |a(i,j)| over 32
// rows; each K-tile is 32 columns, stored transposed in shared memory
// (tile[row][col], one column of padding), eight 16-byte copies per
// thread.  Each thread adds 8 of a row's 32 moduli per tile (a loop from
// ty * 8 to ty * 8 + 8); the four partial sums are added after the loop.
//
// kpipe --variant auto: register staging.  Each warp's copy writes one
// 16-byte element per row of the tile, 32 sectors of shared memory for 16
// sectors' worth of bytes, where cp.async lost on the H100 (0.87x against
// register staging's 1.41x; docs/benchmarks.md, "Memory-bound tiles").
typedef double2 zcomplex;

#define ZR_ROWS 32
#define ZR_COLS 32

__global__ void zrow_abs(int m, int n, const zcomplex *__restrict__ A, int lda,
                         double *__restrict__ out)
{
    __shared__ zcomplex tile[ZR_ROWS][ZR_COLS + 1];
    __shared__ double part[4][ZR_ROWS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.x * ZR_ROWS + tx;
    const zcomplex *a = A + row;
    double sum = 0.0;
    for (int c0 = 0; c0 < n; c0 += ZR_COLS) {
#pragma unroll
        for (int j = 0; j < ZR_COLS; j += 4)
            tile[tx][ty + j] = a[(size_t)(c0 + ty + j) * lda];
        __syncthreads();
#pragma unroll
        for (int j = ty * 8; j < ty * 8 + 8; j++) {
            zcomplex z = tile[tx][j];
            sum += sqrt(z.x * z.x + z.y * z.y);
        }
        __syncthreads();
    }
    part[ty][tx] = sum;
    __syncthreads();
    if (ty == 0 && row < m)
        out[row] = (part[0][tx] + part[1][tx]) + (part[2][tx] + part[3][tx]);
}
