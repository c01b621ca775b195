// cooperative_groups.h - stand-in for the CUDA header of that name when
// tests/cpudiff compiles a kernel for the CPU: the block-level part only.
// thread_block's sync() and cg::sync(block) are the block barrier (reported
// at the caller's line, as __syncthreads() is); tiles, coalesced groups, the
// grid and clusters are not emulated (prep.py skips kernels that use them).
#pragma once
#include "../kp_cpu_cuda.h"

namespace cooperative_groups {
struct thread_block {
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        kp::barrier(file, line, 0);
    }
    unsigned long long thread_rank() const
    {
        return threadIdx.x + (unsigned long long)blockDim.x * (threadIdx.y + (unsigned long long)blockDim.y * threadIdx.z);
    }
    unsigned long long size() const { return (unsigned long long)blockDim.x * blockDim.y * blockDim.z; }
    unsigned long long num_threads() const { return size(); }
    dim3 group_index() const { return blockIdx; }
    dim3 thread_index() const { return threadIdx; }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
static inline thread_block this_thread_block() { return thread_block(); }
static inline void sync(const thread_block &, const char *file = __builtin_FILE(),
                        int line = __builtin_LINE())
{
    kp::barrier(file, line, 0);
}
} // namespace cooperative_groups
