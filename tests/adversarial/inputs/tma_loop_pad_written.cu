// tma_loop_pad_written.cu - near miss: the padding of the tile is written elsewhere (kpipe: tma refused).
//
// The copies fill the first 16 of 20 columns; a call in the compute phase
// is handed the tile, and may read or write the padding a tensor copy of the
// padded box would fill.

#include <cuda_runtime.h>

#define TM 64
#define TK 16
#define NT 128

__device__ float peek(const float *row) { return row[0] + row[TK]; }

__global__ void __launch_bounds__(NT)
    tma_loop_pad_written(const float *__restrict__ A, float *__restrict__ C, int M, int K)
{
    __shared__ __align__(16) float As[TM][TK + 4];
    const int tid = threadIdx.x;
    const int bm = blockIdx.x * TM;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int v = tid; v < TM * TK / 4; v += NT) {
            const int r = v / (TK / 4);
            const int c = (v % (TK / 4)) * 4;
            *reinterpret_cast<float4 *>(&As[r][c]) =
                *reinterpret_cast<const float4 *>(&A[(size_t)(bm + r) * K + k0 + c]);
        }
        __syncthreads();
        for (int kk = 0; kk < TK; ++kk)
            acc += peek(&As[tid % TM][0]);
        __syncthreads();
    }
    C[(size_t)blockIdx.x * NT + tid] = acc;
}

void launch_tma_loop_pad_written(const float *A, float *C, int M, int K)
{
    tma_loop_pad_written<<<M / TM, NT>>>(A, C, M, K);
}
