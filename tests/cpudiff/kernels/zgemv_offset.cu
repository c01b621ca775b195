// zgemv_offset.cu - complex double y = A * x over 64-column blocks, in the
// style of a multi-GPU BLAS kernel whose first block column starts at an
// offset inside the block: the copy of x is written `if (first block and
// before the offset) zero; else load;` (the if/else the other way round)
// and the zero is cuComplex.h's make_cuDoubleComplex(0.0, 0.0), which is
// what MAGMA_Z_ZERO expands to.  64 threads per block, one row each; n a
// multiple of 64.
//
// kpipe: eligible.  The copy is a guarded copy that loads where its
// condition is false: cp.async zero-fills where `!(cond)` is false, and
// register staging keeps the if/else as written.

#include <cuComplex.h>

#define NB 64

__global__ void zgemv_offset(int n, int offset, const cuDoubleComplex *__restrict__ A, int lda,
                             const cuDoubleComplex *__restrict__ x, cuDoubleComplex *__restrict__ y)
{
    __shared__ cuDoubleComplex xs[NB];
    const int tx = threadIdx.x;
    const int row = blockIdx.x * NB + tx;
    cuDoubleComplex acc = make_cuDoubleComplex(0.0, 0.0);
    for (int jb = 0; jb < n / NB; ++jb) {
        if (jb == 0 && tx < offset) {
            xs[tx] = make_cuDoubleComplex(0.0, 0.0);
        }
        else {
            xs[tx] = x[jb * NB + tx];
        }
        __syncthreads();
        for (int c = 0; c < NB; ++c)
            acc = cuCfma(A[row + (jb * NB + c) * lda], xs[c], acc);
        __syncthreads();
    }
    y[row] = acc;
}
