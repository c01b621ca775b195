// Golden: two copies into one tile, each in a copy loop, whose targets
// differ by a constant. cp.async may take them only where no trip of the
// one writes an element a trip of the other writes in the same thread
// (asynchronous copies complete in no defined order). Both copy loops'
// counters range over compile-time values, so kpipe bounds the
// difference: apart in halves_apart and split_loops, overlapping in
// halves_overlap and split_overlap (cp.async refused with the reason).
// An index variable the load phase changes between two copies proves
// nothing either way (bumped, shifted, twice: refused; before, shifted's
// and twice's copies, which write one element, were taken for apart and
// for the same copy).
#define STRIDE 2
#define STEP (16 * STRIDE)

// h2o-style: each thread fills STRIDE elements of both halves of a row
__global__ void halves_apart(const float *a, const float *b, float *c, int n, int k)
{
    __shared__ float as[STEP][2 * STEP];
    __shared__ float bs[2 * STEP][STEP];
    const int tx = threadIdx.x * STRIDE, ty = threadIdx.y * STRIDE;
    const float *pa = a + blockIdx.y * STEP * k;
    const float *pb = b + blockIdx.x * STEP;
    float sum[STRIDE][STRIDE] = {{0.f}};
    for (int k0 = 0; k0 < k; k0 += 2 * STEP) {
        for (int i = 0; i < STRIDE; ++i) {
            for (int j = 0; j < STRIDE; ++j) {
                as[ty + i][tx + j] = pa[(ty + i) * k + k0 + tx + j];
                as[ty + i][tx + j + STEP] = pa[(ty + i) * k + k0 + tx + j + STEP];
                bs[ty + i][tx + j] = pb[(k0 + ty + i) * n + tx + j];
                bs[ty + i + STEP][tx + j] = pb[(k0 + ty + i + STEP) * n + tx + j];
            }
        }
        __syncthreads();
        for (int i = 0; i < STRIDE; ++i)
            for (int j = 0; j < STRIDE; ++j)
                for (int kk = 0; kk < 2 * STEP; ++kk)
                    sum[i][j] += as[ty + i][kk] * bs[kk][tx + j];
        __syncthreads();
    }
    for (int i = 0; i < STRIDE; ++i)
        for (int j = 0; j < STRIDE; ++j)
            c[(blockIdx.y * STEP + ty + i) * n + blockIdx.x * STEP + tx + j] = sum[i][j];
}

// the copy loop runs j to 2 * STRIDE - 1 and the second copy's offset is
// STRIDE: the first copy's trip j + STRIDE and the second's trip j write
// the same element
__global__ void halves_overlap(const float *a, float *c, int k)
{
    __shared__ float as[16][3 * STRIDE + 16 * STRIDE];
    const int tx = threadIdx.x * STRIDE, ty = threadIdx.y;
    float acc = 0.f;
    for (int k0 = 0; k0 < k; k0 += 16) {
        for (int j = 0; j < 2 * STRIDE; ++j) {
            as[ty][tx + j] = a[(blockIdx.y * 16 + ty) * k + k0 + tx + j];
            as[ty][tx + j + STRIDE] = a[(blockIdx.y * 16 + ty) * k + k0 + tx + j + STRIDE];
        }
        __syncthreads();
        for (int kk = 0; kk < 16; ++kk)
            acc += as[ty][kk] * as[kk][threadIdx.x];
        __syncthreads();
    }
    c[(blockIdx.y * 16 + ty) * 16 + threadIdx.x] = acc;
}

// two copy loops of one counter name: j in 0..3 and j + 4 in 4..7
__global__ void split_loops(const float *a, float *c, int k)
{
    __shared__ float as[32][8];
    const int t = threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < k; k0 += 8) {
        for (int j = 0; j < 4; ++j)
            as[t][j] = a[(blockIdx.x * 32 + t) * k + k0 + j];
        for (int j = 0; j < 4; ++j)
            as[t][j + 4] = a[(blockIdx.x * 32 + t) * k + k0 + j + 4];
        __syncthreads();
        for (int kk = 0; kk < 8; ++kk)
            acc += as[t][kk];
        __syncthreads();
    }
    c[blockIdx.x * 32 + t] = acc;
}

// the same with j + 3: the first loop's j = 3 and the second's j = 0 write
// one element
__global__ void split_overlap(const float *a, float *c, int k)
{
    __shared__ float as[32][8];
    const int t = threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < k; k0 += 7) {
        for (int j = 0; j < 4; ++j)
            as[t][j] = a[(blockIdx.x * 32 + t) * k + k0 + j];
        for (int j = 0; j < 4; ++j)
            as[t][j + 3] = a[(blockIdx.x * 32 + t) * k + k0 + j + 3];
        __syncthreads();
        for (int kk = 0; kk < 7; ++kk)
            acc += as[t][kk];
        __syncthreads();
    }
    c[blockIdx.x * 32 + t] = acc;
}

// idx changes inside the first copy loop: its value at the second copy is
// not the first's
__global__ void bumped(const float *a, float *c, int k)
{
    __shared__ float as[32][16];
    const int t = threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < k; k0 += 8) {
        int idx = 0;
        for (int j = 0; j < 4; ++j) {
            as[t][idx + j] = a[(blockIdx.x * 32 + t) * k + k0 + j];
            idx += 2;
        }
        for (int j = 0; j < 4; ++j)
            as[t][idx + j + 4] = a[(blockIdx.x * 32 + t) * k + k0 + j + 4];
        __syncthreads();
        for (int kk = 0; kk < 8; ++kk)
            acc += as[t][kk];
        __syncthreads();
    }
    c[blockIdx.x * 32 + t] = acc;
}

// idx + 1, then idx - 1 + 2: one element, two values; the second must win
__global__ void shifted(const float *a, float *c, int k)
{
    __shared__ float as[32][16];
    const int t = threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < k; k0 += 8) {
        int idx = 4;
        as[t][idx + 1] = a[(blockIdx.x * 32 + t) * k + k0];
        idx -= 1;
        as[t][idx + 2] = a[(blockIdx.x * 32 + t) * k + k0 + 1];
        __syncthreads();
        for (int kk = 0; kk < 8; ++kk)
            acc += as[t][kk];
        __syncthreads();
    }
    c[blockIdx.x * 32 + t] = acc;
}

// the same text twice, but src moved between: not the same copy
__global__ void twice(const float *a, float *c, int k)
{
    __shared__ float as[32][8];
    const int t = threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < k; k0 += 8) {
        int src = (blockIdx.x * 32 + t) * k + k0;
        as[t][0] = a[src];
        src += 1;
        as[t][0] = a[src];
        __syncthreads();
        acc += as[t][0];
        __syncthreads();
    }
    c[blockIdx.x * 32 + t] = acc;
}
