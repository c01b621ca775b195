// reverse_cpasync_nowait.cu - reverse_cpasync.cu without __pipeline_wait_prior: right only when the copy lands at issue.
// (a self-test kernel of the CPU checker, tests/cpudiff/selftest.sh)
#define BLK 64

__global__ void block_reverse(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float s[BLK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLK;
    __pipeline_memcpy_async(&s[t], &in[base + t], 4);
    __pipeline_commit();
    __syncthreads();
    out[base + t] = s[BLK - 1 - t];
}
