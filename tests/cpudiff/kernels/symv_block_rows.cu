// symv_block_rows.cu - the block-row pass of a symmetric matrix-vector
// product (the lower triangle of A, 64-row blocks): block b multiplies the
// blocks left of its diagonal block by x and writes one partial row sum per
// block to a workspace, which a second kernel would add up.  Each iteration
// of the K-loop loads 64 entries of x into a tile, then works through four
// 64x16 quarters of A (registers), reducing each through a shared scratch
// array between barriers, and writes its row sums through the same scratch
// array: five barriers per iteration, two of them in a nested loop.  64x4
// threads; n a multiple of 64.
//
// kpipe: eligible.  The extra barriers sit in the compute phase, which the
// rewrite keeps as written; the scratch array is written and read only
// there (and after the loop, behind the barrier kpipe adds); only the x
// tile is pipelined.

#define RB 64
#define QR 16
#define RED(i_, j_) (red[(i_)][(j_)])

__global__ void symv_block_rows(int n, const double *__restrict__ A, int lda,
                                const double *__restrict__ x, double *__restrict__ work)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int lin = RB * ty + tx;
    const int b = blockIdx.x;
    const int qx = lin % QR;
    const int qy = lin / QR;
    __shared__ double red[QR][RB + 3];
    __shared__ double xb[RB];
    __shared__ double xj[RB];
    double ra[4];
    double part[4];
    double rowsum = 0.0;
    double t;

    if (ty == 0)
        xb[tx] = x[b * RB + tx];
    __syncthreads();
    A += b * RB + tx + 4 * ty * lda;

    for (int j = 0; j < b; ++j) {
        if (ty == 0) {
            xj[tx] = x[j * RB + tx];
        }
        __syncthreads();

        for (int q = 0; q < 4; q++) {
            #pragma unroll
            for (int e = 0; e < 4; e++)
                ra[e] = A[e * lda];
            #pragma unroll
            for (int e = 0; e < 4; e++) {
                rowsum += ra[e] * xj[QR * q + ty * 4 + e];
                RED(ty * 4 + e, tx) = ra[e] * xb[tx];
            }
            __syncthreads();
            t = 0.0;
            #pragma unroll
            for (int e = 0; e < 4; e++)
                t += RED(qx, qy * 4 + e);
            __syncthreads();
            part[q] = t;
            A += lda * QR;
        }

        #pragma unroll
        for (int q = 0; q < 4; q++)
            RED(qx, qy + QR * q) = part[q];
        __syncthreads();
        if (qy < 4) {
            const int o = qy * QR;
            t = 0.0;
            for (int c = 0; c < QR; c++)
                t += RED(qx, c + o);
            work[b * n + j * RB + qx + o] = t;
        }
        __syncthreads();
    }

    RED(ty, tx) = rowsum;
    __syncthreads();
    if (ty == 0) {
        rowsum = RED(0, tx) + RED(1, tx) + RED(2, tx) + RED(3, tx);
        work[b * n + b * RB + tx] = rowsum;
    }
}
