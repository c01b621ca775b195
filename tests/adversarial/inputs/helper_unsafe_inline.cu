// adversarial input: load helpers kpipe must not inline, each K-loop
// otherwise textbook.  h_bump changes its parameter (inlining would change
// the caller's variable), h_ret returns early, h_expr is handed an
// expression with a side effect, h_shadow declares a local with the name
// of an argument, h_reads reads the tile it fills (the inlined loop
// carries shared state), ns::h_const names a constant of its namespace,
// h_spec<16> is an explicit specialisation (the primary template's body is
// not the one called), h_bound's parameter, bound to a local, would
// capture the name of another argument, h_default is called without its
// defaulted last argument (whose text lies in the declaration), and
// h_macro's body #defines a macro that would outlive the copy.
// Expected: every loop refused with kpipe-load-in-helper and a
// kpipe-inline-refused remark that names the reason; nothing written.
#include <cuda_runtime.h>
#define T 16
__device__ void h_bump(float (&dst)[T][T], const float *src, int ld, int r0)
{
    r0 += threadIdx.y;
    dst[threadIdx.y][threadIdx.x] = src[r0 * ld + threadIdx.x];
}
__device__ void h_ret(float (&dst)[T][T], const float *src, int ld, int r0)
{
    if (ld == 0)
        return;
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}
__device__ void h_expr(float (&dst)[T][T], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}
__device__ void h_shadow(float (&dst)[T][T], const float *src, int ld, int r0)
{
    int k0 = threadIdx.y;
    dst[k0][threadIdx.x] = src[(r0 + k0) * ld + threadIdx.x];
}
__device__ void h_reads(float (&dst)[T][T], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] =
        src[(r0 + threadIdx.y) * ld + threadIdx.x] + dst[threadIdx.x][threadIdx.y];
}
namespace ns {
constexpr int kSkew = 0;
__device__ void h_const(float (&dst)[T][T], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y + kSkew) * ld + threadIdx.x];
}
} // namespace ns
template <int N>
__device__ void h_spec(float (&dst)[T][T], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}
template <>
__device__ void h_spec<16>(float (&dst)[T][T], const float *src, int ld, int r0)
{
    dst[threadIdx.x][threadIdx.y] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}
__device__ void h_default(float (&dst)[T][T], const float *src, int ld, int r0 = 0)
{
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}
__device__ void h_macro(float (&dst)[T][T], const float *src, int ld, int r0)
{
#define H_AT(r, c) src[(r0 + (r)) * ld + (c)]
    dst[threadIdx.y][threadIdx.x] = H_AT(threadIdx.y, threadIdx.x);
}
__device__ void h_bound(float (&dst)[T][T], const float *src, int ld, int r0)
{
    dst[threadIdx.y][threadIdx.x] = src[(r0 + threadIdx.y) * ld + threadIdx.x];
}

__global__ void k_bump(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_bump(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_ret(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_ret(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_expr(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    int calls = 0;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_expr(As, A + (calls++ & 0), K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc + calls;
}
__global__ void k_shadow(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_shadow(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_reads(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_reads(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_const(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        ns::h_const(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_spec(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_spec<16>(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_bound(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int src = 0; src < K; src += T) {
        h_bound(As, A + 0, K, src);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_default(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_default(As, A + k0 * K, K);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
__global__ void k_macro(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[T][T];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        h_macro(As, A, K, k0);
        __syncthreads();
        acc += As[threadIdx.y][threadIdx.x] * 2.0f;
        __syncthreads();
    }
    C[threadIdx.y * T + threadIdx.x] = acc;
}
