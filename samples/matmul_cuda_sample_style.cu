// matmul_cuda_sample_style.cu - fp32 C = A * B in the style of the CUDA
// samples' matrixMul: square 16x16 tiles, the walk along A's row and B's
// column expressed as flat element offsets, one output per thread.
//
// K-loop shape: two induction variables advanced together,
// `for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep)`, and
// the __shared__ tiles declared INSIDE the loop body, as its first
// statements, before the copies.  hA (rows of A) must be a multiple of 16,
// as must wA (= K) and wB (= N).  The file also carries the host-side
// wrapper an application would call.
//
// kpipe: eligible.  The declarations must be hoisted out of the loop (with a
// stage dimension added) before the loop can be pipelined; `a` and `b` both
// step by loop-invariant amounts, and the trip count is wA / 16.

#include <cuda_runtime.h>

#define CS_BLOCK 16

__global__ void matmul_cs(float *C, const float *A, const float *B, int wA,
                          int wB)
{
    const int bx = blockIdx.x;
    const int by = blockIdx.y;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    // First and last element of A's block-row, and the stride between tiles.
    const int aBegin = wA * CS_BLOCK * by;
    const int aEnd = aBegin + wA - 1;
    const int aStep = CS_BLOCK;
    // First element of B's block-column, and the stride between tiles.
    const int bBegin = CS_BLOCK * bx;
    const int bStep = CS_BLOCK * wB;

    float Csub = 0.0f;

    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[CS_BLOCK][CS_BLOCK];
        __shared__ float Bs[CS_BLOCK][CS_BLOCK];

        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();

#pragma unroll
        for (int k = 0; k < CS_BLOCK; ++k)
            Csub += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }

    const int c = wB * CS_BLOCK * by + CS_BLOCK * bx;
    C[c + wB * ty + tx] = Csub;
}

// Application-side wrapper: C (hA x wB) = A (hA x wA) * B (wA x wB).
void matrix_multiply_cs(float *dC, const float *dA, const float *dB, int hA,
                        int wA, int wB, cudaStream_t stream)
{
    const dim3 threads(CS_BLOCK, CS_BLOCK);
    const dim3 grid(wB / CS_BLOCK, hA / CS_BLOCK);
    matmul_cs<<<grid, threads, 0, stream>>>(dC, dA, dB, wA, wB);
}
