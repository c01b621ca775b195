// tma_loop_transposed.cu - near miss: the copy loop transposes (kpipe: tma refused).
//
// As[TK][TM] holds A's 64x16 box transposed: element [c][r] from
// A[(bm + r) * K + k0 + c], which no tensor copy does.

#include <cuda_runtime.h>

#define TM 64
#define TK 16
#define NT 128

__global__ void __launch_bounds__(NT)
    tma_loop_transposed(const float *__restrict__ A, float *__restrict__ C, int M, int K)
{
    __shared__ __align__(16) float As[TK][TM];
    const int tid = threadIdx.x;
    const int bm = blockIdx.x * TM;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int v = tid; v < TM * TK; v += NT)
            As[v % TK][v / TK] = A[(size_t)(bm + v / TK) * K + k0 + v % TK];
        __syncthreads();
        for (int kk = 0; kk < TK; ++kk)
            acc += As[kk][tid % TM];
        __syncthreads();
    }
    C[(size_t)blockIdx.x * NT + tid] = acc;
}

void launch_tma_loop_transposed(const float *A, float *C, int M, int K)
{
    tma_loop_transposed<<<M / TM, NT>>>(A, C, M, K);
}
