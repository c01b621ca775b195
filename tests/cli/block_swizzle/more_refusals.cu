// more_refusals.cu - kernels `rewrite --block-swizzle` leaves in the
// hardware's order, beyond those of the golden case
// rewrite-block-swizzle-refusals: inline PTX that reads %ctaid, a red on
// global memory, a grid group of cooperative groups, a call to a function
// kpipe has no body of, blockIdx used whole.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define T 16

__global__ void ctaid_in_asm(float *C, int n)
{
    unsigned y;
    asm("mov.u32 %0, %%ctaid.y;" : "=r"(y));
    C[(y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x] = 1.0f;
}

__global__ void red_global(float *C, float *sum, int n)
{
    float v = C[(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x];
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(sum), "f"(v) : "memory");
}

__global__ void grid_group(float *C, int n)
{
    cg::grid_group g = cg::this_grid();
    C[(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x] = 1.0f;
    g.sync();
}

__device__ float elsewhere(float x);

__global__ void unknown_callee(float *C, int n)
{
    int i = (blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x;
    C[i] = elsewhere(C[i]);
}

__global__ void whole_blockidx(float *C, int n)
{
    dim3 b = blockIdx;
    C[(b.y * T + threadIdx.y) * n + b.x * T + threadIdx.x] = 1.0f;
}
