// second_kloop_else.cu - kpipe's own kernel, in the style of a BLAS
// library's row-sum norm: the blocks of full rows run one K-loop over a
// tile, the last block another K-loop over the same tile, loaded
// transposed, in the else branch of `if (blockIdx.x < nfull)`.  Each then
// folds the partial sums through the tile once more.  The first loop's
// uses are in the other branch, on no path to the second loop, so both
// loops are pipelined over one pair of buffers (docs/design.md, "A second
// K-loop over the same tiles").
#define BS 16

__global__ void second_kloop_else(const float *__restrict__ A, float *__restrict__ out, int n,
                                  int nfull)
{
    __shared__ float t[BS][BS + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.x * BS;
    float res = 0.0f;
    if (blockIdx.x < nfull) {
        for (int c0 = 0; c0 < n; c0 += BS) {
            t[ty][tx] = A[(r0 + ty) * n + c0 + tx];
            __syncthreads();
            for (int j = 0; j < BS; j++)
                res += t[tx][j] * (float)(j + 1);
            __syncthreads();
        }
        t[tx][ty] = res;
        __syncthreads();
        if (ty == 0) {
            float s = 0.0f;
            for (int j = 0; j < BS; j++)
                s += t[tx][j];
            out[r0 + tx] = s;
        }
    } else {
        for (int c0 = 0; c0 < n; c0 += BS) {
            t[tx][ty] = A[(c0 + ty) * n + r0 + tx];
            __syncthreads();
            for (int j = 0; j < BS; j++)
                res += t[tx][j] - t[j][tx];
            __syncthreads();
        }
        t[tx][ty] = res;
        __syncthreads();
        if (ty == 0) {
            float s = 0.0f;
            for (int j = 0; j < BS; j++)
                s -= t[tx][j];
            out[r0 + tx] = s;
        }
    }
}
