// A `template <typename T, int TILE>` kernel whose tiles hold T, launched
// for float and for __half.  Sizes come from each instantiation: the
// float tiles are 4 B a copy (cp.async could take them), the __half ones
// 2 B (cp.async copies 4, 8 or 16 bytes).  The rewrite must suit both, so
// cp.async is refused naming <__half, 32> and register staging is chosen.
// The copy from `const T *` into a `T` tile converts nothing.
#include <cuda_fp16.h>

template <typename T, int TILE>
__global__ void mm_typed(const T *__restrict__ A, const T *__restrict__ B,
                         float *__restrict__ C, int N, int K)
{
    __shared__ T As[TILE][TILE];
    __shared__ T Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk)
            acc += static_cast<float>(As[ty][kk]) * static_cast<float>(Bs[kk][tx]);
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}

void launch_float(const float *A, const float *B, float *C, int N, int K)
{
    mm_typed<float, 32><<<dim3(N / 32, N / 32), dim3(32, 32)>>>(A, B, C, N, K);
}

void launch_half(const __half *A, const __half *B, float *C, int N, int K)
{
    mm_typed<__half, 32><<<dim3(N / 32, N / 32), dim3(32, 32)>>>(A, B, C, N, K);
}
