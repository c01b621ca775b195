// matmul_cuda_sample_style.naive.cu - naive reference for
// samples/matmul_cuda_sample_style.cu.  The kernel has no row count
// parameter; the launch has one thread per output, so rows = gridDim.y *
// blockDim.y.
#include "naive_common.cuh"

__global__ void matmul_cs(float *C, const float *A, const float *B, int wA, int wB)
{
    const int rows = gridDim.y * blockDim.y;
    naive_gemm(A, B, C, rows, wB, wA);
}
