// copy_temps.cu - fp32 C = A * B (row-major) for arbitrary M, N, K, 16x16
// tiles, one output per thread, whose copies go through temporaries of the
// load phase: `float a = ...;` initialised with a guarded load of A, and
// `float b;` assigned a guarded load of B on the next line, both stored
// into their tiles afterwards.
//
// kpipe: eligible.  Each temporary is named only by its copy, so the copy
// is the copy of its value: cp.async copies the value's address itself (the
// temporaries go), register staging keeps them and stages their values.

#define TS 16

__global__ void copy_temps(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;
    float sum = 0.0f;

    for (int t = 0; t < (K + TS - 1) / TS; ++t) {
        const int ka = t * TS + tx;
        float a = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
        float b;
        b = (t * TS + ty < K && col < N) ? B[(size_t)(t * TS + ty) * N + col] : 0.0f;
        As[ty][tx] = a;
        Bs[ty][tx] = b;
        __syncthreads();

        for (int kk = 0; kk < TS; ++kk)
            sum += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = sum;
}
