// eff_dep_compare.cu - a template K-loop (T = float, 16x16 tiles) whose
// compute compares values of the template's type with `<` and `>` while
// <cuda_fp16.h> is included: the header's operator< for __half makes clang
// keep `p < bound` as an unresolved operator call in the template, and
// kpipe took the call for one that may change 'bound', which the loop
// condition reads: "the loop condition reads 'bound', which the body
// modifies" [kpipe-loop-shape].  Every operator< the name finds takes its
// operands by value or const reference (kp_node.lookup_ro), so the
// comparison only reads them: kpipe rewrites the loop.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#define TILE 16

template <typename T>
__global__ void eff_dep_compare(const T *__restrict__ A, const T *__restrict__ B,
                                T *__restrict__ C, int M, int N, int K)
{
    __shared__ T As[TILE][TILE];
    __shared__ T Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    T acc = T(0);
    T bound = T(K);
    for (int t = 0; t * TILE < bound; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            T p = As[ty][k] * Bs[k][tx];
            if (p < bound && p > -bound)
                acc += p;
        }
        __syncthreads();
    }
    if (row < M)
        C[row * N + col] = acc;
}

template __global__ void eff_dep_compare<float>(const float *, const float *, float *, int, int,
                                                int);
