// A count-down K-loop over an unsigned counter: `(k - 3 * 16) > 0u` wraps
// around when fewer than three tiles are left, so the 4-stage ring chains
// the advanced conditions and stops at the first false one.
#define T 16
__global__ void mm_down(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int N, unsigned K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (unsigned k = K; k > 0u; k -= T) {
        As[ty][tx] = A[row * K + (K - k) + tx];
        Bs[ty][tx] = B[(K - k + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
