// adversarial input: course code wraps the whole K-loop in
// `if (row < M && col < N)`; the threads outside run on and exit, and the
// loop's __syncthreads() still works (exited threads do not count since
// sm_70).  Register staging added a full-mask __syncwarp() inside the
// loop, which also waits for those threads: at a size that splits a warp
// the rewrite differed from the original on the H200 (max error 300).
// Expected: rewritten with register staging, without __syncwarp() (a
// comment says why); the output compiles.
#include <cuda_runtime.h>
#define TILE 16
__global__ void course_mm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int t = 0; t < K; t += TILE) {
            As[ty][tx] = A[row * K + t + tx];
            Bs[ty][tx] = B[(t + ty) * N + col];
            __syncthreads();
            for (int i = 0; i < TILE; ++i)
                sum += As[ty][i] * Bs[i][tx];
            __syncthreads();
        }
        C[row * N + col] = sum;
    }
}

// near miss: the same loop under a condition on the block alone keeps it
__global__ void block_guarded_mm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    if (blockIdx.y * TILE < M && K > 0) {
        for (int t = 0; t < K; t += TILE) {
            As[ty][tx] = A[row * K + t + tx];
            Bs[ty][tx] = B[(t + ty) * N + col];
            __syncthreads();
            for (int i = 0; i < TILE; ++i)
                sum += As[ty][i] * Bs[i][tx];
            __syncthreads();
        }
    }
    C[row * N + col] = sum;
}

// an early return of part of the block before the loop: no __syncwarp()
__global__ void early_exit_mm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        __syncthreads();
        for (int i = 0; i < TILE; ++i)
            sum += As[ty][i] * Bs[i][tx];
        __syncthreads();
    }
    C[row * N + col] = sum;
}
