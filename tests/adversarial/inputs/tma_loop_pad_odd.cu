// tma_loop_pad_odd.cu - near miss: a tile padded by one float (kpipe: tma refused).
//
// The copies fill the first 16 of 17 columns: a row of As is 68 bytes, and
// a tensor copy's box rows are multiples of 16 bytes.

#include <cuda_runtime.h>

#define TM 64
#define TK 16
#define NT 128

__global__ void __launch_bounds__(NT)
    tma_loop_pad_odd(const float *__restrict__ A, float *__restrict__ C, int M, int K)
{
    __shared__ __align__(16) float As[TM][TK + 1];
    const int tid = threadIdx.x;
    const int bm = blockIdx.x * TM;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int v = tid; v < TM * TK; v += NT)
            As[v / TK][v % TK] = A[(size_t)(bm + v / TK) * K + k0 + v % TK];
        __syncthreads();
        for (int kk = 0; kk < TK; ++kk)
            acc += As[tid % TM][kk];
        __syncthreads();
    }
    C[(size_t)blockIdx.x * NT + tid] = acc;
}

void launch_tma_loop_pad_odd(const float *A, float *C, int M, int K)
{
    tma_loop_pad_odd<<<M / TM, NT>>>(A, C, M, K);
}
