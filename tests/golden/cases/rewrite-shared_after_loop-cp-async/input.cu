// The compute phase reads a non-tile shared array `sc` that the code after
// the K-loop writes: the cp.async form must end with a barrier, or a fast
// thread's store races with a slow thread's last reads.
#define T 16
__global__ void mm_scaled(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, const float *__restrict__ scale, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float sc[T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    if (ty == 0)
        sc[tx] = scale[tx];
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += sc[kk] * As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (ty == 0)
        sc[tx] = acc;
    C[row * N + col] = acc;
}
