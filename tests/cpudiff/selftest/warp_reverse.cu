// warp_reverse.cu - each warp reverses its 32 elements through shared memory
// (a block barrier between the write and the read).
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    s[t] = in[base + t];
    __syncthreads();
    out[base + t] = s[(t & ~31) + 31 - (t & 31)];
}
