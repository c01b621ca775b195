// nested_guard.cu - rows of A gathered through a __shared__ offset table
// (-1 for a padding row), copied into the tile under two nested if/else
// guards whose else branches store 0, one copy loop per branch: the shape
// of cuda-convnet2's conv_weight_acts_c_kepler_sw (`if (in range) { const
// int pixIdx = pxIdxes[..]; if (pixIdx >= 0) { for (c) copy } else { for
// (c) 0 } } else { for (c) 0 }`).  kpipe rewrite fuses it into one copy
// loop of guarded copies (docs/design.md, "The canon pass", shape 7) and
// pipelines it; the table is read by the loads and never written in the
// loop (analysis/shared_table.c).  K is ragged.
#define T 16
#define NC 2

__global__ void gather_pad(const float *__restrict__ A, float *__restrict__ C, int K, int W)
{
    __shared__ int offs[T];
    __shared__ float As[NC * T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0) {
        const int r = blockIdx.x * T + tx;
        offs[tx] = r % 3 == 0 ? -1 : r * W;
    }
    __syncthreads();
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + tx < K) {
            const int off = offs[ty];
            if (off >= 0) {
#pragma unroll
                for (int c = 0; c < NC; c++) {
                    As[ty + c * T][tx] = A[off + c * K + k0 + tx];
                }
            } else {
#pragma unroll
                for (int c = 0; c < NC; c++) {
                    As[ty + c * T][tx] = 0;
                }
            }
        } else {
#pragma unroll
            for (int c = 0; c < NC; c++) {
                As[ty + c * T][tx] = 0;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < T; ++kk)
            acc += As[ty][kk] * As[tx + T][kk];
        __syncthreads();
    }
    C[(blockIdx.x * T + ty) * T + tx] = acc;
}
