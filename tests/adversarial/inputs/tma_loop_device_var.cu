// tma_loop_device_var.cu - near miss: the copy loop's column reads a __device__
// variable (kpipe: tma refused).
//
// g_off has an initialiser and the kernel never changes it, but the host
// (cudaMemcpyToSymbol) or another kernel may: the proof cannot take its
// initialiser as its value.

#include <cuda_runtime.h>
__device__ int g_off = 0;
__global__ void __launch_bounds__(128) tma_loop_device_var(const float *__restrict__ A, float *__restrict__ C, int M, int K)
{
    __shared__ __align__(16) float As[64][16];
    const int tid = threadIdx.x;
    const int bm = blockIdx.x * 64;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int v = tid; v < 256; v += 128) {
            const int r = v / 4;
            const int c = (v % 4) * 4 + g_off;
            *reinterpret_cast<float4 *>(&As[r][c]) = *reinterpret_cast<const float4 *>(&A[(size_t)(bm + r) * K + k0 + c]);
        }
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[tid % 64][kk];
        __syncthreads();
    }
    C[blockIdx.x * 128 + tid] = acc;
}
void run(const float *A, float *C, int M, int K) { tma_loop_device_var<<<M / 64, 128>>>(A, C, M, K); }
