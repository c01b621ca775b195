// zgemm_like.wrong.cu (tests/cli/verify.sh (h)): kpipe's cp-async rewrite of tests/cpudiff/kernels/zgemm_like.cu with the
// next tile's copies cut to 8 bytes: only the real lane of each complex element is
// prefetched, so only a comparison of both lanes of the double2 dumps sees it.
// zgemm_like.cu (tests/cli/verify.sh (h)) - complex double C = alpha * A * B in the style of a BLAS
// library's z-precision kernels (kpipe's own kernel): the element is a
// typedef of double2 (as cuDoubleComplex and MAGMA's magmaDoubleComplex
// are), multiplied through small __device__ helpers, alpha passed by
// value.  The launch description gives its buffers and alpha the type
// double2 (docs/launch-spec.md): filled, compared and dumped lane by lane.
#include <cuda_pipeline.h>
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
    __shared__ zcomplex sA[2][ZTILE][ZTILE];
    __shared__ zcomplex sB[2][ZTILE][ZTILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * ZTILE + ty, col = blockIdx.x * ZTILE + tx;
    zcomplex acc = make_double2(0.0, 0.0);
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int kk = 0;
        int kp_stage = 0;
        if (kk < K) {
            __pipeline_memcpy_async(&sA[0][ty][tx], &A[row * lda + kk + tx], 16);
            __pipeline_memcpy_async(&sB[0][ty][tx], &B[(kk + ty) * ldb + col], 16);
        }
        __pipeline_commit();
        for (; kk < K; kk += ZTILE) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((kk + ZTILE) < K) {
                __pipeline_memcpy_async(&sA[kp_stage ^ 1][ty][tx], &A[row * lda + (kk + ZTILE) + tx], 8);
                __pipeline_memcpy_async(&sB[kp_stage ^ 1][ty][tx], &B[((kk + ZTILE) + ty) * ldb + col], 8);
            }
            __pipeline_commit();
            for (int k = 0; k < ZTILE; k++)
                acc = z_fma(sA[kp_stage][ty][k], sB[kp_stage][k][tx], acc);
            kp_stage ^= 1;
        }
        __syncthreads(); // kpipe: line 42 after the loop uses a helper function
    }
    C[row * ldc + col] = z_mul(alpha, acc);
}
