// adversarial input: a persistent kernel whose tile loop carries shared state
// into its K-loop: it loads the first K-tile of A into the K-loop's own tile
// As once per output tile, before the K-loop (which reloads it), and stages
// its epilogue through Cs between two barriers of its own.
// Expected: the tile loop is reported as a loop around a K-loop (a remark),
// the K-loop refused with kpipe-tile-escapes; nothing written.
#include <cuda_runtime.h>
#define T 16
__global__ void carry(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int N, int K, int ntiles, int tn)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float Cs[T][T + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const int row = (tile / tn) * T + ty, col = (tile % tn) * T + tx;
        float acc = 0.0f;
        As[ty][tx] = A[(size_t)row * K + tx];
        for (int k0 = 0; k0 < K; k0 += T) {
            As[ty][tx] = A[(size_t)row * K + k0 + tx];
            Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
            __syncthreads();
            for (int kk = 0; kk < T; ++kk)
                acc += As[ty][kk] * Bs[kk][tx];
            __syncthreads();
        }
        __syncthreads();
        Cs[ty][tx] = acc;
        __syncthreads();
        C[(size_t)((tile / tn) * T + tx) * N + (tile % tn) * T + ty] = Cs[tx][ty];
    }
}
