// matmul_ptr_bump.naive.cu - naive reference for samples/matmul_ptr_bump.cu: same kernel name and
// signature, one grid-stride loop over C, products summed in increasing k.
#include "naive_common.cuh"

__global__ void matmul_ptr_bump(const float *A, const float *B, float *C, int M, int N, int K)
{
    naive_gemm(A, B, C, M, N, K);
}
