// reverse.cu - each block reverses its 64 elements through shared memory.
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    s[t] = in[base + t];
    __syncthreads();
    out[base + t] = s[BLK - 1 - t];
}
