// second_kloop.cu - kpipe's own kernel: C = A * B (fp32, row-major) in three
// parts over the same two tiles, in the style of a BLAS library's
// triangular-aware multiply: a first K-loop over the whole tiles of part 1,
// one tile refilled under `if (part > 0)` with the same copies (its tail
// zero-filled) and computed with a weight, then a second K-loop over the
// tiles after it.  The refill and the second loop name the tiles the first
// loop left, but every path from those uses to the second loop crosses a
// __syncthreads(), and every store into the tiles before it is one of the
// second loop's own copies: both K-loops are pipelined over one pair of
// buffers (docs/design.md, "A second K-loop over the same tiles").
#define TS 16

__global__ void second_kloop(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K, int part1)
{
    __shared__ float sA[TS][TS + 1];
    __shared__ float sB[TS][TS + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    int kk;

    for (kk = 0; kk < part1; kk += TS) {
        sA[ty][tx] = A[row * K + kk + tx];
        sB[ty][tx] = B[(kk + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TS; k++)
            acc += sA[ty][k] * sB[k][tx];
        __syncthreads();
    }

    const int part = K - part1 < TS ? K - part1 : TS;
    if (part > 0) {
        sA[ty][tx] = tx < part ? A[row * K + part1 + tx] : 0.0f;
        sB[ty][tx] = ty < part ? B[(part1 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < part; k++)
            acc += 0.5f * sA[ty][k] * sB[k][tx];
        __syncthreads();
    }

    for (kk = part1 + TS; kk + TS <= K; kk += TS) {
        sA[ty][tx] = A[row * K + kk + tx];
        sB[ty][tx] = B[(kk + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TS; k++)
            acc += 2.0f * sA[ty][k] * sB[k][tx];
        __syncthreads();
    }

    C[row * N + col] = acc + (K > 0 ? sA[ty][tx] : 0.0f);
}
