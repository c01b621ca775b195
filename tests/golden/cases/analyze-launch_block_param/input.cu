// A launcher whose block is a parameter named like the kernel's constant
// BS: the text "dim3 block(BS, BS)" reads as 16x16, but the block is
// whatever the caller passes.  Expected: "no block shape known" (before:
// 16x16x1, which the CPU verifier would also have launched).
#include <cuda_runtime.h>
constexpr int BS = 16;
__global__ void mm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N, int K)
{
    __shared__ float As[BS][BS];
    __shared__ float Bs[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * BS + ty, col = blockIdx.x * BS + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BS) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < BS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
void run2(const float *A, const float *B, float *C, int N, int K, int BS)
{
    dim3 block(BS, BS);
    dim3 grid(N / 16, N / 16);
    mm<<<grid, block>>>(A, B, C, N, K);
}
