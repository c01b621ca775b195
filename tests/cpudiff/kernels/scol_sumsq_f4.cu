// scol_sumsq_f4.cu - the sum of squares of each column of a row-major
// float matrix (kpipe's own kernel).  A block of 128 threads owns 128
// columns and walks down the rows 32 at a time: the 32x128 tile is copied
// in float4s, eight per thread, through the reinterpret_cast macro public
// kernels use; each thread then adds the squares of its column's 32 values.
//
// kpipe --variant auto: a 3-stage cp.async ring (memory-bound: 0.5 FLOP/B;
// docs/benchmarks.md, "Memory-bound tiles").
#define SQ_ROWS 32
#define SQ_COLS 128
#define SQ_THREADS 128
#define F4(v) (reinterpret_cast<float4 *>(&(v))[0])
#define CF4(v) (reinterpret_cast<const float4 *>(&(v))[0])

__global__ void __launch_bounds__(SQ_THREADS)
scol_sumsq_f4(int m, int n, const float *__restrict__ A, float *__restrict__ out)
{
    __shared__ __align__(16) float tile[SQ_ROWS][SQ_COLS];
    const int tid = threadIdx.x;
    const int col0 = blockIdx.x * SQ_COLS;
    float acc = 0.0f;
    for (int r0 = 0; r0 < m; r0 += SQ_ROWS) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const int idx = i * SQ_THREADS + tid; // float4 index in the tile
            const int r = idx / (SQ_COLS / 4), c = (idx % (SQ_COLS / 4)) * 4;
            F4(tile[r][c]) = CF4(A[(size_t)(r0 + r) * n + col0 + c]);
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < SQ_ROWS; r++) {
            const float v = tile[r][tid];
            acc += v * v;
        }
        __syncthreads();
    }
    if (col0 + tid < n)
        out[col0 + tid] = acc;
}
