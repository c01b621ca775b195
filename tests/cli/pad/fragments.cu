// Fixture of tests/cli/pad.sh: wmma fragment loads and inline-asm ldmatrix
// of shared tiles, read as ldmatrix phases (8 rows of 16 bytes), analysed
// with --block 32: the padding --pad picks keeps every wmma fragment
// pointer 32-byte aligned and every ldmatrix row 16-byte aligned, or the
// array is refused with the reason.
#include <mma.h>
using namespace nvcuda;

__global__ void frag_rows(float *out)
{
	// a fragment at every row (r: 0, 1, ...): 8 halfs more would put row 1
	// 16 bytes off a 32-byte boundary; 16 more (160-byte rows) keep it
	__shared__ __align__(32) half w8[32][64];
	// 160-byte rows already (2-way): every padding that lowers that moves
	// row 1 off its 32-byte boundary
	__shared__ __align__(32) half w9[32][80];
	w8[0][threadIdx.x] = 0;
	w9[0][threadIdx.x] = 0;
	__syncthreads();
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	float acc = 0;
	for (int r = 0; r < 16; ++r) {
		wmma::load_matrix_sync(fa, &w8[r][0], 64);
		acc += (float)fa.x[0];
		wmma::load_matrix_sync(fa, &w9[r][0], 80);
		acc += (float)fa.x[0];
	}
	out[threadIdx.x] = acc;
}

__global__ void ldm(float *out)
{
	__shared__ __align__(128) half l1[64][64];
	__shared__ __align__(128) half l2[64][64];
	l1[0][threadIdx.x] = 0;
	l2[0][threadIdx.x] = 0;
	__syncthreads();
	unsigned r0, r1, r2, r3, q0, q1, q2, q3;
	// lane L gives row L % 16, 16-byte column L / 16
	unsigned a1 = static_cast<unsigned>(
		__cvta_generic_to_shared(&l1[threadIdx.x % 16][(threadIdx.x / 16) * 8]));
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
		     : "r"(a1));
	// the same rows, their byte offsets added by hand: padding would break them
	unsigned a2 = static_cast<unsigned>(__cvta_generic_to_shared(&l2[0][0])) +
		      (threadIdx.x % 16) * 128 + (threadIdx.x / 16) * 16;
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(q0), "=r"(q1), "=r"(q2), "=r"(q3)
		     : "r"(a2));
	out[threadIdx.x] = (float)(r0 + r1 + r2 + r3 + q0 + q1 + q2 + q3);
}
