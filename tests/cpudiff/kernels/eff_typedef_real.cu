// eff_typedef_real.cu - fp32 C = A * B with the element type written
// through typedefs (`typedef float real;`, a `real4` of float4): 16x16
// tiles of real and a 16x4 tile of real4.  The copies move each element
// unchanged; kpipe compared the spellings ("const real *" against "float")
// and took them for converting copies, so cp.async was refused ("the copy
// converts or computes on its way in").  clang's canonical types decide
// now: cp.async applies.
#include <cuda_runtime.h>
#define TILE 16
typedef float real;
typedef float4 real4;

__global__ void eff_typedef_real(const real *__restrict__ A, const real4 *__restrict__ B,
                                 real *__restrict__ C, int M, int N, int K)
{
    __shared__ real As[TILE][TILE];
    __shared__ real4 Bs[TILE][TILE / 4];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    real acc = 0;
    for (int t = 0; t < K / TILE; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        if (tx < TILE / 4)
            Bs[ty][tx] = B[(t * TILE + ty) * (N / 4) + blockIdx.x * (TILE / 4) + tx];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            real4 b = Bs[k][tx / 4];
            real bv = (tx & 3) == 0 ? b.x : (tx & 3) == 1 ? b.y : (tx & 3) == 2 ? b.z : b.w;
            acc += As[ty][k] * bv;
        }
        __syncthreads();
    }
    if (row < M)
        C[row * N + col] = acc;
}
