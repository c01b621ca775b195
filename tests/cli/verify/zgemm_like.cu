// zgemm_like.cu (tests/cli/verify.sh (h)) - complex double C = alpha * A * B in the style of a BLAS
// library's z-precision kernels (kpipe's own kernel): the element is a
// typedef of double2 (as cuDoubleComplex and MAGMA's magmaDoubleComplex
// are), multiplied through small __device__ helpers, alpha passed by
// value.  The launch description gives its buffers and alpha the type
// double2 (docs/launch-spec.md): filled, compared and dumped lane by lane.
typedef double2 zcomplex;

#define ZTILE 16

static __device__ __forceinline__ zcomplex z_fma(zcomplex a, zcomplex b, zcomplex c)
{
    c.x += a.x * b.x - a.y * b.y;
    c.y += a.x * b.y + a.y * b.x;
    return c;
}

static __device__ __forceinline__ zcomplex z_mul(zcomplex a, zcomplex b)
{
    zcomplex r;
    r.x = a.x * b.x - a.y * b.y;
    r.y = a.x * b.y + a.y * b.x;
    return r;
}

__global__ void zgemm_like(int M, int N, int K, zcomplex alpha, const zcomplex *A, int lda,
                           const zcomplex *B, int ldb, zcomplex *C, int ldc)
{
    __shared__ zcomplex sA[ZTILE][ZTILE];
    __shared__ zcomplex sB[ZTILE][ZTILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * ZTILE + ty, col = blockIdx.x * ZTILE + tx;
    zcomplex acc = make_double2(0.0, 0.0);
    for (int kk = 0; kk < K; kk += ZTILE) {
        sA[ty][tx] = A[row * lda + kk + tx];
        sB[ty][tx] = B[(kk + ty) * ldb + col];
        __syncthreads();
        for (int k = 0; k < ZTILE; k++)
            acc = z_fma(sA[ty][k], sB[k][tx], acc);
        __syncthreads();
    }
    C[row * ldc + col] = z_mul(alpha, acc);
}
