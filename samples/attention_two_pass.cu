// attention_two_pass.cu - attention forward, fp32, head dimension 32, in two
// passes over the keys: O = softmax(scale * Q K^T) V for each of BH
// independent (batch, head) slices.  Q, K, V and O are [BH][S][32],
// row-major.
//
// One thread per query row (its query vector and output accumulator in
// registers), 32 query rows per block.  Blocks stride over the slices
// (`for (bh = blockIdx.y; bh < BH; bh += gridDim.y)`), and each slice runs
// two K-loops one after the other over the sequence in tiles of 32 keys:
// the first computes the row maximum and the sum of exponentials (online,
// from a tile of K in Ks1), the second, with both known, the final
// probabilities times V (tiles of K and V in Ks2 and Vs).  Each loop copies
// its tiles with float4 copies in a constant-trip loop.  Query rows past S
// are computed but never stored.  S must be a multiple of 32.
//
// kpipe: the slice loop encloses two K-loops, each eligible and each
// pipelined in its own block (the names kpipe declares are local to it).
// The second loop has tiles of its own: had it reused Ks1 for its K tiles,
// both loops would be refused (a tile read after the first loop, used
// before the second).  Doubled, the three 4 KB tiles take 24 KB.

#define AT_D 32
#define AT_KV 32
#define AT_Q 32

__global__ void __launch_bounds__(AT_Q)
attention_two_pass(const float *__restrict__ Q, const float *__restrict__ K,
                   const float *__restrict__ V, float *__restrict__ O, int BH,
                   int S, float scale)
{
    __shared__ __align__(16) float Ks1[AT_KV][AT_D];
    __shared__ __align__(16) float Ks2[AT_KV][AT_D];
    __shared__ __align__(16) float Vs[AT_KV][AT_D];

    const int tid = threadIdx.x;
    const int qrow = blockIdx.x * AT_Q + tid;

    for (int bh = blockIdx.y; bh < BH; bh += gridDim.y) {
        const size_t base = (size_t)bh * S * AT_D;
        float q[AT_D];
#pragma unroll
        for (int d = 0; d < AT_D; ++d)
            q[d] = qrow < S ? Q[base + (size_t)qrow * AT_D + d] * scale : 0.0f;

        // pass 1: the row maximum m and l = sum of exp(score - m)
        float m = -INFINITY;
        float l = 0.0f;
        for (int kv0 = 0; kv0 < S; kv0 += AT_KV) {
#pragma unroll
            for (int i = 0; i < AT_KV * AT_D / 4 / AT_Q; ++i) {
                const int v = tid + i * AT_Q;
                const int r = v / (AT_D / 4);
                const int c = (v % (AT_D / 4)) * 4;
                *reinterpret_cast<float4 *>(&Ks1[r][c]) =
                    *reinterpret_cast<const float4 *>(
                        &K[base + (size_t)(kv0 + r) * AT_D + c]);
            }
            __syncthreads();

            for (int j = 0; j < AT_KV; ++j) {
                float s = 0.0f;
#pragma unroll
                for (int d = 0; d < AT_D; ++d)
                    s += q[d] * Ks1[j][d];
                const float m_new = fmaxf(m, s);
                l = l * expf(m - m_new) + expf(s - m_new);
                m = m_new;
            }
            __syncthreads();
        }

        // pass 2: o = sum of exp(score - m) / l * V
        const float inv = 1.0f / l;
        float o[AT_D];
#pragma unroll
        for (int d = 0; d < AT_D; ++d)
            o[d] = 0.0f;
        for (int kv0 = 0; kv0 < S; kv0 += AT_KV) {
#pragma unroll
            for (int i = 0; i < AT_KV * AT_D / 4 / AT_Q; ++i) {
                const int v = tid + i * AT_Q;
                const int r = v / (AT_D / 4);
                const int c = (v % (AT_D / 4)) * 4;
                *reinterpret_cast<float4 *>(&Ks2[r][c]) =
                    *reinterpret_cast<const float4 *>(
                        &K[base + (size_t)(kv0 + r) * AT_D + c]);
                *reinterpret_cast<float4 *>(&Vs[r][c]) =
                    *reinterpret_cast<const float4 *>(
                        &V[base + (size_t)(kv0 + r) * AT_D + c]);
            }
            __syncthreads();

            for (int j = 0; j < AT_KV; ++j) {
                float s = 0.0f;
#pragma unroll
                for (int d = 0; d < AT_D; ++d)
                    s += q[d] * Ks2[j][d];
                const float p = expf(s - m) * inv;
#pragma unroll
                for (int d = 0; d < AT_D; ++d)
                    o[d] += p * Vs[j][d];
            }
            __syncthreads();
        }

        if (qrow < S) {
#pragma unroll
            for (int d = 0; d < AT_D; ++d)
                O[base + (size_t)qrow * AT_D + d] = o[d];
        }
    }
}
