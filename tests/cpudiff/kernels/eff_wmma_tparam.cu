// eff_wmma_tparam.cu - fp16 wmma GEMM as a template over its tile sizes
// (BM, BN, BK), 16-byte float4 copies of half tiles: the leading
// dimensions handed to wmma::load_matrix_sync are the template parameters
// (`wmma::load_matrix_sync(fa, &As[..][kk], BK)`).  The call is dependent
// in the template, and kpipe took every name handed to it for a variable
// the call may change: "the step of 'k0' uses 'BK', which changes inside
// the loop" [kpipe-loop-shape].  A template parameter is a constant
// (analysis/pure.h): the loop is rewritten.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

template <int BM, int BN, int BK>
__global__ void __launch_bounds__(32)
eff_wmma_tparam(const half *__restrict__ A, const half *__restrict__ B, float *__restrict__ C,
                int M, int N, int K)
{
    __shared__ __align__(32) half As[BM][BK];
    __shared__ __align__(32) half Bs[BK][BN];
    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < BM * BK / 8 / 32; ++i) {
            const int v = tid + i * 32;
            const int r = v / (BK / 8), c = (v % (BK / 8)) * 8;
            *reinterpret_cast<float4 *>(&As[r][c]) =
                *reinterpret_cast<const float4 *>(&A[(size_t)(bm + r) * K + k0 + c]);
        }
#pragma unroll
        for (int i = 0; i < BK * BN / 8 / 32; ++i) {
            const int v = tid + i * 32;
            const int r = v / (BN / 8), c = (v % (BN / 8)) * 8;
            *reinterpret_cast<float4 *>(&Bs[r][c]) =
                *reinterpret_cast<const float4 *>(&B[(size_t)(k0 + r) * N + bn + c]);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
            wmma::load_matrix_sync(fa, &As[0][kk], BK);
            wmma::load_matrix_sync(fb, &Bs[kk][0], BN);
            wmma::mma_sync(acc, fa, fb, acc);
        }
        __syncthreads();
    }
    if (bm < M && bn < N)
        wmma::store_matrix_sync(&C[(size_t)bm * N + bn], acc, N, wmma::mem_row_major);
}

template __global__ void eff_wmma_tparam<16, 16, 32>(const half *, const half *, float *, int,
                                                     int, int);
