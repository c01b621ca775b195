// adversarial input: declarations in the load phase that the canon pass
// moves before the loop (samples/matmul_decl_in_loop.cu's shape).  Whether
// a declaration is static or extern is clang's storage class, not the
// text: a local whose name holds "static" or "extern" is moved and the
// loop pipelined (name_static); a function-scope `static __device__`
// variable, one object for every thread of the grid, is not moved
// (device_static: kpipe-canon-refused remark, the loop refused).
// Expected: one loop of two pipelined; the output compiles.
#include <cuda_runtime.h>
#define TB 16

__global__ void name_static(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TB + ty, col = blockIdx.x * TB + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TB) {
        __syncthreads();
        __shared__ float As[TB][TB];
        __shared__ float Bs[TB][TB];
        float a_static_extern;
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TB; ++kk) {
            a_static_extern = As[ty][kk];
            acc += a_static_extern * Bs[kk][tx];
        }
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}

__global__ void device_static(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TB + ty, col = blockIdx.x * TB + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TB) {
        __syncthreads();
        __shared__ float As[TB][TB];
        __shared__ float Bs[TB][TB];
        static __device__ float a;
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TB; ++kk) {
            a = As[ty][kk];
            acc += a * Bs[kk][tx];
        }
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}

void launch(const float *A, const float *B, float *C, int M, int N, int K)
{
    dim3 block(TB, TB), grid((N + TB - 1) / TB, (M + TB - 1) / TB);
    name_static<<<grid, block>>>(A, B, C, M, N, K);
    device_static<<<grid, block>>>(A, B, C, M, N, K);
}
