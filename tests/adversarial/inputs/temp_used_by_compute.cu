// adversarial input: a copy through a temporary of the load phase
// (`float a = A[...]; As[ty][tx] = a;`) whose temporary the compute phase
// also reads (`acc += a * scale;`).
// Expected: refused with kpipe-load-decl-used-later: pipelined, the load
// phase runs one tile ahead, so the compute would read the next tile's
// element.  Without `a * scale` the copy is rewritten (cp.async copies
// A[...] itself, register staging stages `a`).
#define TS 16

__global__ void temp_used_by_compute(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int N, int K, float scale)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        float a = A[(size_t)row * K + k0 + tx];
        As[ty][tx] = a;
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        acc += a * scale;
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
