// ---- shim of bench/heldout_gpu.py (ours, not the project's): the
// CUDA-GEMM-Optimization kernel files declare their error checks in
// include/cuda_gemm_utils.hpp and define them in another file of the
// project, which the copy does not hold; the bench dlopen()s each version
// with RTLD_NOW, so the checks the host launchers call are defined here
// (a failed check prints where and exits, as the project's do)
#include <cstdio>
#include <cstdlib>

void check_cuda(cudaError_t err, const char *const func, const char *const file, const int line)
{
    if (err != cudaSuccess) {
        std::fprintf(stderr, "CUDA error at %s:%d: %s: %s\n", file, line, cudaGetErrorString(err),
                     func);
        std::exit(EXIT_FAILURE);
    }
}

void check_cuda_last(const char *const file, const int line)
{
    check_cuda(cudaGetLastError(), "cudaGetLastError()", file, line);
}
