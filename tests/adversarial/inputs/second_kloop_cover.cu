// adversarial input: a second K-loop whose earlier stores are spelled
// unlike its copies (analysis/elem_cover.c).  The first loop stores
// As[ty][tx], the second As[tx][ty]; they write the same elements only
// when the block is square.  Each kernel is launched from the host code
// below, which is where kpipe reads the block shape.
//  - rect: a 16 x 8 block: the first loop writes rows 0-7 of all 16
//    columns, the second all 16 rows of columns 0-7; its compute reads
//    row ty, columns 0-15, and the elements of columns 8-15 only the other
//    stage would hold.  Expected: the second loop refused
//    (kpipe-tile-escapes, "writes an element that the loop's copies do not
//    write"), the first pipelined.
//  - mirror_out: a 16 x 16 block, but the store between the loops writes
//    column 16 (the padding), which the second loop never writes: refused.
//  - runtime_block: the block is a parameter of the host function, and
//    taken (below) has its address taken: no block shape, refused.
//  - square: the near miss, a 16 x 16 block: both pipelined (device_shift, at the end: refused).
#define S 16

__global__ void rect(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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

__global__ void mirror_out(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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
    if (tx == 0)
        As[ty][S] = acc;
    __syncthreads();
    for (k0 = part1; k0 < K; k0 += S) {
        As[tx][ty] = A[tx * K + k0 + ty];
        __syncthreads();
        for (int k = 0; k <= S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc;
}

__global__ void runtime_block(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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

__global__ void square(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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

void launch(const float *A, float *C, int K, int part1, dim3 any)
{
    rect<<<1, dim3(16, 8)>>>(A, C, K, part1);
    mirror_out<<<1, dim3(S, S)>>>(A, C, K, part1);
    runtime_block<<<1, any>>>(A, C, K, part1);
    square<<<1, dim3(S, S)>>>(A, C, K, part1);
}

// The store between the loops hands an element to a helper by non-const
// reference: kpipe follows the helper's body.
//  - helper_reads: twice() only reads it and returns a value: a read, so
//    both loops are pipelined (square block);
//  - helper_writes: bump() writes it: refused (kpipe-tile-escapes);
//  - helper_ref: same() returns the reference, which the caller assigns
//    through: refused.
__device__ float twice(float &x) { return 2.0f * x; }
__device__ float bump(float &x) { return x += 1.0f; }
__device__ float &same(float &x) { return x; }

__global__ void helper_reads(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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
    As[tx][ty] = twice(As[ty][tx]);
    __syncthreads();
    for (k0 = part1; k0 < K; k0 += S) {
        As[tx][ty] = A[tx * K + k0 + ty];
        __syncthreads();
        for (int k = 0; k < S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc;
}

__global__ void helper_writes(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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
    acc += bump(As[ty][S]);
    __syncthreads();
    for (k0 = part1; k0 < K; k0 += S) {
        As[tx][ty] = A[tx * K + k0 + ty];
        __syncthreads();
        for (int k = 0; k <= S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc;
}

__global__ void helper_ref(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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
    same(As[ty][S]) = acc;
    __syncthreads();
    for (k0 = part1; k0 < K; k0 += S) {
        As[tx][ty] = A[tx * K + k0 + ty];
        __syncthreads();
        for (int k = 0; k <= S; k++)
            acc += 2.0f * As[ty][k];
        __syncthreads();
    }
    C[ty * S + tx] = acc;
}

void launch_helpers(const float *A, float *C, int K, int part1)
{
    helper_reads<<<1, dim3(S, S)>>>(A, C, K, part1);
    helper_writes<<<1, dim3(S, S)>>>(A, C, K, part1);
    helper_ref<<<1, dim3(S, S)>>>(A, C, K, part1);
}

// taken: launched with a square block, but its address is also taken (a
// launch kpipe cannot read the block of): no block shape, refused.
__global__ void taken(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
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

void (*taken_ptr)(const float *, float *, int, int) = taken;

void launch_taken(const float *A, float *C, int K, int part1)
{
    taken<<<1, dim3(S, S)>>>(A, C, K, part1);
}

// device_shift: the first loop's copies are shifted by a __device__
// variable, 0 where it is defined, but the host (cudaMemcpyToSymbol) or
// another kernel may change it, so kpipe does not take the initialiser:
// the second loop is refused, naming 'shift'; the first is pipelined.
__device__ int shift = 0;

__global__ void device_shift(const float *__restrict__ A, float *__restrict__ C, int K, int part1)
{
    __shared__ float As[S][S + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    int k0;
    for (k0 = 0; k0 < part1; k0 += S) {
        As[ty][tx + shift] = A[ty * K + k0 + tx];
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

void launch_device_shift(const float *A, float *C, int K, int part1)
{
    device_shift<<<1, dim3(S, S)>>>(A, C, K, part1);
}
