// adversarial input: a tile refilled after its K-loop (remainder blocks).
// Pipelined, the code after the loop uses stage 0 of the array when it
// writes every element the loop writes before it reads any
// (analysis/refill.c), after the loop's own closing barrier; otherwise the
// stage the last iteration computed on (analysis/last_tile.c), which holds
// the last tile as the original's buffer does.
//  - top_barrier: the loop's barriers are at the top of each iteration, so
//    nothing orders the last compute before the refill: refused;
//  - read_first: the code after the loop reads As before refilling it (the
//    last tile is observable): As indexed by the last tile's stage;
//  - guarded_refill: the refill stores only where `tx < K - full` (an if
//    without else): the other elements keep the last tile, in its stage;
//  - transposed: the refill writes As[tx][ty], not the loop's As[ty][tx]:
//    the last tile's stage;
//  - no_barrier: the refill is read with no barrier in between (the
//    original races there, and the rewrite the same way): the last tile's
//    stage.
// Expected: top_barrier refused (kpipe-tile-read-after-loop); the other
// four and the near miss refill_ok (the refill at the kernel's top level,
// in stage 0) are rewritten.
#define S 16

__global__ void top_barrier(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
{
    __shared__ float As[S][S];
    __shared__ float Bs[S][S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * S + ty, col = blockIdx.x * S + tx;
    const int full = K / S * S;
    float acc = 0.0f;
    for (int k0 = 0; k0 < full; k0 += S) {
        __syncthreads();
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < S; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
    }
    As[ty][tx] = full + tx < K ? A[row * K + full + tx] : 0.0f;
    Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < K - full; ++kk)
        acc += As[ty][kk] * Bs[kk][tx];
    C[row * N + col] = acc;
}

__global__ void read_first(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
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
    acc += As[ty][0];
    As[ty][tx] = full + tx < K ? A[row * K + full + tx] : 0.0f;
    Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < K - full; ++kk)
        acc += As[ty][kk] * Bs[kk][tx];
    C[row * N + col] = acc;
}

__global__ void guarded_refill(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
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
    if (tx < K - full)
        As[ty][tx] = A[row * K + full + tx];
    Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < S; ++kk)
        acc += As[ty][kk] * Bs[kk][tx];
    C[row * N + col] = acc;
}

__global__ void transposed(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
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
    As[tx][ty] = full + ty < K ? A[(blockIdx.y * S + tx) * K + full + ty] : 0.0f;
    Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < K - full; ++kk)
        acc += As[ty][kk] * Bs[kk][tx];
    C[row * N + col] = acc;
}

__global__ void no_barrier(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
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
    As[ty][tx] = full + tx < K ? A[row * K + full + tx] : 0.0f;
    Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
    for (int kk = 0; kk < K - full; ++kk)
        acc += As[ty][kk] * Bs[kk][tx];
    C[row * N + col] = acc;
}

__global__ void refill_ok(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N, int K)
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
    As[ty][tx] = full + tx < K ? A[row * K + full + tx] : 0.0f;
    Bs[ty][tx] = full + ty < K ? B[(full + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < K - full; ++kk)
        acc += As[ty][kk] * Bs[kk][tx];
    C[row * N + col] = acc;
}
