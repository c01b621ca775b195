// zgemm_launched.wrong.cu (tests/cli/verify.sh (h)): kpipe's cp-async rewrite of zgemm_launched.cu
// with the next tile's copies cut to 8 bytes (the real lanes only).
// zgemm_launched.cu (tests/cli/verify.sh (h)) - zgemm_like.cu's kernel
// with its host launch and no launch description: kpipe's own launch must
// fill a scalar and buffers whose type is a typedef of double2 (the
// canonical type, not the spelling, says what they are).
#include <cuda_pipeline.h>
typedef double2 zcomplex;

#define ZTILE 16

static __device__ __forceinline__ zcomplex z_fma(zcomplex a, zcomplex b, zcomplex c)
{
    c.x += a.x * b.x - a.y * b.y;
    c.y += a.x * b.y + a.y * b.x;
    return c;
}

__global__ void zgemm_launched(int n, zcomplex alpha, const zcomplex *A, const zcomplex *B,
                               zcomplex *C)
{
    __shared__ zcomplex sA[2][ZTILE][ZTILE];
    __shared__ zcomplex sB[2][ZTILE][ZTILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * ZTILE + ty, col = blockIdx.x * ZTILE + tx;
    zcomplex acc = alpha;
    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int kk = 0;
        int kp_stage = 0;
        if (kk < n) {
            __pipeline_memcpy_async(&sA[0][ty][tx], &A[row * n + kk + tx], 16);
            __pipeline_memcpy_async(&sB[0][ty][tx], &B[(kk + ty) * n + col], 16);
        }
        __pipeline_commit();
        for (; kk < n; kk += ZTILE) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((kk + ZTILE) < n) {
                __pipeline_memcpy_async(&sA[kp_stage ^ 1][ty][tx], &A[row * n + (kk + ZTILE) + tx], 8);
                __pipeline_memcpy_async(&sB[kp_stage ^ 1][ty][tx], &B[((kk + ZTILE) + ty) * n + col], 8);
            }
            __pipeline_commit();
            for (int k = 0; k < ZTILE; k++)
                acc = z_fma(sA[kp_stage][ty][k], sB[kp_stage][k][tx], acc);
            kp_stage ^= 1;
        }
    }
    C[row * n + col] = acc;
}

void zgemm_launch(const zcomplex *A, const zcomplex *B, zcomplex *C, int n)
{
    zgemm_launched<<<dim3(n / ZTILE, n / ZTILE), dim3(ZTILE, ZTILE)>>>(
        n, make_double2(1.0, 0.5), A, B, C);
}
