// adversarial input: the tile copy's `=` inside a macro body,
// COPY4(As[r][c], A[...]): no text on either side of a spelled `=`.
// Expected: refused (kpipe-macro-array).
#include <cuda_runtime.h>
#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])
#define COPY4(dst, src) FLOAT4(dst) = FLOAT4(src)
#define TS 32
__global__ void __launch_bounds__(256) mm4(float *__restrict__ A, float *__restrict__ B,
                                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tid = threadIdx.x;
    const int r = tid / 8, c = (tid % 8) * 4;
    const int arow = blockIdx.y * TS + r, bcol = blockIdx.x * TS + c;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        COPY4(As[r][c], A[(size_t)arow * K + k0 + c]);
        COPY4(Bs[r][c], B[(size_t)(k0 + r) * N + bcol]);
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[r][kk] * Bs[kk][c];
        __syncthreads();
    }
    C[(size_t)arow * N + bcol] = acc;
}
