// zcol_absmax.cu - the largest modulus in each column of a complex double
// matrix (column-major), a max-norm kernel in a BLAS library's style
// (kpipe's own kernel).  A 32x4 block owns 32 columns and walks down the
// rows 32 at a time: the tile keeps the global layout (tile[col][row]),
// eight 16-byte copies per thread, and each thread takes the maximum over 8
// rows of one column (fmax: the only arithmetic of the compute phase).
//
// kpipe --variant auto: register staging (memory-bound, and three
// cp.async stages do not fit the 48 KB static limit; docs/benchmarks.md,
// "Memory-bound tiles").
typedef double2 zcomplex;

#define ZM_COLS 32
#define ZM_ROWS 32

__global__ void zcol_absmax(int m, int n, const zcomplex *__restrict__ A, int lda,
                            double *__restrict__ out)
{
    __shared__ zcomplex tile[ZM_COLS][ZM_ROWS + 1];
    __shared__ double part[4][ZM_COLS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col0 = blockIdx.x * ZM_COLS;
    double best = 0.0;
    for (int r0 = 0; r0 < m; r0 += ZM_ROWS) {
#pragma unroll
        for (int j = 0; j < ZM_COLS; j += 4)
            tile[ty + j][tx] = A[(size_t)(col0 + ty + j) * lda + r0 + tx];
        __syncthreads();
#pragma unroll
        for (int i = ty * 8; i < ty * 8 + 8; i++) {
            zcomplex z = tile[tx][i];
            best = fmax(best, sqrt(z.x * z.x + z.y * z.y));
        }
        __syncthreads();
    }
    part[ty][tx] = best;
    __syncthreads();
    if (ty == 0 && col0 + tx < n)
        out[col0 + tx] = fmax(fmax(part[0][tx], part[1][tx]), fmax(part[2][tx], part[3][tx]));
}
