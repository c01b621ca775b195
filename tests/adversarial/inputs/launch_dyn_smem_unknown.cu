// adversarial input: static 32x32 tiles in a kernel launched with a
// dynamic shared-memory size computed at run time (`bytes`): kpipe cannot
// tell whether doubled tiles plus that size stay within 48 KB.
// Expected: every loop refused (kpipe-smem-over-limit) saying the size
// passed at line 34 is not known; the input written unchanged.
#include <cuda_runtime.h>
#define TS 32
__global__ void mm_scratch(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    extern __shared__ float scratch[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    scratch[ty * TS + tx] = acc;
    __syncthreads();
    C[(size_t)row * N + col] = scratch[tx * TS + ty];
}

void run(const float *A, const float *B, float *C, int N, int K, size_t bytes)
{
    dim3 grid(N / TS, N / TS), block(TS, TS);
    void *args[] = {&A, &B, &C, &N, &K};
    cudaLaunchKernel((const void *)mm_scratch, grid, block, args, bytes, 0);
}
