// hemm_overloads.cu - C = A * B in three parts, in the style of a BLAS
// library's hermitian multiply written as a template over the element type
// (kpipe's own kernel).  The element goes through value functions
// overloaded per type and called from the template by name, so clang
// leaves each call unresolved until instantiation: `conj(x)` inside the
// helper template `OP<T, CONJA>(T &)`, and `real(x)` on the diagonal.
// Their names find only the overloads below (no other `conj` or `real`
// in the translation unit), each of which writes nothing; kpipe reads
// every one (docs/design.md, "Calls left unresolved in a template").
// Part 1 loads A through the scratch `tmp` and OP; part 2 refills the
// tiles and mirrors the diagonal block of A through OP and real; part 3 is
// a second K-loop over the same tiles, A transposed through `tmp` and OP
// again, and so is the last block after it.  Both K-loops are pipelined:
// the mirror passes its element to OP's non-const reference, which only
// reads it, and `tmp`, of the template's type T (float here, trivially
// copyable), is assigned before it is read in every phase and after each
// loop, so each phase has its own (docs/design.md, "Scratch variables
// declared before the loop"), OP(tmp) reading it only.
#define DIM 8
#define BLK 16

__device__ static inline float conj(const float &x) { return -x; }
__device__ static inline double conj(const double &x) { return -x; }
__device__ static inline float real(const float &x) { return 0.5f * x; }
__device__ static inline double real(const double &x) { return 0.5 * x; }

template <typename T, int CONJA> __device__ static inline T OP(T &x)
{
    if (CONJA == 1)
        return conj(x);
    return x;
}

template <typename T, int CONJA>
__global__ void hemm_overloads(const T *__restrict__ A, const T *__restrict__ B,
                               T *__restrict__ C, int M, int N, int K, int part1)
{
    __shared__ T sA[BLK][BLK + 1]; // sA[k][m]
    __shared__ T sB[BLK][BLK + 1]; // sB[n][k]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int bm = blockIdx.x * BLK, bn = blockIdx.y * BLK;
    T rC[2][2] = {{0, 0}, {0, 0}};
    T tmp;
    const int part2 = K - part1 < BLK ? K - part1 : BLK;
    const int part3 = K - part1 - part2;
    int kk;

    for (kk = 0; kk < part1; kk += BLK) {
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM) {
                tmp = A[(bm + m + tx) * K + kk + n + ty];
                sA[n + ty][m + tx] = OP<T, CONJA>(tmp);
            }
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sB[n + ty][m + tx] = B[(kk + m + tx) * N + bn + n + ty];
        __syncthreads();
        for (int k = 0; k < BLK; k++)
            for (int n = 0; n < 2; n++)
                for (int m = 0; m < 2; m++)
                    rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];
        __syncthreads();
    }

    if (part2 > 0) {
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sA[n + ty][m + tx] =
                    part1 + n + ty < K ? A[(bm + m + tx) * K + part1 + n + ty] : T(0);
        __syncthreads();
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sB[n + ty][m + tx] =
                    part1 + m + tx < K ? B[(part1 + m + tx) * N + bn + n + ty] : T(0);
        for (int n = 0; n < BLK; n += DIM) {
            if (ty > tx)
                sA[n + tx][n + ty] = OP<T, CONJA>(sA[n + ty][n + tx]);
            else if (ty == tx)
                sA[n + ty][n + tx] = real(sA[n + ty][n + tx]);
        }
        __syncthreads();
        for (int k = 0; k < part2; k++)
            for (int n = 0; n < 2; n++)
                for (int m = 0; m < 2; m++)
                    rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];
        __syncthreads();
    }

    const int base3 = part1 + part2;
    for (kk = 0; kk < part3 - BLK; kk += BLK) {
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM) {
                tmp = A[(bm + n + ty) * K + base3 + kk + m + tx];
                sA[m + tx][n + ty] = OP<T, CONJA>(tmp);
            }
        for (int n = 0; n < BLK; n += DIM)
            for (int m = 0; m < BLK; m += DIM)
                sB[n + ty][m + tx] = B[(base3 + kk + m + tx) * N + bn + n + ty];
        __syncthreads();
        for (int k = 0; k < BLK; k++)
            for (int n = 0; n < 2; n++)
                for (int m = 0; m < 2; m++)
                    rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];
        __syncthreads();
    }

    const int kt = base3 + kk;
    const int rem = part3 - kk;
    for (int n = 0; n < BLK; n += DIM)
        for (int m = 0; m < BLK; m += DIM) {
            tmp = kt + m + tx < K ? A[(bm + n + ty) * K + kt + m + tx] : T(0);
            sA[m + tx][n + ty] = OP<T, CONJA>(tmp);
        }
    for (int n = 0; n < BLK; n += DIM)
        for (int m = 0; m < BLK; m += DIM)
            sB[n + ty][m + tx] = kt + m + tx < K ? B[(kt + m + tx) * N + bn + n + ty] : T(0);
    __syncthreads();
    for (int k = 0; k < rem; k++)
        for (int n = 0; n < 2; n++)
            for (int m = 0; m < 2; m++)
                rC[n][m] += sA[k][m * DIM + tx] * sB[n * DIM + ty][k];

    for (int n = 0; n < 2; n++)
        for (int m = 0; m < 2; m++)
            C[(bm + m * DIM + tx) * N + bn + n * DIM + ty] = rC[n][m];
}

template __global__ void hemm_overloads<float, 1>(const float *__restrict__,
                                                  const float *__restrict__,
                                                  float *__restrict__, int, int, int, int);
