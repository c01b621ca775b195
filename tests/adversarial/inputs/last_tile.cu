// adversarial input: tiles read after their K-loop with no refill kpipe
// proves (analysis/last_tile.c).  Pipelined, the uses after the loop read
// the stage the last iteration computed on (kp_lastN); that stage holds
// what the original's single buffer holds only when every iteration writes
// the same elements.
//  - varying_guard: the copy stores only where `k0 + tx < K` (an if
//    without else, the compute reads inside the guard): the last tile
//    writes fewer elements than the earlier ones, whose values the
//    original's buffer keeps and the last stage does not;
//  - varying_count: the copy loop's bound depends on the tile;
//  - macro_use: the code after the loop reads the tile inside a macro
//    body, which no edit can re-index;
//  - early_exit: a copy loop left with break.
// Expected: those four loops refused (kpipe-tile-read-after-loop, or a
// reason of their own first); the near misses fixed_guard (a guard that is
// the same for every tile) and last_read (the last tile read as the loop
// left it, under a condition) are rewritten, with their uses after the
// loop indexed by the stage of the last tile.
#define S 16
#define LAST(r, c) As[r][c]

__global__ void varying_guard(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, float *__restrict__ L, int N, int K)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += S) {
        if (k0 + tx < K)
            As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = k0 + ty < K ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < S && k0 + kk < K; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
    L[row * N + col] = As[ty][tx];
}

__global__ void varying_count(const float *__restrict__ A, float *__restrict__ C,
                              float *__restrict__ L, int N, int K)
{
    __shared__ float As[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += S) {
        for (int j = 0; j < S && k0 + j < K; j += 1)
            if (tx == 0)
                As[ty][j] = A[row * K + k0 + j];
        __syncthreads();
        for (int kk = 0; kk < S && k0 + kk < K; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[row * N + tx] = acc;
    L[row * N + tx] = As[ty][tx];
}

__global__ void macro_use(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, float *__restrict__ L, int N, int K)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += S) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < S; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
    L[row * N + col] = LAST(tx, ty);
}

__global__ void early_exit(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, float *__restrict__ L, int N, int K, int stop)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += S) {
        for (int j = 0; j < S; j += 8) {
            if (j == stop)
                break;
            As[ty][tx] = A[row * K + k0 + tx];
        }
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < S; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
    L[row * N + col] = As[tx][ty];
}

__global__ void fixed_guard(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, float *__restrict__ L, int N, int K, int w)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    const int lim = w < S ? w : S;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += S) {
        if (tx < lim)
            As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < lim; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
    if (tx < lim)
        L[row * N + col] = As[ty][tx];
}

__global__ void last_read(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, float *__restrict__ L, int N, int K)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    const int full = K / S * S;
    float acc = 0.0f;
    for (int k0 = 0; k0 < full; k0 += S) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < S; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
    if (full > 0)
        L[row * N + col] = As[tx][ty] - Bs[ty][tx];
}
