// adversarial input: while K-loops the canon pass must not write as
// for-loops, each otherwise textbook: a `continue` skips the step at the
// end of the body (w_continue: in a for-loop the continue would run the
// step, so tiles would be skipped twice), the condition counts its own
// evaluations (w_cond_writes: `tests++` writes tests), the step also counts in
// another variable (w_step_writes: `t += (calls++, 1)`).  Near miss that
// is rewritten: the same loop with the step `t += 1` (w_plain).
// Expected: the first three refused, each with a kpipe-canon-refused remark
// naming the reason; w_plain canonicalized and pipelined.
#include <cuda_runtime.h>
#define T 16
__global__ void w_continue(const float *A, const float *B, const int *skip, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int t = 0;
    while (t < n / T) {
        if (skip[t]) {
            t += 2;
            continue;
        }
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
        ++t;
    }
    C[row * n + col] = acc;
}

__global__ void w_cond_writes(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int t = 0, tests = 0;
    while (t < n / T && tests++ >= 0) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
        ++t;
    }
    C[row * n + col] = acc + tests;
}

__global__ void w_step_writes(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int t = 0, calls = 0;
    while (t < n / T) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
        t += (calls++, 1);
    }
    C[row * n + col] = acc + calls;
}

__global__ void w_plain(const float *A, const float *B, float *C, int n)
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
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
        t += 1;
    }
    C[row * n + col] = acc;
}
