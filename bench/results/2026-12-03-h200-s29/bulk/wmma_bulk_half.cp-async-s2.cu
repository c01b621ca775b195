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

using namespace nvcuda;

#define WB_BM 64
#define WB_BN 128
#define WB_BK 16

__global__ void __launch_bounds__(1024)
    wmma_bulk_half(const __half *__restrict__ At, const __half *__restrict__ B,
                   float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) __half As[WB_BK][WB_BM];
    __shared__ __align__(32) __half Bs0[WB_BK][WB_BN / 2];
    __shared__ __align__(32) __half Bs1[WB_BK][WB_BN / 2];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int warp = (ty * WB_BM + tx) / 32;
    const int wm = warp / 8; // the warp's fragment row (4) and column (8)
    const int wn = warp % 8;
    const int bm = blockIdx.y * WB_BM;
    const int bn = blockIdx.x * WB_BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += WB_BK) {
        As[ty][tx] = At[(size_t)(k0 + ty) * M + bm + tx];
        Bs0[ty][tx] = B[(size_t)(k0 + ty) * N + bn + tx];
        Bs1[ty][tx] = B[(size_t)(k0 + ty) * N + bn + WB_BN / 2 + tx];
        __syncthreads();

        // a(m, k) = As[k][m]: column-major with a leading dimension of 64
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, &As[0][wm * 16], WB_BM);
        if (wn < 4)
            wmma::load_matrix_sync(fb, &Bs0[0][wn * 16], WB_BN / 2);
        else
            wmma::load_matrix_sync(fb, &Bs1[0][(wn - 4) * 16], WB_BN / 2);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }

    wmma::store_matrix_sync(&C[(size_t)(bm + wm * 16) * N + bn + wn * 16], acc, N,
                            wmma::mem_row_major);
}
