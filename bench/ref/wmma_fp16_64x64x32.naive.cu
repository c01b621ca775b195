// wmma_fp16_64x64x32.naive.cu - naive reference for
// samples/wmma_fp16_64x64x32.cu: fp16 inputs widened to fp32, products summed
// in increasing k (not the tensor cores' order: compare with a tolerance).
#include "naive_common.cuh"

__global__ void wmma_fp16_64x64x32(const half *A, const half *B, float *C, int M, int N, int K)
{
    for (long e = naive_tid(); e < (long)M * N; e += naive_nthreads()) {
        const long r = e / N, c = e % N;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += __half2float(A[r * K + k]) * __half2float(B[(long)k * N + c]);
        C[e] = acc;
    }
}
