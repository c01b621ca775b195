// adversarial input: the kernel takes a `const __grid_constant__` struct
// parameter.  --variant tma writes a host launcher that makes the tensor
// maps and takes the kernel's parameters: it copied the parameter list
// verbatim, and nvcc rejects __grid_constant__ on a host function's
// parameter.
// Expected (--variant tma --stages 3): rewritten; the launcher's
// parameter has no __grid_constant__ (the kernel's keeps it); the output
// compiles.
#include <cuda_runtime.h>

struct Scale {
    float alpha;
    int pad[7];
};

__global__ void matmul_32x32(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K,
                             const __grid_constant__ Scale s)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty;
    const int col = blockIdx.x * 32 + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < 32; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M)
        C[(size_t)row * N + col] = s.alpha * acc;
}

// Host-side launcher, as an application would have it.  Returns the launch
// status; the caller synchronises.
cudaError_t launch_matmul_32x32(const float *A, const float *B, float *C,
                                int M, int N, int K, Scale s, cudaStream_t stream)
{
    if (M % 32 != 0 || N % 32 != 0 || K % 32 != 0)
        return cudaErrorInvalidValue;
    const dim3 block(32, 32);
    const dim3 grid(N / 32, M / 32);
    matmul_32x32<<<grid, block, 0, stream>>>(A, B, C, M, N, K, s);
    return cudaGetLastError();
}
