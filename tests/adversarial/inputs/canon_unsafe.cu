// adversarial input: load phases in the shapes of the canon pass that it
// must leave alone, each K-loop otherwise textbook.  Copies through
// temporaries in copy loops (B's is one the pass rewrites, so that the
// loop depends on A's): A's temporary is stored twice (t_twice), its
// guard has a side effect (t_effect), it starts at -1, not 0
// (t_minus_one).  If/else blocks of copies: the else stores the tiles in
// another order (s_order), the condition reads memory that is evaluated
// once per copy after a split (s_memory), a branch holds another statement
// (s_extra).  Declarations: one would hide the kernel's own 'a' read after
// the loop (d_hides), one holds a loaded value (d_loaded), the loop is the
// body of an if, where no declaration can go before it (d_no_block).
// Expected: every loop refused, each with a kpipe-canon-refused remark
// that names the reason; nothing written.
#include <cuda_runtime.h>
#define T 16
__global__ void t_twice(const float *A, const float *B, float *C, int M, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        for (int i = 0; i < 1; ++i) {
            const int r = tid / T, c = tid % T;
            float v = 0.0f;
            if (r < M && k0 + c < K)
                v = A[r * K + k0 + c];
            As[r][c] = v;
            As[c][r] = v;
        }
        for (int i = 0; i < 1; ++i) {
            const int r = tid / T, c = tid % T;
            float w = 0.0f;
            if (k0 + r < K)
                w = B[(k0 + r) * T + c];
            Bs[r][c] = w;
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[tid] = acc;
}

__global__ void t_effect(const float *A, const float *B, float *C, int M, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        for (int i = 0; i < 1; ++i) {
            const int r = tid / T, c = tid % T;
            int tries = 0;
            float v = 0.0f;
            if (tries++ < 1 && r < M)
                v = A[r * K + k0 + c];
            As[r][c] = v;
        }
        for (int i = 0; i < 1; ++i) {
            const int r = tid / T, c = tid % T;
            float w = 0.0f;
            if (k0 + r < K)
                w = B[(k0 + r) * T + c];
            Bs[r][c] = w;
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[tid] = acc;
}

__global__ void t_minus_one(const float *A, const float *B, float *C, int M, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        for (int i = 0; i < 1; ++i) {
            const int r = tid / T, c = tid % T;
            float v = -1.0f;
            if (r < M && k0 + c < K)
                v = A[r * K + k0 + c];
            As[r][c] = v;
        }
        for (int i = 0; i < 1; ++i) {
            const int r = tid / T, c = tid % T;
            float w = 0.0f;
            if (k0 + r < K)
                w = B[(k0 + r) * T + c];
            Bs[r][c] = w;
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[tid] = acc;
}

__global__ void s_order(const float *A, const float *B, float *C, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + ty < K) {
            As[ty][tx] = A[ty * K + k0 + tx];
            Bs[ty][tx] = B[(k0 + ty) * T + tx];
        } else {
            Bs[ty][tx] = 0.0f;
            As[ty][tx] = 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[tid] = acc;
}

__global__ void s_memory(const float *A, const float *B, float *C, int K, const int *lim)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + ty < lim[blockIdx.x]) {
            As[ty][tx] = A[ty * K + k0 + tx];
            Bs[ty][tx] = B[(k0 + ty) * T + tx];
        } else {
            As[ty][tx] = 0.0f;
            Bs[ty][tx] = 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[tid] = acc;
}

__global__ void s_extra(const float *A, const float *B, float *C, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        int r = ty;
        if (k0 + ty < K) {
            As[ty][tx] = A[r * K + k0 + tx];
            Bs[ty][tx] = B[(k0 + ty) * T + tx];
        } else {
            r = 0;
            As[ty][tx] = 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[tid] = acc;
}

__global__ void d_hides(const float *A, const float *B, float *C, int K, float a)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        float a;
        As[ty][tx] = A[ty * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk) {
            a = As[ty][kk];
            acc += a * Bs[kk][tx];
        }
        __syncthreads();
    }
    C[tid] = acc * a;
}

__global__ void d_loaded(const float *A, const float *B, float *C, int K, const float *S)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        float s = S[k0];
        As[ty][tx] = A[ty * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx] * s;
        __syncthreads();
    }
    C[tid] = acc;
}

__global__ void d_no_block(const float *A, const float *B, float *C, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T + tx;
    float acc = 0.0f;
    if (K > 0)
        for (int k0 = 0; k0 < K; k0 += T) {
            __syncthreads();
            __shared__ float Xs[T][T];
            Xs[ty][tx] = A[ty * K + k0 + tx];
            Bs[ty][tx] = B[(k0 + ty) * T + tx];
            __syncthreads();
            for (int kk = 0; kk < T; ++kk)
                acc += Xs[ty][kk] * Bs[kk][tx];
        }
    C[tid] = acc + As[0][0];
}
