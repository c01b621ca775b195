// Fixture of tests/cli/pad.sh: two stages of As and Bs take exactly 48 KB
// of static shared memory; padding As (a transposed store, 32-way) takes
// 256 bytes more, which the pipeline pass must see.
#define TILE 32
#define BW 160

__global__ void budget(const float *A, const float *B, float *C, int N, int K)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][BW];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * BW + tx;
	float acc[5] = {0, 0, 0, 0, 0};
	for (int k0 = 0; k0 < K; k0 += TILE) {
		As[tx][ty] = A[row * K + k0 + tx];
		for (int i = 0; i < 5; ++i)
			Bs[ty][tx + 32 * i] = B[(k0 + ty) * N + col + 32 * i];
		__syncthreads();
		for (int kk = 0; kk < TILE; ++kk)
			for (int i = 0; i < 5; ++i)
				acc[i] += As[kk][ty] * Bs[kk][tx + 32 * i];
		__syncthreads();
	}
	for (int i = 0; i < 5; ++i)
		C[row * N + col + 32 * i] = acc[i];
}

void launch(const float *A, const float *B, float *C, int N, int K)
{
	budget<<<dim3(N / BW, N / TILE), dim3(TILE, TILE)>>>(A, B, C, N, K);
}
