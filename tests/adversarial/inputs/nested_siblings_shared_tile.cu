// adversarial input: two K-loops side by side in a loop over batches that
// reuse one tile array (Ks: keys in the first pass, values in the second),
// as a kernel short of shared memory would.
// Expected: both refused, the first with kpipe-tile-read-after-loop (its
// last tile is overwritten by the second), the second with
// kpipe-tile-escapes (the first uses its tile before it); nothing written.
#include <cuda_runtime.h>
#define D 16
__global__ void two_pass(const float *__restrict__ K, const float *__restrict__ V,
                         float *__restrict__ O, int S, int nb)
{
    __shared__ float Ks[D][D];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int b = blockIdx.x; b < nb; b += gridDim.x) {
        const float *Kb = K + (size_t)b * S * D, *Vb = V + (size_t)b * S * D;
        float m = 0.0f, o = 0.0f;
        for (int s0 = 0; s0 < S; s0 += D) {
            Ks[ty][tx] = Kb[(size_t)(s0 + ty) * D + tx];
            __syncthreads();
            for (int j = 0; j < D; ++j)
                m = fmaxf(m, Ks[j][tx]);
            __syncthreads();
        }
        for (int s0 = 0; s0 < S; s0 += D) {
            Ks[ty][tx] = Vb[(size_t)(s0 + ty) * D + tx];
            __syncthreads();
            for (int j = 0; j < D; ++j)
                o += Ks[j][tx] / (m + 1.0f);
            __syncthreads();
        }
        O[(size_t)b * D * D + ty * D + tx] = o;
    }
}
