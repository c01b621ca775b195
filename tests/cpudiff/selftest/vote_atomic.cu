// vote_atomic.cu - vote.cu with the votes counted through shared-memory
// atomics and plain barriers (self-test kernel of the CPU checker).
#define BLK 64

__global__ void block_vote(const float *__restrict__ in, int *__restrict__ out, int n)
{
    __shared__ int cnt[3];
    const int t = threadIdx.x;
    const float v = in[blockIdx.x * BLK + t];
    if (t == 0)
        cnt[0] = cnt[1] = cnt[2] = 0;
    __syncthreads();
    atomicAdd(&cnt[0], v > 0.0f ? 1 : 0);
    atomicAdd(&cnt[1], v > -0.9f ? 0 : 1);
    atomicAdd(&cnt[2], v > 0.9f ? 1 : 0);
    __syncthreads();
    if (t == 0) {
        out[blockIdx.x * 3 + 0] = cnt[0];
        out[blockIdx.x * 3 + 1] = cnt[1] == 0;
        out[blockIdx.x * 3 + 2] = cnt[2] != 0;
    }
}
