// dgemm_tiled.fp32acc.wrong.cu - a WRONG cp.async rewrite of
// samples/dgemm_tiled.cu (tests/cli/verify.sh (f)): kpipe's cp-async output
// with every product rounded to float before it is added, an error of about
// 1e-8 relative, above the description's tolerance (1e-9): the comparison
// must read the dumps as doubles to catch it (kpipe-verify-failed).

#define TILE 16

__global__ void dgemm_tiled(const double *__restrict__ A, const double *__restrict__ B,
                            double *__restrict__ C, int M, int N, int K, double alpha,
                            double beta)
{
    __shared__ double As[2][TILE][TILE];
    __shared__ double Bs[2][TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int ntiles = (K + TILE - 1) / TILE;
    double acc = 0.0;

    // kpipe: cp.async, 2 stages: requested with --variant cp-async
    {
        int t = 0;
        int kp_stage = 0;
        if (t < ntiles) {
            const int ka = t * TILE + tx;
            const int kb = t * TILE + ty;
            const bool kp_in_As = row < M && ka < K;
            const void *kp_src_As = kp_in_As ? (const void *)&A[(size_t)row * K + ka]
                                             : (const void *)A;
            __pipeline_memcpy_async(&As[0][ty][tx], kp_src_As, 8, kp_in_As ? 0 : 8);
            const bool kp_in_Bs = kb < K && col < N;
            const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)kb * N + col]
                                             : (const void *)B;
            __pipeline_memcpy_async(&Bs[0][ty][tx], kp_src_Bs, 8, kp_in_Bs ? 0 : 8);
        }
        __pipeline_commit();
        for (; t < ntiles; ++t) {
            __pipeline_wait_prior(0);
            __syncthreads();
            if ((t + 1) < ntiles) {
                const int ka = (t + 1) * TILE + tx;
                const int kb = (t + 1) * TILE + ty;
                const bool kp_in_As = row < M && ka < K;
                const void *kp_src_As = kp_in_As ? (const void *)&A[(size_t)row * K + ka]
                                                 : (const void *)A;
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], kp_src_As, 8, kp_in_As ? 0 : 8);
                const bool kp_in_Bs = kb < K && col < N;
                const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)kb * N + col]
                                                 : (const void *)B;
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], kp_src_Bs, 8, kp_in_Bs ? 0 : 8);
            }
            __pipeline_commit();

#pragma unroll
            for (int k = 0; k < TILE; ++k)
                acc += (float)(As[kp_stage][ty][k] * Bs[kp_stage][k][tx]);
            kp_stage ^= 1;
        }
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}
