// kernel.cu - a count-down K-loop over an unsigned counter (written for the
// cpudiff tests).  With 4 stages the old guard of tile i+3 was
// `(k - 3 * 16) > 0u`, which wraps to a huge value when fewer than three
// tiles are left: the prefetch read past the end of A and B.
#define TS 16

__global__ void down_matmul(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (unsigned k = (unsigned)K; k > 0u; k -= TS) {
        const int k0 = K - (int)k;
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
