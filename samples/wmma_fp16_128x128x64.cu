// wmma_fp16_128x128x64.cu - C = A * B with fp16 inputs and fp32 accumulation
// on tensor cores through nvcuda::wmma, with a large block tile: 128x128x64,
// 8 warps (256 threads) arranged 2x4, each warp owning a 64x32 piece of C
// (4x2 fragments 16x16x16).  A is MxK and B is KxN, both row-major half; C
// is MxN row-major float.  M and N must be multiples of 128, K of 64.
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += BK)`, 16-byte vector copies
// in constant-trip loops (4 of A and 4 of B per thread).  Rows are padded by
// 8 halfs; the tiles are __align__(32) for wmma::load_matrix_sync.
//
// kpipe: eligible.  The two tiles take 35840 B of static shared memory:
// they fit the 48 KB static limit once, not twice.  Without --variant,
// kpipe keeps one buffer (register-2bar, two barriers).  With --stages 3 or
// 4, or --variant cp-async / register, the tiles move to dynamic shared
// memory (71680 B for 2 stages, 107520 B for 3, 143360 B for 4: sm_80's
// 163 KB and sm_90's 227 KB opt-in limits hold all three, sm_86's 99 KB
// only 2): kpipe declares them as references into an extern array,
// writes the launch size in a `// kpipe-launch: dynamic_smem(KERNEL)` line and, as
// this file has no launch, warns that its callers must pass it.

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int WB_BM = 128;
constexpr int WB_BN = 128;
constexpr int WB_BK = 64;
constexpr int WB_PAD = 8;
constexpr int WB_THREADS = 256;

__global__ void __launch_bounds__(WB_THREADS)
wmma_fp16_128x128x64(const half *__restrict__ A, const half *__restrict__ B,
                     float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(32) half As[WB_BM][WB_BK + WB_PAD];
    __shared__ __align__(32) half Bs[WB_BK][WB_BN + WB_PAD];

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / 4; // warp row in the 2x4 grid of warps
    const int wn = warp % 4; // warp column
    const int bm = blockIdx.y * WB_BM;
    const int bn = blockIdx.x * WB_BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += WB_BK) {
#pragma unroll
        for (int i = 0; i < WB_BM * WB_BK / 8 / WB_THREADS; ++i) {
            const int v = tid + i * WB_THREADS;
            const int r = v / (WB_BK / 8);
            const int c = (v % (WB_BK / 8)) * 8;
            *reinterpret_cast<float4 *>(&As[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &A[(size_t)(bm + r) * K + k0 + c]);
        }
#pragma unroll
        for (int i = 0; i < WB_BK * WB_BN / 8 / WB_THREADS; ++i) {
            const int v = tid + i * WB_THREADS;
            const int r = v / (WB_BN / 8);
            const int c = (v % (WB_BN / 8)) * 8;
            *reinterpret_cast<float4 *>(&Bs[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &B[(size_t)(k0 + r) * N + bn + c]);
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < WB_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>
                fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>
                fb[2];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                wmma::load_matrix_sync(fa[i], &As[wm * 64 + i * 16][kk],
                                       WB_BK + WB_PAD);
#pragma unroll
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(fb[j], &Bs[kk][wn * 32 + j * 16],
                                       WB_BN + WB_PAD);
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(
                &C[(size_t)(bm + wm * 64 + i * 16) * N + bn + wn * 32 + j * 16],
                acc[i][j], N, wmma::mem_row_major);
}
