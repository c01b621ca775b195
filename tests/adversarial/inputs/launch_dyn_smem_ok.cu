// near miss of launch_dyn_smem.cu: the same kernel launched with 16 KB of
// dynamic shared memory (16 + 16 = 32 KB after doubling), once with
// <<<>>> and once with cudaLaunchKernel, and 40 KB where the file raises
// cudaFuncAttributeMaxDynamicSharedMemorySize (the opt-in limit applies).
// Expected: rewritten (both kernels pipelined); the output compiles.
#include <cuda_runtime.h>
#define TS 32
template <int X>
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
    scratch[ty * TS + tx] = acc * X;
    __syncthreads();
    C[(size_t)row * N + col] = scratch[tx * TS + ty];
}

static const size_t kScratch = 16 * 1024;

void run(const float *A, const float *B, float *C, int N, int K, cudaStream_t s)
{
    dim3 grid(N / TS, N / TS), block(TS, TS);
    mm_scratch<1><<<grid, block, kScratch, s>>>(A, B, C, N, K);
    void *args[] = {&A, &B, &C, &N, &K};
    cudaLaunchKernel((const void *)mm_scratch<1>, grid, block, args, sizeof(float) * 4096, s);
    cudaFuncSetAttribute(mm_scratch<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 40 * 1024);
    mm_scratch<2><<<grid, block, 40 * 1024, s>>>(A, B, C, N, K);
}
