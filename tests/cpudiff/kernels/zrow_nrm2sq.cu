// zrow_nrm2sq.cu - the squared 2-norm of each row of a complex double
// matrix stored row-major (kpipe's own kernel).  A 32x8 block owns 8 rows
// and walks along them 128 columns at a time; each thread copies four
// 16-byte elements per tile (the tile keeps the global layout) and adds
// re^2 + im^2 of four elements of its row with fma().
//
// kpipe --variant auto: register staging (memory-bound, and three
// cp.async stages do not fit the static limit; docs/benchmarks.md,
// "Memory-bound tiles").
typedef double2 zcomplex;

#define ZN_ROWS 8
#define ZN_COLS 128

__global__ void zrow_nrm2sq(int m, int n, const zcomplex *__restrict__ A, int lda,
                            double *__restrict__ out)
{
    __shared__ zcomplex tile[ZN_ROWS][ZN_COLS];
    __shared__ double part[ZN_ROWS][33];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.x * ZN_ROWS + ty;
    const zcomplex *a = A + (size_t)row * lda;
    double acc = 0.0;
    for (int c0 = 0; c0 < n; c0 += ZN_COLS) {
#pragma unroll
        for (int q = 0; q < 4; q++)
            tile[ty][q * 32 + tx] = a[c0 + q * 32 + tx];
        __syncthreads();
#pragma unroll
        for (int q = 0; q < 4; q++) {
            zcomplex z = tile[ty][tx * 4 + q];
            acc = fma(z.x, z.x, acc);
            acc = fma(z.y, z.y, acc);
        }
        __syncthreads();
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (tx == 0 && row < m) {
        double s = 0.0;
        for (int i = 0; i < 32; i++)
            s += part[ty][i];
        out[row] = s;
    }
}
