// Host code of libraries whose headers are not on this machine (an RMM-style
// device vector, a spdlog-style logger, a cuVS-style index): nvcc with the
// project's include paths accepts the file, clang here finds none of them.
// Expected: a warning per missing header and per error in the logger's
// global (ignored, host code), a note for the host function left out of the
// parse (it does not parse without the headers), the kernel
// analysed with its block from the launch that stays, and rewritten.
#include <rmm/device_uvector.hpp>
#include <spdlog/spdlog.h>
#include <cuvs/neighbors/brute_force.hpp>
#define T 16
static auto log_ = spdlog::stdout_color_mt<spdlog::async_factory>("mm");
__global__ void mm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
void launch(const float *A, const float *B, float *C, int N, int K, cudaStream_t s)
{
    mm<<<dim3(N / T, N / T), dim3(T, T), 0, s>>>(A, B, C, N, K);
}
void product(int n, rmm::cuda_stream_view stream)
{
    rmm::device_uvector<float> a(n * n, stream), b(n * n, stream), c(n * n, stream);
    auto index = cuvs::neighbors::brute_force::build<float>(nullptr, {});
    spdlog::info("product of {} x {}", n, n);
    launch(a.data(), b.data(), c.data(), n, n, stream.value());
}
