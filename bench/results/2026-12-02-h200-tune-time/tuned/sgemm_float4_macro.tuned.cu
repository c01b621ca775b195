// sgemm_float4_macro.cu - fp32 C = A * B (row-major) with a 128x128 block
// tile, BK = 8, 256 threads and an 8x8 register tile per thread, written the
// way public SGEMM collections write their 128-bit copies: through
// function-like macros, FLOAT4(s_a[r][c]) = FLOAT4(a[i]).
//
// K-loop shape: `for (int bk = 0; bk < K / BK; ++bk)`, a tile-count loop.
// Each thread copies one float4 of A (s_a[BM][BK]: two threads per row) and
// one float4 of B (s_b[BK][BN]: 32 threads per row) per tile, the first
// through FLOAT4 (the `[0]` form), the second through LDST128BITS (the `*`
// form).  Each copy sits under an edge guard on M or N that is fixed before
// the loop, so the rows and columns past the matrix are never written, in
// any iteration; their results are never stored.  M may be ragged; N must
// be a multiple of 4 and K of 8 (float4 alignment, whole K tiles).
//
// kpipe: eligible.  The analysis sees the expanded copies (16-byte vector
// copies of a and b), and the rewrite edits the macro arguments as spelled:
// cp.async writes __pipeline_memcpy_async(&FLOAT4(s_a[...][r][c]), &FLOAT4(a[...
// next tile ...]), 16), register staging keeps the macros for the load into
// its two float4 registers and for the store after the math.

#include <cuda_runtime.h>
#include <cuda_pipeline.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])
#define LDST128BITS(value) (*(reinterpret_cast<float4 *>(&(value))))

__global__ void __launch_bounds__(256)
sgemm_float4_macro(float *__restrict__ a, float *__restrict__ b, float *__restrict__ c, int M,
                   int N, int K)
{
    __shared__ float s_a[2][BM][BK];
    __shared__ float s_b[2][BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16; // 8 output columns each
    const int ty = tid / 16; // 8 output rows each

    // where this thread's float4 of A and of B go in the tiles
    const int load_a_m = tid / 2, load_a_k = (tid % 2) * 4;
    const int load_b_k = tid / 32, load_b_n = (tid % 32) * 4;
    const int load_a_gm = blockIdx.y * BM + load_a_m; // row of A
    const int load_b_gn = blockIdx.x * BN + load_b_n; // column of B

    float r_c[TM][TN] = {0.0f};
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int bk = 0;
        int kp_stage = 0;
        if (bk < K / BK) {
            if (load_a_gm < M)
                __pipeline_memcpy_async(&FLOAT4(s_a[0][load_a_m][load_a_k]), &FLOAT4(a[load_a_gm * K + bk * BK + load_a_k]), 16);
            if (load_b_gn < N)
                __pipeline_memcpy_async(&LDST128BITS(s_b[0][load_b_k][load_b_n]), &LDST128BITS(b[(bk * BK + load_b_k) * N + load_b_gn]), 16);
        }
        __pipeline_commit();
        for (; bk < K / BK; ++bk) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((bk + 1) < K / BK) {
                if (load_a_gm < M)
                    __pipeline_memcpy_async(&FLOAT4(s_a[kp_stage ^ 1][load_a_m][load_a_k]), &FLOAT4(a[load_a_gm * K + (bk + 1) * BK + load_a_k]), 16);
                if (load_b_gn < N)
                    __pipeline_memcpy_async(&LDST128BITS(s_b[kp_stage ^ 1][load_b_k][load_b_n]), &LDST128BITS(b[((bk + 1) * BK + load_b_k) * N + load_b_gn]), 16);
            }
            __pipeline_commit();

#pragma unroll
            for (int k = 0; k < BK; ++k)
#pragma unroll
                for (int m = 0; m < TM; ++m)
#pragma unroll
                    for (int n = 0; n < TN; ++n)
                        r_c[m][n] += s_a[kp_stage][ty * TM + m][k] * s_b[kp_stage][k][tx * TN + n];
            kp_stage ^= 1;
        }
    }

#pragma unroll
    for (int m = 0; m < TM; ++m) {
        const int row = blockIdx.y * BM + ty * TM + m;
#pragma unroll
        for (int n = 0; n < TN; n += 4) {
            const int col = blockIdx.x * BN + tx * TN + n;
            if (row < M && col < N)
                FLOAT4(c[row * N + col]) = FLOAT4(r_c[m][n]);
        }
    }
}
