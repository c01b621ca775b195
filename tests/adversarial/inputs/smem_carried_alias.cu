// smem_carried_alias.cu - state the compute phase keeps in __shared__ and
// the next tile's copies read, reached in ways the read and write sets by
// name do not see: a pointer into the array taken before the loop (read or
// written through), a reference to it, a __device__ helper that reads or
// writes it.  Each is a hazard (pipelined, the copies would run before the
// write) and must be refused with kpipe-smem-carried (or, where the copy
// names the array itself and the write goes through a pointer,
// kpipe-load-depends-on-compute).  The last kernel writes a scratch array
// through a pointer that its copies never read: safe, pipelined.

#define T 16

__device__ float scale_of(const float *s, int i) { return s[i]; }
__device__ void halve(float *s, int i) { s[i] = 0.5f * s[i]; }

__global__ void read_through_pointer(const float *__restrict__ A, const float *__restrict__ B,
                                     float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float cscale[T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    if (ty == 0)
        cscale[tx] = 1.0f;
    __syncthreads();
    const float *cs = cscale;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col] * cs[tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0 && acc > 64.0f)
            cscale[tx] = 0.5f * cscale[tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void write_through_pointer(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float cscale[T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    if (ty == 0)
        cscale[tx] = 1.0f;
    __syncthreads();
    float *cw = cscale;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col] * cscale[tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0 && acc > 64.0f)
            cw[tx] = 0.5f * cw[tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void read_through_reference(const float *__restrict__ A, const float *__restrict__ B,
                                       float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float cscale[T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    if (ty == 0)
        cscale[tx] = 1.0f;
    __syncthreads();
    const float (&cr)[T] = cscale;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col] * cr[tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0 && acc > 64.0f)
            cscale[tx] = 0.5f * cscale[tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void read_in_helper(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float cscale[T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    if (ty == 0)
        cscale[tx] = 1.0f;
    __syncthreads();
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col] * scale_of(cscale, tx);
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0 && acc > 64.0f)
            cscale[tx] = 0.5f * cscale[tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void write_in_helper(const float *__restrict__ A, const float *__restrict__ B,
                                float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float cscale[T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    if (ty == 0)
        cscale[tx] = 1.0f;
    __syncthreads();
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col] * cscale[tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0 && acc > 64.0f)
            halve(cscale, tx);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void scratch_ok(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    __shared__ float cscale[T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    if (ty == 0)
        cscale[tx] = 1.0f;
    __syncthreads();
    float *cw = cscale;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        if (ty == 0 && acc > 64.0f)
            cw[tx] = 0.5f * cw[tx];
        __syncthreads();
    }
    C[row * N + col] = acc * cscale[tx];
}
