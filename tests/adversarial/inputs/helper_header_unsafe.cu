// adversarial input: load helpers of a project header
// (helper_header_unsafe.cuh) that kpipe must not inline, each K-loop
// otherwise textbook.  k_scaled: the file redefines the header's macro
// HH_SCALE after including it; k_converted: the file adds an overload
// hh_conv(int), which the copied body would call instead of the header's
// hh_conv(float) (only the trial parse's check of every name's
// declaration sees it); k_ns: the kernel is in a namespace of its own;
// k_offset: the helper's body names its namespace's type unqualified;
// k_rows: the kernel declares hh_rows, a name of the helper's body;
// k_deduced: the call leaves a template argument to deduction; k_effect:
// an argument has a side effect; k_addr: an argument hands the helper the
// address of a local; k_tileread: the tile address reads memory.
// Expected: every loop refused with kpipe-load-in-helper and a
// kpipe-inline-refused remark that names the reason; nothing written, the
// header untouched.
#include "helper_header_unsafe.cuh"
#undef HH_SCALE
#define HH_SCALE 2.0f

__device__ float hh_conv(int x) { return 2.0f * x; }

__global__ void k_scaled(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        hh_scaled(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
__global__ void k_converted(const int *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        hh_converted(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
namespace app {
const float *hh_bias;
__global__ void k_ns(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        hh_copy(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
} // namespace app
__global__ void k_offset(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        lib::hh_offset(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
__global__ void k_rows(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    const int hh_rows = 8;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        hh_rows_copy(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y % hh_rows][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
__global__ void k_deduced(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        hh_deduced(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
__global__ void k_effect(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    float acc = 0.0f;
    int calls = 0;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        hh_copy(As, A + (calls++ & 0), K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc + calls;
}
__global__ void k_addr(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    float acc = 0.0f;
    int r0 = 0;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        r0 = k0;
        hh_copy(As, A + *&r0 * 0, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
__global__ void k_tileread(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[HH_T][HH_T];
    int rows[HH_T];
    for (int i = 0; i < HH_T; ++i)
        rows[i] = i;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += HH_T) {
        hh_row(&As[rows[threadIdx.y]][0], A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * HH_T + threadIdx.x] = acc;
}
