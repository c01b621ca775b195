// older_as_written.cu - a K-loop whose copy loops stride by the block
// (`i += blockDim.x * blockDim.y`), with no __launch_bounds__ and no
// launch in the file: register staging has no compile-time count for its
// registers, so below sm_80 no form applies, while cp.async needs none.
// Built for sm_75 and sm_80 (`--arch sm_75,sm_80`, the args of the golden
// rewrite-older_as_written), kpipe pipelines the loop with cp.async under
// `#if __CUDA_ARCH__ >= 800` and keeps it as written in the #else, the
// tile declarations both ways (docs/design.md, "Several targets").  K is
// ragged.
#define T 16

__global__ void strided_tiles(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T + 1];
    const int nt = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        for (int i = tid; i < T * T; i += nt) {
            const int r = i / T, c = i % T;
            if (blockIdx.y * T + r < M && k0 + c < K)
                As[r][c] = A[(blockIdx.y * T + r) * K + k0 + c];
            else
                As[r][c] = 0.0f;
        }
        for (int i = tid; i < T * T; i += nt) {
            const int r = i / T, c = i % T;
            if (k0 + r < K && blockIdx.x * T + c < N)
                Bs[r][c] = B[(k0 + r) * N + blockIdx.x * T + c];
            else
                Bs[r][c] = 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < T; kk++)
            acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
