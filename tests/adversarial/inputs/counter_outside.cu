// adversarial input: copy loops counted by a variable declared before the
// K-loop, where giving the copy loop its own counter (canon shape 8,
// rewrite/canon_counter.c) would change the program:
//  - read_after: the kernel reads the counter after the copy loop, outside
//    every loop over it (`last = l;`): the value the copy loop leaves in it
//    is observed;
//  - nested: the K-loop sits in a loop over `l` too (`for (l = 0; l < 2;
//    l++) { K-loop }`): the copy loop leaves `l` at R, which ends the outer
//    loop after one round; with a counter of its own it would run twice;
//  - address: the counter's address is handed to a function.
// Expected: the three loops refused (kpipe-load-depends-on-compute or
// kpipe-load-side-effect), each with a kpipe-canon-refused remark saying
// why; the near miss counter_only (the counter used only by for-loops
// that assign it first) canonicalized and pipelined.
#define T 16
#define R 2

__device__ void note(int *p) { *p += 1; }

__global__ void read_after(const float *A, const float *B, float *C, int *out, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int l, t, k;
    float acc = 0.0f;
    for (t = 0; t < n / T; t++) {
        for (l = 0; l < R; l++) {
            As[ty + 8 * l][tx] = A[(blockIdx.y * T + ty + 8 * l) * n + t * T + tx];
            Bs[ty + 8 * l][tx] = B[(t * T + ty + 8 * l) * n + blockIdx.x * T + tx];
        }
        __syncthreads();
        for (k = 0; k < T; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    out[blockIdx.x] = l;
    C[(blockIdx.y * T + ty) * n + blockIdx.x * T + tx] = acc;
}

__global__ void nested(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int l, t, k;
    float acc = 0.0f;
    for (l = 0; l < 2; l++) {
        for (t = 0; t < n / T; t++) {
            for (l = 0; l < R; l++) {
                As[ty + 8 * l][tx] = A[(blockIdx.y * T + ty + 8 * l) * n + t * T + tx];
                Bs[ty + 8 * l][tx] = B[(t * T + ty + 8 * l) * n + blockIdx.x * T + tx];
            }
            __syncthreads();
            for (k = 0; k < T; k++)
                acc += As[ty][k] * Bs[k][tx];
            __syncthreads();
        }
    }
    C[(blockIdx.y * T + ty) * n + blockIdx.x * T + tx] = acc;
}

__global__ void address(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int l, t, k;
    float acc = 0.0f;
    for (t = 0; t < n / T; t++) {
        for (l = 0; l < R; l++) {
            As[ty + 8 * l][tx] = A[(blockIdx.y * T + ty + 8 * l) * n + t * T + tx];
            Bs[ty + 8 * l][tx] = B[(t * T + ty + 8 * l) * n + blockIdx.x * T + tx];
        }
        __syncthreads();
        for (k = 0; k < T; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    for (l = 0; l < 1; l++)
        note(&l);
    C[(blockIdx.y * T + ty) * n + blockIdx.x * T + tx] = acc;
}

__global__ void counter_only(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int l, t, k;
    float acc[R];
    for (l = 0; l < R; l++)
        acc[l] = 0.0f;
    for (t = 0; t < n / T; t++) {
        for (l = 0; l < R; l++) {
            As[ty + 8 * l][tx] = A[(blockIdx.y * T + ty + 8 * l) * n + t * T + tx];
            Bs[ty + 8 * l][tx] = B[(t * T + ty + 8 * l) * n + blockIdx.x * T + tx];
        }
        __syncthreads();
        for (k = 0; k < T; k++)
            for (l = 0; l < R; l++)
                acc[l] += As[ty + 8 * l][k] * Bs[k][tx];
        __syncthreads();
    }
    for (l = 0; l < R; l++)
        C[(blockIdx.y * T + ty + 8 * l) * n + blockIdx.x * T + tx] = acc[l];
}
