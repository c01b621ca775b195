// zgemm_launched.cu (tests/cli/verify.sh (h)) - zgemm_like.cu's kernel
// with its host launch and no launch description: kpipe's own launch must
// fill a scalar and buffers whose type is a typedef of double2 (the
// canonical type, not the spelling, says what they are).
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
    __shared__ zcomplex sA[ZTILE][ZTILE];
    __shared__ zcomplex sB[ZTILE][ZTILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * ZTILE + ty, col = blockIdx.x * ZTILE + tx;
    zcomplex acc = alpha;
    for (int kk = 0; kk < n; kk += ZTILE) {
        sA[ty][tx] = A[row * n + kk + tx];
        sB[ty][tx] = B[(kk + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < ZTILE; k++)
            acc = z_fma(sA[ty][k], sB[k][tx], acc);
        __syncthreads();
    }
    C[row * n + col] = acc;
}

void zgemm_launch(const zcomplex *A, const zcomplex *B, zcomplex *C, int n)
{
    zgemm_launched<<<dim3(n / ZTILE, n / ZTILE), dim3(ZTILE, ZTILE)>>>(
        n, make_double2(1.0, 0.5), A, B, C);
}
