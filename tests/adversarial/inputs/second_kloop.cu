// adversarial input: a second K-loop over the tiles of a first one
// (analysis/earlier_use.c).  Pipelined, the second loop's prologue writes
// stage 0 before the loop and its iterations both stages; that is the
// original's single buffer only when no earlier read of the tile is still
// pending then (a __syncthreads() on every path from it) and no earlier
// store left an element the loop does not write itself.
//  - no_sync: the tile is read right before the second loop, with no
//    barrier between (the prologue's copies would overtake that read);
//  - open_loop: the first loop's body does not end with __syncthreads();
//  - transposed: the first loop stores through other subscripts than the
//    second loop's copies; with a 16 x 8 block the second loop writes half
//    the elements the first did, and its compute reads the others, which
//    the original keeps from the first loop and the other buffer does not;
//  - around: both loops inside an outer loop (its next round comes back).
// Expected: the second loop of each of those four refused
// (kpipe-tile-escapes); the first loops of no_sync and transposed are
// pipelined (those of open_loop and around are refused for reasons of
// their own); the near miss
// same_copies (a refill and a second loop with the first loop's copies,
// barriers between) has both loops pipelined, its uses between and after
// indexed by the shared last-stage variable.
#define S 16

__global__ void no_sync(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
{
    __shared__ float As[S][S + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    int k0;
    for (k0 = 0; k0 < part1; k0 += S) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += As[ty][k];
        __syncthreads();
    }
    acc += As[tx][ty];
    for (k0 = part1; k0 < K; k0 += S) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc;
}

__global__ void open_loop(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
{
    __shared__ float As[S][S + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int r = 0; r < 2; r++) {
        As[ty][tx] = A[ty * K + r * S + tx];
        __syncthreads();
        acc += As[tx][ty];
    }
    for (int k0 = part1; k0 < K; k0 += S) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc;
}

__global__ void transposed(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
{
    __shared__ float As[S][S + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    int k0;
    for (k0 = 0; k0 < part1; k0 += S) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += As[ty][k];
        __syncthreads();
    }
    for (k0 = part1; k0 < K; k0 += S) {
        As[tx][ty] = A[tx * K + k0 + ty];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc;
}

__global__ void around(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
{
    __shared__ float As[S][S + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int rep = 0; rep < 2; rep++) {
        int k0;
        for (k0 = 0; k0 < part1; k0 += S) {
            As[ty][tx] = A[ty * K + k0 + tx];
            __syncthreads();
            for (int k = 0; k < S; k++)
                acc += As[ty][k];
            __syncthreads();
        }
        for (k0 = part1; k0 < K; k0 += S) {
            As[ty][tx] = A[ty * K + k0 + tx];
            __syncthreads();
            for (int k = 0; k < S; k++)
                acc += 2.0f * As[ty][k];
            __syncthreads();
        }
    }
    C[ty * S + tx] = acc;
}

__global__ void same_copies(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
{
    __shared__ float As[S][S + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    int k0;
    for (k0 = 0; k0 < part1; k0 += S) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += As[ty][k];
        __syncthreads();
    }
    if (part1 > 0) {
        As[ty][tx] = A[ty * K + part1 - S + tx];
        __syncthreads();
        acc += As[tx][ty];
        __syncthreads();
    }
    for (k0 = part1; k0 < K; k0 += S) {
        As[ty][tx] = A[ty * K + k0 + tx];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc + As[tx][ty];
}
