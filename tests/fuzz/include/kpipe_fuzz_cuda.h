/*
 * kpipe_fuzz_cuda.h - a tiny stand-in for the CUDA runtime headers, for the
 * fuzzer only (tests/fuzz/fuzz_rewrite.c).  Parsing with the real headers
 * costs about 0.3 s per input; with -nocudainc and this file force-included
 * it costs milliseconds, so the fuzzer gets many executions per second.
 * It declares what the samples use: the execution-space and memory-space
 * keywords, the built-in index variables, the vector types, a few math
 * functions, the cp.async pipeline primitives and a skeleton of wmma.
 */
#ifndef KPIPE_FUZZ_CUDA_H
#define KPIPE_FUZZ_CUDA_H

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict
#define __CUDACC__ 1
#define CUDART_VERSION 12000

#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;

#include <__clang_cuda_builtin_vars.h>

struct uint3 {
	unsigned int x, y, z;
};
struct dim3 {
	unsigned int x, y, z;
	__host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
					   unsigned int vz = 1)
	    : x(vx), y(vy), z(vz)
	{
	}
	__host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
struct __align__(8) float2 {
	float x, y;
};
struct __align__(16) float4 {
	float x, y, z, w;
};
struct __align__(8) int2 {
	int x, y;
};
struct __align__(16) int4 {
	int x, y, z, w;
};
struct __align__(16) uint4 {
	unsigned int x, y, z, w;
};
struct __align__(16) double2 {
	double x, y;
};
struct __align__(2) __half {
	unsigned short x;
};
struct __align__(4) __half2 {
	__half x, y;
};
typedef __half half;
typedef __half2 half2;

enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
typedef enum cudaError cudaError_t;
typedef struct CUstream_st *cudaStream_t;
extern "C" __host__ cudaError_t cudaGetLastError(void);
extern "C" __host__ int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0,
						    void *stream = 0);
extern "C" __host__ int cudaConfigureCall(dim3 grid, dim3 block, size_t shmem = 0,
					  void *stream = 0);

extern "C" __device__ float expf(float);
extern "C" __device__ float sqrtf(float);
extern "C" __device__ float fmaxf(float, float);
extern "C" __device__ float fminf(float, float);
extern "C" __device__ float fabsf(float);
extern "C" __device__ float __expf(float);
extern "C" __device__ float rsqrtf(float);
extern "C" __device__ int __dp4a(int, int, int);
__device__ inline int min(int a, int b) { return a < b ? a : b; }
__device__ inline int max(int a, int b) { return a > b ? a : b; }
__device__ __half __float2half(float);
__device__ float __half2float(__half);
__device__ __half __hadd(__half, __half);
__device__ __half __hmul(__half, __half);
__device__ void __threadfence_block(void);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ float __shfl_sync(unsigned, float, int, int = 32);
__device__ float __shfl_xor_sync(unsigned, float, int, int = 32);

__device__ void __pipeline_memcpy_async(void *dst, const void *src, size_t size, size_t zfill = 0);
__device__ void __pipeline_commit(void);
__device__ void __pipeline_wait_prior(size_t prior);

namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment {
	T x[8];
	enum { num_elements = 8 };
};
template <typename F, typename T> __device__ void fill_fragment(F &f, T v);
template <typename F, typename T> __device__ void load_matrix_sync(F &f, const T *p, unsigned ld);
template <typename F, typename T>
__device__ void load_matrix_sync(F &f, const T *p, unsigned ld, layout_t l);
template <typename F, typename T>
__device__ void store_matrix_sync(T *p, const F &f, unsigned ld, layout_t l);
template <typename D, typename A, typename B, typename C>
__device__ void mma_sync(D &d, const A &a, const B &b, const C &c);
} // namespace wmma
} // namespace nvcuda

#endif
