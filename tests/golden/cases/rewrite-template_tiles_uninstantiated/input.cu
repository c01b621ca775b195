// A kernel template whose tiles are sized by its parameters, which nothing in
// this file instantiates: --variant register doubles them blind and says at
// which sizes the doubled tiles pass the 48 KB static limit
// [kpipe-template-tiles].  --variant auto has nothing to weigh (no tile
// size, block, trip count or ptxas answer) and leaves the loop alone with a
// remark [kpipe-no-predicted-gain] (rewrite-template_uninstantiated_auto).
template <int BM, int BK>
__global__ void tpl_tiles(const float *A, const float *B, float *C, int N, int K)
{
	__shared__ float As[BM][BK];
	__shared__ float Bs[BK][BM];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * BM + ty, col = blockIdx.x * BM + tx;
	float acc = 0.0f;
	for (int k0 = 0; k0 < K; k0 += BK) {
		As[ty][tx] = A[row * K + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * N + col];
		__syncthreads();
		for (int kk = 0; kk < BK; ++kk)
			acc += As[ty][kk] * Bs[kk][tx];
		__syncthreads();
	}
	C[row * N + col] = acc;
}
