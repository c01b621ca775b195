// cublas_v2.h - stand-in for the cuBLAS header when kpipe's verifier (or
// tests/cpudiff) compiles a file for the CPU: the types, constants and
// calls that host code around a kernel names (how-to-optimize-gemm's
// MY_MMult takes a cublasHandle_t; a comparison against cublasSgemm), so
// that the file builds.  The emulator runs only the kernel; every call
// here answers CUBLAS_STATUS_NOT_SUPPORTED and computes nothing.
#pragma once
#include "../kp_cpu_cuda.h"

typedef struct kp_cublas_context *cublasHandle_t;
typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1,
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3
} cublasMath_t;

static inline cublasStatus_t cublasCreate(cublasHandle_t *h) { *h = nullptr; return CUBLAS_STATUS_NOT_SUPPORTED; }
static inline cublasStatus_t cublasDestroy(cublasHandle_t) { return CUBLAS_STATUS_SUCCESS; }
static inline cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_NOT_SUPPORTED; }
static inline cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) { return CUBLAS_STATUS_NOT_SUPPORTED; }
static inline cublasStatus_t cublasSgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const float *, const float *, int, const float *, int, const float *,
                                         float *, int)
{ return CUBLAS_STATUS_NOT_SUPPORTED; }
static inline cublasStatus_t cublasDgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const double *, const double *, int, const double *, int,
                                         const double *, double *, int)
{ return CUBLAS_STATUS_NOT_SUPPORTED; }
static inline cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                                       int, int, const float *, const float *, int, long long,
                                                       const float *, int, long long, const float *, float *,
                                                       int, long long, int)
{ return CUBLAS_STATUS_NOT_SUPPORTED; }
