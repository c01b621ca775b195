// sgemm_transpose_staged.cu - fp32 C = A * B (row-major), 128x128 block tile,
// BK = 8, 256 threads, an 8x8 register tile per thread.
//
// The source stages A itself: each thread reads four consecutive elements of
// a row of A as one float4 into a local register, then writes them down a
// column of the shared tile (As is stored K-major, so the compute phase reads
// it with unit stride).  B is copied as one float4 per thread.  This is the
// shape of the "vectorised" step of the public SGEMM tutorials.
//
// K-loop shape: `for (int kt = 0; kt < K; kt += BK)`, with the A and B
// pointers bumped after the first barrier.  M and N must be multiples of
// 128, K a multiple of 8.
//
// kpipe: eligible.  cp.async cannot move A (the copy goes through the
// register `a4` and is transposed on its way in); register staging can: the
// prefetch reads the float4 into staging registers, the stores after the math
// write the transposed column into the other buffer.

#include <cuda_runtime.h>

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(256)
sgemm_transpose_staged(int M, int N, int K, const float *A, const float *B, float *C)
{
	__shared__ float As[BK * BM];
	__shared__ float Bs[BK * BN];

	const int col_t = threadIdx.x % (BN / TN);
	const int row_t = threadIdx.x / (BN / TN);

	A += blockIdx.y * BM * K;
	B += blockIdx.x * BN;
	C += blockIdx.y * BM * N + blockIdx.x * BN;

	// which float4 of the A and B tiles this thread copies
	const int a_row = threadIdx.x / (BK / 4);
	const int a_col = threadIdx.x % (BK / 4);
	const int b_row = threadIdx.x / (BN / 4);
	const int b_col = threadIdx.x % (BN / 4);

	float acc[TM * TN] = {0.0f};
	float frag_a[TM];
	float frag_b[TN];

	for (int kt = 0; kt < K; kt += BK) {
		const float4 a4 = reinterpret_cast<const float4 *>(&A[a_row * K + a_col * 4])[0];
		As[(a_col * 4 + 0) * BM + a_row] = a4.x;
		As[(a_col * 4 + 1) * BM + a_row] = a4.y;
		As[(a_col * 4 + 2) * BM + a_row] = a4.z;
		As[(a_col * 4 + 3) * BM + a_row] = a4.w;
		reinterpret_cast<float4 *>(&Bs[b_row * BN + b_col * 4])[0] =
			reinterpret_cast<const float4 *>(&B[b_row * N + b_col * 4])[0];
		__syncthreads();

		A += BK;
		B += BK * N;

		for (int kk = 0; kk < BK; ++kk) {
			for (int i = 0; i < TM; ++i)
				frag_a[i] = As[kk * BM + row_t * TM + i];
			for (int j = 0; j < TN; ++j)
				frag_b[j] = Bs[kk * BN + col_t * TN + j];
			for (int i = 0; i < TM; ++i)
				for (int j = 0; j < TN; ++j)
					acc[i * TN + j] += frag_a[i] * frag_b[j];
		}
		__syncthreads();
	}

	for (int i = 0; i < TM; ++i)
		for (int j = 0; j < TN; ++j)
			C[(row_t * TM + i) * N + col_t * TN + j] = acc[i * TN + j];
}

template __global__ void sgemm_transpose_staged<128, 128, 8, 8, 8>(int, int, int, const float *,
								   const float *, float *);
