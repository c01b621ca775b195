// matmul_device_fn.cu - a batch of fp32 products C[z] = A[z] * B[z]
// (row-major), where the tiled K-loop lives in a __device__ function with
// its own __shared__ tiles, called once per matrix of the batch by the
// kernel (the shape of NVIDIA's driver-API matrixMul sample, whose kernels
// are thin wrappers around one templated __device__ function).
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += DF_TILE)` in tile_product();
// 16x16 tiles, one output per thread.  M, N and K must be multiples of 16.
//
// kpipe: eligible.  The __device__ function is analysed like a kernel, with
// the block size of its callers' __launch_bounds__ (256).  Its callers may
// call it again (here: once per matrix), so the pipelined loop always ends
// with a barrier before the function returns.

#include <cuda_runtime.h>

#define DF_TILE 16

__device__ void tile_product(const float *__restrict__ A, const float *__restrict__ B,
			     float *__restrict__ C, int N, int K)
{
	__shared__ float As[DF_TILE][DF_TILE];
	__shared__ float Bs[DF_TILE][DF_TILE];

	const int tx = threadIdx.x % DF_TILE;
	const int ty = threadIdx.x / DF_TILE;
	const int row = blockIdx.y * DF_TILE + ty;
	const int col = blockIdx.x * DF_TILE + tx;
	float acc = 0.0f;

	for (int k0 = 0; k0 < K; k0 += DF_TILE) {
		As[ty][tx] = A[row * K + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * N + col];
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < DF_TILE; ++kk)
			acc += As[ty][kk] * Bs[kk][tx];
		__syncthreads();
	}
	C[row * N + col] = acc;
}

__global__ void __launch_bounds__(DF_TILE * DF_TILE)
matmul_device_fn(const float *__restrict__ A, const float *__restrict__ B,
		 float *__restrict__ C, int M, int N, int K, int batch)
{
	for (int z = 0; z < batch; ++z)
		tile_product(A + (size_t)z * M * K, B + (size_t)z * K * N, C + (size_t)z * M * N, N,
			     K);
}
