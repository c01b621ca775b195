// matmul_decl_in_loop.cu - fp32 C = A * B (row-major), 16x16 tiles, one
// output per thread; M, N and K multiples of 16.  The K-loop has its first
// barrier at the top of the body and declares what each step uses where
// it is used, as older samples and benchmark suites do:
//
//     for (k0 ...) {
//         __syncthreads();
//         __shared__ float As[TB][TB];   // after the barrier
//         __shared__ float Bs[TB][TB];
//         float a;                        // no initial value; set and read
//         ...copies...                    // by the compute phase
//         __syncthreads();
//         ...compute...
//     }
//
// Pipelined, the copies of the next tile run before this tile's compute,
// so a declaration between the barriers cannot stay where it is.
//
// kpipe: PIPELINE.  The "canon" pass moves the three declarations to just
// before the loop: a __shared__ array is one array for the whole block
// wherever it is declared, and `a` carries nothing from one step to the
// next (the compute phase sets it before reading it).  The loop is then
// the textbook shape.
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

#define TB 16

__global__ void matmul_decl_in_loop(const float *__restrict__ A, const float *__restrict__ B,
                                    float *__restrict__ C, int M, int N, int K)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TB + ty;
    const int col = blockIdx.x * TB + tx;
    float acc = 0.0f;

    // this step's tiles
    __shared__ float As[2][TB][TB];
    __shared__ float Bs[2][TB][TB];
    // one element of A's row at a time
    float a;
    // kpipe: bulk copies (cp.async.bulk + mbarrier), 2 stages: requested with --variant bulk
    {
        int k0 = 0;
        int kp_stage = 0;
        __shared__ __align__(8) unsigned long long kp_full[2];
        unsigned kp_phase = 0; // bit s: the phase stage s waits for
        const bool kp_bulk_ok = blockDim.z == 1 &&
            blockDim.x == sizeof(As[0][0]) / sizeof(As[0][0][0]) && blockDim.y == sizeof(As[0]) / sizeof(As[0][0]) &&
            kp_bulk_rows_ok(&As[0][0][0], &As[0][0][0]) &&
            kp_bulk_rows_ok(&(A)[(size_t)((int)(blockIdx.y * TB + ((int)(0u)))) * K + k0 + ((int)(0u))], &(A)[(size_t)((int)(blockIdx.y * TB + ((int)(1u)))) * K + k0 + ((int)(0u))]) &&
            kp_bulk_rows_ok(&(A)[(size_t)((int)(blockIdx.y * TB + ((int)(0u)))) * K + k0 + ((int)(0u))], &(A)[(size_t)((int)(blockIdx.y * TB + ((int)(0u)))) * K + (k0 + TB) + ((int)(0u))]) &&
            blockDim.x == sizeof(Bs[0][0]) / sizeof(Bs[0][0][0]) && blockDim.y == sizeof(Bs[0]) / sizeof(Bs[0][0]) &&
            kp_bulk_rows_ok(&Bs[0][0][0], &Bs[0][0][0]) &&
            kp_bulk_rows_ok(&(B)[(size_t)(k0 + ((int)(0u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))], &(B)[(size_t)(k0 + ((int)(1u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))]) &&
            kp_bulk_rows_ok(&(B)[(size_t)(k0 + ((int)(0u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))], &(B)[(size_t)((k0 + TB) + ((int)(0u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))]);
        if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
            for (int kp_s = 0; kp_s < 2; ++kp_s)
                kp_mbar_init(&kp_full[kp_s], 1);
            kp_mbar_fence_init();
        }
        __syncthreads();
        if (k0 < K) {
            if (kp_bulk_ok) {
                if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                    kp_mbar_expect_tx(&kp_full[0], sizeof(As[0]) + sizeof(Bs[0]));
                kp_bulk_tile(&As[0][0][0], &(A)[(size_t)((int)(blockIdx.y * TB + ((int)(0u)))) * K + k0 + ((int)(0u))], &(A)[(size_t)((int)(blockIdx.y * TB + ((int)(1u)))) * K + k0 + ((int)(0u))], sizeof(As[0][0]), sizeof(As[0]) / sizeof(As[0][0]), &kp_full[0]);
                kp_bulk_tile(&Bs[0][0][0], &(B)[(size_t)(k0 + ((int)(0u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))], &(B)[(size_t)(k0 + ((int)(1u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))], sizeof(Bs[0][0]), sizeof(Bs[0]) / sizeof(Bs[0][0]), &kp_full[0]);
            } else {

                As[0][ty][tx] = A[(size_t)row * K + k0 + tx];
                Bs[0][ty][tx] = B[(size_t)(k0 + ty) * N + col];
                if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                    kp_mbar_arrive(&kp_full[0]);
            }
        }
        for (; k0 < K; k0 += TB) {
            kp_mbar_wait(&kp_full[kp_stage], (kp_phase >> kp_stage) & 1u);
            kp_phase ^= 1u << kp_stage;
            __syncthreads(); // and the slot refilled below is free
            if ((k0 + TB) < K) {
                if (kp_bulk_ok) {
                    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                        kp_mbar_expect_tx(&kp_full[kp_stage ^ 1], sizeof(As[0]) + sizeof(Bs[0]));
                    kp_bulk_tile(&As[kp_stage ^ 1][0][0], &(A)[(size_t)((int)(blockIdx.y * TB + ((int)(0u)))) * K + (k0 + TB) + ((int)(0u))], &(A)[(size_t)((int)(blockIdx.y * TB + ((int)(1u)))) * K + (k0 + TB) + ((int)(0u))], sizeof(As[0][0]), sizeof(As[0]) / sizeof(As[0][0]), &kp_full[kp_stage ^ 1]);
                    kp_bulk_tile(&Bs[kp_stage ^ 1][0][0], &(B)[(size_t)((k0 + TB) + ((int)(0u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))], &(B)[(size_t)((k0 + TB) + ((int)(1u))) * N + ((int)(blockIdx.x * TB + ((int)(0u))))], sizeof(Bs[0][0]), sizeof(Bs[0]) / sizeof(Bs[0][0]), &kp_full[kp_stage ^ 1]);
                } else {

                    As[kp_stage ^ 1][ty][tx] = A[(size_t)row * K + (k0 + TB) + tx];
                    Bs[kp_stage ^ 1][ty][tx] = B[(size_t)((k0 + TB) + ty) * N + col];
                    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
                        kp_mbar_arrive(&kp_full[kp_stage ^ 1]);
                }
            }

            for (int kk = 0; kk < TB; ++kk) {
                a = As[kp_stage][ty][kk];
                acc += a * Bs[kp_stage][kk][tx];
            }
            kp_stage ^= 1;
        }
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
