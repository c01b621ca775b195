// adversarial input (a near miss that must be rewritten): a copy loop
// whose first element is the thread's and whose trips differ from thread
// to thread (`for (i = threadIdx.x; i < 40; i += 32)`: threads 0-7 copy
// two elements, the others one).  Register staging sizes its registers by
// the most trips (2, from the least first value) and each thread fills and
// empties only the slots of its own trips.
// Expected: rewritten; the output compiles and matches the original on the
// CPU emulator (with --variant register too).
#include <cuda_runtime.h>
#define W 40
__global__ void ragged(const float *__restrict__ x, float *__restrict__ y, int K)
{
    __shared__ float xs[W];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += W) {
        for (int i = threadIdx.x; i < W; i += 32)
            xs[i] = x[blockIdx.x * K + k0 + i];
        __syncthreads();
        for (int j = 0; j < W; ++j)
            acc += xs[(threadIdx.x + j) % W] * (float)(j + 1);
        __syncthreads();
    }
    y[blockIdx.x * 32 + threadIdx.x] = acc;
}

void launch(const float *x, float *y, int B, int K)
{
    ragged<<<B, 32>>>(x, y, K);
}
