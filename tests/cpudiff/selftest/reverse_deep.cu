// reverse_deep.cu - reverse.cu whose thread 5 recurses some 20,000 calls
// deep between the barrier and its store: more than the emulator's fiber
// stack holds.  The run must fail with "stack overflow", naming the
// thread, before another thread runs on the stack it overran.
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__device__ int deep(int n)
{
    volatile int pad[16];
    pad[0] = n;
    return n <= 0 ? pad[0] : deep(n - 1) + pad[0] % 3;
}

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    s[t] = in[base + t];
    __syncthreads();
    const int r = t == 5 ? deep(20000) : 0;
    __syncthreads();
    out[base + t] = s[BLK - 1 - t] + (float)(r * 0);
}
