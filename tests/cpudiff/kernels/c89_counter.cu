// c89_counter.cu - C = A * B (a template, instantiated for float here;
// c89_counter_d.cu is a double kernel of the same kind) written as older BLAS
// kernels write it: the counters are declared at the top of the kernel,
// `int l, k, t;`, and `l` counts the copy loop of the load phase, the inner
// loop of the compute phase and the store loop after the K-loop.  The
// kernel uses `l` only as the counter of for-loops (each assigns it first,
// none nested in another), so the canon pass gives the copy loop its own
// (`for (int l = 0; ...)`, shape 8 of docs/design.md, "The canon pass")
// and the loop is pipelined.
#define T 32
#define R 4

template <typename real>
__global__ void c89_counter(const real *__restrict__ A, const real *__restrict__ B,
                            real *__restrict__ C, int n)
{
    __shared__ real As[T][T + 1];
    __shared__ real Bs[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int l, k, t;
    real acc[R];
    for (l = 0; l < R; l++)
        acc[l] = 0;
    for (t = 0; t < n / T; t++) {
        for (l = 0; l < R; l++) {
            As[ty + 8 * l][tx] = A[(blockIdx.y * T + ty + 8 * l) * n + t * T + tx];
            Bs[ty + 8 * l][tx] = B[(t * T + ty + 8 * l) * n + blockIdx.x * T + tx];
        }
        __syncthreads();
        for (k = 0; k < T; k++)
            for (l = 0; l < R; l++)
                acc[l] += As[ty + 8 * l][k] * Bs[k][tx];
        __syncthreads();
    }
    for (l = 0; l < R; l++)
        C[(blockIdx.y * T + ty + 8 * l) * n + blockIdx.x * T + tx] = acc[l];
}

template __global__ void c89_counter<float>(const float *, const float *, float *, int);
