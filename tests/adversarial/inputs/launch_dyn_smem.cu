// adversarial input: a kernel with static 32x32 tiles (8 KB) that is also
// launched with 40 KB of dynamic shared memory (a scratch area).  The
// original needs 8 + 40 = 48 KB, within the 48 KB static limit; two
// buffers of the tiles need 16 + 40 = 56 KB and the launch fails with
// "invalid argument" on the H200.
// Expected: two buffers refused (kpipe-smem-over-limit, naming the launch
// at line 35 and the bytes); auto's one-buffer form (8 KB) pipelined.
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

void run(const float *A, const float *B, float *C, int N, int K, cudaStream_t s)
{
    dim3 grid(N / TS, N / TS), block(TS, TS);
    mm_scratch<<<grid, block, 40 * 1024, s>>>(A, B, C, N, K);
}
