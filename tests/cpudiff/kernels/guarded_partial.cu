// guarded_partial.cu - y = A x, the vector staged through shared memory in
// tiles of 128 by a guarded copy without an else: the last tile is partial,
// its tail keeps the previous tile, and the compute reads only the part the
// guard wrote (`j < min(TILE, N - base)` against `base + tid < N`), so the
// pipelined loop may leave the tail as it is (docs/design.md, "Guarded
// copies without else").
#define TILE 128

__global__ void gemv_tiles(const float *__restrict__ A, const float *__restrict__ x,
                           float *__restrict__ y, int M, int N)
{
    __shared__ float xs[TILE];
    const int tid = threadIdx.x;
    const int row = blockIdx.x * TILE + tid;
    float acc = 0.0f;
    for (int base = 0; base < N; base += TILE) {
        if (tid < TILE && base + tid < N)
            xs[tid] = x[base + tid];
        __syncthreads();
        for (int j = 0; j < min(TILE, N - base); ++j)
            acc += (row < M ? A[(size_t)row * N + base + j] : 0.0f) * xs[j];
        __syncthreads();
    }
    if (row < M)
        y[row] = acc;
}
