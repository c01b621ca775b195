// int8_dp4a.cu - int8 GEMM with int32 accumulation through __dp4a:
// C[m][n] = sum_k A[m][k] * Bt[n][k], where A is MxK and Bt is NxK (B given
// transposed, the usual "NT" int8 layout, so that four consecutive k of both
// operands sit in one 32-bit word).  C is MxN int32, row-major.
//
// Block tile 32x32 outputs, BKW = 32 words (128 int8 values of k) per tile,
// 32x8 threads, each thread computing rows ty + 8*i (i < 4) of column tx.
// The tiles are copied as `int` words (4 packed int8) in a constant-trip
// loop; Bs has one word of padding per row so the column walk of the compute
// phase is free of bank conflicts (the pad is never read).
//
// K-loop shape: `for (int kw = 0; kw < K / 4; kw += BKW)`, counted in words.
// M and N must be multiples of 32, K a multiple of 128.
//
// kpipe: eligible.  4-byte pure copies: cp.async or register staging.

#include <cstdint>

#define I8_TILE 32
#define I8_ROWS 8
#define BKW 32

__global__ void int8_dp4a(const int8_t *__restrict__ A,
                          const int8_t *__restrict__ Bt, int *__restrict__ C,
                          int M, int N, int K)
{
    __shared__ int As[I8_TILE][BKW];
    __shared__ int Bs[I8_TILE][BKW + 1];

    const int tx = threadIdx.x; // 0..31
    const int ty = threadIdx.y; // 0..7
    const int bm = blockIdx.y * I8_TILE;
    const int bn = blockIdx.x * I8_TILE;
    const int KW = K / 4; // row length in words
    const int *__restrict__ A4 = reinterpret_cast<const int *>(A);
    const int *__restrict__ B4 = reinterpret_cast<const int *>(Bt);

    int acc[I8_TILE / I8_ROWS] = {0, 0, 0, 0};

    for (int kw = 0; kw < K / 4; kw += BKW) {
#pragma unroll
        for (int i = 0; i < I8_TILE / I8_ROWS; ++i) {
            As[ty + I8_ROWS * i][tx] =
                A4[(size_t)(bm + ty + I8_ROWS * i) * KW + kw + tx];
            Bs[ty + I8_ROWS * i][tx] =
                B4[(size_t)(bn + ty + I8_ROWS * i) * KW + kw + tx];
        }
        __syncthreads();

#pragma unroll 8
        for (int w = 0; w < BKW; ++w) {
            const int b = Bs[tx][w];
#pragma unroll
            for (int i = 0; i < I8_TILE / I8_ROWS; ++i)
                acc[i] = __dp4a(As[ty + I8_ROWS * i][w], b, acc[i]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < I8_TILE / I8_ROWS; ++i)
        if (bm + ty + I8_ROWS * i < M && bn + tx < N)
            C[(size_t)(bm + ty + I8_ROWS * i) * N + bn + tx] = acc[i];
}
