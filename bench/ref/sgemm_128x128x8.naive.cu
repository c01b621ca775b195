// sgemm_128x128x8.naive.cu - naive reference for samples/sgemm_128x128x8.cu: same kernel name and
// signature, one grid-stride loop over C, products summed in increasing k.
#include "naive_common.cuh"

__global__ void sgemm_128x128x8(const float *A, const float *B, float *C, int M, int N, int K)
{
    naive_gemm(A, B, C, M, N, K);
}
