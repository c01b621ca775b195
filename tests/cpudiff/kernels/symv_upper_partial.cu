// symv_upper_partial.cu - the block-row pass of a symmetric matrix-vector
// product over the upper triangle of A (64-row blocks): block b multiplies
// the blocks right of its diagonal block by x.  The last block column may
// be partial: at the top of the copies, the K-loop computes how many of
// its columns exist (`partial`, 0 for a full block, C89 style: declared
// at the top of the kernel and assigned again after the loop), and both
// the copy of x and the compute phase's reads of A are guarded by it.
// 64x4 threads; n of any size.
//
// kpipe: eligible.  `partial` is a tile value: a pure function of the
// loop counter and of values the loop never changes, so the rewrite
// evaluates it again at the top of the compute phase (the load phase,
// run a tile ahead, leaves the next tile's).  Without that, the next to
// last block column would be computed with the last one's count.

#define RB 64
#define QR 16

__global__ void symv_upper_partial(int n, const double *__restrict__ A, int lda,
                                   const double *__restrict__ x, double *__restrict__ work)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int b = blockIdx.x;
    const int nb = gridDim.x;
    const int row = b * RB + tx;
    __shared__ double xj[RB];
    __shared__ double red[4][RB];
    double ra[4];
    double rowsum = 0.0;
    int partial;

    for (int j = b + 1; j < nb; ++j) {
        partial = (j == nb - 1 ? (n % RB) : 0);

        if (ty == 0) {
            if (partial == 0 || tx < partial) {
                xj[tx] = x[j * RB + tx];
            }
            else {
                xj[tx] = 0.0;
            }
        }
        __syncthreads();

        for (int q = 0; q < 4; q++) {
            #pragma unroll
            for (int e = 0; e < 4; e++) {
                const int c = QR * q + 4 * ty + e;
                if (row < n && (partial == 0 || c < partial))
                    ra[e] = A[row + (j * RB + c) * lda];
                else
                    ra[e] = 0.0;
            }
            #pragma unroll
            for (int e = 0; e < 4; e++)
                rowsum += ra[e] * xj[QR * q + 4 * ty + e];
        }
        __syncthreads();
    }

    partial = (b == nb - 1 ? (n % RB) : 0);
    red[ty][tx] = rowsum;
    __syncthreads();
    if (ty == 0 && (partial == 0 || tx < partial))
        work[row] = red[0][tx] + red[1][tx] + red[2][tx] + red[3][tx];
}
