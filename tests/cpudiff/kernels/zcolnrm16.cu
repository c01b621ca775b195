// zcolnrm16.cu - the squared 2-norm of each column of a row-major complex
// double matrix (kpipe's own kernel, held out from the calibration of
// auto's memory-bound rules: docs/benchmarks.md, "Memory-bound tiles").
// A 16x16 block owns 16 columns and walks down the rows 32 at a time: two
// 16-byte copies per thread into a 32x16 tile that keeps the global
// layout; each thread adds |z|^2 of two rows of its column.
//
// kpipe --variant auto: a 3-stage cp.async ring (memory-bound, and three
// 8 KB buffers fit the static limit).
typedef double2 zcomplex;

#define ZC_ROWS 32
#define ZC_COLS 16

__global__ void zcolnrm16(int m, int n, const zcomplex *__restrict__ A, int lda,
                          double *__restrict__ out)
{
    __shared__ zcomplex tile[ZC_ROWS][ZC_COLS];
    __shared__ double part[16][ZC_COLS + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col0 = blockIdx.x * ZC_COLS;
    double acc = 0.0;
    for (int r0 = 0; r0 < m; r0 += ZC_ROWS) {
        tile[ty][tx] = A[(size_t)(r0 + ty) * lda + col0 + tx];
        tile[ty + 16][tx] = A[(size_t)(r0 + ty + 16) * lda + col0 + tx];
        __syncthreads();
        for (int r = 2 * ty; r < 2 * ty + 2; r++) {
            zcomplex z = tile[r][tx];
            acc = fma(z.x, z.x, acc);
            acc = fma(z.y, z.y, acc);
        }
        __syncthreads();
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && col0 + tx < n) {
        double s = 0.0;
        for (int i = 0; i < 16; i++)
            s += part[i][tx];
        out[col0 + tx] = s;
    }
}
