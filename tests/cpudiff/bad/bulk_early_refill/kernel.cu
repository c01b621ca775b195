// kernel.cu - fp32 C = A * B for any M, N, K: 16x16 tiles copied through
// ternary guards that store zero outside the matrices, one output per
// thread.  Interior tiles take the bulk copies (when K and N keep the rows
// 16-byte aligned), edge tiles the guarded copies.
// (a test kernel of the CPU checker, tests/cpudiff/catches.sh)
#define T 16

__global__ void mm_guarded16(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                             int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * T + ty;
    const int col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
