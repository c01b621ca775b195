// adversarial input: tile loads indexed through a __shared__ table the
// block fills before the K-loop (cuda-convnet2's `pxIdxes`).  The next
// tile's loads may read the table early only when nothing in the loop can
// write it (analysis/shared_table.c).
//  - bumped: the compute phase moves the table on (`rows[ty] += 1`);
//  - pointer: a pointer to the table is taken before the loop;
//  - helper: the table is handed to a function;
//  - row: a row of a 2-D table is used as a pointer;
//  - fixed_ok (near miss): the table is only read in the loop, and written
//    again after it.
// Expected: the first four refused (kpipe-load-depends-on-compute, "reads
// the shared array"), fixed_ok rewritten.
#define T 16

__device__ void touch(int *p) { p[0] = 0; }

__global__ void bumped(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ int rows[T];
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * T + tx;
    if (ty == 0)
        rows[tx] = (blockIdx.y * T + tx) % M;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[rows[ty] * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (tx == 0)
            rows[ty] = (rows[ty] + 1) % M;
        __syncthreads();
    }
    C[(blockIdx.y * T + ty) * N + col] = acc;
}

__global__ void pointer(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ int rows[T];
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * T + tx;
    if (ty == 0)
        rows[tx] = (blockIdx.y * T + tx) % M;
    int *rp = rows;
    rp[0] = 0;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[rows[ty] * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(blockIdx.y * T + ty) * N + col] = acc;
}

__global__ void helper(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ int rows[T];
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * T + tx;
    if (ty == 0)
        rows[tx] = (blockIdx.y * T + tx) % M;
    touch(rows);
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[rows[ty] * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(blockIdx.y * T + ty) * N + col] = acc;
}

__global__ void row(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ int idx[2][T];
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * T + tx;
    if (ty == 0)
        idx[0][tx] = (blockIdx.y * T + tx) % M;
    int *r0 = idx[1];
    r0[tx] = 0;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[idx[0][ty] * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[(blockIdx.y * T + ty) * N + col] = acc;
}

__global__ void fixed_ok(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K)
{
    __shared__ int rows[T];
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * T + tx;
    if (ty == 0)
        rows[tx] = (blockIdx.y * T + tx) % M;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[rows[ty] * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    __syncthreads();
    if (ty == 0)
        rows[tx] = 0;
    C[(blockIdx.y * T + ty) * N + col] = acc;
}
