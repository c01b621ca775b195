// input.cu - a 32x32-tile SGEMM whose 8x8 threads each compute a 4x4
// block (rows ty..ty+3, columns tx..tx+3 of the tile), in the style of the
// how-to-optimize-gemm series.  Padding `as` by a word per row lowers the
// sum of its bank conflicts but not the worst (4-way either way), so
// `--variant auto` leaves the tiles unpadded; `--pad` still pads.
#define STRIDE 4
#define STEP 32

__global__ void sgemm_4x4(int n, int k, const float *a, const float *b, float *c)
{
	const int tx = threadIdx.x * STRIDE, ty = threadIdx.y * STRIDE;
	const float *pa = a + blockIdx.y * STEP * k;
	const float *pb = b + blockIdx.x * STEP;
	float sum[STRIDE][STRIDE] = {{0.f}};
	__shared__ float as[STEP][STEP];
	__shared__ float bs[STEP][STEP];
	for (int k0 = 0; k0 < k; k0 += STEP) {
		for (int i = 0; i < STRIDE; ++i)
			for (int j = 0; j < STRIDE; ++j) {
				as[ty + i][tx + j] = pa[(ty + i) * k + k0 + tx + j];
				bs[ty + i][tx + j] = pb[(k0 + ty + i) * n + tx + j];
			}
		__syncthreads();
		for (int i = 0; i < STRIDE; ++i)
			for (int j = 0; j < STRIDE; ++j)
				for (int kk = 0; kk < STEP; ++kk)
					sum[i][j] += as[ty + i][kk] * bs[kk][tx + j];
		__syncthreads();
	}
	for (int i = 0; i < STRIDE; ++i)
		for (int j = 0; j < STRIDE; ++j)
			c[(blockIdx.y * STEP + ty + i) * n + blockIdx.x * STEP + tx + j] = sum[i][j];
}

void run(int n, int k, const float *a, const float *b, float *c)
{
	sgemm_4x4<<<dim3(n / STEP, n / STEP), dim3(8, 8)>>>(n, k, a, b, c);
}
