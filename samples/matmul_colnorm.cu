// matmul_colnorm.cu - fp32 C = A * normalize_columns(B): the product A*B
// with every column j divided by the Euclidean norm of column j of B.  The
// column norms are accumulated during the same K-loop, in a __shared__ array
// colsq[] that the compute phase of one iteration updates and the compute
// phase of the next iteration reads again (then every thread reads it after
// the loop).  16x16 tiles, one output per thread; M, N, K multiples of 16.
//
// K-loop shape: LOAD; barrier; COMPUTE (which also does colsq[tx] += ...
// in the first row of threads); barrier.
//
// kpipe: eligible.  COMPUTE carries state from one iteration to the next
// through shared memory, but the loads never read it: the rewrite keeps the
// compute phase in order with a barrier between one iteration's compute and
// the next one's, so colsq sees the same order (refused_smem_carry.cu is the
// shape that is not safe: its loads read such an array).

#define SC_TILE 16

__global__ void matmul_colnorm(const float *__restrict__ A,
                               const float *__restrict__ B,
                               float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[SC_TILE][SC_TILE];
    __shared__ float Bs[SC_TILE][SC_TILE];
    __shared__ float colsq[SC_TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * SC_TILE + ty;
    const int col = blockIdx.x * SC_TILE + tx;
    float acc = 0.0f;

    if (ty == 0)
        colsq[tx] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += SC_TILE) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();

        for (int kk = 0; kk < SC_TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0) {
            float s = colsq[tx];
            for (int kk = 0; kk < SC_TILE; ++kk)
                s += Bs[kk][tx] * Bs[kk][tx];
            colsq[tx] = s;
        }
        __syncthreads();
    }

    __syncthreads();
    const float norm = sqrtf(colsq[tx]);
    if (row < M && col < N)
        C[(size_t)row * N + col] = norm > 0.0f ? acc / norm : 0.0f;
}
