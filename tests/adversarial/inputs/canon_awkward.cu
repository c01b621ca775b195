// adversarial input: shapes the canon pass rewrites, written awkwardly:
// a K-loop under "#pragma unroll 1" whose declarations move above the
// pragma (p_pragma), a guarded temporary whose condition spans lines and
// holds a macro (t_lines), an if/else of copies indented with tabs
// (s_tabs).  Expected: all three pipelined; the output compiles and a
// second rewrite changes nothing.
#include <cuda_runtime.h>
#define T 16
#define INSIDE(r, n) ((r) < (n))

__global__ void p_pragma(const float *A, const float *B, float *C, int K)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += T) {
        __syncthreads();
        __shared__ float As[T][T], Bs[T][T];
        As[ty][tx] = A[ty * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
    }
    C[ty * T + tx] = acc;
}

__global__ void t_lines(const float *A, const float *B, float *C, int M, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        for (int i = 0; i < 1; ++i) {
            float v = 0;
            if (INSIDE(blockIdx.y * T + ty, M) &&
                k0 + tx < K)
                v = A[(blockIdx.y * T + ty) * K + k0 + tx];
            As[ty][tx] = v;
        }
        for (int i = 0; i < 1; ++i) {
            float w{0.0f};
            if (k0 + ty < K) {
                w = B[(k0 + ty) * T + tx];
            }
            Bs[ty][tx] = w;
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}

__global__ void s_tabs(const float *A, const float *B, float *C, int K)
{
	__shared__ float As[T][T];
	__shared__ float Bs[T][T];
	const int tx = threadIdx.x, ty = threadIdx.y;
	float acc = 0.0f;
	for (int k0 = 0; k0 < K; k0 += T) {
		if (k0 + tx < K) {
			As[ty][tx] = A[ty * K + k0 + tx];
			Bs[tx][ty] = B[(k0 + tx) * T + ty];
		}
		else {
			As[ty][tx] = 0.0f;
			Bs[tx][ty] = 0.0f;
		}
		__syncthreads();
		for (int kk = 0; kk < T; ++kk)
			acc += As[ty][kk] * Bs[kk][tx];
		__syncthreads();
	}
	C[ty * T + tx] = acc;
}
