// second_kloop_cover.cu - kpipe's own kernel, in the style of a BLAS
// library's row-sum norm of a symmetric matrix stored lower: a 32 x 4
// block sums the rows of its 32-row block.  A first K-loop loads the
// tiles left of the diagonal row by row (`t[tx][ty + j]`), the diagonal
// tile is loaded the same way and mirrored (its upper triangle written
// from the lower one), and a second K-loop, in the same branch, loads the
// tiles below the diagonal transposed (`t[ty + j][tx]`).  The stores
// before the second loop are spelled unlike its copies, but with a 32 x 4
// block both write every element of the 32 x 32 tile, and the mirror's
// elements are among them: both K-loops are pipelined over one pair of
// buffers (docs/design.md, "A second K-loop over the same tiles").  With
// another block shape they are not (tests/adversarial/inputs/second_kloop.cu).
#define BS 32

__global__ void second_kloop_cover(const float *__restrict__ A, float *__restrict__ out, int n)
{
    __shared__ float t[BS][BS + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int diag = blockIdx.x * BS;
    float res = 0.0f;
    const float *a = A + (diag + tx) + ty * n;

    for (int i = 0; i < diag; i += BS) {
        for (int j = 0; j < BS; j += 4)
            t[tx][ty + j] = a[j * n];
        a += BS * n;
        __syncthreads();
        for (int j = ty * 8; j < ty * 8 + 8; j++)
            res += t[tx][j] * (float)(j % 3 + 1);
        __syncthreads();
    }

    for (int j = 0; j < BS; j += 4)
        t[tx][ty + j] = a[j * n];
    __syncthreads();
    for (int i = ty * 8; i < ty * 8 + 8; i++) {
        if (i < tx)
            t[i][tx] = t[tx][i];
        else if (i == tx)
            t[i][i] = 0.5f * t[i][i];
    }
    __syncthreads();
    for (int j = ty * 8; j < ty * 8 + 8; j++)
        res += t[tx][j];
    __syncthreads();

    a += BS;
    for (int i = diag + BS; i < n; i += BS) {
        for (int j = 0; j < BS; j += 4)
            t[ty + j][tx] = a[j * n];
        a += BS;
        __syncthreads();
        for (int j = ty * 8; j < ty * 8 + 8; j++)
            res -= t[tx][j];
        __syncthreads();
    }

    t[tx][ty] = res;
    __syncthreads();
    if (ty == 0)
        out[diag + tx] = t[tx][0] + t[tx][1] + t[tx][2] + t[tx][3];
}
