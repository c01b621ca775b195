// c89_counter_d.cu - C = A * B in double with both copy loops counted by
// variables declared at the top of the kernel (`int i, j;`), each also the
// counter of other for-loops of the kernel, in the compute phase and
// before and after the K-loop.  Every use of `i` and `j`
// lies in a for-loop that assigns it first, so the copy loops get counters
// of their own (canon shape 8) and the K-loop is pipelined.
#define T 16
#define R 2

__global__ void c89_counter_d(const double *__restrict__ A, const double *__restrict__ B,
                              double *__restrict__ C, int n)
{
    __shared__ double As[T][T];
    __shared__ double Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i, j, t, k;
    double acc[R];
    for (j = 0; j < R; j++)
        acc[j] = 0.0;
    for (t = 0; t < n / T; t++) {
        for (i = 0; i < R; i++)
            As[ty + 8 * i][tx] = A[(blockIdx.y * T + ty + 8 * i) * n + t * T + tx];
        for (j = 0; j < R; j++)
            Bs[ty + 8 * j][tx] = B[(t * T + ty + 8 * j) * n + blockIdx.x * T + tx];
        __syncthreads();
        for (k = 0; k < T; k++)
            for (i = 0; i < R; i++)
                acc[i] += As[ty + 8 * i][k] * Bs[k][tx];
        __syncthreads();
    }
    for (i = 0; i < R; i++)
        C[(blockIdx.y * T + ty + 8 * i) * n + blockIdx.x * T + tx] += acc[i];
}
