// reverse_nobar.cu - reverse.cu without its barrier: a thread may read s[] before its partner wrote it.
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    s[t] = in[base + t];
    out[base + t] = s[BLK - 1 - t];
}
