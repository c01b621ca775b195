// accessor_unsafe.cu - near misses of the inline pass's value accessors
// (docs/design.md, "Value accessors"): views read through one-return
// methods, each expanded or not and then judged as written.  Expected:
// rt_global refused (the accessor reads a __device__ variable the compute
// phase writes: kpipe-load-depends-on-compute); rt_default not expanded (a
// default argument left out); rt_writes_through refused (the compute phase
// stores through the view's pointer); rt_local_copy pipelined (a view
// copied and moved inside the load phase is private to it); rt_convert
// pipelined (an int accessor into a float tile keeps its conversion).
#define TILE 16
__device__ float g_scale;
struct V {
    const float *p;
    int ld;
    __device__ float scaled(int r, int c) const { return p[r * ld + c] * g_scale; }
    __device__ float at(int r, int c = 0) const { return p[r * ld + c]; }
    __device__ int iat(int i) const { return (int)p[i]; }
};
// 1: the accessor reads a __device__ variable the compute phase writes
__global__ void rt_global(V a, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a.scaled(blockIdx.y * TILE + ty, k0 + tx);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        if (tx == 0 && ty == 0)
            g_scale = acc;
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}
// 2: a default argument left out
__global__ void rt_default(V a, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a.at((blockIdx.y * TILE + ty) * n + k0 + tx);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}
// 3: a view copied and moved in the load phase, then read through
__global__ void rt_local_copy(V a, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        V b = a;
        b.p += k0;
        As[ty][tx] = b.at(blockIdx.y * TILE + ty, tx);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}
// 4: the compute phase writes through the view's pointer
struct W {
    float *p;
    __device__ float at(int i) const { return p[i]; }
};
__global__ void rt_writes_through(W a, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a.at((blockIdx.y * TILE + ty) * n + k0 + tx);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        a.p[(blockIdx.y * TILE + ty) * n + k0 + TILE + tx] = acc;
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}
// 5: a converting accessor (int from float)
__global__ void rt_convert(V a, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = a.iat((blockIdx.y * TILE + ty) * n + k0 + tx);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k];
        __syncthreads();
    }
    C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}
