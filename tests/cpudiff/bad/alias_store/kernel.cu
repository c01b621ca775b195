// kernel.cu - a tiled product with feedback (written for the cpudiff
// tests): after each K-tile a thread adds half its running sum into the
// element of A it will load from the next tile, through a local copy W of
// the pointer A.  The next tile's global data thus changes during the
// compute phase; a pipeline that fetches the next tile before the compute
// reads the old values.  One block column (N = 16), so every row of A
// belongs to one block.  M, K multiples of 16.
#define TS 16

__global__ void feedback_matmul(float *A, const float *__restrict__ B, float *__restrict__ C,
                                int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float *W = A;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (k0 + TS < K)
            W[(size_t)row * K + k0 + TS + tx] += 0.5f * acc;
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
