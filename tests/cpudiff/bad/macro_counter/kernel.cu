// kernel.cu - a 16x16 tiled product whose A index hides the loop counter
// inside a macro (written for the cpudiff tests): AIDX(r, c) expands to
// `r * K + k0 + c`, so the load `As[ty][tx] = A[AIDX(row, tx)]` depends on
// k0 without naming it.  A prefetch that advances only the counters it can
// see reloads the current tile.  M, N, K multiples of 16.
#define TS 16
#define AIDX(r, c) ((size_t)(r) * K + k0 + (c))

__global__ void macro_matmul(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[AIDX(row, tx)];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
