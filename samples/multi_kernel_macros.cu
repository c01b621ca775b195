// multi_kernel_macros.cu - two tiled kernels in one file, with macros
// around the array accesses: an index macro inside the subscripts and an
// accessor macro whose arguments name the arrays.  Host code sits between
// the kernels.
//
// kpipe: both K-loops are eligible and are rewritten independently; the
// macros stay as written (uses spelled in macro arguments are re-indexed
// in place).  The launch description drives `mk_rowscale`.

#include <cuda_runtime.h>

#define MK_T 16
#define MK_IDX(r, c, ld) ((size_t)(r) * (ld) + (c))
#define MK_AT(arr, r, c) arr[r][c]

// C = A * B with guarded loads written through the index macro.
__global__ void mk_matmul(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[MK_T][MK_T];
    __shared__ float Bs[MK_T][MK_T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * MK_T + ty;
    const int col = blockIdx.x * MK_T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += MK_T) {
        MK_AT(As, ty, tx) = (row < M && k0 + tx < K) ? A[MK_IDX(row, k0 + tx, K)] : 0.0f;
        MK_AT(Bs, ty, tx) = (k0 + ty < K && col < N) ? B[MK_IDX(k0 + ty, col, N)] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < MK_T; ++kk)
            acc += MK_AT(As, ty, kk) * MK_AT(Bs, kk, tx);
        __syncthreads();
    }
    if (row < M && col < N)
        C[MK_IDX(row, col, N)] = acc;
}

// Host-side helper between the kernels: the grid for mk_matmul.
static inline dim3 mk_grid(int M, int N)
{
    return dim3((N + MK_T - 1) / MK_T, (M + MK_T - 1) / MK_T);
}

// y[i] = scale[i] * sum_k X[i][k] * w[k], the weight vector staged in
// shared memory tile by tile (one row per thread).
__global__ void mk_rowscale(const float *__restrict__ X, const float *__restrict__ w,
                            const float *__restrict__ scale, float *__restrict__ y,
                            int R, int K)
{
    __shared__ float ws[128];
    const int i = blockIdx.x * 128 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 128) {
        ws[threadIdx.x] = (k0 + (int)threadIdx.x < K) ? w[k0 + threadIdx.x] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < 128 && k0 + kk < K; ++kk)
            acc += (i < R ? X[MK_IDX(i, k0 + kk, K)] : 0.0f) * ws[kk];
        __syncthreads();
    }
    if (i < R)
        y[i] = scale[i] * acc;
}

cudaError_t launch_mk_matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    mk_matmul<<<mk_grid(M, N), dim3(MK_T, MK_T)>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}
