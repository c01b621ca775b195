// A project header with inline PTX naming a special register: clang is
// given its text recovered too.
#pragma once
__device__ __forceinline__ unsigned warp_of()
{
    unsigned r;
    asm volatile("mov.u32 %0, %warpid;" : "=r"(r));
    return r;
}
