// input.cu - kernels `rewrite --block-swizzle` must leave in the hardware's
// block order (kpipe-block-swizzle-refused), each 2-D and tiled like a GEMM
// so that only the rule named in its comment refuses it; and one it remaps.
#include <cuda_runtime.h>

#define TILE 16

// blocks count finished tiles in global memory: an atomic outside shared
// memory
__global__ void tiles_counted(const float *A, float *C, int *done, int n)
{
    __shared__ float t[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    t[threadIdx.y][threadIdx.x] = A[r * n + c];
    __syncthreads();
    C[r * n + c] = 2.0f * t[threadIdx.x][threadIdx.y];
    if (threadIdx.x == 0 && threadIdx.y == 0)
        atomicAdd(done, 1);
}

// a shared-memory atomic is the block's own business: remapped
__global__ void shared_histogram(const int *A, int *H, int n)
{
    __shared__ int h[TILE];
    if (threadIdx.y == 0)
        h[threadIdx.x] = 0;
    __syncthreads();
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    atomicAdd(&h[A[r * n + c] & (TILE - 1)], 1);
    __syncthreads();
    if (threadIdx.y == 0)
        H[(blockIdx.y * gridDim.x + blockIdx.x) * TILE + threadIdx.x] = h[threadIdx.x];
}

// the last block to finish publishes: __threadfence
__global__ void fenced_publish(const float *A, float *C, volatile int *flag, int n)
{
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    C[r * n + c] = A[r * n + c];
    __threadfence();
    if (threadIdx.x == 0 && threadIdx.y == 0)
        flag[blockIdx.y * gridDim.x + blockIdx.x] = 1;
}

// a persistent kernel: the blocks stride over the rows of tiles by the grid
__global__ void grid_stride_rows(const float *A, float *C, int n, int rows)
{
    for (int ty = blockIdx.y; ty < rows; ty += gridDim.y) {
        int r = ty * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
        C[r * n + c] = A[r * n + c] + 1.0f;
    }
}

// blockIdx read in a called function, which kpipe does not rewrite
__device__ int tile_row() { return blockIdx.y * TILE + threadIdx.y; }

__global__ void row_from_helper(const float *A, float *C, int n)
{
    int c = blockIdx.x * TILE + threadIdx.x;
    C[tile_row() * n + c] = A[tile_row() * n + c];
}

// blockIdx.y written by a macro: kpipe cannot replace it
#define ROW0 (blockIdx.y * TILE)

__global__ void macro_row(const float *A, float *C, int n)
{
    int r = ROW0 + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    C[r * n + c] = A[r * n + c];
}

// a 1-D grid: nothing to gain (a remark)
__global__ void one_row_of_blocks(const float *A, float *C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        C[i] = A[i];
}

// the launch kpipe's verifier reads the block from (it launches the kernel
// itself with every integer parameter the same, no launch description)
void histogram(const int *A, int *H, int n, cudaStream_t s)
{
    shared_histogram<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE), 0, s>>>(A, H, n);
}
