// adversarial input: do-while K-loops the canon pass must not write as
// for-loops, each otherwise textbook (steps before the closing barrier):
// a `continue` jumps to the condition and skips the steps (d_continue: a
// for-loop's increment would run them); a step reads shared memory, which
// other threads write again once they pass the closing barrier (d_step_reads:
// moved into the increment, after the barrier, `k0 += stride[0]` could read
// the next trip's value); a step also counts in another variable
// (d_step_writes); a step reads a local declared in the body (d_step_local:
// out of scope in a for-loop's increment).  Near miss that is rewritten: the
// same loop with the step `k0 += T` (d_plain), whose first trip runs even
// when n is 0.
// Expected: all but d_plain refused, each with a remark naming the reason;
// d_plain canonicalized and pipelined.
#include <cuda_runtime.h>
#define T 16
__global__ void d_continue(const float *A, const float *B, const int *skip, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int k0 = 0;
    do {
        if (skip[k0 / T])
            continue;
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        k0 += T;
        __syncthreads();
    } while (k0 < n);
    C[row * n + col] = acc;
}

__global__ void d_step_reads(const float *A, const float *B, const int *steps, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ int stride[1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int k0 = 0;
    do {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        if (tx == 0 && ty == 0)
            stride[0] = steps[k0 / T];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        k0 += stride[0];
        __syncthreads();
    } while (k0 < n);
    C[row * n + col] = acc;
}

__global__ void d_step_writes(const float *A, const float *B, float *C, int *trips, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int k0 = 0, calls = 0;
    do {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        k0 += (calls++, T);
        __syncthreads();
    } while (k0 < n);
    C[row * n + col] = acc;
    trips[row * n + col] = calls;
}

__global__ void d_plain(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int k0 = 0;
    do {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        k0 += T;
        __syncthreads();
    } while (k0 < n);
    C[row * n + col] = acc;
}

__global__ void d_step_local(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int k0 = 0;
    do {
        int step = T;
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        k0 += step;
        __syncthreads();
    } while (k0 < n);
    C[row * n + col] = acc;
}
