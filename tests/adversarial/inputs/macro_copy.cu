// adversarial input: 128-bit tile copies written through function-like
// macros (the `[0]` and the `*` form, a macro on one side only), each under
// an edge guard fixed before the loop.
// Expected: rewritten; the macro arguments are edited, the #defines kept.
#include <cuda_runtime.h>
#define FETCH_FLOAT4(pointer) (reinterpret_cast<float4 *>(&(pointer))[0])
#define LDST128BITS(value) (*(reinterpret_cast<float4 *>(&(value))))
#define TS 32
__global__ void __launch_bounds__(256) mm4(float *__restrict__ A, float *__restrict__ B,
                                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tid = threadIdx.x;
    const int r = tid / 8, c = (tid % 8) * 4;
    const int arow = blockIdx.y * TS + r, bcol = blockIdx.x * TS + c;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += TS) {
        if (arow < M)
            FETCH_FLOAT4(As[r][c]) = FETCH_FLOAT4(A[(size_t)arow * K + k0 + c]);
        if (bcol < N)
            LDST128BITS(Bs[r][c]) = *reinterpret_cast<float4 *>(&B[(size_t)(k0 + r) * N + bcol]);
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            for (int j = 0; j < 4; ++j)
                acc[j] += As[r][kk] * Bs[kk][c + j];
        __syncthreads();
    }
    if (arow < M && bcol < N)
        FETCH_FLOAT4(C[(size_t)arow * N + bcol]) = make_float4(acc[0], acc[1], acc[2], acc[3]);
}
