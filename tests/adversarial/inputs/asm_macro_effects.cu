// adversarial input: inline PTX written by macros, whose effects kpipe must
// read from the macro's body, not from the line that calls the macro
// (which names no instruction).  k_store_global's compute phase stores,
// through ST_GLOBAL_F32, into the part of A the next tile's copies read:
// the pipelined loop would read that tile before the store (a wrong
// result; kpipe 0.x before the fix wrote it with exit 0).  k_store_shared
// stores into a tile through ST_SHARED_F32.  k_template_mac passes the
// template as a macro parameter, which kpipe cannot read.
// Expected: those three loops refused (kpipe-unknown-effect, "by inline
// assembly"); the near miss k_ldmatrix (ldmatrix through a macro, a read,
// and the address from __cvta_generic_to_shared inside the loop) is
// rewritten, and the output compiles with nvcc.
#include <stdint.h>
#define T 16
#define ST_GLOBAL_F32(p, v) asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(v))
#define ST_SHARED_F32(addr, v) asm volatile("st.shared.f32 [%0], %1;" ::"r"(addr), "f"(v))
#define PTX1(tpl, a, v) asm volatile(tpl ::"l"(a), "f"(v))
#define LDSM_X1(r, addr) \
	asm volatile("ldmatrix.sync.aligned.x1.m8n8.shared.b16 {%0}, [%1];\n" : "=r"(r) : "r"(addr))

__global__ void k_store_global(float *A, const float *B, float *C, int N, int K)
{
	__shared__ float As[T][T];
	__shared__ float Bs[T][T];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
	float acc = 0.0f;
	for (int k0 = 0; k0 < K; k0 += T) {
		As[ty][tx] = A[row * K + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * N + col];
		__syncthreads();
		for (int kk = 0; kk < T; ++kk)
			acc += As[ty][kk] * Bs[kk][tx];
		if (k0 + T < K && blockIdx.x == 0)
			ST_GLOBAL_F32(&A[row * K + k0 + T + tx], acc);
		__syncthreads();
	}
	C[row * N + col] = acc;
}

__global__ void k_store_shared(const float *A, const float *B, float *C, int N, int K)
{
	__shared__ float As[T][T];
	__shared__ float Bs[T][T];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
	float acc = 0.0f;
	for (int k0 = 0; k0 < K; k0 += T) {
		As[ty][tx] = A[row * K + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * N + col];
		__syncthreads();
		for (int kk = 0; kk < T; ++kk)
			acc += As[ty][kk] * Bs[kk][tx];
		unsigned a = (unsigned)__cvta_generic_to_shared(&Bs[ty][tx]);
		ST_SHARED_F32(a, acc);
		__syncthreads();
	}
	C[row * N + col] = acc;
}

__global__ void k_template_mac(float *A, const float *B, float *C, int N, int K)
{
	__shared__ float As[T][T];
	__shared__ float Bs[T][T];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
	float acc = 0.0f;
	for (int k0 = 0; k0 < K; k0 += T) {
		As[ty][tx] = A[row * K + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * N + col];
		__syncthreads();
		for (int kk = 0; kk < T; ++kk)
			acc += As[ty][kk] * Bs[kk][tx];
		PTX1("st.global.f32 [%0], %1;", &C[row * N + col], acc);
		__syncthreads();
	}
	C[row * N + col] = acc;
}

__global__ void k_ldmatrix(const float *A, const float *B, float *C, int N, int K)
{
	__shared__ float As[T][T];
	__shared__ float Bs[T][T];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
	float acc = 0.0f;
	uint32_t bits = 0;
	for (int k0 = 0; k0 < K; k0 += T) {
		As[ty][tx] = A[row * K + k0 + tx];
		Bs[ty][tx] = B[(k0 + ty) * N + col];
		__syncthreads();
		for (int kk = 0; kk < T; ++kk)
			acc += As[ty][kk] * Bs[kk][tx];
		uint32_t r, a = (uint32_t)__cvta_generic_to_shared(&As[(ty * T + tx) % 8][0]);
		LDSM_X1(r, a);
		bits ^= r;
		__syncthreads();
	}
	C[row * N + col] = acc + (float)(bits & 1);
}

void launch(float *A, const float *B, float *C, int N, int K)
{
	dim3 g(N / T, N / T), b(T, T);
	k_store_global<<<g, b>>>(A, B, C, N, K);
	k_store_shared<<<g, b>>>(A, B, C, N, K);
	k_template_mac<<<g, b>>>(A, B, C, N, K);
	k_ldmatrix<<<g, b>>>(A, B, C, N, K);
}
