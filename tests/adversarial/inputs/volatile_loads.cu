// adversarial input: tile loads from volatile memory.  Volatile says another
// block or the host may change the memory while the kernel runs, and the
// rewrite reads the next tile one iteration early: refused
// (kpipe-memory-order) through a volatile pointer (cast_load), from a
// volatile __device__ array (device_load) and inside a helper
// (helper_load).  The near miss: a volatile __shared__ tile (shared_tile),
// the block's own memory ordered by its barriers, is pipelined.
// Expected: one loop of four pipelined; the output compiles.
#include <cuda_runtime.h>
#define T 16

__device__ volatile float table[1 << 20];

__device__ float load_v(const float *p, int i) { return ((volatile const float *)p)[i]; }

__global__ void cast_load(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < N / T; ++t) {
        As[ty][tx] = ((volatile const float *)A)[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void device_load(const float *__restrict__ B, float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < N / T; ++t) {
        As[ty][tx] = table[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void helper_load(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < N / T; ++t) {
        As[ty][tx] = load_v(A, row * N + t * T + tx);
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void shared_tile(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N)
{
    volatile __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < N / T; ++t) {
        As[ty][tx] = A[row * N + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

void run(const float *A, const float *B, float *C, int N)
{
    dim3 grid(N / T, N / T), block(T, T);
    cast_load<<<grid, block>>>(A, B, C, N);
    device_load<<<grid, block>>>(B, C, N);
    helper_load<<<grid, block>>>(A, B, C, N);
    shared_tile<<<grid, block>>>(A, B, C, N);
}
