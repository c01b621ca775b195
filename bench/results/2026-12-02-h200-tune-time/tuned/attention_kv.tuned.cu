// attention_kv.cu - single-pass attention forward, fp32, head dimension 64:
// O = softmax(scale * Q K^T) V for each of BH independent (batch, head)
// slices.  Q, K, V and O are [BH][S][64], row-major.
//
// One thread per query row: its query vector q[64] and output accumulator
// o[64] live in registers, 64 query rows per block.  The loop walks the
// sequence in tiles of 32 keys, copying the K and V tiles to shared memory
// (Ks[32][64], Vs[32][64]) with float4 copies in a constant-trip loop; the
// compute phase keeps a running maximum and sum (online softmax) and rescales
// o as it goes.  Query rows past S are computed but never stored.
//
// K-loop shape: `for (int kv0 = 0; kv0 < S; kv0 += KV_TILE)`; S must be a
// multiple of 32 (it need not be a multiple of the 64-row query block).
//
// kpipe: eligible.  Two 8 KB tiles of pure 16-byte copies; doubled they take
// 32 KB of static shared memory.  Register staging would add 64 registers to
// an already heavy thread and is expected to lose.
#include <cuda_pipeline.h>

#define HEAD_DIM 64
#define KV_TILE 32
#define Q_ROWS 64

__global__ void __launch_bounds__(Q_ROWS)
attention_kv(const float *__restrict__ Q, const float *__restrict__ K,
             const float *__restrict__ V, float *__restrict__ O, int S,
             float scale)
{
    __shared__ __align__(16) float Ks[3][KV_TILE][HEAD_DIM];
    __shared__ __align__(16) float Vs[3][KV_TILE][HEAD_DIM];

    const int tid = threadIdx.x;
    const int qrow = blockIdx.x * Q_ROWS + tid;
    const size_t base = (size_t)blockIdx.y * S * HEAD_DIM;

    float q[HEAD_DIM];
    float o[HEAD_DIM];
#pragma unroll
    for (int d = 0; d < HEAD_DIM; ++d) {
        q[d] = qrow < S ? Q[base + (size_t)qrow * HEAD_DIM + d] * scale : 0.0f;
        o[d] = 0.0f;
    }
    float m = -INFINITY; // running maximum of the scores
    float l = 0.0f;      // running sum of exp(score - m)

    // kpipe: cp.async, 3 stages: requested with --variant cp-async
    {
        int kv0 = 0;
        int kp_stage = 0;
        if (kv0 < S) {
#pragma unroll
            for (int i = 0; i < KV_TILE * HEAD_DIM / 4 / Q_ROWS; ++i) {
                const int v = tid + i * Q_ROWS;
                const int r = v / (HEAD_DIM / 4);
                const int c = (v % (HEAD_DIM / 4)) * 4;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Ks[0][r][c]), &*reinterpret_cast<const float4 *>(
                        &K[base + (size_t)(kv0 + r) * HEAD_DIM + c]), 16);
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Vs[0][r][c]), &*reinterpret_cast<const float4 *>(
                        &V[base + (size_t)(kv0 + r) * HEAD_DIM + c]), 16);
            }
        }
        __pipeline_commit();
        if ((kv0 + KV_TILE) < S) {
#pragma unroll
            for (int i = 0; i < KV_TILE * HEAD_DIM / 4 / Q_ROWS; ++i) {
                const int v = tid + i * Q_ROWS;
                const int r = v / (HEAD_DIM / 4);
                const int c = (v % (HEAD_DIM / 4)) * 4;
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Ks[1][r][c]), &*reinterpret_cast<const float4 *>(
                        &K[base + (size_t)((kv0 + KV_TILE) + r) * HEAD_DIM + c]), 16);
                __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Vs[1][r][c]), &*reinterpret_cast<const float4 *>(
                        &V[base + (size_t)((kv0 + KV_TILE) + r) * HEAD_DIM + c]), 16);
            }
        }
        __pipeline_commit();
        for (; kv0 < S; kv0 += KV_TILE) {
            __pipeline_wait_prior(1);
            __syncthreads();
            if ((kv0 + 2 * (KV_TILE)) < S) {
#pragma unroll
                for (int i = 0; i < KV_TILE * HEAD_DIM / 4 / Q_ROWS; ++i) {
                    const int v = tid + i * Q_ROWS;
                    const int r = v / (HEAD_DIM / 4);
                    const int c = (v % (HEAD_DIM / 4)) * 4;
                    __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Ks[(kp_stage + 2) % 3][r][c]), &*reinterpret_cast<const float4 *>(
                            &K[base + (size_t)((kv0 + 2 * (KV_TILE)) + r) * HEAD_DIM + c]), 16);
                    __pipeline_memcpy_async(&*reinterpret_cast<float4 *>(&Vs[(kp_stage + 2) % 3][r][c]), &*reinterpret_cast<const float4 *>(
                            &V[base + (size_t)((kv0 + 2 * (KV_TILE)) + r) * HEAD_DIM + c]), 16);
                }
            }
            __pipeline_commit();

            for (int j = 0; j < KV_TILE; ++j) {
                float s = 0.0f;
#pragma unroll
                for (int d = 0; d < HEAD_DIM; ++d)
                    s += q[d] * Ks[kp_stage][j][d];
                const float m_new = fmaxf(m, s);
                const float corr = expf(m - m_new);
                const float p = expf(s - m_new);
                l = l * corr + p;
#pragma unroll
                for (int d = 0; d < HEAD_DIM; ++d)
                    o[d] = o[d] * corr + p * Vs[kp_stage][j][d];
                m = m_new;
            }
            kp_stage = kp_stage == 2 ? 0 : kp_stage + 1;
        }
        __pipeline_wait_prior(0);
    }

    if (qrow < S) {
        const float inv = 1.0f / l;
#pragma unroll
        for (int d = 0; d < HEAD_DIM; ++d)
            O[base + (size_t)qrow * HEAD_DIM + d] = o[d] * inv;
    }
}
