// shared_table.cu - C = P A B with the rows of A gathered through a
// __shared__ index table the block fills before the K-loop (the shape of
// cuda-convnet2's `pxIdxes`): the tile loads read the table, which nothing
// in the loop writes, so the next tile's loads may read it early
// (analysis/shared_table.c).
#define T 16

__global__ void gather_rows(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ int rows[T];
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * T + tx;
    if (ty == 0)
        rows[tx] = ((blockIdx.y * T + tx) * 7 + 3) % M;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[rows[ty] * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(blockIdx.y * T + ty) * N + col] = acc;
}
