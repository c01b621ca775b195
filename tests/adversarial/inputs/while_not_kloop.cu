// adversarial input: while loops that are no K-loops, in the shapes of
// production solvers (analysis/analyze.c, refuse_not_kloop):
//  - sweep_until_converged: a Jacobi-style sweep, `while (!done)` with
//    barriers at the top level of its body, over a matrix already in shared
//    memory: no copy from global into a tile, so no loop over tiles;
//  - copy_diagonal: `while (i < n) { diag[i] = A[i * lda + i]; i += 32; }`,
//    a strided copy into shared memory with no barrier.
// Neither was a K-loop, yet both were refused "only for-loops are
// pipelined; rewrite this loop as a for-loop" [kpipe-loop-shape], which
// would not make either one (and counted them among the K-loops of an
// evaluation).  Expected: sweep_until_converged refused for
// kpipe-no-tile-load, copy_diagonal for kpipe-no-barrier, both "not a
// K-loop" remarks for rewrite, which writes nothing else; the near miss
// tiles_while (a textbook K-loop written as a while loop) is still
// canonicalized and pipelined.
#include <cuda_runtime.h>
#define T 16

__global__ void sweep_until_converged(const float *A, float *out, int n, float tol)
{
    __shared__ float sA[T][T];
    __shared__ float change[T];
    int tx = threadIdx.x, ty = threadIdx.y;
    sA[ty][tx] = A[ty * n + tx];
    __syncthreads();
    bool done = false;
    while (!done) {
        float v = 0.5f * (sA[ty][tx] + sA[tx][ty]);
        __syncthreads();
        sA[ty][tx] = v;
        if (tx == 0)
            change[ty] = fabsf(v - sA[ty][ty]);
        __syncthreads();
        done = change[0] < tol;
        __syncthreads();
    }
    out[ty * n + tx] = sA[ty][tx];
}

__global__ void copy_diagonal(const float *A, float *out, int n, int lda)
{
    __shared__ float diag[1024];
    int i = threadIdx.x;
    while (i < n) {
        diag[i] = A[i * lda + i];
        i += 32;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int j = 0; j < n; j++)
            s += diag[j];
        out[blockIdx.x] = s;
    }
}

__global__ void tiles_while(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int t = 0;
    while (t < n / T) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
        t += 1;
    }
    C[row * n + col] = acc;
}
