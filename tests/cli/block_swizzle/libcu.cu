// libcu.cu - libcu++'s atomics and fences, which the toolkit declares, are
// blocks meeting in memory too: `rewrite --block-swizzle` refuses both
// kernels; a block-scope fence alone is the block's own business.
#include <cuda/atomic>

#define T 16

__global__ void counted(float *C, int *cnt, int n)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> r(*cnt);
    C[(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x] = 1.0f;
    r.fetch_add(1);
}

__global__ void device_fence(float *C, int n)
{
    C[(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x] = 1.0f;
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
}

__global__ void block_fence(float *C, int n)
{
    C[(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x] = 1.0f;
    __threadfence_block();
}
