// no_launch.cu - a correct K-loop with neither a launch description nor a
// launch nor __launch_bounds__ (tests/cli/verify.sh): kpipe cannot find a
// block shape to launch it with, so its rewrite is written unverified
// (kpipe-unverified), or refused with --require-verify.
#include <cuda_runtime.h>

__global__ void no_launch(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float As[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)ty * K + k0 + tx];
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * 16 + tx] = acc;
}
