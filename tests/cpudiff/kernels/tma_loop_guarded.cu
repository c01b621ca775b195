// tma_loop_guarded.cu - a guarded copy loop strided by the block fills the
// whole tile for any M and K (kpipe: tma applies).
//
// `As[v / TK][v % TK] = bm + v / TK < M && k0 + v % TK < K ? A[...] : 0`:
// a tile whose guard holds at every element (each term tested at its
// tightest element: bm + 63 < M, k0 + 15 < K) is one tensor copy, the
// edge tiles (the last rows of A, the last k-slice) take the guarded
// copies.

#include <cuda_runtime.h>

#define TM 64
#define TK 16
#define NT 128

__global__ void __launch_bounds__(NT)
    tma_loop_guarded(const float *__restrict__ A, float *__restrict__ C, int M, int K)
{
    __shared__ __align__(16) float As[TM][TK];
    const int tid = threadIdx.x;
    const int bm = blockIdx.x * TM;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int v = tid; v < TM * TK; v += NT)
            As[v / TK][v % TK] =
                bm + v / TK < M && k0 + v % TK < K ? A[(size_t)(bm + v / TK) * K + k0 + v % TK]
                                                   : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TK; ++kk)
            acc += As[tid % TM][kk] * (float)(kk + 1);
        __syncthreads();
    }
    C[(size_t)blockIdx.x * NT + tid] = acc;
}

void launch_tma_loop_guarded(const float *A, float *C, int M, int K)
{
    tma_loop_guarded<<<(M + TM - 1) / TM, NT>>>(A, C, M, K);
}
