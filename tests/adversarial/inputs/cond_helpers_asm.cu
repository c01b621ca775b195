// adversarial input: a __device__ helper in a K-loop's condition that reads
// the clock through asm volatile: the effect sets count no write for it,
// but evaluating it more than once per iteration changes what it returns
// (cond_helpers.cu has the other helpers).
// Expected: refused with kpipe-cond-side-effect, naming the assembly.
#include <cuda_runtime.h>
#define T 16

__device__ int cdiv_asm(int a, int b)
{
    int r;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(r));
    return (a + b - 1) / b + (r & 0);
}

__global__ void asm_loop(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < cdiv_asm(N, T); ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

