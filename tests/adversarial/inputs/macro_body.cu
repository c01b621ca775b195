// adversarial input: the whole loop body in a macro, LOOP_BODY(k0).
// Expected: refused (kpipe cannot edit a macro's body).
#include <cuda_runtime.h>
#define LOOP_BODY(k) As[ty][tx] = A[(size_t)row * K + k + tx]; Bs[ty][tx] = B[(size_t)(k + ty) * N + col]; __syncthreads(); for (int kk = 0; kk < 32; ++kk) acc += As[ty][kk] * Bs[kk][tx]; __syncthreads();
__global__ void mm(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) { LOOP_BODY(k0) }
    C[(size_t)row * N + col] = acc;
}
