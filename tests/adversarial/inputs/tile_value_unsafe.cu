// tile_value_unsafe.cu - near misses of a tile value (a variable the load
// phase sets for its tile and the compute phase reads, which the rewrite
// evaluates again at the top of the compute phase): each kernel breaks
// one condition that makes evaluating it again give the value the
// original computes with, and must stay refused.  The last kernel is the
// safe shape, pipelined.
//
//   live_after       the value the loop leaves is read after it
//   compute_writes   the compute phase changes the variable
//   from_memory      the value is read from global memory
//   reads_changing   the value reads a variable the compute phase changes
//   tail_reads       the statements after the closing barrier read it
//   warp_value       the value comes from a warp shuffle, no pure function
//   read_before      the load phase reads it before setting it
//   guard_short      copies guarded by it without an else, and the compute
//                    reads past the guard (every column of the tile)
//   safe_value       pipelined

#define T 16

__global__ void live_after(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int kw = 0;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        kw = min(T, K - t * T);
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc + kw;
}

__global__ void compute_writes(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int kw;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        kw = min(T, K - t * T);
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        if (acc > 100.0f)
            kw = kw / 2;
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void from_memory(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, const int *__restrict__ widths, int N,
                            int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        const int kw = widths[t];
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void reads_changing(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int limit = K;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        const int kw = min(T, limit - t * T);
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        if (acc > 100.0f)
            limit -= 1;
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void tail_reads(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int *__restrict__ seen, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int kw, total = 0;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        kw = min(T, K - t * T);
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
        total += kw;
    }
    C[row * N + col] = acc;
    seen[row * N + col] = total;
}

__global__ void warp_value(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        const int kw = __shfl_sync(0xffffffffu, min(T, K - t * T), 0);
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void read_before(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int kw = T;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        kw = min(T, K - t * T);
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void guard_short(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int kw;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        kw = min(T, K - t * T);
        if (tx < kw)
            As[ty][tx] = A[row * K + t * T + tx];
        if (ty < kw)
            Bs[ty][tx] = B[(t * T + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < T; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void safe_value(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    int kw;
    for (int t = 0; t < (K + T - 1) / T; ++t) {
        kw = min(T, K - t * T);
        As[ty][tx] = tx < kw ? A[row * K + t * T + tx] : 0.0f;
        Bs[ty][tx] = ty < kw ? B[(t * T + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kw; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
