// tparam_copy_loops.cu - a template kernel that nothing in its file
// instantiates (the library's launchers live elsewhere), whose copy loops
// count with the template parameters: `for (y = 0; y < ROWS; y += (BX *
// BY) / T)` and `for (c = 0; c < NC; c++)`, as in cuda-convnet2's
// conv_weight_acts_c_kepler and conv_img_acts_manycolor.  The trip counts
// are constants of every instantiation but not of the file, so register
// staging sizes its registers by the same expressions
// (docs/design.md, "Copy loops counted by template parameters").  The
// `ROWS % step == 0 || y + ly < ROWS` guard keeps the last pass in the
// tile when the step does not divide it; K is ragged.
template <int BY, int BX, int ROWS, int T, int NC>
__global__ void tparam_rows(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int K)
{
    __shared__ float As[NC * ROWS][T];
    __shared__ float Bs[T][BX + 1];
    const int tidx = threadIdx.y * BX + threadIdx.x;
    const int ly = tidx / T, lx = tidx % T;
    const int row0 = blockIdx.x * ROWS;
    float acc[NC];
#pragma unroll
    for (int c = 0; c < NC; c++)
        acc[c] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
#pragma unroll
        for (int y = 0; y < ROWS; y += (BX * BY) / T) {
            if (ROWS % ((BX * BY) / T) == 0 || y + ly < ROWS) {
#pragma unroll
                for (int c = 0; c < NC; c++) {
                    if (k0 + lx < K)
                        As[c * ROWS + y + ly][lx] = A[(c * gridDim.x * ROWS + row0 + y + ly) * K + k0 + lx];
                    else
                        As[c * ROWS + y + ly][lx] = 0.0f;
                }
            }
        }
        if (threadIdx.y < T / 2) {
            for (int r = 0; r < T; r += T / 2) {
                if (k0 + r + threadIdx.y < K)
                    Bs[r + threadIdx.y][threadIdx.x] = B[(k0 + r + threadIdx.y) * BX + threadIdx.x];
                else
                    Bs[r + threadIdx.y][threadIdx.x] = 0.0f;
            }
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < T; kk++) {
#pragma unroll
            for (int c = 0; c < NC; c++)
                acc[c] += As[c * ROWS + threadIdx.y % ROWS][kk] * Bs[kk][threadIdx.x];
        }
        __syncthreads();
    }
#pragma unroll
    for (int c = 0; c < NC; c++)
        C[((c * gridDim.x + blockIdx.x) * BY + threadIdx.y) * BX + threadIdx.x] = acc[c];
}
