// A 16x16-tile matmul launched by host code in the same file, for the
// tensor-map form: its wrong rewrite passes the box's row as the tensor
// copy's first coordinate and its column as the second.
#define T 16

__global__ void mm16(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

void mm16_run(const float *A, const float *B, float *C, int M, int N, int K)
{
    mm16<<<dim3(N / T, M / T), dim3(T, T)>>>(A, B, C, N, K);
}
