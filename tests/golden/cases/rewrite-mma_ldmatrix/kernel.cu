// A tensor-core HGEMM written with inline PTX: 16-byte copies into padded
// half tiles, ldmatrix (x4 for A, x2.trans for B) from addresses that
// __cvta_generic_to_shared() takes inside the loop, and mma.sync m16n8k16.
// kpipe reads the ldmatrix as a read of shared memory it cannot name, the
// address conversion as a pure function of the tile's address, and
// rewrites the loop (the CPU emulator does not run PTX: kpipe-unverified).
#include <cuda_fp16.h>
#include <stdint.h>

#define BM 64
#define BN 64
#define BK 16
#define PAD 8

#define LDST128(x) (*reinterpret_cast<uint4 *>(&(x)))
#define LDSM_X4(r0, r1, r2, r3, addr)                                                           \
	asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n"       \
		     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)                                   \
		     : "r"(addr))
#define LDSM_X2_T(r0, r1, addr)                                                                 \
	asm volatile("ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16 {%0, %1}, [%2];\n"         \
		     : "=r"(r0), "=r"(r1)                                                       \
		     : "r"(addr))
#define MMA16816(d0, d1, a0, a1, a2, a3, b0, b1)                                                \
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, "             \
		     "{%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"                                  \
		     : "+r"(d0), "+r"(d1)                                                       \
		     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))

// 128 threads, 4 warps in 2x2, each warp 32x32 of C (2x4 mma tiles)
__global__ void __launch_bounds__(128) hgemm_mma_ldsm(half *A, half *B, half *C, int M, int N, int K)
{
	__shared__ half As[BM][BK + PAD];
	__shared__ half Bs[BK][BN + PAD];
	int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	int wm = warp % 2, wn = warp / 2;
	int row = blockIdx.y * BM, col = blockIdx.x * BN;
	uint32_t acc[2][4][2] = {};

	for (int k0 = 0; k0 < K; k0 += BK) {
		// A: 64 rows of 16 halves, two 16-byte copies a row; B: 16 rows of 64
		LDST128(As[tid / 2][(tid % 2) * 8]) = LDST128(A[(row + tid / 2) * K + k0 + (tid % 2) * 8]);
		LDST128(Bs[tid / 8][(tid % 8) * 8]) = LDST128(B[(k0 + tid / 8) * N + col + (tid % 8) * 8]);
		__syncthreads();

		uint32_t ra[2][4], rb[4][2];
		for (int i = 0; i < 2; ++i) {
			uint32_t p = __cvta_generic_to_shared(&As[wm * 32 + i * 16 + lane % 16][(lane / 16) * 8]);
			LDSM_X4(ra[i][0], ra[i][1], ra[i][2], ra[i][3], p);
		}
		for (int j = 0; j < 4; ++j) {
			uint32_t p = __cvta_generic_to_shared(&Bs[lane % 16][wn * 32 + j * 8]);
			LDSM_X2_T(rb[j][0], rb[j][1], p);
		}
		for (int i = 0; i < 2; ++i)
			for (int j = 0; j < 4; ++j)
				MMA16816(acc[i][j][0], acc[i][j][1], ra[i][0], ra[i][1], ra[i][2], ra[i][3], rb[j][0],
					 rb[j][1]);
		__syncthreads();
	}

	for (int i = 0; i < 2; ++i)
		for (int j = 0; j < 4; ++j) {
			int r = row + wm * 32 + i * 16 + lane / 4, c = col + wn * 32 + j * 8 + (lane % 4) * 2;
			*reinterpret_cast<uint32_t *>(&C[r * N + c]) = acc[i][j][0];
			*reinterpret_cast<uint32_t *>(&C[(r + 8) * N + c]) = acc[i][j][1];
		}
}

void launch_hgemm_mma_ldsm(half *A, half *B, half *C, int M, int N, int K, cudaStream_t s)
{
	hgemm_mma_ldsm<<<dim3(N / BN, M / BM), 128, 0, s>>>(A, B, C, M, N, K);
}
