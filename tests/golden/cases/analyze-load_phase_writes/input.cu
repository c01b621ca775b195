// Load phases that write more than their tiles.  Pipelined, the next
// tile's load phase runs before this tile's compute phase, so what it
// writes must be disjoint from what the compute phase reads or writes.
#include <cuda_runtime.h>

#define TILE 32

// 1. A progress mark through 'seen', which may be the 'scale' the compute
//    phase reads (neither is __restrict__): refused.
__global__ void mark_aliased(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int n, int *seen, const int *scale)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int ty = threadIdx.y, tx = threadIdx.x;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        seen[t / TILE] = t;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx] * scale[k];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// 2. The same with 'scale' const __restrict__: nothing writes what it
//    points to, so the mark cannot reach it: eligible.
__global__ void mark_disjoint(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int n, int *seen,
                              const int *__restrict__ scale)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int ty = threadIdx.y, tx = threadIdx.x;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        seen[t / TILE] = t;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx] * scale[k];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// 3. A method of a small object writes through its pointer member, which
//    kpipe does not follow: refused.
struct Counter {
    int *hits;
    __device__ void bump(int i) const { hits[i] += 1; }
};

__global__ void counted(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int n, Counter ctr)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int ty = threadIdx.y, tx = threadIdx.x;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        ctr.bump(t / TILE);
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// 4. A count of the thread's, changed through a pointer in the load phase
//    and read by the compute phase: refused.
__global__ void counted_local(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int ty = threadIdx.y, tx = threadIdx.x;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    int tiles = 0;
    int *const count = &tiles;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        *count += 1;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx] * (float)tiles;
        __syncthreads();
    }
    C[row * n + col] = acc;
}
