// tile_value_rot.cu - a tiled matrix product whose tile of A is stored
// rotated by a per-tile shift (`sh = (t * 5) % T;`, set at the top of the
// copies, C89 style) and read back through the same shift by the compute
// phase.  16x16 threads; M, N and K multiples of 16.
//
// kpipe: eligible.  `sh` is a tile value: the rewrite sets it again at the
// top of the compute phase, and register staging's store after the math,
// whose target reads it, keeps the statement that sets the next tile's
// (the store of a tile value nothing there reads is left out).

#define T 16

__global__ void tile_value_rot(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int sh;
    for (int t = 0; t < K / T; ++t) {
        sh = (t * 5) % T;
        As[ty][(tx + sh) % T] = A[row * K + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][(k + sh) % T] * Bs[k][tx] * (float)(k + 1);
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
