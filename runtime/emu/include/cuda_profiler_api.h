// cuda_profiler_api.h - stand-in for the CUDA header of that name when
// kpipe's verifier (or tests/cpudiff) compiles a file for the CPU: the
// profiler range calls of a program's host code (Packt's SGEMM brackets
// its timing with them), which the emulator compiles but never runs.
#pragma once
#include "../kp_cpu_cuda.h"

static inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop() { return cudaSuccess; }
