// matmul_template.cu - fp32 C = A * B (row-major) whose tile sizes are
// template parameters: `template <int BM, int BN, int BK>`, blockDim = (BN,
// BM), one output per thread.  This file keeps BM == BN == BK (checked by a
// static_assert) so that each thread copies exactly one element per tile.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)` with shared arrays sized
// by the template parameters.  Three explicit instantiations follow the
// kernel; one of them takes its tile from a #define, and the host launcher
// takes its default from a constexpr.  M, N, K must be multiples of the tile.
//
// kpipe: eligible for every instantiation.  The rewrite must stay generic in
// BM/BN/BK (the doubled arrays are [2][BM][BK] and [2][BK][BN]).

#include <cuda_runtime.h>

#define MATMUL_TPL_SMALL_TILE 16
constexpr int kMatmulTplDefaultTile = 32;

template <int BM, int BN, int BK>
__global__ void matmul_tiled(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    static_assert(BM == BN && BN == BK, "one element per thread per tile");
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * BM + ty;
    const int col = blockIdx.x * BN + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}

template __global__ void matmul_tiled<8, 8, 8>(const float *, const float *,
                                               float *, int, int, int);
template __global__ void
matmul_tiled<MATMUL_TPL_SMALL_TILE, MATMUL_TPL_SMALL_TILE,
             MATMUL_TPL_SMALL_TILE>(const float *, const float *, float *, int,
                                    int, int);
template __global__ void matmul_tiled<32, 32, 32>(const float *, const float *,
                                                  float *, int, int, int);

// Host dispatcher: picks an instantiation from a runtime tile size.
cudaError_t launch_matmul_tiled(const float *A, const float *B, float *C,
                                int M, int N, int K, int tile,
                                cudaStream_t stream)
{
    if (tile <= 0)
        tile = kMatmulTplDefaultTile;
    if (M % tile != 0 || N % tile != 0 || K % tile != 0)
        return cudaErrorInvalidValue;
    const dim3 block(tile, tile);
    const dim3 grid(N / tile, M / tile);
    switch (tile) {
    case 8:
        matmul_tiled<8, 8, 8><<<grid, block, 0, stream>>>(A, B, C, M, N, K);
        break;
    case MATMUL_TPL_SMALL_TILE:
        matmul_tiled<MATMUL_TPL_SMALL_TILE, MATMUL_TPL_SMALL_TILE,
                     MATMUL_TPL_SMALL_TILE>
            <<<grid, block, 0, stream>>>(A, B, C, M, N, K);
        break;
    case kMatmulTplDefaultTile:
        matmul_tiled<kMatmulTplDefaultTile, kMatmulTplDefaultTile,
                     kMatmulTplDefaultTile>
            <<<grid, block, 0, stream>>>(A, B, C, M, N, K);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
