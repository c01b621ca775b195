// adversarial input: canon shape 7 one level down (canon_fuse.c,
// fuse_nested): `if (g1) { const int v = E; if (g2) { for (H) S; } else
// { for (H) 0; } } else { for (H) 0; }` becomes one copy loop of guarded
// copies with each use of v written `((int)(E))`; that is the same program
// only when E has no side effect, reads neither the tile nor what a local
// pointer reaches, and v is a const scalar named only in g2 and S.
//  - reads_tile: v is read from the tile the branches store into;
//  - side_effect: v's value increments the table;
//  - not_const: v is not const;
//  - local_ptr: v is read through a local pointer;
//  - float_table_ok (near miss): v converts a float table entry to int,
//    which `((int)(E))` does the same way.
// Expected: the first four not fused and not pipelined (a remark says
// why, kpipe-canon-refused), float_table_ok fused and pipelined.
#define T 16

__global__ void reads_tile(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ int offs[T];
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0)
        offs[tx] = tx % 3 == 0 ? -1 : tx;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            const int off = (int)As[ty][0];
            if (off >= 0) {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = A[off * K + k0 + tx];
                }
            } else {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = 0;
                }
            }
        } else {
            for (int c = 0; c < 1; c++) {
                As[ty][tx] = 0;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}

__global__ void side_effect(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ int offs[T];
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0)
        offs[tx] = tx % 3 == 0 ? -1 : tx;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            const int off = offs[ty]++;
            if (off >= 0) {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = A[off * K + k0 + tx];
                }
            } else {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = 0;
                }
            }
        } else {
            for (int c = 0; c < 1; c++) {
                As[ty][tx] = 0;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}

__global__ void not_const(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ int offs[T];
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0)
        offs[tx] = tx % 3 == 0 ? -1 : tx;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            int off = offs[ty];
            if (off >= 0) {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = A[off * K + k0 + tx];
                }
            } else {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = 0;
                }
            }
        } else {
            for (int c = 0; c < 1; c++) {
                As[ty][tx] = 0;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}

__global__ void local_ptr(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ int offs[T];
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0)
        offs[tx] = tx % 3 == 0 ? -1 : tx;
    const int *op = &offs[ty];
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            const int off = *op;
            if (off >= 0) {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = A[off * K + k0 + tx];
                }
            } else {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = 0;
                }
            }
        } else {
            for (int c = 0; c < 1; c++) {
                As[ty][tx] = 0;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}

__global__ void float_table_ok(const float *__restrict__ A, float *__restrict__ C, int K)
{
    __shared__ float offs[T];
    __shared__ float As[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0)
        offs[tx] = tx % 3 == 0 ? -1.0f : (float)tx;
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            const int off = offs[ty];
            if (off >= 0) {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = A[off * K + k0 + tx];
                }
            } else {
                for (int c = 0; c < 1; c++) {
                    As[ty][tx] = 0;
                }
            }
        } else {
            for (int c = 0; c < 1; c++) {
                As[ty][tx] = 0;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk];
        __syncthreads();
    }
    C[ty * T + tx] = acc;
}
