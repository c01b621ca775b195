// adversarial input: a per-tile partial sum added to the accumulator after
// the compute (`acc += part;`), with a guard of the next copy that reads the
// accumulator (`acc < limit ? A[...] : 0.0f`).
// Expected: refused with kpipe-loop-shape ("the step of 'acc' uses 'part'").
// Without the guard `acc += part` is compute and the loop is rewritten; with
// it the next tile's copy depends on this tile's result, which the prefetch
// cannot know.
#define TS 16

__global__ void partial_sum_in_loads(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int N, int K, float limit)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = acc < limit ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        float part = 0.0f;
        for (int kk = 0; kk < TS; ++kk)
            part += As[ty][kk] * Bs[kk][tx];
        acc += part;
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
