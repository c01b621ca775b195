// gemm_big.cu - a double-precision GEMM whose kernel keeps a 41 KB table
// of its own in shared memory beside mylib::gemm_device<double, 16, 16>'s
// two 2 KB tiles: with the tiles doubled the block would need more than
// the 48 KB of static shared memory.  M, N and K must be multiples of 16.
//
// kpipe: the near miss of the library tree.  Through this file the
// header's K-loop is refused (kpipe-smem-over-limit); a batch over the
// tree leaves the header as written, naming this file and the reason.
#include "mylib/types.cuh"
#include "mylib/gemm_device.cuh"

__global__ void __launch_bounds__(256)
dgemm_scaled_kernel(const double *__restrict__ A, const double *__restrict__ B,
		    double *__restrict__ C, const double *__restrict__ scale, int N, int K)
{
	__shared__ double table[5200];
	table[threadIdx.x] = scale[threadIdx.x];
	__syncthreads();
	mylib::gemm_device<double, 16, 16>(A, B, C, N, K);
	C[blockIdx.x * 256 + threadIdx.x] *= table[threadIdx.x];
}

void mylib_dgemm_scaled(const double *A, const double *B, double *C, const double *scale, int M,
			int N, int K)
{
	dgemm_scaled_kernel<<<dim3(N / 16, M / 16), 256>>>(A, B, C, scale, N, K);
}
