// matmul_template.naive.cu - naive reference for samples/matmul_template.cu:
// the same kernel template, computing C with a grid-stride loop.
#include "naive_common.cuh"

template <int BM, int BN, int BK>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
    naive_gemm(A, B, C, M, N, K);
}

template __global__ void matmul_tiled<32, 32, 32>(const float *, const float *, float *, int, int,
                                                  int);
