// adversarial input: load helpers whose copies go through a temporary
// that starts at zero and is set under a condition (the canon pass's
// guarded temporary), where writing the copy as a guarded copy in the
// inlined code would change what the kernel computes.  Each K-loop is
// otherwise textbook and each helper is inlined.  ld_effect: the
// helper's condition has a side effect (it counts the tries); k_later:
// the kernel's load phase keeps the temporary, the helper only stores it,
// and the compute phase reads the temporary again (`acc += v`).
// Expected: every loop refused, each with a kpipe-inline-refused remark
// saying that the loop is refused even once the helper is inlined and
// why the canon pass does not rewrite the inlined load phase; nothing
// written.
#include <cuda_runtime.h>
#define T 16

__device__ void ld_effect(float tile[T][T], const float *src, int ld, int rows, int r, int c)
{
    int tries = 0;
    for (int i = 0; i < 1; ++i) {
        float v = 0.0f;
        if (tries++ < 1 && r < rows)
            v = src[r * ld + c];
        tile[r][c] = v;
    }
}

__global__ void k_effect(const float *A, const float *B, float *C, int M, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        ld_effect(As, A + k0, K, M, ty, tx);
        Bs[ty][tx] = B[(k0 + ty) * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}

__device__ void st_elem(float tile[T][T], int r, int c, float x) { tile[r][c] = x; }

__global__ void k_later(const float *A, const float *B, float *C, int M, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        float v = 0.0f;
        if (ty < M)
            v = A[ty * K + k0 + tx];
        st_elem(As, ty, tx, v);
        Bs[ty][tx] = B[(k0 + ty) * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        acc += v;
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
