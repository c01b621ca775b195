// adversarial input (a near miss that must be rewritten): tiles carved out
// of a static __shared__ array of float4, the offsets counted in float4
// elements (`buf + 64` is byte 1024), the carve-outs declared in an order
// other than their offsets', and a third carve-out that the loop never
// touches.  The carve-outs start at distinct constant offsets inside the
// array.
// Expected: rewritten (the array repeated once per buffer, the carve-outs
// read at their stage); the output compiles and matches the original on
// the CPU emulator.
#include <cuda_runtime.h>
#define T 16
__global__ void carve_typed(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N, int K)
{
    __shared__ float4 buf[3 * T * T / 4];
    float *Bs = reinterpret_cast<float *>(buf + T * T / 4);
    float *As = (float *)buf;
    float *Unused = (float *)(buf + 2 * T * T / 4);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty * T + tx] = A[row * K + k0 + tx];
        Bs[ty * T + tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty * T + kk] * Bs[kk * T + tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
    (void)Unused;
}

void launch(const float *A, const float *B, float *C, int N, int K)
{
    carve_typed<<<dim3(N / T, N / T), dim3(T, T)>>>(A, B, C, N, K);
}
