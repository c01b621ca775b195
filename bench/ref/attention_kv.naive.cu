// attention_kv.naive.cu - naive reference for samples/attention_kv.cu:
// two-pass softmax per query row (maximum, then weighted sum), one query row
// per loop step.  The number of (batch, head) slices is gridDim.y.
#include "naive_common.cuh"

__global__ void attention_kv(const float *Q, const float *K, const float *V, float *O, int S,
                             float scale)
{
    const long rows = (long)gridDim.y * S;
    for (long e = naive_tid(); e < rows; e += naive_nthreads()) {
        const long base = (e / S) * S * 64;
        const float *q = Q + e * 64;
        float m = -INFINITY;
        for (int j = 0; j < S; ++j) {
            float s = 0.0f;
            for (int d = 0; d < 64; ++d)
                s += q[d] * scale * K[base + (long)j * 64 + d];
            m = fmaxf(m, s);
        }
        float l = 0.0f;
        float o[64];
        for (int d = 0; d < 64; ++d)
            o[d] = 0.0f;
        for (int j = 0; j < S; ++j) {
            float s = 0.0f;
            for (int d = 0; d < 64; ++d)
                s += q[d] * scale * K[base + (long)j * 64 + d];
            const float p = expf(s - m);
            l += p;
            for (int d = 0; d < 64; ++d)
                o[d] += p * V[base + (long)j * 64 + d];
        }
        for (int d = 0; d < 64; ++d)
            O[e * 64 + d] = o[d] / l;
    }
}
