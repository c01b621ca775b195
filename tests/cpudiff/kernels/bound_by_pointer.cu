// bound_by_pointer.cu - cuda-convnet2's conv_weight_acts_mc_mf_kepler in
// miniature: tile pointers taken before the loop (`float *aLoad =
// &As[ly][lx]`), and in the K-loop an if/else of two copy loops each, the
// copies under `if (ly < ROWS)` and `if (ly < COLS)` in the then branch
// only, the last pass of a loop kept in the tile by `ROWS % STEP == 0 ||
// y + ly < ROWS`.  Forming &As[ly][lx] is defined only for ly < ROWS, so
// the bounds hold wherever the loop runs: the canon pass drops them and
// fuses the branches into two copy loops of guarded copies (docs/design.md,
// "The canon pass", shape 7).  K is ragged.
#define T 16
#define BX 16
#define BY 8
#define ROWS 24
#define COLS 16
#define STEP ((BX * BY) / T)

__global__ void bound_rows(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int K)
{
    __shared__ float As[ROWS][T];
    __shared__ float Bs[COLS][T + 1];
    const int tidx = BX * threadIdx.y + threadIdx.x;
    const int ly = tidx / T, lx = tidx % T;
    float *aLoad = &As[ly][lx];
    float *bLoad = &Bs[ly][lx];
    const float *a = A + (blockIdx.x * ROWS + ly) * K + lx;
    const float *b = B + (blockIdx.x * COLS + ly) * K + lx;
    float acc[3] = {0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += T) {
        if (k0 + lx < K) {
            if (ly < ROWS) {
#pragma unroll
                for (int y = 0; y < ROWS; y += STEP) {
                    if (ROWS % STEP == 0 || y + ly < ROWS) {
                        aLoad[y * T] = a[y * K + k0];
                    }
                }
            }
            if (ly < COLS) {
#pragma unroll
                for (int y = 0; y < COLS; y += STEP) {
                    if (COLS % STEP == 0 || y + ly < COLS) {
                        bLoad[y * (T + 1)] = b[y * K + k0];
                    }
                }
            }
        } else {
#pragma unroll
            for (int y = 0; y < ROWS; y += STEP) {
                if (ROWS % STEP == 0 || y + ly < ROWS) {
                    aLoad[y * T] = 0;
                }
            }
#pragma unroll
            for (int y = 0; y < COLS; y += STEP) {
                if (COLS % STEP == 0 || y + ly < COLS) {
                    bLoad[y * (T + 1)] = 0;
                }
            }
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < T; i++) {
#pragma unroll
            for (int c = 0; c < 3; c++)
                acc[c] += As[threadIdx.y + c * BY][i] * Bs[threadIdx.x][i];
        }
        __syncthreads();
    }
#pragma unroll
    for (int c = 0; c < 3; c++)
        C[(blockIdx.x * ROWS + threadIdx.y + c * BY) * COLS + threadIdx.x] = acc[c];
}
