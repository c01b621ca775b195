// partial_sum.cu - fp32 C = A * B + (number of K-tiles), M, N, K multiples of
// 16, 16x16 tiles, one output per thread.  Each tile's products are summed
// into a per-tile partial sum `part`, which is added to the accumulator
// after the tile (`acc += part;`); a tile counter is bumped after the closing
// barrier (`++tiles;`).
//
// kpipe: eligible.  Neither `acc` nor `tiles` is read by the loads or the
// loop condition, so neither is an induction variable: both updates are
// compute, kept where they are by the rewrite.

#define TS 16

__global__ void partial_sum(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    int tiles = 0;

    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();

        float part = 0.0f;
        for (int kk = 0; kk < TS; ++kk)
            part += As[ty][kk] * Bs[kk][tx];
        acc += part;
        __syncthreads();
        ++tiles;
    }

    C[(size_t)row * N + col] = acc + (float)tiles;
}
