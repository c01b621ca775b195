// adversarial input: two 16 KB tiles, whose two buffers (64 KB) fit only
// the opt-in limit, so a two-buffer variant moves them to dynamic shared
// memory and edits the kernel's launches; the kernel is launched once
// with <<<>>> and once with cudaLaunchKernel, which kpipe does not edit:
// that launch would pass no dynamic shared memory ("illegal memory
// access" on the H200).
// Expected: with --variant cp-async, refused (kpipe-smem-over-limit)
// naming the cudaLaunchKernel call at line 44, input written unchanged;
// with --variant auto, register-2bar (one buffer, static) is rewritten.
#include <cuda_runtime.h>
#define TS 64
__global__ void big_tiles(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TS, col = blockIdx.x * TS + tx;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += TS) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            As[ty * 4 + r][tx] = A[(size_t)(row0 + ty * 4 + r) * K + k0 + tx];
            Bs[ty * 4 + r][tx] = B[(size_t)(k0 + ty * 4 + r) * N + col];
        }
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                acc[r] += As[ty * 4 + r][kk] * Bs[kk][tx];
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < 4; ++r)
        C[(size_t)(row0 + ty * 4 + r) * N + col] = acc[r];
}

void run(const float *A, const float *B, float *C, int N, int K, cudaStream_t s)
{
    dim3 grid(N / TS, N / TS), block(TS, 16);
    big_tiles<<<grid, block, 0, s>>>(A, B, C, N, K);
    void *args[] = {&A, &B, &C, &N, &K};
    if (N > 4096)
        cudaLaunchKernel((const void *)big_tiles, grid, block, args, 0, s);
}
