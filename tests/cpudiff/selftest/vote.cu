// vote.cu - each block counts its positive inputs with __syncthreads_count
// and tests all/any with __syncthreads_and/_or; vote_atomic.cu computes the
// same with shared-memory atomics (self-test kernels of the CPU checker,
// tests/cpudiff/selftest.sh).
#define BLK 64

__global__ void block_vote(const float *__restrict__ in, int *__restrict__ out, int n)
{
    const int t = threadIdx.x;
    const float v = in[blockIdx.x * BLK + t];
    const int count = __syncthreads_count(v > 0.0f);
    const int all = __syncthreads_and(v > -0.9f);
    const int any = __syncthreads_or(v > 0.9f);
    if (t == 0) {
        out[blockIdx.x * 3 + 0] = count;
        out[blockIdx.x * 3 + 1] = all;
        out[blockIdx.x * 3 + 2] = any;
    }
}
