// A dim3 block changed after its initialiser (block.y = 16): the block is
// not the initialiser's 16x8, and kpipe must not read it from there.
// Expected: "no block shape known" (before: 16x8x1, which the CPU verifier
// would also have launched).
#include <cuda_runtime.h>
#define T 16
__global__ void mm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
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
void run(const float *A, const float *B, float *C, int N, int K)
{
    dim3 block(16, 8);
    block.y = 16;
    dim3 grid(N / T, N / T);
    mm<<<grid, block>>>(A, B, C, N, K);
}
