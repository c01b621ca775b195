// refused_divergent_barrier.cu - fp32 C = A * B (row-major), 16x16 tiles, one
// output per thread, written with an "only the columns in range do the math"
// shortcut that puts the closing barrier of the K-loop inside a condition on
// threadIdx.x:
//   for (...) { LOAD; __syncthreads(); if (threadIdx.x < cols) { COMPUTE;
//               __syncthreads(); } }
// `cols` is the same for the whole block, but the condition still depends on
// the thread, so barrier uniformity cannot be shown statically.  The kernel
// is only correct when N is a multiple of 16 (then every thread takes the
// branch); M and K must be multiples of 16 as well.
//
// kpipe: REFUSE (barrier under thread-dependent control flow).  Pipelining
// would move loads across a barrier that not every thread is known to reach.

#define DB_TILE 16

__global__ void matmul_divergent_barrier(const float *__restrict__ A,
                                         const float *__restrict__ B,
                                         float *__restrict__ C, int M, int N,
                                         int K)
{
    __shared__ float As[DB_TILE][DB_TILE];
    __shared__ float Bs[DB_TILE][DB_TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * DB_TILE + ty;
    const int col = blockIdx.x * DB_TILE + tx;
    const int cols = min(DB_TILE, N - (int)blockIdx.x * DB_TILE);
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += DB_TILE) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();

        if (threadIdx.x < cols) {
            for (int kk = 0; kk < DB_TILE; ++kk)
                acc += As[ty][kk] * Bs[kk][tx];
            __syncthreads();
        }
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
