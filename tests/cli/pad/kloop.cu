// Fixture of tests/cli/pad.sh: a K-loop whose A tile is stored transposed
// (a 32-way bank conflict), for --pad before and after pipelining.
#define TILE 32

__global__ void mm_at(const float *A, const float *B, float *C, int N, int K)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float acc = 0.0f;
	for (int k0 = 0; k0 < K; k0 += TILE) {
		As[tx][ty] = A[row * K + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * N + col];
		__syncthreads();
		for (int kk = 0; kk < TILE; ++kk)
			acc += As[kk][ty] * Bs[kk][tx];
		__syncthreads();
	}
	C[row * N + col] = acc;
}

void launch(const float *A, const float *B, float *C, int N, int K)
{
	mm_at<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(A, B, C, N, K);
}
