// A copy loop whose counter is declared before the K-loop (C89 style):
// analyze names that as the reason cp.async is not proven, not a target
// that misses the counter (it names it).
#define TILE 32
#define ROWS 8

__global__ void __launch_bounds__(256) outer_counter(const float *__restrict__ A,
						     const float *__restrict__ B, float *C, int n)
{
	__shared__ float As[TILE][TILE + 1];
	int l, kk;
	int tx = threadIdx.x, ty = threadIdx.y;
	float acc = 0.0f;
	for (int t = 0; t < n / TILE; t++) {
		for (l = 0; l < TILE / ROWS; l++)
			As[ty + l * ROWS][tx] = A[(blockIdx.y * TILE + ty + l * ROWS) * n + t * TILE + tx];
		__syncthreads();
		for (kk = 0; kk < TILE; kk++)
			acc += As[tx][kk] * B[(t * TILE + kk) * n + blockIdx.x * TILE + ty];
		__syncthreads();
	}
	C[(blockIdx.y * TILE + tx) * n + blockIdx.x * TILE + ty] = acc;
}
