// Fixture of tests/cli/pad.sh: a naive transpose (its store uncoalesced)
// and one through a shared tile read by column (a 32-way bank conflict).
static const int TILE = 32;
static const int BLOCK_ROWS = 8;

__global__ void transposeNaive(float *out, const float *in, int n)
{
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += BLOCK_ROWS)
		out[x * n + (y + j)] = in[(y + j) * n + x];
}

__global__ void transposeShared(float *out, const float *in, int n)
{
	__shared__ float tile[TILE][TILE];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += BLOCK_ROWS)
		tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += BLOCK_ROWS)
		out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

void run(float *o, const float *i, int n)
{
	dim3 block(TILE, BLOCK_ROWS);
	dim3 grid(n / TILE, n / TILE);
	transposeNaive<<<grid, block>>>(o, i, n);
	transposeShared<<<grid, block>>>(o, i, n);
}
