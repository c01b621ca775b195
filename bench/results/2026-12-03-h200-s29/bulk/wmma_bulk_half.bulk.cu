// wmma_bulk_half.cu - C = A^T * B with fp16 inputs and fp32 accumulation on
// tensor cores through nvcuda::wmma.  A is stored transposed (K x M,
// row-major half), B is K x N row-major half, C is M x N row-major float.
// Block tile 64x128x16: a 64x16 thread block (32 warps) copies one half per
// thread into each of three 16x64 tiles -- A^T's columns bm..bm+63 and B's
// columns bn..bn+63 and bn+64..bn+127 -- and each warp owns one 16x16
// fragment of the 64x128 output (warps 4 x 8, m16n16k16, one mma per tile).
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)` whose body copies one
// element per thread into each tile (`As[ty][tx] = At[...]`), so a tile row
// is a contiguous row of A^T or B (64 halfs, 128 bytes).  The tiles are
// __align__(32) for wmma::load_matrix_sync.  No bounds checks: M must be a
// multiple of 64, N of 128, K of 16.
//
// kpipe: eligible; the half-precision sample of the bulk-copy transform
// (--variant bulk, sm_90+: 48 bulk copies of 128 bytes per
// stage, one per tile row).  cp.async refuses its 2-byte copies (it moves 4,
// 8 or 16 bytes per thread); register staging applies.

#include <cuda_fp16.h>
#include <mma.h>
#ifndef kp_bulk_helpers
#define kp_bulk_helpers
// kpipe: mbarrier and bulk-copy helpers (sm_90+), used by the loops rewritten with --variant bulk
static __device__ __forceinline__ void kp_mbar_init(unsigned long long *bar, unsigned count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count) : "memory");
}
static __device__ __forceinline__ void kp_mbar_fence_init()
{
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
static __device__ __forceinline__ void kp_mbar_expect_tx(unsigned long long *bar, unsigned bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void kp_mbar_arrive(unsigned long long *bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
}
static __device__ __forceinline__ void kp_mbar_wait(unsigned long long *bar, unsigned parity)
{
	unsigned done;
	do {
		asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(parity) : "memory");
	} while (!done);
}
// every row of a tile 16-byte aligned: the first two rows' sources are
static __device__ __forceinline__ bool kp_bulk_rows_ok(const void *row0, const void *row1)
{
	return (((unsigned long long)row0 | (unsigned long long)row1) & 15) == 0;
}
// rows rows of row_bytes each from row0, row1, ... (one copy when adjacent);
// every thread calls, lane 0 of each warp copies its share of the rows
static __device__ __forceinline__ void kp_bulk_tile(void *dst, const void *row0, const void *row1, unsigned row_bytes, unsigned rows, unsigned long long *bar)
{
	const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	if (tid % 32)
		return;
	const unsigned warps = (blockDim.x * blockDim.y * blockDim.z + 31) / 32;
	const long long stride = (const char *)row1 - (const char *)row0;
	const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	const unsigned b = (unsigned)__cvta_generic_to_shared(bar);
	const unsigned n = stride == (long long)row_bytes ? 1 : rows;
	const unsigned len = n == 1 ? row_bytes * rows : row_bytes;
	// the slot's earlier plain stores (a fallback fill) before the async writes
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	for (unsigned r = tid / 32; r < n; r += warps)
		asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(d + r * row_bytes), "l"((const char *)row0 + r * stride), "r"(len), "r"(b) : "memory");
}
#endif

using namespace nvcuda;

#define WB_BM 64
#define WB_BN 128
#define WB_BK 16

__global__ void __launch_bounds__(1024)
    wmma_bulk_half(const __half *__restrict__ At, const __half *__restrict__ B,
                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) __half As[2][WB_BK][WB_BM];
    __shared__ __align__(32) __half Bs0[2][WB_BK][WB_BN / 2];
    __shared__ __align__(32) __half Bs1[2][WB_BK][WB_BN / 2];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int warp = (ty * WB_BM + tx) / 32;
    const int wm = warp / 8; // the warp's fragment row (4) and column (8)
    const int wn = warp % 8;
    const int bm = blockIdx.y * WB_BM;
    const int bn = blockIdx.x * WB_BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    // kpipe: bulk copies (cp.async.bulk + mbarrier), 2 stages: requested with --variant bulk
    {
        int k0 = 0;
        int kp_stage = 0;
        __shared__ __align__(8) unsigned long long kp_full[2];
        unsigned kp_phase = 0; // bit s: the phase stage s waits for
        const bool kp_bulk_ok = blockDim.z == 1 &&
            blockDim.x == sizeof(As[0][0]) / sizeof(As[0][0][0]) && blockDim.y == sizeof(As[0]) / sizeof(As[0][0]) &&
            kp_bulk_rows_ok(&As[0][0][0], &As[0][0][0]) &&
            kp_bulk_rows_ok(&(At)[(size_t)(k0 + ((int)(0u))) * M + bm + ((int)(0u))], &(At)[(size_t)(k0 + ((int)(1u))) * M + bm + ((int)(0u))]) &&
            kp_bulk_rows_ok(&(At)[(size_t)(k0 + ((int)(0u))) * M + bm + ((int)(0u))], &(At)[(size_t)((k0 + WB_BK) + ((int)(0u))) * M + bm + ((int)(0u))]) &&
            blockDim.x == sizeof(Bs0[0][0]) / sizeof(Bs0[0][0][0]) && blockDim.y == sizeof(Bs0[0]) / sizeof(Bs0[0][0]) &&
            kp_bulk_rows_ok(&Bs0[0][0][0], &Bs0[0][0][0]) &&
            kp_bulk_rows_ok(&(B)[(size_t)(k0 + ((int)(0u))) * N + bn + ((int)(0u))], &(B)[(size_t)(k0 + ((int)(1u))) * N + bn + ((int)(0u))]) &&
            kp_bulk_rows_ok(&(B)[(size_t)(k0 + ((int)(0u))) * N + bn + ((int)(0u))], &(B)[(size_t)((k0 + WB_BK) + ((int)(0u))) * N + bn + ((int)(0u))]) &&
            blockDim.x == sizeof(Bs1[0][0]) / sizeof(Bs1[0][0][0]) && blockDim.y == sizeof(Bs1[0]) / sizeof(Bs1[0][0]) &&
            kp_bulk_rows_ok(&Bs1[0][0][0], &Bs1[0][0][0]) &&
            kp_bulk_rows_ok(&(B)[(size_t)(k0 + ((int)(0u))) * N + bn + WB_BN / 2 + ((int)(0u))], &(B)[(size_t)(k0 + ((int)(1u))) * N + bn + WB_BN / 2 + ((int)(0u))]) &&
            kp_bulk_rows_ok(&(B)[(size_t)(k0 + ((int)(0u))) * N + bn + WB_BN / 2 + ((int)(0u))], &(B)[(size_t)((k0 + WB_BK) + ((int)(0u))) * N + bn + WB_BN / 2 + ((int)(0u))]);
        if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
            for (int kp_s = 0; kp_s < 2; ++kp_s)
                kp_mbar_init(&kp_full[kp_s], 1);
            kp_mbar_fence_init();
        }
        __syncthreads();
        if (k0 < K) {
            if (kp_bulk_ok) {
                if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                    kp_mbar_expect_tx(&kp_full[0], sizeof(As[0]) + sizeof(Bs0[0]) + sizeof(Bs1[0]));
                kp_bulk_tile(&As[0][0][0], &(At)[(size_t)(k0 + ((int)(0u))) * M + bm + ((int)(0u))], &(At)[(size_t)(k0 + ((int)(1u))) * M + bm + ((int)(0u))], sizeof(As[0][0]), sizeof(As[0]) / sizeof(As[0][0]), &kp_full[0]);
                kp_bulk_tile(&Bs0[0][0][0], &(B)[(size_t)(k0 + ((int)(0u))) * N + bn + ((int)(0u))], &(B)[(size_t)(k0 + ((int)(1u))) * N + bn + ((int)(0u))], sizeof(Bs0[0][0]), sizeof(Bs0[0]) / sizeof(Bs0[0][0]), &kp_full[0]);
                kp_bulk_tile(&Bs1[0][0][0], &(B)[(size_t)(k0 + ((int)(0u))) * N + bn + WB_BN / 2 + ((int)(0u))], &(B)[(size_t)(k0 + ((int)(1u))) * N + bn + WB_BN / 2 + ((int)(0u))], sizeof(Bs1[0][0]), sizeof(Bs1[0]) / sizeof(Bs1[0][0]), &kp_full[0]);
            } else {
                As[0][ty][tx] = At[(size_t)(k0 + ty) * M + bm + tx];
                Bs0[0][ty][tx] = B[(size_t)(k0 + ty) * N + bn + tx];
                Bs1[0][ty][tx] = B[(size_t)(k0 + ty) * N + bn + WB_BN / 2 + tx];
                if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                    kp_mbar_arrive(&kp_full[0]);
            }
        }
        for (; k0 < K; k0 += WB_BK) {
            kp_mbar_wait(&kp_full[kp_stage], (kp_phase >> kp_stage) & 1u);
            kp_phase ^= 1u << kp_stage;
            __syncthreads(); // and the slot refilled below is free
            if ((k0 + WB_BK) < K) {
                if (kp_bulk_ok) {
                    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                        kp_mbar_expect_tx(&kp_full[kp_stage ^ 1], sizeof(As[0]) + sizeof(Bs0[0]) + sizeof(Bs1[0]));
                    kp_bulk_tile(&As[kp_stage ^ 1][0][0], &(At)[(size_t)((k0 + WB_BK) + ((int)(0u))) * M + bm + ((int)(0u))], &(At)[(size_t)((k0 + WB_BK) + ((int)(1u))) * M + bm + ((int)(0u))], sizeof(As[0][0]), sizeof(As[0]) / sizeof(As[0][0]), &kp_full[kp_stage ^ 1]);
                    kp_bulk_tile(&Bs0[kp_stage ^ 1][0][0], &(B)[(size_t)((k0 + WB_BK) + ((int)(0u))) * N + bn + ((int)(0u))], &(B)[(size_t)((k0 + WB_BK) + ((int)(1u))) * N + bn + ((int)(0u))], sizeof(Bs0[0][0]), sizeof(Bs0[0]) / sizeof(Bs0[0][0]), &kp_full[kp_stage ^ 1]);
                    kp_bulk_tile(&Bs1[kp_stage ^ 1][0][0], &(B)[(size_t)((k0 + WB_BK) + ((int)(0u))) * N + bn + WB_BN / 2 + ((int)(0u))], &(B)[(size_t)((k0 + WB_BK) + ((int)(1u))) * N + bn + WB_BN / 2 + ((int)(0u))], sizeof(Bs1[0][0]), sizeof(Bs1[0]) / sizeof(Bs1[0][0]), &kp_full[kp_stage ^ 1]);
                } else {
                    As[kp_stage ^ 1][ty][tx] = At[(size_t)((k0 + WB_BK) + ty) * M + bm + tx];
                    Bs0[kp_stage ^ 1][ty][tx] = B[(size_t)((k0 + WB_BK) + ty) * N + bn + tx];
                    Bs1[kp_stage ^ 1][ty][tx] = B[(size_t)((k0 + WB_BK) + ty) * N + bn + WB_BN / 2 + tx];
                    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                        kp_mbar_arrive(&kp_full[kp_stage ^ 1]);
                }
            }

            // a(m, k) = As[k][m]: column-major with a leading dimension of 64
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
            wmma::load_matrix_sync(fa, &As[kp_stage][0][wm * 16], WB_BM);
            if (wn < 4)
                wmma::load_matrix_sync(fb, &Bs0[kp_stage][0][wn * 16], WB_BN / 2);
            else
                wmma::load_matrix_sync(fb, &Bs1[kp_stage][0][(wn - 4) * 16], WB_BN / 2);
            wmma::mma_sync(acc, fa, fb, acc);
            kp_stage ^= 1;
        }
    }

    wmma::store_matrix_sync(&C[(size_t)(bm + wm * 16) * N + bn + wn * 16], acc, N,
                            wmma::mem_row_major);
}
