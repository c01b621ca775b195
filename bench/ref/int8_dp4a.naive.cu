// int8_dp4a.naive.cu - naive reference for samples/int8_dp4a.cu:
// C[m][n] = sum_k A[m][k] * Bt[n][k] in plain int arithmetic.
#include "naive_common.cuh"

__global__ void int8_dp4a(const int8_t *A, const int8_t *Bt, int *C, int M, int N, int K)
{
    for (long e = naive_tid(); e < (long)M * N; e += naive_nthreads()) {
        const long r = e / N, c = e % N;
        int acc = 0;
        for (int k = 0; k < K; ++k)
            acc += (int)A[r * K + k] * (int)Bt[c * K + k];
        C[e] = acc;
    }
}
