// kernel.cu - the compute reads its A tile through a pointer taken before
// the loop (written for the cpudiff tests).  Doubling the tile left the
// pointer on buffer 0, so every odd tile was computed from stale data.
#define TS 16

__global__ void ptr_matmul(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    const float *arow = (const float *)As + ty * TS;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += arow[kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}
