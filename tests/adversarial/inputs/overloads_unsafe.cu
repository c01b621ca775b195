// adversarial input: the hemm_overloads shape (tests/cpudiff/kernels/
// hemm_overloads.cu) where the calls left unresolved in the template may
// write the tile element they are handed, so the second K-loop (after the
// mirror of the diagonal block) must stay refused.  hemm_writes: one
// overload of `half_of` (the float one, the instantiation's) takes its
// argument by non-const reference and scales it in place.  hemm_open: the
// overloads of `flip` the template's lookup finds write nothing, but the
// namespace `lib` declares another `flip` for its class `cx`, which
// argument-dependent lookup would find at an instantiation with `lib::cx`
// and which writes its argument: kpipe cannot know the call reads only,
// since the names it can read are not all the functions of that name.
// Expected: in each kernel the first K-loop pipelined and the second
// refused, `kpipe-tile-escapes` naming the mirror's element.
// hemm_tmp_live: the scratch `tmp` of the template's type, which the
// second K-loop loads through, is read after that loop before any
// assignment (the last tile's value): it is not private to each phase,
// and that loop stays refused (`kpipe-load-depends-on-compute`); so does
// the first, since with no round of the second loop that read sees the
// first loop's last value.
#define DIM 8
#define BLK 16

__device__ static inline float conj(const float &x) { return -x; }
__device__ static inline double conj(const double &x) { return -x; }
__device__ static inline float half_of(float &x)
{
    x = 0.5f * x;
    return x;
}
__device__ static inline double half_of(const double &x) { return 0.5 * x; }
__device__ static inline float flip(const float &x) { return -x; }
__device__ static inline double flip(const double &x) { return -x; }
__device__ static inline float real(const float &x) { return 0.5f * x; }
__device__ static inline double real(const double &x) { return 0.5 * x; }

template <typename T, int CONJA> __device__ static inline T OP(T &x)
{
    if (CONJA == 1)
        return conj(x);
    return x;
}

template <typename T, int CONJA>
__global__ void hemm_writes(const T *__restrict__ A, const T *__restrict__ B,
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
                sA[n + ty][n + tx] = half_of(sA[n + ty][n + tx]);
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
            for (int m = 0; m < BLK; m += DIM)
                sA[m + tx][n + ty] = A[(bm + n + ty) * K + base3 + kk + m + tx];
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
        for (int m = 0; m < BLK; m += DIM)
            sA[m + tx][n + ty] = kt + m + tx < K ? A[(bm + n + ty) * K + kt + m + tx] : T(0);
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


template <typename T, int CONJA>
__global__ void hemm_open(const T *__restrict__ A, const T *__restrict__ B,
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
                sA[n + ty][n + tx] = flip(sA[n + ty][n + tx]);
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
            for (int m = 0; m < BLK; m += DIM)
                sA[m + tx][n + ty] = A[(bm + n + ty) * K + base3 + kk + m + tx];
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
        for (int m = 0; m < BLK; m += DIM)
            sA[m + tx][n + ty] = kt + m + tx < K ? A[(bm + n + ty) * K + kt + m + tx] : T(0);
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


template <typename T, int CONJA>
__global__ void hemm_tmp_live(const T *__restrict__ A, const T *__restrict__ B,
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

    rC[0][0] += tmp; // the last tile's value: tmp is live after the loop
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


namespace lib {
struct cx {
    float re;
};
__device__ inline cx flip(cx &a)
{
    a.re = -a.re;
    return a;
}
} // namespace lib

void launch_both(const float *A, const float *B, float *C, int M, int N, int K, int part1)
{
    dim3 threads(DIM, DIM, 1), grid(M / BLK, N / BLK, 1);
    hemm_writes<float, 1><<<grid, threads>>>(A, B, C, M, N, K, part1);
    hemm_open<float, 1><<<grid, threads>>>(A, B, C, M, N, K, part1);
    hemm_tmp_live<float, 1><<<grid, threads>>>(A, B, C, M, N, K, part1);
}
