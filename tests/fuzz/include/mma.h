/* mma.h - fuzzer stand-in: everything is in kpipe_fuzz_cuda.h */
#include "kpipe_fuzz_cuda.h"
