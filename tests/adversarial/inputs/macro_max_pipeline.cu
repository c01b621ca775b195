// adversarial input: a library that defines function-like macros with the
// names <cuda_pipeline.h> uses (`max`, `min`, `wait`), before the K-loop,
// as MAGMA's magma_internal.h does.  cp.async adds the header: included
// where the macros are in force, cuda_awbarrier.h's `max()` would expand
// to the macro and the output would not compile.
// Expected: rewritten with cp.async, the include between push_macro /
// #undef and pop_macro of the three, and the output compiles with nvcc.
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define wait(t) ((void)(t))
#include <cuda_runtime.h>
#define T 16
__global__ void __launch_bounds__(256) mm_macros(const float *__restrict__ A,
                                                  const float *__restrict__ B,
                                                  float *__restrict__ C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x % T, ty = threadIdx.x / T;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = max(acc, min(acc, 0.0f));
}

void launch_mm_macros(const float *A, const float *B, float *C, int n)
{
    mm_macros<<<dim3(n / T, n / T), 256>>>(A, B, C, n);
}
