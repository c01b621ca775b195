// adversarial input: C89-style scratch variables declared before the K-loop
// that are NOT private to each iteration (docs/design.md, "Scratch variables
// declared before the loop"): the pipelined loop runs the next tile's load
// phase before this tile's compute, so a value that crosses a phase, an
// iteration or the loop's end would change.
//  - live_compute: the compute phase reads 'base', which only the load
//    phase assigns (pipelined, it would see the next tile's value); since
//    `base = t * TILE` is a pure function of the counter, it is a tile
//    value (analysis/tile_value.c) and the rewrite computes it again at
//    the top of the compute phase: rewritten (tile_value_unsafe.cu holds
//    the near misses of that);
//  - live_head: the load phase reads 'idx' before assigning it (the next
//    address is computed at the end of the load phase, for the next round);
//  - live_guarded: the load phase assigns 'idx' under a condition, so one
//    path reads the value the compute phase left in the previous iteration;
//  - live_after: 'idx' is read after the loop.
// Expected: every other loop refused (kpipe-load-depends-on-compute, "the
// loop body modifies"); the near miss private_ok, each phase assigning
// 'idx' before reading it, is rewritten.
#define TILE 16

__global__ void live_compute(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t, kk, base;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (t = 0; t < K / TILE; t++) {
        base = t * TILE;
        As[ty][tx] = A[row * K + base + tx];
        Bs[ty][tx] = B[(base + ty) * N + col];
        __syncthreads();
        for (kk = 0; kk < TILE; kk++)
            acc += As[ty][kk] * Bs[kk][tx] * (float)(base + kk < K);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void live_head(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t, kk, idx;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    idx = row * K + tx;
    for (t = 0; t < K / TILE; t++) {
        As[ty][tx] = A[idx];
        idx = row * K + (t + 1) * TILE + tx;
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (kk = 0; kk < TILE; kk++)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void live_guarded(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t, kk, idx = 0;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (t = 0; t < K / TILE; t++) {
        if (t % 2 == 0)
            idx = row * K + t * TILE + tx;
        As[ty][tx] = A[idx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (kk = 0; kk < TILE; kk++) {
            idx = kk;
            acc += As[ty][idx] * Bs[idx][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void live_after(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t, kk, idx = 0;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (t = 0; t < K / TILE; t++) {
        idx = row * K + t * TILE + tx;
        As[ty][tx] = A[idx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (kk = 0; kk < TILE; kk++)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc + (float)(idx & 1);
}

__global__ void private_ok(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y, t, kk, idx;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (t = 0; t < K / TILE; t++) {
        idx = row * K + t * TILE + tx;
        As[ty][tx] = A[idx];
        idx = (t * TILE + ty) * N + col;
        Bs[ty][tx] = B[idx];
        __syncthreads();
        for (kk = 0; kk < TILE; kk++) {
            idx = kk;
            acc += As[ty][idx] * Bs[idx][tx];
        }
        __syncthreads();
    }
    idx = row * N + col;
    C[idx] = acc;
}
