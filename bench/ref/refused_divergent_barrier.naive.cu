// refused_divergent_barrier.naive.cu - naive reference for samples/refused_divergent_barrier.cu: same kernel name and
// signature, one grid-stride loop over C, products summed in increasing k.
#include "naive_common.cuh"

__global__ void matmul_divergent_barrier(const float *A, const float *B, float *C, int M, int N, int K)
{
    naive_gemm(A, B, C, M, N, K);
}
