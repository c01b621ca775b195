// reverse_bulk.cu - reverse.cu with the block's 64 elements brought into
// shared memory by one cp.async.bulk copy that completes an mbarrier, which
// every thread waits for (the inline PTX of kpipe's bulk helpers).
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64
#ifndef EXPECT
#define EXPECT (BLK * 4) // the bytes the barrier expects
#endif

static __device__ __forceinline__ unsigned saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ __align__(16) float s[BLK];
    __shared__ __align__(8) unsigned long long bar;
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(saddr(&bar)), "r"(1u) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(saddr(&bar)), "r"((unsigned)EXPECT) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(saddr(s)), "l"(&in[base]), "r"(BLK * 4u), "r"(saddr(&bar)) : "memory");
    }
#ifndef NO_WAIT
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(saddr(&bar)), "r"(0u) : "memory");
    } while (!done);
#endif
    out[base + t] = s[BLK - 1 - t];
}
