// sinterleave_f4.cu - strided partial sums of a row-major float matrix
// whose K-tiles are stored float4-interleaved in shared memory (kpipe's own
// kernel, held out from the calibration of auto's memory-bound rules:
// docs/benchmarks.md, "Memory-bound tiles").  A 32x8 block owns 8 rows and
// walks along them 128 columns at a time: lane tx copies the tx-th float4
// of its row (coalesced), into row tx of the tile, so a warp's 16-byte
// stores land 144 bytes apart.  Each thread then adds four values of a
// neighbouring tile row.
//
// kpipe --variant auto: register staging (each warp's copy writes 32
// sectors of shared memory for 16 sectors' worth of bytes).
#define SI_ROWS 8
#define SI_COLS 128
#define SI_LD (SI_ROWS * 4 + 4)
#define V4(v) (*reinterpret_cast<float4 *>(&(v)))
#define CV4(v) (*reinterpret_cast<const float4 *>(&(v)))

__global__ void sinterleave_f4(int m, int n, const float *__restrict__ A, float *__restrict__ out)
{
    __shared__ __align__(16) float tile[SI_COLS / 4][SI_LD];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.x * SI_ROWS;
    float acc = 0.0f;
    for (int c0 = 0; c0 < n; c0 += SI_COLS) {
        V4(tile[tx][ty * 4]) = CV4(A[(size_t)(row0 + ty) * n + c0 + tx * 4]);
        __syncthreads();
        const int r = (tx + ty) % (SI_COLS / 4);
        acc += tile[r][ty * 4] + tile[r][ty * 4 + 1] + tile[r][ty * 4 + 2] + tile[r][ty * 4 + 3];
        __syncthreads();
    }
    if (row0 + ty < m)
        out[(size_t)(row0 + ty) * 32 + tx] = acc;
}
