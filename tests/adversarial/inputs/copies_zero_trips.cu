// adversarial input: a copy loop of the load phase whose trip count
// (BM * 32 / NT) is zero in one instantiation of the kernel template
// (k_zero<8, 512>): register staging would declare a zero-sized staging
// array, which does not compile.
// Expected: the loop of k_zero refused for instantiation <8, 512>
// (kpipe-loop-shape, "runs no trip"); the near miss k_some, the same kernel
// instantiated only with trip counts of 1 and more, is rewritten.
#include <cuda_runtime.h>

template <int BM, int NT>
__global__ void k_zero(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[BM][32];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = 0; i < BM * 32 / NT; ++i) {
            const int idx = tid + i * NT;
            As[idx / 32][idx % 32] = A[(size_t)(idx / 32) * K + k0 + idx % 32];
        }
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[tid % BM][kk];
        __syncthreads();
    }
    C[blockIdx.x * NT + tid] = acc;
}
template __global__ void k_zero<8, 512>(const float *__restrict__, float *__restrict__, int);
template __global__ void k_zero<64, 256>(const float *__restrict__, float *__restrict__, int);

// near miss: one trip and more
template <int BM, int NT>
__global__ void k_some(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[BM][32];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = 0; i < BM * 32 / NT; ++i) {
            const int idx = tid + i * NT;
            As[idx / 32][idx % 32] = A[(size_t)(idx / 32) * K + k0 + idx % 32];
        }
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk)
            acc += As[tid % BM][kk];
        __syncthreads();
    }
    C[blockIdx.x * NT + tid] = acc;
}
template __global__ void k_some<8, 256>(const float *__restrict__, float *__restrict__, int);
template __global__ void k_some<64, 256>(const float *__restrict__, float *__restrict__, int);
