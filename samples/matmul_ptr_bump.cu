// matmul_ptr_bump.cu - fp32 C = A * B (row-major), 32x32 block tile, 32x8
// threads, each thread computing four outputs of one column (rows ty + 8*i).
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += TILE)` where the counter only
// bounds the loop: the tile addresses come from the A and B pointers, which
// are advanced at the very end of the body (`A += TILE; B += TILE * N;`),
// after the second barrier.  The copies sit in a constant-trip inner loop
// (TILE / ROWS = 4).  M, N and K must be multiples of 32.
//
// kpipe: eligible.  The next tile's addresses are the current pointers plus
// one loop-invariant step, which the prefetch has to apply itself.

#define TILE 32
#define ROWS 8

__global__ void matmul_ptr_bump(const float *A, const float *B, float *C,
                                int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const int tx = threadIdx.x; // 0..31
    const int ty = threadIdx.y; // 0..7

    A += (size_t)blockIdx.y * TILE * K;
    B += (size_t)blockIdx.x * TILE;
    C += (size_t)blockIdx.y * TILE * N + (size_t)blockIdx.x * TILE;

    float acc[TILE / ROWS] = {0.0f, 0.0f, 0.0f, 0.0f};

    for (int k0 = 0; k0 < K; k0 += TILE) {
#pragma unroll
        for (int i = 0; i < TILE / ROWS; ++i) {
            As[ty + ROWS * i][tx] = A[(size_t)(ty + ROWS * i) * K + tx];
            Bs[ty + ROWS * i][tx] = B[(size_t)(ty + ROWS * i) * N + tx];
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < TILE; ++kk) {
            const float b = Bs[kk][tx];
#pragma unroll
            for (int i = 0; i < TILE / ROWS; ++i)
                acc[i] += As[ty + ROWS * i][kk] * b;
        }
        __syncthreads();

        A += TILE;
        B += TILE * N;
    }

#pragma unroll
    for (int i = 0; i < TILE / ROWS; ++i)
        if (blockIdx.y * TILE + ty + ROWS * i < M)
            C[(size_t)(ty + ROWS * i) * N + tx] = acc[i];
}
