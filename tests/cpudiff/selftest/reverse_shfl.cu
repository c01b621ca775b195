// reverse_shfl.cu - reverse.cu plus a warp shuffle, which the checker cannot emulate.
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    s[t] = in[base + t];
    __syncthreads();
    out[base + t] = s[BLK - 1 - t] + 0.0f * __shfl_sync(0xffffffffu, s[t], 0);
}
