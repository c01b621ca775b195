// tma_loop_row_twice.cu - near miss: one row written twice, the last never (kpipe: tma refused).
//
// The row index is v / 4 - (v / 4 == 63): the vectors of row 63 land on row 62.

#include <cuda_runtime.h>

#define TM 64
#define TK 16
#define NT 128

__global__ void __launch_bounds__(NT)
    tma_loop_row_twice(const float *__restrict__ A, float *__restrict__ C, int M, int K)
{
    __shared__ __align__(16) float As[TM][TK];
    const int tid = threadIdx.x;
    const int bm = blockIdx.x * TM;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int v = tid; v < TM * TK / 4; v += NT) {
            const int r = v / (TK / 4) - (v / (TK / 4) == TM - 1);
            const int c = (v % (TK / 4)) * 4;
            *reinterpret_cast<float4 *>(&As[r][c]) =
                *reinterpret_cast<const float4 *>(&A[(size_t)(bm + r) * K + k0 + c]);
        }
        __syncthreads();
        for (int kk = 0; kk < TK; ++kk)
            acc += As[tid % TM][kk];
        __syncthreads();
    }
    C[(size_t)blockIdx.x * NT + tid] = acc;
}

void launch_tma_loop_row_twice(const float *A, float *C, int M, int K)
{
    tma_loop_row_twice<<<M / TM, NT>>>(A, C, M, K);
}
