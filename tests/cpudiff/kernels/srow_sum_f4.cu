// srow_sum_f4.cu - the sum of each row of a row-major float matrix
// (kpipe's own kernel).  A 32x8 block owns 32 rows and walks along them 32
// columns at a time: one float4 copy per thread per tile (tile rows padded
// by 4 floats, which keeps the float4s aligned), then each thread adds
// four values of one row; the eight partial sums of a row are added after
// the loop.
//
// kpipe --variant auto: a 3-stage cp.async ring (memory-bound: 0.1 FLOP/B;
// docs/benchmarks.md, "Memory-bound tiles").  The original already streams
// at about 3 TB/s on the H100: no variant gains more than 1%.
#define RS_ROWS 32
#define RS_COLS 32
#define LD4(v) (*reinterpret_cast<float4 *>(&(v)))
#define CLD4(v) (*reinterpret_cast<const float4 *>(&(v)))

__global__ void srow_sum_f4(int m, int n, const float *__restrict__ A, float *__restrict__ out)
{
    __shared__ __align__(16) float tile[RS_ROWS][RS_COLS + 4];
    __shared__ float part[8][RS_ROWS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * 32 + tx;
    const int lr = tid / 8, lc = (tid % 8) * 4; // this thread's float4
    const int row0 = blockIdx.x * RS_ROWS;
    float acc = 0.0f;
    for (int c0 = 0; c0 < n; c0 += RS_COLS) {
        LD4(tile[lr][lc]) = CLD4(A[(size_t)(row0 + lr) * n + c0 + lc]);
        __syncthreads();
        acc += tile[tx][ty * 4] + tile[tx][ty * 4 + 1] + tile[tx][ty * 4 + 2] +
               tile[tx][ty * 4 + 3];
        __syncthreads();
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && row0 + tx < m) {
        float s = 0.0f;
        for (int i = 0; i < 8; i++)
            s += part[i][tx];
        out[row0 + tx] = s;
    }
}
