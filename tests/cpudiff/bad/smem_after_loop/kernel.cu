// kernel.cu - a weighted tiled product followed by a per-row correction
// (written for the cpudiff tests).  The compute phase of the K-loop reads a
// small shared weight vector sc[] that is not a tile; after the loop the
// same shared array is reused for per-row offsets, so the code after the
// loop writes sc[] while, without a barrier after the loop, slower threads
// may still be reading the weights.
//   C[r][c] = sum_k A[r][k] * B[k][c] * w[k % 16] + bias[r]
// M, N, K multiples of 16.
#define TS 16

__global__ void weighted_matmul(const float *__restrict__ A, const float *__restrict__ B,
                                const float *__restrict__ w, const float *__restrict__ bias,
                                float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    __shared__ float sc[TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;

    if (ty == 0)
        sc[tx] = w[tx];
    __syncthreads();

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx] * sc[kk];
        __syncthreads();
    }

    // reuse sc for the row offsets of this block
    if (tx == 0)
        sc[ty] = bias[row];
    __syncthreads();
    C[(size_t)row * N + col] = acc + sc[ty];
}
