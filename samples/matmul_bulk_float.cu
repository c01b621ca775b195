// matmul_bulk_float.cu - fp32 C = A * B (row-major), 32x32 shared tiles, a
// 32x32 thread block, one output per thread.  Each block walks its row of A
// and its column of B with two pointers advanced after the compute phase.
//
// K-loop shape: a tile-count loop `for (int t = 0; t < K / BT; ++t)` whose
// body copies one element per thread into each tile (`As[ty][tx] =
// a[ty * K + tx]`), so a tile row is a contiguous row of A or B; no bounds
// checks: M, N and K must be multiples of 32.
//
// kpipe: eligible for every variant, and the sample of the bulk-copy
// transform (--variant bulk, sm_90+): the block is as wide and as tall as the
// tiles, a row is 128 bytes, and the row stride (K or N floats) keeps every
// row 16-byte aligned.

#define BT 32

__global__ void matmul_bulk_float(const float *__restrict__ A, const float *__restrict__ B,
                                  float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[BT][BT];
    __shared__ float Bs[BT][BT];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const float *a = A + (size_t)blockIdx.y * BT * K; // this block's rows of A
    const float *b = B + (size_t)blockIdx.x * BT;     // this block's columns of B
    float sum = 0.0f;

    for (int t = 0; t < K / BT; ++t) {
        As[ty][tx] = a[(size_t)ty * K + tx];
        Bs[ty][tx] = b[(size_t)ty * N + tx];
        __syncthreads();

        for (int k = 0; k < BT; ++k)
            sum = fmaf(As[ty][k], Bs[k][tx], sum);
        __syncthreads();
        a += BT;
        b += (size_t)BT * N;
    }

    if (blockIdx.y * BT + ty < M)
        C[((size_t)blockIdx.y * BT + ty) * N + (size_t)blockIdx.x * BT + tx] = sum;
}
