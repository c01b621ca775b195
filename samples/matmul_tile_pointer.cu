// matmul_tile_pointer.cu - fp32 C = A * B (row-major), 64x64 block tiles,
// 4x4 outputs per thread (256 threads); M, N multiples of 64, K of 16.
// Each thread reads its part of the tiles through a pointer set once,
// before the K-loop, the "thread tile" idiom of 2-D register-tiled SGEMM
// tutorials:
//
//     const float *a_thread = reinterpret_cast<const float *>(As) + tile_m * BK;
//     for (k0 ...) {
//         ...copies into As, Bs...
//         __syncthreads();
//         ... a_thread[m * BK + k] * b_thread[k * BN + n] ...
//         __syncthreads();
//     }
//
// kpipe: PIPELINE.  The pointers are only read, as p[i], in the compute
// phase, and point into the tiles' first element plus an offset: each
// stage of a doubled tile is the same layout one stage further, so the
// pipelined loop reads `(a_thread + stage * (sizeof(As[0]) / sizeof(*a_thread)))[i]`.
// A pointer that is written, moved, handed to a function or used outside
// the compute phase keeps the loop refused (kpipe-tile-escapes).

#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#define NT 256

__global__ void __launch_bounds__(NT)
    matmul_tile_pointer(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tile_m = (tid / (BN / TN)) * TM;
    const int tile_n = (tid % (BN / TN)) * TN;
    const float *a_thread = reinterpret_cast<const float *>(As) + tile_m * BK;
    const float *b_thread = reinterpret_cast<const float *>(Bs) + tile_n;
    float acc[TM][TN] = {};
    A += (size_t)blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int r = 0; r < BM * BK / NT; ++r) {
            const int i = tid + r * NT;
            As[i / BK][i % BK] = A[(size_t)(i / BK) * K + k0 + i % BK];
        }
#pragma unroll
        for (int r = 0; r < BK * BN / NT; ++r) {
            const int i = tid + r * NT;
            Bs[i / BN][i % BN] = B[(size_t)(k0 + i / BN) * N + i % BN];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k)
#pragma unroll
            for (int m = 0; m < TM; ++m)
#pragma unroll
                for (int n = 0; n < TN; ++n)
                    acc[m][n] += a_thread[m * BK + k] * b_thread[k * BN + n];
        __syncthreads();
    }
    C += ((size_t)blockIdx.y * BM + tile_m) * N + blockIdx.x * BN + tile_n;
    for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; ++n)
            C[(size_t)m * N + n] = acc[m][n];
}
