// kernel.cu - a pointer-bumped K-loop whose bump `pa += ss + s` reads `s`,
// which the compute phase changes (written for the cpudiff tests): the
// first tile steps by 16, every later one by 32, so the loop reads every
// other tile of A.  kpipe's old legality check looked for `s` in the text
// of the step and found it inside `ss`, so it called the step invariant
// and prefetched with the old `s`.  M, N multiples of 16, K a multiple of 32.
#define TS 16

__global__ void skip_matmul(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    const float *pa = A + (size_t)row * K;
    int s = TS, ss = 0;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K / 2; k0 += TS) {
        As[ty][tx] = pa[tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        s = 2 * TS;
        __syncthreads();
        pa += ss + s;
    }
    C[(size_t)row * N + col] = acc;
}
