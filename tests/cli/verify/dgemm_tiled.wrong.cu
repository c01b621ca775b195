// dgemm_tiled.wrong.cu - a WRONG cp.async rewrite of samples/dgemm_tiled.cu
// (tests/cli/verify.sh (f)): kpipe's cp-async output with each copy 4 bytes
// wide, a float's width, instead of a double's 8, so the upper half of every
// tile element keeps the shared-memory poison (and the zero-fill half the
// previous value).  The verifier must catch it (kpipe-verify-failed).

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
            __pipeline_memcpy_async(&As[0][ty][tx], kp_src_As, 4, kp_in_As ? 0 : 4);
            const bool kp_in_Bs = kb < K && col < N;
            const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)kb * N + col]
                                             : (const void *)B;
            __pipeline_memcpy_async(&Bs[0][ty][tx], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
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
                __pipeline_memcpy_async(&As[kp_stage ^ 1][ty][tx], kp_src_As, 4, kp_in_As ? 0 : 4);
                const bool kp_in_Bs = kb < K && col < N;
                const void *kp_src_Bs = kp_in_Bs ? (const void *)&B[(size_t)kb * N + col]
                                                 : (const void *)B;
                __pipeline_memcpy_async(&Bs[kp_stage ^ 1][ty][tx], kp_src_Bs, 4, kp_in_Bs ? 0 : 4);
            }
            __pipeline_commit();

#pragma unroll
            for (int k = 0; k < TILE; ++k)
                acc += As[kp_stage][ty][k] * Bs[kp_stage][k][tx];
            kp_stage ^= 1;
        }
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}
