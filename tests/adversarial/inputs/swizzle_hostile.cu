// adversarial input for `rewrite --pad-only --swizzle --block 32`: shared
// arrays whose names, indexes and access forms try to fool the XOR swizzle.
// Expected: s2 and s4 swizzled (every access), s1 and s3 padded with the
// reason they were not swizzled; the output compiles and a second run
// changes nothing.
#include <cuda_runtime.h>

__global__ void hostile(const float *in, float *out)
{
    const int tx = threadIdx.x;
    float acc = 0;
    // s1: an inner variable of the same name hides accesses kpipe must not miss
    __shared__ float s1[32][32];
    s1[0][tx] = in[tx];
    __syncthreads();
    acc += s1[tx][0];
    {
        float s1 = 2.0f;
        acc += s1;
    }
    // s2: named in comments (s2[tx][0]), a string and a char, which are no
    // accesses: "s2[tx][0]" 's'
    __shared__ float s2[32][32];
    s2[0][tx] = in[tx] + (sizeof("s2[tx][0]") > 0 ? 1.0f : 0.0f);
    __syncthreads();
    acc += s2[tx][0];
    // s3: a row index with a side effect
    __shared__ float s3[32][32];
    int i = tx;
    s3[i++][0] = in[tx];
    __syncthreads();
    acc += s3[tx][0] + (float)i;
    // s4: parentheses around the chain
    __shared__ float s4[32][32];
    (s4[0])[tx] = in[tx];
    __syncthreads();
    acc += (s4[tx])[0];
    out[tx] = acc;
}

void launch(const float *in, float *out)
{
    hostile<<<1, 32>>>(in, out);
}
