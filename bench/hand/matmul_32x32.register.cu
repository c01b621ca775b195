// matmul_32x32.register.cu - hand-pipelined reference for
// samples/matmul_32x32.cu (same kernel name, signature and launch): two
// shared buffers, the next tile loaded into registers (LDG) before the
// current one is multiplied and stored to the other buffer (STS) after it;
// one barrier per iteration.  Bit-identical results.
//
// The store into buffer cur^1 in iteration i is safe because that buffer was
// last read in iteration i-1, before its closing barrier; the barrier at the
// end of iteration i publishes tile i+1 and retires the reads of buffer cur.

#include <cuda_runtime.h>

__global__ void matmul_32x32(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][32][32];
    __shared__ float Bs[2][32][32];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty;
    const int col = blockIdx.x * 32 + tx;
    float acc = 0.0f;

    if (0 < K) {
        As[0][ty][tx] = A[(size_t)row * K + tx];
        Bs[0][ty][tx] = B[(size_t)ty * N + col];
    }
    __syncthreads();

    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += 32) {
        const int k1 = k0 + 32;
        const bool has_next = k1 < K;
        float ra = 0.0f, rb = 0.0f;
        if (has_next) {
            ra = A[(size_t)row * K + k1 + tx];
            rb = B[(size_t)(k1 + ty) * N + col];
        }

#pragma unroll
        for (int kk = 0; kk < 32; ++kk)
            acc += As[cur][ty][kk] * Bs[cur][kk][tx];

        if (has_next) {
            As[cur ^ 1][ty][tx] = ra;
            Bs[cur ^ 1][ty][tx] = rb;
        }
        __syncthreads();
        cur ^= 1;
    }

    if (row < M)
        C[(size_t)row * N + col] = acc;
}
