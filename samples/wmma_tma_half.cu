// wmma_tma_half.cu - C = A^T * B with fp16 inputs and fp32 accumulation on
// tensor cores through nvcuda::wmma, with the host function that launches
// it.  A is stored transposed (K x M, row-major half), B is K x N row-major
// half, C is M x N row-major float.  Block tile 128x64x16: a 64x16 thread
// block (32 warps) copies one half per thread into each of three 16x64
// tiles -- A^T's columns bm..bm+63 and bm+64..bm+127, and B's columns
// bn..bn+63 -- and each warp owns one 16x16 fragment of the 128x64 output
// (warps 8 x 4, m16n16k16, one mma per tile).
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += HK)` whose body copies one
// element per thread into each tile, so a tile row is a contiguous row of
// A^T or B (64 halfs, 128 bytes) and a tile 2 KB.  No bounds checks: M must
// be a multiple of 128, N of 64, K of 16.
//
// kpipe: eligible; the half-precision sample of the tensor-map form
// (--variant tma, sm_90+): the kernel is launched in this file, so kpipe
// writes a launcher that makes a CUtensorMap of At (used by two tiles) and
// of B, and each stage is three tensor copies.  cp.async refuses its
// 2-byte copies; register staging and bulk apply.

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define HM 128
#define HN 64
#define HK 16

__global__ void __launch_bounds__(1024)
    wmma_at_half(const __half *__restrict__ At, const __half *__restrict__ B, float *__restrict__ C,
                 int M, int N, int K)
{
    __shared__ __align__(32) __half As0[HK][HM / 2];
    __shared__ __align__(32) __half As1[HK][HM / 2];
    __shared__ __align__(32) __half Bs[HK][HN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int warp = (ty * HN + tx) / 32;
    const int wm = warp / 4; // the warp's fragment row (8) and column (4)
    const int wn = warp % 4;
    const int bm = blockIdx.y * HM;
    const int bn = blockIdx.x * HN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += HK) {
        As0[ty][tx] = At[(size_t)(k0 + ty) * M + bm + tx];
        As1[ty][tx] = At[(size_t)(k0 + ty) * M + bm + HM / 2 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + bn + tx];
        __syncthreads();

        // a(m, k) = As[k][m]: column-major with a leading dimension of 64
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
        if (wm < 4)
            wmma::load_matrix_sync(fa, &As0[0][wm * 16], HM / 2);
        else
            wmma::load_matrix_sync(fa, &As1[0][(wm - 4) * 16], HM / 2);
        wmma::load_matrix_sync(fb, &Bs[0][wn * 16], HN);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }

    wmma::store_matrix_sync(&C[(size_t)(bm + wm * 16) * N + bn + wn * 16], acc, N,
                            wmma::mem_row_major);
}

// What the library exports: C = A^T * B on `stream` (M % 128 == 0,
// N % 64 == 0, K % 16 == 0).
cudaError_t hgemm_at(const __half *At, const __half *B, float *C, int M, int N, int K,
                     cudaStream_t stream)
{
    wmma_at_half<<<dim3(N / HN, M / HM), dim3(HN, HK), 0, stream>>>(At, B, C, M, N, K);
    return cudaGetLastError();
}
