// A 16x16-tile matmul launched by host code in the same file, for the
// tensor-map form: its wrong rewrite passes the box's row as the tensor
// copy's first coordinate and its column as the second.
#ifndef kp_mbar_helpers
#define kp_mbar_helpers
// kpipe: mbarrier helpers (sm_90+), used by the loops rewritten with --variant bulk or tma
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
#endif
#ifndef kp_tma_helpers
#define kp_tma_helpers
#include <cuda.h>
// kpipe: tensor-map (TMA) helpers (sm_90+), used by the loops rewritten with --variant tma
// the rows a tensor map of row stride ld (elements of elt bytes) covers: 2^40 bytes,
// at most 2^31 - 1 rows (a row is a signed 32-bit coordinate)
static __host__ __forceinline__ unsigned long long kp_tma_box_rows(long long ld, unsigned elt)
{
	const unsigned long long r = (1ULL << 40) / ((unsigned long long)ld * elt);
	return r > 0x7fffffffULL ? 0x7fffffffULL : r;
}
// the rows x cols box at element off, column x and row y of a matrix of row stride
// ld, lies inside the map (as its rows() says, without dividing)
static __device__ __forceinline__ bool kp_tma_box(long long off, long long x, long long y, long long ld, unsigned cols, unsigned rows, unsigned elt)
{
	return x >= 0 && y >= 0 && x + y * ld == off && x + cols <= ld &&
	       y + rows <= 0x7fffffffLL && (unsigned long long)(y + rows) * (unsigned long long)ld * elt <= (1ULL << 40);
}
// one tensor copy of the box at column x, row y into dst, completing bar's bytes
static __device__ __forceinline__ void kp_tma_copy(void *dst, const CUtensorMap *map, long long x, long long y, unsigned long long *bar)
{
	// the slot's earlier plain stores (a fallback fill) before the async writes
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"((unsigned long long)map), "r"((int)y), "r"((int)x), "r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
}
// a tensor map of the matrix at base (row stride ld elements of elt bytes), boxes of
// rows x cols; false when the driver or the arguments do not allow one
static bool kp_tma_encode(CUtensorMap *map, const void *base, unsigned elt, long long ld, unsigned cols, unsigned rows)
{
	typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
	static encode_fn encode = 0;
	if (!encode) {
		void *fn = 0;
		cudaDriverEntryPointQueryResult q;
		if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn)
			return false;
		encode = (encode_fn)fn;
	}
	if (ld <= 0 || ld >= 2147483647LL || (unsigned long long)ld * elt % 16 ||
	    (unsigned long long)base % 16)
		return false;
	const cuuint64_t dim[2] = {(cuuint64_t)ld, kp_tma_box_rows(ld, elt)};
	const cuuint64_t stride[1] = {(cuuint64_t)ld * elt};
	const cuuint32_t box[2] = {cols, rows}, one[2] = {1, 1};
	const CUtensorMapDataType type = elt == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : elt == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : elt == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_UINT64;
	return encode(map, type, 2, const_cast<void *>(base), dim, stride, box, one, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}
#endif
#define T 16

__global__ void mm16(const float *A, const float *B, float *C, int N, int K, const __grid_constant__ CUtensorMap kp_tm_As, const __grid_constant__ CUtensorMap kp_tm_Bs, const unsigned kp_tma_ok)
{
    __shared__ __align__(128) float As[2][T][T];
    __shared__ __align__(128) float Bs[2][T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    // kpipe: tensor-map copies (cp.async.bulk.tensor + mbarrier), 2 stages: requested with --variant tma
    {
        int k0 = 0;
        int kp_stage = 0;
        __shared__ __align__(8) unsigned long long kp_full[2];
        unsigned kp_phase = 0; // bit s: the phase stage s waits for
        const bool kp_bulk_ok = kp_tma_ok != 0u && blockDim.z == 1 &&
            blockDim.x == sizeof(As[0][0]) / sizeof(As[0][0][0]) && blockDim.y == sizeof(As[0]) / sizeof(As[0][0]) &&
            ((unsigned)__cvta_generic_to_shared(&As[0][0][0]) & 127u) == 0u &&
            blockDim.x == sizeof(Bs[0][0]) / sizeof(Bs[0][0][0]) && blockDim.y == sizeof(Bs[0]) / sizeof(Bs[0][0]) &&
            ((unsigned)__cvta_generic_to_shared(&Bs[0][0][0]) & 127u) == 0u;
        if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
            for (int kp_s = 0; kp_s < 2; ++kp_s)
                kp_mbar_init(&kp_full[kp_s], 1);
            kp_mbar_fence_init();
        }
        __syncthreads();
        if (k0 < K) {
            const long long kp_o0 = (long long)(((int)(blockIdx.y * T + ((int)(0)))) * K + k0 + ((int)(0))),
                kp_x0 = (long long)(((int)(blockIdx.y * T + ((int)(0)))) * 0 + k0 + ((int)(0))),
                kp_y0 = ((long long)(((int)(blockIdx.y * T + ((int)(0)))) * 1 + k0 + ((int)(0))) - (long long)(((int)(blockIdx.y * T + ((int)(0)))) * 0 + k0 + ((int)(0))));
            const long long kp_o1 = (long long)((k0 + ((int)(0))) * N + ((int)(blockIdx.x * T + ((int)(0))))),
                kp_x1 = (long long)((k0 + ((int)(0))) * 0 + ((int)(blockIdx.x * T + ((int)(0))))),
                kp_y1 = ((long long)((k0 + ((int)(0))) * 1 + ((int)(blockIdx.x * T + ((int)(0))))) - (long long)((k0 + ((int)(0))) * 0 + ((int)(blockIdx.x * T + ((int)(0))))));
            if (kp_bulk_ok &&
                    kp_tma_box(kp_o0, kp_x0, kp_y0, ((long long)(K)), 16u, 16u, 4u) &&
                    kp_tma_box(kp_o1, kp_x1, kp_y1, ((long long)(N)), 16u, 16u, 4u)) {
                if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
                    kp_mbar_expect_tx(&kp_full[0], sizeof(As[0]) + sizeof(Bs[0]));
                    kp_tma_copy(&As[0][0][0], &kp_tm_As, kp_x0, kp_y0, &kp_full[0]);
                    kp_tma_copy(&Bs[0][0][0], &kp_tm_Bs, kp_x1, kp_y1, &kp_full[0]);
                }
            } else {
                As[0][ty][tx] = A[row * K + k0 + tx];
                Bs[0][ty][tx] = B[(k0 + ty) * N + col];
                if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                    kp_mbar_arrive(&kp_full[0]);
            }
        }
        for (; k0 < K; k0 += T) {
            kp_mbar_wait(&kp_full[kp_stage], (kp_phase >> kp_stage) & 1u);
            kp_phase ^= 1u << kp_stage;
            __syncthreads(); // and the slot refilled below is free
            if ((k0 + T) < K) {
                const long long kp_o0 = (long long)(((int)(blockIdx.y * T + ((int)(0)))) * K + (k0 + T) + ((int)(0))),
                    kp_x0 = (long long)(((int)(blockIdx.y * T + ((int)(0)))) * 0 + (k0 + T) + ((int)(0))),
                    kp_y0 = ((long long)(((int)(blockIdx.y * T + ((int)(0)))) * 1 + (k0 + T) + ((int)(0))) - (long long)(((int)(blockIdx.y * T + ((int)(0)))) * 0 + (k0 + T) + ((int)(0))));
                const long long kp_o1 = (long long)(((k0 + T) + ((int)(0))) * N + ((int)(blockIdx.x * T + ((int)(0))))),
                    kp_x1 = (long long)(((k0 + T) + ((int)(0))) * 0 + ((int)(blockIdx.x * T + ((int)(0))))),
                    kp_y1 = ((long long)(((k0 + T) + ((int)(0))) * 1 + ((int)(blockIdx.x * T + ((int)(0))))) - (long long)(((k0 + T) + ((int)(0))) * 0 + ((int)(blockIdx.x * T + ((int)(0))))));
                if (kp_bulk_ok &&
                        kp_tma_box(kp_o0, kp_x0, kp_y0, ((long long)(K)), 16u, 16u, 4u) &&
                        kp_tma_box(kp_o1, kp_x1, kp_y1, ((long long)(N)), 16u, 16u, 4u)) {
                    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
                        kp_mbar_expect_tx(&kp_full[kp_stage ^ 1], sizeof(As[0]) + sizeof(Bs[0]));
                        kp_tma_copy(&As[kp_stage ^ 1][0][0], &kp_tm_As, kp_x0, kp_y0, &kp_full[kp_stage ^ 1]);
                        kp_tma_copy(&Bs[kp_stage ^ 1][0][0], &kp_tm_Bs, kp_x1, kp_y1, &kp_full[kp_stage ^ 1]);
                    }
                } else {
                    As[kp_stage ^ 1][ty][tx] = A[row * K + (k0 + T) + tx];
                    Bs[kp_stage ^ 1][ty][tx] = B[((k0 + T) + ty) * N + col];
                    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                        kp_mbar_arrive(&kp_full[kp_stage ^ 1]);
                }
            }
            for (int kk = 0; kk < T; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            kp_stage ^= 1;
        }
    }
    C[row * N + col] = acc;
}

// kpipe-launch: launcher(mm16) = kp_tma_launch_mm16
// kpipe: every launch of mm16 in this file calls this: it makes the tensor maps of its tiles (--variant tma)
static void kp_tma_launch_mm16(dim3 kp_grid, dim3 kp_block, size_t kp_smem, cudaStream_t kp_stream, const float *A, const float *B, float *C, int N, int K)
{
    CUtensorMap kp_tm_As = {}, kp_tm_Bs = {};
    const bool kp_maps_ok =
        kp_tma_encode(&kp_tm_As, (const void *)(A), 4u, ((long long)(K)), 16u, 16u) &&
        kp_tma_encode(&kp_tm_Bs, (const void *)(B), 4u, ((long long)(N)), 16u, 16u);
    mm16<<<kp_grid, kp_block, kp_smem, kp_stream>>>(A, B, C, N, K, kp_tm_As, kp_tm_Bs, kp_maps_ok ? 1u : 0u);
}

void mm16_run(const float *A, const float *B, float *C, int M, int N, int K)
{
    kp_tma_launch_mm16(dim3(N / T, M / T), dim3(T, T), 0, 0, A, B, C, N, K);
}
