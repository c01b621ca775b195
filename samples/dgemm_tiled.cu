// dgemm_tiled.cu - fp64 C = alpha * A * B + beta * C (row-major) for
// arbitrary M, N, K, with 16x16 shared tiles of doubles and one output per
// thread (16x16 thread blocks): the textbook double-precision GEMM.
//
// K-loop shape: `for (int t = 0; t < ntiles; ++t)` over the K tiles; each
// tile copy is an if/else that stores 0.0 outside the matrix, a barrier,
// the 16-term inner product in double, a barrier.  The loop may run zero
// times (K == 0), once, or any number of times.  The epilogue reads C
// (beta) and the scalars alpha and beta are doubles, so the launch
// description uses the `double` type for buffers and scalars.
//
// kpipe: eligible.  8-byte copies map to cp.async with zero-fill or to
// guarded register loads; the rewrite is verified on the CPU emulator
// (docs/verify.md) like a float kernel's.

#define TILE 16

__global__ void dgemm_tiled(const double *__restrict__ A, const double *__restrict__ B,
                            double *__restrict__ C, int M, int N, int K, double alpha,
                            double beta)
{
    __shared__ double As[TILE][TILE];
    __shared__ double Bs[TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int ntiles = (K + TILE - 1) / TILE;
    double acc = 0.0;

    for (int t = 0; t < ntiles; ++t) {
        const int ka = t * TILE + tx;
        const int kb = t * TILE + ty;
        if (row < M && ka < K)
            As[ty][tx] = A[(size_t)row * K + ka];
        else
            As[ty][tx] = 0.0;
        if (kb < K && col < N)
            Bs[ty][tx] = B[(size_t)kb * N + col];
        else
            Bs[ty][tx] = 0.0;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}
