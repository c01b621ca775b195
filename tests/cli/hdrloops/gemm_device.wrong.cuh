// gemm_device.cuh - mylib's tiled GEMM K-loop (C = A * B, row-major), the
// way BLAS-style libraries write it: a templated __device__ function with
// __shared__ tiles of its own, in a header with no kernel.  The thin
// __global__ wrappers live in src/gemm_s.cu and src/gemm_d.cu, which
// instantiate it with float and double and different tile sizes.
//
// Not self-contained on purpose: it uses mylib::index_t and MYLIB_DEVICE,
// which come from mylib/types.cuh, included by the .cu files before it.
//
// kpipe: the K-loop of gemm_device is reached through the .cu files that
// include this header, with each file's instantiations; rewritten once.
#pragma once

namespace mylib {

template <typename T, int BM, int BK>
MYLIB_DEVICE void gemm_device(const T *__restrict__ A, const T *__restrict__ B,
			      T *__restrict__ C, index_t N, index_t K)
{
	__shared__ T As[2][BM][BK];
	__shared__ T Bs[2][BK][BM];

	const int tx = threadIdx.x % BM;
	const int ty = threadIdx.x / BM;
	const index_t row = blockIdx.y * BM + ty;
	const index_t col = blockIdx.x * BM + tx;
	T acc = 0;

	// kpipe: register staging, 2 buffers: 2 staging registers per thread (<= 16), compute/load 4.0 FLOP/B; whether it costs resident warps is not checked: ptxas could not be asked (the K-loop is in a __device__ function of a project header, whose kernels are in the file that includes it)
	{
		index_t k0 = 0;
		int kp_stage = 0;
		T kp_reg0[1] = {}; // kpipe: one-element arrays, not scalars: fewer registers (docs/design.md)
		T kp_reg1[1] = {};
		if (k0 < K) {
			As[0][ty][tx] = A[row * K + k0 + tx];
			Bs[0][ty][tx] = B[(k0 + ty) * N + col];
		}
		__syncthreads();
		for (; k0 < K; k0 += BK) {
			const bool kp_has_next = (k0 + BK) < K;
			// kpipe: no __syncwarp() here: its condition ('k0 < K') is not proven the same for every thread (a full-mask warp barrier needs every thread of the warp)
			if (kp_has_next) {
				kp_reg0[0] = A[row * K + (k0 + BK) + tx];
				kp_reg1[0] = B[((k0 + BK) + ty) * N + col];
			}
#pragma unroll
			for (int kk = 0; kk < BK; ++kk)
				acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx] + (T)1;
			{
				As[kp_stage ^ 1][ty][tx] = kp_reg0[0];
				Bs[kp_stage ^ 1][ty][tx] = kp_reg1[0];
			}
			__syncthreads();
			kp_stage ^= 1;
		}
	}
	C[row * N + col] = acc;
}

} // namespace mylib
