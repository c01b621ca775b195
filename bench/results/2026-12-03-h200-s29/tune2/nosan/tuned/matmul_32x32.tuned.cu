// matmul_32x32.cu - fp32 C = A * B (row-major), 32x32 shared tiles, one
// output element per thread, 32x32 thread blocks.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += 32)` whose body is two plain
// tile copies, a barrier, 32 multiply-adds, a barrier.  No bounds checks:
// M, N and K must be multiples of 32.
//
// kpipe: eligible (reference shape 1 of docs/pipelining).  Both tiles are
// rewritten in full every iteration by 4-byte copies, so cp.async and
// register staging both apply.  The host launcher below must be left as is.

#include <cuda_runtime.h>

__global__ void matmul_32x32(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty;
    const int col = blockIdx.x * 32 + tx;
    float acc = 0.0f;

    // kpipe: register staging, 1 buffer, 2 barriers: requested with --variant register-2bar
    {
        int k0 = 0;
        int kp_stage = 0;
        float kp_reg0[1] = {}; // kpipe: one-element arrays, not scalars: fewer registers (docs/design.md)
        float kp_reg1[1] = {};
        if (k0 < K) {
            As[ty][tx] = A[(size_t)row * K + k0 + tx];
            Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        }
        __syncthreads();
        for (; k0 < K; k0 += 32) {
            const bool kp_has_next = (k0 + 32) < K;
            if (kp_has_next) {
                kp_reg0[0] = A[(size_t)row * K + (k0 + 32) + tx];
                kp_reg1[0] = B[(size_t)((k0 + 32) + ty) * N + col];
                __syncwarp(); // kpipe: keeps the loads above the math (ptxas)
            }

#pragma unroll
            for (int kk = 0; kk < 32; ++kk)
                acc += As[ty][kk] * Bs[kk][tx];
            __syncthreads();
            {
                As[ty][tx] = kp_reg0[0];
                Bs[ty][tx] = kp_reg1[0];
            }
            __syncthreads();
            kp_stage ^= 1;
        }
    }

    if (row < M)
        C[(size_t)row * N + col] = acc;
}

// Host-side launcher, as an application would have it.  Returns the launch
// status; the caller synchronises.
cudaError_t launch_matmul_32x32(const float *A, const float *B, float *C,
                                int M, int N, int K, cudaStream_t stream)
{
    if (M % 32 != 0 || N % 32 != 0 || K % 32 != 0)
        return cudaErrorInvalidValue;
    const dim3 block(32, 32);
    const dim3 grid(N / 32, M / 32);
    matmul_32x32<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}
