// sgemm_stride_local.cu - fp32 C = A * B (row-major), 64x64 block tile,
// BK = 16, 256 threads, a 4x4 register tile per thread.
//
// The copy loops step by strides the kernel computes once into plain
// (non-const) locals, `int a_stride = BM / a_rounds;`, as several public
// SGEMM tutorials write them, and A goes through a register array the
// source declares (`float a_stage[4 * A_ROUNDS]`): each round reads one
// float4 of a row of A and writes it down a column of As (K-major).
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`.  M and N must be
// multiples of 64, K a multiple of 16.
//
// kpipe: eligible.  The strides are never changed after their initialisers,
// so kpipe takes their values and the copy loops have compile-time trip
// counts (1 round of A, 1 of B per thread): register staging indexes its
// registers with them.  cp.async cannot transpose A.

#include <cuda_runtime.h>

#define SL_BM 64
#define SL_BN 64
#define SL_BK 16
#define SL_TM 4
#define SL_TN 4
#define SL_THREADS 256
#define SL_A_ROUNDS (SL_BK * SL_BM / SL_THREADS / 4)

__global__ void __launch_bounds__(SL_THREADS)
sgemm_stride_local(int M, int N, int K, const float *A, const float *B, float *C)
{
	__shared__ float As[SL_BK * SL_BM];
	__shared__ float Bs[SL_BK * SL_BN];

	const int col_t = threadIdx.x % (SL_BN / SL_TN);
	const int row_t = threadIdx.x / (SL_BN / SL_TN);

	// rows of A and B each round of copies covers
	int a_rounds = SL_BK * SL_BM / SL_THREADS / 4;
	int b_rounds = SL_BK * SL_BN / SL_THREADS / 4;
	int a_stride = SL_BM / a_rounds;
	int b_stride = SL_BK / b_rounds;
	int a_row = threadIdx.x / (SL_BK / 4);
	int a_col = threadIdx.x % (SL_BK / 4) * 4;
	int b_row = threadIdx.x / (SL_BN / 4);
	int b_col = threadIdx.x % (SL_BN / 4) * 4;

	float a_stage[4 * SL_A_ROUNDS];
	float acc[SL_TM][SL_TN] = {{0.0f}};

	A += blockIdx.y * SL_BM * K;
	B += blockIdx.x * SL_BN;

	for (int k0 = 0; k0 < K; k0 += SL_BK) {
		for (int i = 0; i < SL_BM; i += a_stride) {
			const int r = i / a_stride * 4;
			reinterpret_cast<float4 *>(&a_stage[r])[0] =
				reinterpret_cast<const float4 *>(&A[(a_row + i) * K + k0 + a_col])[0];
			As[(a_col + 0) * SL_BM + a_row + i] = a_stage[r + 0];
			As[(a_col + 1) * SL_BM + a_row + i] = a_stage[r + 1];
			As[(a_col + 2) * SL_BM + a_row + i] = a_stage[r + 2];
			As[(a_col + 3) * SL_BM + a_row + i] = a_stage[r + 3];
		}
		for (int i = 0; i < SL_BK; i += b_stride)
			reinterpret_cast<float4 *>(&Bs[(b_row + i) * SL_BN + b_col])[0] =
				reinterpret_cast<const float4 *>(&B[(k0 + b_row + i) * N + b_col])[0];
		__syncthreads();

		for (int kk = 0; kk < SL_BK; ++kk)
			for (int i = 0; i < SL_TM; ++i)
				for (int j = 0; j < SL_TN; ++j)
					acc[i][j] += As[kk * SL_BM + row_t * SL_TM + i] *
						     Bs[kk * SL_BN + col_t * SL_TN + j];
		__syncthreads();
	}

	for (int i = 0; i < SL_TM; ++i)
		for (int j = 0; j < SL_TN; ++j)
			C[(blockIdx.y * SL_BM + row_t * SL_TM + i) * N + blockIdx.x * SL_BN +
			  col_t * SL_TN + j] = acc[i][j];
}
