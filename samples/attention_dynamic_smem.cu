// attention_dynamic_smem.cu - single-pass attention forward, fp32, head
// dimension 32, written the way minimal FlashAttention tutorials write it:
// the K and V tiles are carved out of one `extern __shared__` array at
// offsets known only at run time (`float *Vj = &sram[tile_size];` with
// tile_size = Bc * 32, Bc a kernel argument), and the launch passes their
// bytes.  O = softmax(scale * Q K^T) V for each of BH (batch, head) slices;
// Q, K, V and O are [BH][S][32], row-major.  One thread per query row (its
// q and o in registers), Bc threads and Bc query rows per block; each
// thread copies one row of the K and V tiles.  S must be a multiple of Bc.
//
// kpipe: eligible.  The tiles are dynamic shared memory: every stage is a
// copy of the whole region (the launch's bytes divided by the stages, read
// from %dynamic_smem_size, apart), and every launch must pass the stages
// times its bytes.  This file has no launch: kpipe writes the bytes in a
// kpipe-launch line for validate and tune, and warns
// (kpipe-dynamic-smem-launch).

#define HEAD_DIM 32

__global__ void attention_dynamic_smem(const float *__restrict__ Q,
                                       const float *__restrict__ K,
                                       const float *__restrict__ V,
                                       float *__restrict__ O, int S, int Bc,
                                       float scale)
{
    extern __shared__ float sram[];
    const int tile_size = Bc * HEAD_DIM;
    float *Kj = sram;
    float *Vj = &sram[tile_size];

    const int tx = threadIdx.x;
    const int qrow = blockIdx.x * Bc + tx;
    const size_t base = (size_t)blockIdx.y * S * HEAD_DIM;

    float q[HEAD_DIM];
    float o[HEAD_DIM];
    for (int x = 0; x < HEAD_DIM; x++) {
        q[x] = Q[base + (size_t)qrow * HEAD_DIM + x] * scale;
        o[x] = 0.0f;
    }
    float m = -INFINITY;
    float l = 0.0f;

    for (int kv0 = 0; kv0 < S; kv0 += Bc) {
        for (int x = 0; x < HEAD_DIM; x++) {
            Kj[(tx * HEAD_DIM) + x] = K[base + (size_t)(kv0 + tx) * HEAD_DIM + x];
            Vj[(tx * HEAD_DIM) + x] = V[base + (size_t)(kv0 + tx) * HEAD_DIM + x];
        }
        __syncthreads();

        for (int y = 0; y < Bc; y++) {
            float s = 0.0f;
            for (int x = 0; x < HEAD_DIM; x++)
                s += q[x] * Kj[(y * HEAD_DIM) + x];
            const float m_new = fmaxf(m, s);
            const float corr = expf(m - m_new);
            const float p = expf(s - m_new);
            l = l * corr + p;
            for (int x = 0; x < HEAD_DIM; x++)
                o[x] = o[x] * corr + p * Vj[(y * HEAD_DIM) + x];
            m = m_new;
        }
        __syncthreads();
    }

    const float inv = 1.0f / l;
    for (int x = 0; x < HEAD_DIM; x++)
        O[base + (size_t)qrow * HEAD_DIM + x] = o[x] * inv;
}
