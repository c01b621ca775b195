// adversarial input: the tile copy's target reads a per-tile descriptor
// (`As[ty][(tx + (rot[t] & 15)) % 16]`, one rotation per tile): register staging
// stores the next tile's registers after the compute phase with the next
// tile's index, and its store ran on every iteration, so the last one read
// rot one element past its end.
// Expected: rewritten; the register forms guard that store with
// kp_has_next (k_perm); the near miss k_plain (a target that reads no
// memory) keeps its store unguarded.  cpudiff
// (copies_next_descriptor.launch.json) finds the rewrite of k_perm equal to
// the original, with no read past rot.
#include <cuda_runtime.h>
#define T 16
__global__ void k_perm(const float *__restrict__ A, const int *__restrict__ rot,
                       float *__restrict__ C, int ntiles, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int t = 0; t < ntiles; ++t) {
        As[ty][(tx + (rot[t] & (T - 1))) % T] = A[(size_t)ty * K + t * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * (float)(kk + 1);
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
// near miss: nothing read by the target
__global__ void k_plain(const float *__restrict__ A, float *__restrict__ C, int ntiles, int K)
{
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int t = 0; t < ntiles; ++t) {
        As[ty][(tx + t) % T] = A[(size_t)ty * K + t * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * (float)(kk + 1);
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
