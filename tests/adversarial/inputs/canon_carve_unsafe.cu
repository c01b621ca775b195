// adversarial input: K-loops in cuda-convnet2's style that the canon
// pass's shapes 6 (tile pointers taken before the loop) and 7 (an if/else
// of copy loops) must leave alone, each otherwise textbook.  Tile
// pointers: the pointer is moved in the kernel (u_moved), its initialiser
// reads memory (u_init_memory), names a variable changed after it
// (u_init_changed), the pointer is used after the loop (u_used_after), a
// name of its initialiser is declared again in the loop (u_shadow).  Copy
// loops: the two branches' loops differ (u_headers), the condition names
// the copy loop's variable (u_cond_loopvar), reads memory
// (u_cond_memory), the else stores 1, not 0 (u_else_one).  At the end:
// the initialiser names a __device__ variable (u_init_global), the
// pointer is to volatile (u_volatile).  Near misses
// that are rewritten: the plain forms (p_plain: pointers; f_plain: copy
// loops; pf_plain: both, its last column zero, run by the CPU verifier
// with canon_carve_unsafe.launch.json).
// Expected: every u_ loop refused (the u_ loops kpipe reads as tile
// copies with a kpipe-canon-refused remark naming the reason); the three
// near misses canonicalized and pipelined.
#include <cuda_runtime.h>
#define T 16
__global__ void u_moved(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float *aLoad = &As[ty][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        aLoad = &As[ty][tx];
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_init_memory(const float *A, const float *B, float *C, int N, int K, const int *perm)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float *aLoad = &As[perm[ty]][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_init_changed(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    int r = ty;
    float *aLoad = &As[r][tx];
    float *bLoad = &Bs[ty][0];
    r = 0;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_used_after(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float *aLoad = &As[ty][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    acc += aLoad[0] * 0.0f;
    C[row * N + col] = acc;
}

__global__ void u_shadow(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float *aLoad = &As[ty][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        {
            const int tx = 0;
            (void)tx;
        }
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_headers(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = A[row * K + k0 + tx + j];
            }
        } else {
            for (int j = 0; j < 1; j += 1) {
                As[ty][tx + j] = 0.0f;
            }
        }
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_cond_loopvar(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    const int j = tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + j < K) {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = A[row * K + k0 + tx + j];
            }
        } else {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = 0.0f;
            }
        }
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_cond_memory(const float *A, const float *B, float *C, int N, int K, const int *lim)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < lim[0]) {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = A[row * K + k0 + tx + j];
            }
        } else {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = 0.0f;
            }
        }
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_else_one(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = A[row * K + k0 + tx + j];
            }
        } else {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = 1.0f;
            }
        }
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void p_plain(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float *aLoad = &As[ty][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void f_plain(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = A[row * K + k0 + tx + j];
            }
        } else {
            for (int j = 0; j < 1; ++j) {
                As[ty][tx + j] = 0.0f;
            }
        }
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void pf_plain(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float *aLoad = &As[ty][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K - 1) {
            for (int j = 0; j < 1; ++j) {
                aLoad[j] = A[row * K + k0 + tx + j];
            }
        } else {
            for (int j = 0; j < 1; ++j) {
                aLoad[j] = 0.0f;
            }
        }
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__device__ int gRow;

__global__ void u_init_global(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float *aLoad = &As[gRow][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void u_volatile(const float *A, const float *B, float *C, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    volatile float *aLoad = &As[ty][tx];
    float *bLoad = &Bs[ty][0];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        aLoad[0] = A[row * K + k0 + tx];
        bLoad[tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
