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

#define HEAD_DIM 64
#define KV_TILE 32
#define Q_ROWS 64

__global__ void __launch_bounds__(Q_ROWS)
attention_kv(const float *__restrict__ Q, const float *__restrict__ K,
             const float *__restrict__ V, float *__restrict__ O, int S,
             float scale)
{
    __shared__ __align__(16) float Ks[KV_TILE][HEAD_DIM];
    __shared__ __align__(16) float Vs[KV_TILE][HEAD_DIM];

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

    for (int kv0 = 0; kv0 < S; kv0 += KV_TILE) {
#pragma unroll
        for (int i = 0; i < KV_TILE * HEAD_DIM / 4 / Q_ROWS; ++i) {
            const int v = tid + i * Q_ROWS;
            const int r = v / (HEAD_DIM / 4);
            const int c = (v % (HEAD_DIM / 4)) * 4;
            *reinterpret_cast<float4 *>(&Ks[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &K[base + (size_t)(kv0 + r) * HEAD_DIM + c]);
            *reinterpret_cast<float4 *>(&Vs[r][c]) =
                *reinterpret_cast<const float4 *>(
                    &V[base + (size_t)(kv0 + r) * HEAD_DIM + c]);
        }
        __syncthreads();

        for (int j = 0; j < KV_TILE; ++j) {
            float s = 0.0f;
#pragma unroll
            for (int d = 0; d < HEAD_DIM; ++d)
                s += q[d] * Ks[j][d];
            const float m_new = fmaxf(m, s);
            const float corr = expf(m - m_new);
            const float p = expf(s - m_new);
            l = l * corr + p;
#pragma unroll
            for (int d = 0; d < HEAD_DIM; ++d)
                o[d] = o[d] * corr + p * Vs[j][d];
            m = m_new;
        }
        __syncthreads();
    }

    if (qrow < S) {
        const float inv = 1.0f / l;
#pragma unroll
        for (int d = 0; d < HEAD_DIM; ++d)
            O[base + (size_t)qrow * HEAD_DIM + d] = o[d] * inv;
    }
}
