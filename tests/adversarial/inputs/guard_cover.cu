// adversarial input: guarded copies without an else whose guard changes from
// tile to tile (`base + tid < N`).  Where the guard fails the element keeps
// the previous tile in the original and the tile before it with two buffers,
// so the loop may be pipelined only when the compute reads nothing the guard
// left out (analysis/guard_cover.c).
//  - wider: the compute reads the whole tile (`j < TILE`);
//  - off_by_one: `j <= N - base` reads one element past what was written;
//  - other_bound: the compute is bounded by M - base, not N - base;
//  - thread_term: the guard's bound depends on the thread (`+ ty`);
//  - shifted: the compute reads xs[j + 1];
//  - moving_target (at the end): the element each thread writes moves with
//    the tile.
// Expected: those six loops refused (kpipe-partial-tile-write); the near
// misses matmul_ragged (2-D tiles, `kk < min(T, K - k0)`) and
// gemv_and (`j < T && base + j < N`) are rewritten.
#define T 128
#define S 16

__global__ void wider(const float *__restrict__ x, float *__restrict__ y, int N)
{
    __shared__ float xs[T];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < N; base += T) {
        if (tid < T && base + tid < N)
            xs[tid] = x[base + tid];
        __syncthreads();
        for (int j = 0; j < T; ++j)
            acc += xs[j];
        __syncthreads();
    }
    y[blockIdx.x * T + tid] = acc;
}

__global__ void off_by_one(const float *__restrict__ x, float *__restrict__ y, int N)
{
    __shared__ float xs[T + 1];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < N; base += T) {
        if (tid < T && base + tid < N)
            xs[tid] = x[base + tid];
        __syncthreads();
        for (int j = 0; j <= N - base && j < T; ++j)
            acc += xs[j];
        __syncthreads();
    }
    y[blockIdx.x * T + tid] = acc;
}

__global__ void other_bound(const float *__restrict__ x, float *__restrict__ y, int M, int N)
{
    __shared__ float xs[T];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < N; base += T) {
        if (tid < T && base + tid < N)
            xs[tid] = x[base + tid];
        __syncthreads();
        for (int j = 0; j < min(T, M - base); ++j)
            acc += xs[j];
        __syncthreads();
    }
    y[blockIdx.x * T + tid] = acc;
}

__global__ void thread_term(const float *__restrict__ x, float *__restrict__ y, int N)
{
    __shared__ float xs[T];
    const int tid = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int base = 0; base < N; base += T) {
        if (tid < T && base + tid + ty < N)
            xs[tid] = x[base + tid];
        __syncthreads();
        for (int j = 0; j < min(T, N - base - ty); ++j)
            acc += xs[j];
        __syncthreads();
    }
    y[blockIdx.x * T + tid] = acc;
}

__global__ void shifted(const float *__restrict__ x, float *__restrict__ y, int N)
{
    __shared__ float xs[T + 1];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < N; base += T) {
        if (tid < T && base + tid < N)
            xs[tid] = x[base + tid];
        __syncthreads();
        for (int j = 0; j < min(T, N - base); ++j)
            acc += xs[j + 1];
        __syncthreads();
    }
    y[blockIdx.x * T + tid] = acc;
}

__global__ void matmul_ragged(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += S) {
        if (row < M && k0 + tx < K)
            As[ty][tx] = A[row * K + k0 + tx];
        if (k0 + ty < K && col < N)
            Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < min(S, K - k0); ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

__global__ void gemv_and(const float *__restrict__ x, float *__restrict__ y, int N)
{
    __shared__ float xs[T];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < N; base += T) {
        if (base + tid < N && tid < T)
            xs[tid] = x[base + tid];
        __syncthreads();
        for (int j = 0; j < T && base + j < N; ++j)
            acc += xs[j];
        __syncthreads();
    }
    y[blockIdx.x * T + tid] = acc;
}

// moving_target: the element a thread writes moves with the tile
// ((tid + base) % T), so with `tid < 64` the elements written change from
// tile to tile, though every read is inside the guard's bound.
__global__ void moving_target(const float *__restrict__ x, float *__restrict__ y, int N)
{
    __shared__ float xs[T];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < N; base += T) {
        if (tid < 64 && base + (tid + base) % T < N)
            xs[(tid + base) % T] = x[base + (tid + base) % T];
        __syncthreads();
        for (int j = 0; j < min(T, N - base); ++j)
            acc += xs[j];
        __syncthreads();
    }
    y[blockIdx.x * T + tid] = acc;
}
