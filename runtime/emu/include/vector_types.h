// vector_types.h - stand-in for the CUDA header of that name when tests/cpudiff
// compiles a kernel for the CPU: everything lives in kp_cpu_cuda.h.
#pragma once
#include "../kp_cpu_cuda.h"
