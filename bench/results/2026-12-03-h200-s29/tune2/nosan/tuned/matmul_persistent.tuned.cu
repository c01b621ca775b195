// matmul_persistent.cu - fp32 C = A * B (row-major) with a persistent grid:
// each block walks output tiles with a grid-stride loop and runs a full
// K-loop per tile, the way persistent GEMM kernels amortise block launches.
//
// K-loop shape: the textbook 32x32 loop (two tile copies, a barrier, 32
// multiply-adds, a barrier), nested in `for (tile = blockIdx.x; tile <
// numTiles; tile += gridDim.x)`.  The pipelined loop restarts its prologue
// for every output tile, so its last tile must be fenced off from the next
// tile's prologue: kpipe closes the cp.async form with a __syncthreads()
// (docs/design.md, "What follows the loop").  M, N and K must be multiples
// of 32.

#include <cuda_runtime.h>

#define TILE 32

__global__ void __launch_bounds__(TILE * TILE)
matmul_persistent(const float *__restrict__ A, const float *__restrict__ B,
                  float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tilesN = N / TILE;
    const int numTiles = (M / TILE) * tilesN;

    for (int tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
        const int row = (tile / tilesN) * TILE + ty;
        const int col = (tile % tilesN) * TILE + tx;
        float acc = 0.0f;

        // kpipe: register staging, 1 buffer, 2 barriers: requested with --variant register-2bar
        {
            int k0 = 0;
            int kp_stage = 0;
            float kp_reg0[1] = {}; // kpipe: one-element arrays, not scalars: fewer registers (docs/design.md)
            float kp_reg1[1] = {};
            if (k0 < K) {
                As[ty][tx] = A[(size_t)row * K + k0 + tx];
                Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
            }
            __syncthreads();
            for (; k0 < K; k0 += TILE) {
                const bool kp_has_next = (k0 + TILE) < K;
                if (kp_has_next) {
                    kp_reg0[0] = A[(size_t)row * K + (k0 + TILE) + tx];
                    kp_reg1[0] = B[(size_t)((k0 + TILE) + ty) * N + col];
                    __syncwarp(); // kpipe: keeps the loads above the math (ptxas)
                }

#pragma unroll
                for (int kk = 0; kk < TILE; ++kk)
                    acc += As[ty][kk] * Bs[kk][tx];
                __syncthreads();
                {
                    As[ty][tx] = kp_reg0[0];
                    Bs[ty][tx] = kp_reg1[0];
                }
                __syncthreads();
                kp_stage ^= 1;
            }
        }

        C[(size_t)row * N + col] = acc;
    }
}

// Host-side launcher: a fixed number of blocks per SM, capped by the work.
cudaError_t launch_matmul_persistent(const float *A, const float *B, float *C,
                                     int M, int N, int K, int blocks,
                                     cudaStream_t stream)
{
    if (M % TILE != 0 || N % TILE != 0 || K % TILE != 0 || blocks <= 0)
        return cudaErrorInvalidValue;
    matmul_persistent<<<blocks, dim3(TILE, TILE), 0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}
