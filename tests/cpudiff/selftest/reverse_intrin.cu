// reverse_intrin.cu - reverse.cu with CUDA's fast math intrinsics applied to
// each element on the way out: glibc declares __expf, __powf ... but exports
// none of them, so the checker's runtime must give them (a link error before).
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    s[t] = in[base + t];
    __syncthreads();
    float v = s[BLK - 1 - t], sn, cs;
    __sincosf(v, &sn, &cs);
    out[base + t] = __expf(v) + __logf(1.0f + v * v) + __powf(1.5f, v) + __sinf(v) * __cosf(v) +
                    __tanf(0.5f * v) + __exp10f(0.1f * v) + __log2f(2.0f + v * v) +
                    __log10f(3.0f + v * v) + sn * cs;
}
