// Fixture of tests/cli/pad.sh: one shared array per kernel with a
// conflicted column access and a use that depends on its exact layout
// (or none, `ok`), analysed with --block 32.
#include <mma.h>
using namespace nvcuda;

__device__ float first(const float (*p)[32]) { return p[threadIdx.x][0]; }

__global__ void one_d(float *out)
{
	__shared__ float s1[32 * 32];
	s1[threadIdx.x * 32] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = s1[threadIdx.x];
}

__global__ void dynamic_smem(float *out)
{
	extern __shared__ float dyn[];
	dyn[threadIdx.x * 32] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = dyn[threadIdx.x];
}

__global__ void passed_whole(float *out)
{
	__shared__ float s3[32][32];
	s3[threadIdx.x][0] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = first(s3);
}

__global__ void reinterpreted(float *out)
{
	__shared__ float s4[32][32];
	s4[threadIdx.x][0] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = reinterpret_cast<float4 *>(s4)[threadIdx.x].x;
}

__global__ void pointer_arith(float *out)
{
	__shared__ float s5[32][32];
	s5[threadIdx.x][0] = 1.0f;
	__syncthreads();
	float *p5 = &s5[0][0];
	out[threadIdx.x] = p5[threadIdx.x * 33];
}

__global__ void size_read(float *out)
{
	__shared__ float s8[32][32];
	s8[threadIdx.x][0] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = s8[0][threadIdx.x] + sizeof(s8);
}

__global__ void wmma_ldm(float *out)
{
	const int ld = 16;
	__shared__ half w6[16][16];
	__shared__ float w7[16][32];
	w6[threadIdx.x % 16][0] = 0;
	w7[threadIdx.x % 16][0] = 0;
	__syncthreads();
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	wmma::load_matrix_sync(fa, &w6[0][0], ld);
	wmma::load_matrix_sync(fc, &w7[0][0], 32, wmma::mem_row_major);
	out[threadIdx.x] = fc.x[0] + (float)fa.x[0];
}

__global__ void ok(float *out)
{
	__shared__ float s9[32][32];
	s9[threadIdx.x][0] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = *reinterpret_cast<float *>(&s9[0][threadIdx.x]);
}

#define DECLARE_TILE(name) __shared__ float name[32][32]

__global__ void macro_declared(float *out)
{
	DECLARE_TILE(s10);
	s10[threadIdx.x][0] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = s10[0][threadIdx.x];
}
