// matmul_guarded.cu - fp32 C = A * B (row-major) for arbitrary M, N, K, with
// 16x16 shared tiles and one output per thread (16x16 thread blocks).
//
// K-loop shape: `for (int k0 = 0; k0 < K; k0 += TILE)`; each tile copy is an
// if/else that stores zero when the element lies outside the matrix, so the
// tiles are fully rewritten every iteration even on the ragged edges.  The
// final store is guarded.  The loop may run zero times (K == 0), once
// (K <= 16) or any number of times.
//
// kpipe: eligible.  Guarded copies map to cp.async with zero-fill (the
// fallback source address must stay valid) or to guarded register loads.

#define TILE 16

__global__ void matmul_guarded(const float *__restrict__ A,
                               const float *__restrict__ B,
                               float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    // kpipe: register staging (prefetch of read-only tiles through __ldca), 2 buffers: requested with --variant register-ca
    {
        int k0 = 0;
        int kp_stage = 0;
        float kp_reg0[1] = {};
        float kp_reg1[1] = {};
        if (k0 < K) {
            if (row < M && k0 + tx < K)
                As[0][ty][tx] = A[(size_t)row * K + k0 + tx];
            else
                As[0][ty][tx] = 0.0f;
            if (k0 + ty < K && col < N)
                Bs[0][ty][tx] = B[(size_t)(k0 + ty) * N + col];
            else
                Bs[0][ty][tx] = 0.0f;
        }
        __syncthreads();
        for (; k0 < K; k0 += TILE) {
            const bool kp_has_next = (k0 + TILE) < K;
            if (kp_has_next) {
                if (row < M && (k0 + TILE) + tx < K)
                    kp_reg0[0] = __ldca(&(A[(size_t)row * K + (k0 + TILE) + tx]));
                else
                    kp_reg0[0] = 0.0f;
                if ((k0 + TILE) + ty < K && col < N)
                    kp_reg1[0] = __ldca(&(B[(size_t)((k0 + TILE) + ty) * N + col]));
                else
                    kp_reg1[0] = 0.0f;
                __syncwarp();
            }

#pragma unroll
            for (int kk = 0; kk < TILE; ++kk)
                acc += As[kp_stage][ty][kk] * Bs[kp_stage][kk][tx];
            {
                As[kp_stage ^ 1][ty][tx] = kp_reg0[0];
                Bs[kp_stage ^ 1][ty][tx] = kp_reg1[0];
            }
            __syncthreads();
            kp_stage ^= 1;
        }
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}
