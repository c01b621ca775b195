// warp_reverse_syncwarp.cu - warp_reverse.cu with __syncwarp() between the
// write and the read, in a block that initialised an mbarrier: there the
// checker runs __syncwarp() as a barrier of the warp's threads.
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    __shared__ __align__(8) unsigned long long bar;
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    if (t == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&bar)), "r"(1u) : "memory");
    __syncthreads();
    s[t] = in[base + t];
    __syncwarp();
    out[base + t] = s[(t & ~31) + 31 - (t & 31)];
}
