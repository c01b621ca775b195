// naive_common.cuh - helpers for the naive reference kernels in bench/ref/.
// Each reference kernel has the name and signature of one sample and walks
// over all outputs with a grid-stride loop, so it works under whatever grid
// and block the sample's launch spec gives it.  They exist to check the
// samples themselves (baseline against an independent computation).

#pragma once
#include <cuda_fp16.h>
#include <cstdint>

__device__ __forceinline__ long naive_tid()
{
    const long block = blockIdx.x + (long)gridDim.x * (blockIdx.y + (long)gridDim.y * blockIdx.z);
    const long lane = threadIdx.x + (long)blockDim.x * (threadIdx.y + (long)blockDim.y * threadIdx.z);
    return block * blockDim.x * blockDim.y * blockDim.z + lane;
}

__device__ __forceinline__ long naive_nthreads()
{
    return (long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
}

// C = A * B, row-major, fp32, products accumulated in increasing k.
__device__ __forceinline__ void naive_gemm(const float *A, const float *B, float *C, int M, int N,
                                           int K)
{
    for (long e = naive_tid(); e < (long)M * N; e += naive_nthreads()) {
        const long r = e / N, c = e % N;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[r * K + k] * B[(long)k * N + c];
        C[e] = acc;
    }
}
