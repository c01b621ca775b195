// matmul_tilecount.cu - fp32 C = A * B (row-major) for arbitrary M, N, K,
// 16x16 tiles, one output per thread.
//
// K-loop shape: a tile-count loop, `for (int t = 0; t < (K + TS - 1) / TS;
// ++t)`.  The copies are ternary-guarded (`cond ? A[...] : 0.0f`) and use two
// int temporaries (ka, kb) that are declared in the load part and are dead
// after the first barrier.  Zero, one or many tiles, ragged edges allowed.
//
// kpipe: eligible.  The trip count is loop-invariant, the guards depend only
// on t and on loop-invariant values, and every tile element is written.

#define TS 16

__global__ void matmul_tilecount(const float *__restrict__ A,
                                 const float *__restrict__ B,
                                 float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float sum = 0.0f;

    for (int t = 0; t < (K + TS - 1) / TS; ++t) {
        const int ka = t * TS + tx;
        const int kb = t * TS + ty;
        As[ty][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
        __syncthreads();

        for (int kk = 0; kk < TS; ++kk)
            sum += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = sum;
}
