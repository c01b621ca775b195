// matmul_ragged.cu - fp32 C = A * B for any M, N, K with 16x16 tiles whose
// copies are guarded without an else: on the last, partial tile the
// elements past K keep the previous tile, and the compute reads only the
// first K - k0 columns of As and rows of Bs (`kk < min(S, K - k0)`), the
// part the guards wrote (docs/design.md, "Guarded copies without else").
#define S 16

__global__ void matmul_ragged(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += S) {
        if (row < M && k0 + tx < K)
            As[ty][tx] = A[row * K + k0 + tx];
        if (k0 + ty < K && col < N)
            Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < min(S, K - k0); ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
