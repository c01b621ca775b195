// adversarial input: a kernel that stores to global memory before its K-loop
// (it clears its own row of an accumulator buffer that a later launch reads,
// and publishes a flag), rewritten with --variant bulk and tma-less bulk
// copies: the bulk copies read through the async proxy, so every thread
// must fence its generic stores (fence.proxy.async.global) before the
// barrier that precedes the first copy.  The samples, which store only
// after the loop, get no fence (their goldens).
// Expected: rewritten with bulk, the fence before the setup's barrier, and
// the output compiles with nvcc for sm_90.
#define TS 16

__global__ void store_before(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, float *__restrict__ scratch, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    scratch[row * N + col] = 0.0f;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
