// matmul_while.cu - fp32 C = A * B (row-major) for arbitrary M, N, K, with
// 16x16 shared tiles, written with a while-loop over the K tiles, as older
// library code often is: the tile counter is declared before the loop and
// stepped by the loop's last statement.
//
// K-loop shape: `int t = 0; while (t < ntiles) { ...; ++t; }`; guarded
// if/else copies (zero outside the matrix), a barrier, the 16-term inner
// product, a barrier, then the step.
//
// kpipe: the canon pass writes the loop as `for (; t < ntiles; ++t)` (no
// `continue` skips the step, the condition writes nothing, the step writes
// only t), and the for-loop is pipelined.

#define TILE 16

__global__ void matmul_while(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int ntiles = (K + TILE - 1) / TILE;
    float acc = 0.0f;
    int t = 0;
    while (t < ntiles) {
        int ka = t * TILE + tx, kb = t * TILE + ty;
        if (row < M && ka < K)
            As[ty][tx] = A[row * K + ka];
        else
            As[ty][tx] = 0.0f;
        if (kb < K && col < N)
            Bs[ty][tx] = B[kb * N + col];
        else
            Bs[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
        ++t;
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
