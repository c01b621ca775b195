// refused_smem_carry.naive.cu - naive reference for samples/refused_smem_carry.cu:
// (A * B)[r][c] / ||B[:, c]||, sums taken in increasing k.
#include "naive_common.cuh"

__global__ void matmul_colnorm(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (long e = naive_tid(); e < (long)M * N; e += naive_nthreads()) {
        const long r = e / N, c = e % N;
        float acc = 0.0f, sq = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[r * K + k] * B[(long)k * N + c];
            sq += B[(long)k * N + c] * B[(long)k * N + c];
        }
        const float norm = sqrtf(sq);
        C[e] = norm > 0.0f ? acc / norm : 0.0f;
    }
}
