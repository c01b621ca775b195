// kernel.cu - a K-loop whose condition counts its own evaluations
// (written for the cpudiff tests): `k0 < K && it++ < 3` stops after three
// tiles.  The old rewrite copied the condition into the prologue guard,
// the loop and the prefetch guard, so `it` advanced two or three times per
// tile and the loop stopped early.  M, N, K multiples of 16.
#define TS 16

__global__ void capped_matmul(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    int it = 0;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K && it++ < 3; k0 += TS) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
